// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The read side of revocable domains: per-CPU access counts that readers
 * update without a memory barrier, and grace periods that get their
 * ordering from synchronize_rcu().
 *
 * A reader reads the current index, increments its CPU's lock count for
 * that index, and later increments the unlock count for the same index on
 * whatever CPU it then runs on.  Each increment is one this_cpu_inc(): it
 * cannot be torn by an interrupt, and it runs with preemption disabled, so
 * it is an RCU read-side critical section of its own.
 *
 * A grace period waits for the readers of one index to drain by reading
 * the sum of its unlock counts, calling synchronize_rcu(), then reading
 * the sum of its lock counts; equal sums mean drained:
 *
 * - A reader whose unlock the first sum counted ran that increment before
 *   synchronize_rcu() began.  Before the grace period can end, the
 *   reader's CPU executes a full barrier after it (noticing the grace
 *   period, or the expedited IPI), so every access the reader made to the
 *   resource is over before the caller frees anything.
 * - A reader whose lock the second sum missed did not finish that
 *   increment before synchronize_rcu() ended, so its CPU executed that
 *   full barrier after the grace period began and before the increment in
 *   program order: whatever the reader loads afterwards sees what the
 *   updater stored before the grace period, the cleared resource pointer.
 *   It gets NULL, and it may run on.
 * - So equal sums leave no reader that got the resource and has not ended:
 *   each such reader would add a lock to the second sum and no unlock to
 *   the first, and no unlock can be counted without its lock.
 *
 * Counter wrap would need ULONG_MAX accesses to start between two sums of
 * one drain, and the stragglers are bounded by the number of tasks.
 *
 * The sums are not atomic snapshots, and an access that began before one
 * grace period may still be running in the next, which is why there are
 * two indexes.  A grace period first waits for stragglers on the index
 * new readers do not use (a reader that read the index just before the
 * last flip and incremented after it), flips the index so that new readers
 * stop adding to the other one, and waits for that one: readers that keep
 * arriving cannot hold it off.  model/kernel.pml checks this protocol with
 * spin, under store buffering and with a reader's loads allowed to pass
 * its stores, and shows that dropping any of its steps is caught.
 *
 * With no reader inside at the start, a grace period drains both indexes
 * at once, with one synchronize_rcu() between their sums and no flip
 * (revocable_srcu_gp_quick()); otherwise it runs as above, a flip and two
 * drains.  A device's removal, whose readers have usually left by then,
 * so waits for one grace period of RCU, not two.
 *
 * Synchronous grace periods (a revoke waiting for readers) use
 * synchronize_rcu_expedited(): removal latency matters there, and revokes
 * are rare.  Callbacks are batched into a work item that uses
 * synchronize_rcu(); they run with bottom halves disabled, as SRCU's do.
 */
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/error-injection.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/revocable_srcu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

/*
 * A wait for readers polls first after REVOCABLE_SRCU_MIN_POLL_US, then
 * twice as long each time, up to REVOCABLE_SRCU_MAX_POLL jiffies apart: a
 * reader that the revoker has just woken leaves within microseconds, and
 * should not cost the revoker a jiffy; one that sleeps costs polls.
 */
#define REVOCABLE_SRCU_MIN_POLL_US	10
#define REVOCABLE_SRCU_MAX_POLL		2

/* Report every @every_ms a wait lasts, through @report; 0: never. */
struct revocable_srcu_wait {
	unsigned int every_ms;
	void (*report)(void *arg, unsigned int waited_ms);
	void *arg;
	unsigned long start;
	unsigned long next;
};

static unsigned long revocable_srcu_sum(struct revocable_srcu *ssp, int idx,
					bool locks)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct revocable_srcu_ctr *c =
			&per_cpu_ptr(ssp->sda, cpu)->ctr[idx];

		sum += locks ? READ_ONCE(c->locks) : READ_ONCE(c->unlocks);
	}
	return sum;
}

/* Sleep before the next look, @delay_us long (doubled for the next one). */
static void revocable_srcu_poll(struct revocable_srcu_wait *w,
				unsigned long *delay_us)
{
	unsigned long max_us = jiffies_to_usecs(REVOCABLE_SRCU_MAX_POLL);

	if (w && w->every_ms && time_after_eq(jiffies, w->next)) {
		w->report(w->arg, jiffies_to_msecs(jiffies - w->start));
		w->next = jiffies + msecs_to_jiffies(w->every_ms);
	}
	if (*delay_us < jiffies_to_usecs(1))
		usleep_range(*delay_us, 2 * *delay_us);
	else
		schedule_timeout_uninterruptible(usecs_to_jiffies(*delay_us));
	*delay_us = min(*delay_us * 2, max_us);
}

/* Wait until no reader is inside a section counted under @idx. */
static void revocable_srcu_drain(struct revocable_srcu *ssp, int idx,
				 bool expedite, struct revocable_srcu_wait *w)
{
	unsigned long unlocks, delay = REVOCABLE_SRCU_MIN_POLL_US;

	for (;;) {
		unlocks = revocable_srcu_sum(ssp, idx, false);
		/*
		 * A quick look first, so that a reader sleeping in its
		 * access costs polls, not a grace period of RCU each.
		 */
		if (revocable_srcu_sum(ssp, idx, true) != unlocks) {
			revocable_srcu_poll(w, &delay);
			continue;
		}
		if (expedite)
			synchronize_rcu_expedited();
		else
			synchronize_rcu();
		if (revocable_srcu_sum(ssp, idx, true) == unlocks)
			return;
	}
}

/*
 * Both indexes drained with one grace period of RCU: a drain of each,
 * their unlock sums read before a shared synchronize_rcu() and their lock
 * sums after.  Each drain protects every reader counting under its index
 * whatever the index is meanwhile (the argument above never uses the
 * flip), so when both balance no reader is left, and no flip is needed.
 * Readers inside at the time make it fail: not worth a grace period then.
 * False when a full grace period must run.
 */
static bool revocable_srcu_gp_quick(struct revocable_srcu *ssp, bool expedite)
{
	unsigned long unlocks[2];
	int idx;

	for (idx = 0; idx < 2; idx++) {
		unlocks[idx] = revocable_srcu_sum(ssp, idx, false);
		if (revocable_srcu_sum(ssp, idx, true) != unlocks[idx])
			return false;
	}
	if (expedite)
		synchronize_rcu_expedited();
	else
		synchronize_rcu();
	for (idx = 0; idx < 2; idx++)
		if (revocable_srcu_sum(ssp, idx, true) != unlocks[idx])
			return false;
	return true;
}

static void revocable_srcu_gp(struct revocable_srcu *ssp, bool expedite,
			      struct revocable_srcu_wait *w)
{
	unsigned int idx;

	lockdep_assert_held(&ssp->gp_lock);
	if (revocable_srcu_gp_quick(ssp, expedite))
		return;
	idx = ssp->idx & 1;
	/* Stragglers that read the other index before the last flip. */
	revocable_srcu_drain(ssp, idx ^ 1, expedite, w);
	/* Two stores: a reader uses one or the other, never both. */
	WRITE_ONCE(ssp->idx, idx ^ 1);
	WRITE_ONCE(ssp->ctrp, &ssp->sda->ctr[idx ^ 1]);
	revocable_srcu_drain(ssp, idx, expedite, w);
}

/**
 * __revocable_srcu_init() - set up a domain's read side
 * @ssp: the read side
 * @name: lockdep's name for @ssp's readers
 * @key: lockdep's class for @ssp's readers
 *
 * Use revocable_srcu_init(), which supplies @key.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM.
 */
int __revocable_srcu_init(struct revocable_srcu *ssp, const char *name,
			  struct lock_class_key *key)
{
	ssp->sda = alloc_percpu(struct revocable_srcu_data);
	if (!ssp->sda)
		return -ENOMEM;
	ssp->idx = 0;
	ssp->ctrp = &ssp->sda->ctr[0];
	mutex_init(&ssp->gp_lock);
	spin_lock_init(&ssp->cb_lock);
	ssp->cbs = NULL;
	ssp->cbs_tail = &ssp->cbs;
	ssp->cb_queued = 0;
	ssp->cb_done = 0;
	init_waitqueue_head(&ssp->cb_wq);
	INIT_WORK(&ssp->cb_work, __revocable_srcu_cb_work);
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	lockdep_init_map(&ssp->dep_map, name, key, 0);
#endif
	return 0;
}
EXPORT_SYMBOL_GPL(__revocable_srcu_init);
ALLOW_ERROR_INJECTION(__revocable_srcu_init, ERRNO);

/**
 * revocable_srcu_cleanup() - tear down a domain's read side
 * @ssp: the read side, set up by revocable_srcu_init()
 *
 * Runs the callbacks still queued first.
 *
 * Context: process context; may sleep.
 * Return: 0; -EBUSY, with a warning, when readers are still inside or
 * callbacks were queued meanwhile: then nothing is freed, and the caller
 * must not free @ssp either, since those readers and callbacks will use
 * it.
 */
int revocable_srcu_cleanup(struct revocable_srcu *ssp)
{
	int idx;

	revocable_srcu_barrier(ssp);
	if (WARN_ONCE(READ_ONCE(ssp->cbs) || work_pending(&ssp->cb_work),
		      "revocable_srcu: cleanup with callbacks queued\n"))
		return -EBUSY;
	for (idx = 0; idx < 2; idx++)
		if (WARN_ONCE(revocable_srcu_sum(ssp, idx, true) !=
			      revocable_srcu_sum(ssp, idx, false),
			      "revocable_srcu: cleanup with readers inside\n"))
			return -EBUSY;
	flush_work(&ssp->cb_work);
	free_percpu(ssp->sda);
	ssp->sda = NULL;
	ssp->ctrp = NULL;
	return 0;
}
EXPORT_SYMBOL_GPL(revocable_srcu_cleanup);

/**
 * revocable_srcu_synchronize_report() - wait for the readers, reporting
 * @ssp: the read side
 * @every_ms: call @report each time the wait has lasted another @every_ms;
 *	0 never calls it
 * @report: the report, called in the caller's context with the time
 *	waited so far
 * @arg: passed to @report
 *
 * Returns once every read-side section of @ssp that began before the call
 * has ended.  Uses expedited RCU grace periods: a revoke waits here.
 *
 * Context: process context, outside every section of @ssp; may sleep.
 */
void revocable_srcu_synchronize_report(struct revocable_srcu *ssp,
				       unsigned int every_ms,
				       void (*report)(void *arg,
						      unsigned int waited_ms),
				       void *arg)
{
	struct revocable_srcu_wait w = {
		.every_ms = report ? every_ms : 0,
		.report = report,
		.arg = arg,
		.start = jiffies,
		.next = jiffies + msecs_to_jiffies(every_ms),
	};
	unsigned long delay = REVOCABLE_SRCU_MIN_POLL_US;

	might_sleep();
	RCU_LOCKDEP_WARN(revocable_srcu_read_lock_held(ssp),
			 "revocable_srcu grace period inside its own read side");
	/*
	 * Another grace period of the domain may be waiting for a reader
	 * that sleeps: wait for it the way the grace period waits for
	 * readers, so that this wait is reported and never looks hung.
	 */
	while (!mutex_trylock(&ssp->gp_lock))
		revocable_srcu_poll(&w, &delay);
	revocable_srcu_gp(ssp, true, &w);
	mutex_unlock(&ssp->gp_lock);
}
EXPORT_SYMBOL_GPL(revocable_srcu_synchronize_report);

/**
 * revocable_srcu_synchronize() - wait for the readers
 * @ssp: the read side
 *
 * Context: as revocable_srcu_synchronize_report().
 */
void revocable_srcu_synchronize(struct revocable_srcu *ssp)
{
	revocable_srcu_synchronize_report(ssp, 0, NULL, NULL);
}
EXPORT_SYMBOL_GPL(revocable_srcu_synchronize);

/**
 * revocable_srcu_call() - call a function once the current readers are gone
 * @ssp: the read side
 * @head: storage for the call, until @func runs
 * @func: the function, called with @head from a work item with bottom
 *	halves disabled, after every read-side section of @ssp that began
 *	before the call has ended
 *
 * Context: any context but NMI.
 */
void revocable_srcu_call(struct revocable_srcu *ssp, struct rcu_head *head,
			 rcu_callback_t func)
{
	unsigned long flags;

	head->func = func;
	head->next = NULL;
	spin_lock_irqsave(&ssp->cb_lock, flags);
	*ssp->cbs_tail = head;
	ssp->cbs_tail = &head->next;
	WRITE_ONCE(ssp->cb_queued, ssp->cb_queued + 1);
	spin_unlock_irqrestore(&ssp->cb_lock, flags);
	queue_work(system_unbound_wq, &ssp->cb_work);
}
EXPORT_SYMBOL_GPL(revocable_srcu_call);

/* The callbacks' work: one grace period per batch taken off the queue. */
void __revocable_srcu_cb_work(struct work_struct *work)
{
	struct revocable_srcu *ssp =
		container_of(work, struct revocable_srcu, cb_work);
	struct rcu_head *head, *next;
	unsigned long n;

	for (;;) {
		spin_lock_irq(&ssp->cb_lock);
		head = ssp->cbs;
		ssp->cbs = NULL;
		ssp->cbs_tail = &ssp->cbs;
		spin_unlock_irq(&ssp->cb_lock);
		if (!head)
			return;
		mutex_lock(&ssp->gp_lock);
		revocable_srcu_gp(ssp, false, NULL);
		mutex_unlock(&ssp->gp_lock);
		for (n = 0; head; head = next, n++) {
			next = head->next;
			local_bh_disable();
			head->func(head);
			local_bh_enable();
		}
		/* Pairs with revocable_srcu_done(): the callbacks ran first. */
		smp_store_release(&ssp->cb_done, ssp->cb_done + n);
		wake_up_all(&ssp->cb_wq);
		cond_resched();
	}
}
EXPORT_SYMBOL_GPL(__revocable_srcu_cb_work);

static bool revocable_srcu_done(struct revocable_srcu *ssp,
				unsigned long target)
{
	/* Pairs with __revocable_srcu_cb_work(): the callbacks ran first. */
	return (long)(smp_load_acquire(&ssp->cb_done) - target) >= 0;
}

/**
 * revocable_srcu_barrier() - wait for the callbacks queued so far
 * @ssp: the read side
 *
 * Callbacks that those callbacks queue are not waited for.
 *
 * Context: process context, not from one of @ssp's callbacks; may sleep.
 */
void revocable_srcu_barrier(struct revocable_srcu *ssp)
{
	unsigned long target;

	might_sleep();
	/*
	 * Lockless: a callback queued before the call is counted in what
	 * this reads, and with nothing pending (a device's removal, as a
	 * rule) the barrier costs two loads.
	 */
	target = READ_ONCE(ssp->cb_queued);
	wait_event(ssp->cb_wq, revocable_srcu_done(ssp, target));
}
EXPORT_SYMBOL_GPL(revocable_srcu_barrier);
