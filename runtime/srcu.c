// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Userspace SRCU: the grace-period side.
 *
 * Readers count srcu_read_lock() and srcu_read_unlock() per thread, per
 * domain slot, per read index (see <linux/srcu.h>).  No reader is inside a
 * section counted under index i once the sum of unlock counts for i over
 * all threads equals the sum of lock counts for i.  The unlock sum is read
 * first and the lock sum after a full barrier on every thread: an unlock
 * that is seen therefore always has its lock seen too, and the test can only
 * err towards waiting.  A grace period waits for the index readers are not
 * using (a reader may still be about to count under it), flips the index,
 * then waits for the index they were using.  As in the kernel, a reader
 * that picked the old index late started after the updater's barrier, so
 * it already sees the update.
 *
 * A thread's block leaves the sums when the thread exits, under the same
 * lock the sums are read under; its sections are released with it (see
 * thread.c).
 *
 * call_srcu() callbacks run on one worker thread per domain, started on
 * first use.  When no thread can be started, callers that may wait run
 * the queue themselves (see call_srcu()).  fork() (thread.c) must find no
 * callback half run and no batch lost: callbacks run inside a gate that
 * the prepare handler shuts and waits to empty, and the batch a worker has
 * taken off the queue stays visible in cb_inflight until it starts
 * running, so that the child can queue it again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/bug.h>
#include <runtime/annotate.h>
#include <linux/errno.h>
#include <linux/printk.h>
#include <linux/debug_locks.h>
#include <linux/srcu.h>

#include "runtime.h"

/*
 * Domain ids.  The table names the domain of each id below the limit;
 * freed ids wait on a stack to be handed out again, newest first, and the
 * limit doubles when none is free.  Before it does, every thread is given
 * slots for the new ids (compat_slots_reserve()), so that a read lock
 * never allocates.  Registry lock.
 */
static struct srcu_struct **compat_srcu_domains;
static unsigned int compat_srcu_id_limit = COMPAT_SRCU_FIRST_SLOTS;
static unsigned int srcu_ids_used;	/* ids below it were handed out once */
static unsigned int *srcu_free_ids;	/* room for compat_srcu_id_limit */
static unsigned int srcu_nr_free;

/* <revocable.h>'s inline accessors reach the reader's part by a cast. */
static_assert(offsetof(struct srcu_struct, reader) == 0,
	      "struct srcu_struct must start with its reader's part");

/*
 * Whether no registered thread is inside a section of @ssp counted under
 * index @idx.  A section begins and ends in one thread, whose counters only
 * it writes, so each thread is checked on its own: its unlock count, then
 * (ordered after it by the acquire) its lock count.  A lock increment we
 * miss is one made after membarrier (1) of synchronize_srcu(); an unlock
 * increment we see without its lock cannot make the two equal.  A thread
 * that exits takes its block, and any section it left open, with it.
 */
static bool srcu_idx_drained(struct srcu_struct *ssp, int idx)
{
	const struct compat_thread *t;
	const struct __revocable_slot *c;
	unsigned long lock[2], unlock[2];
	bool drained = true;
	int id = ssp->reader.id;

	compat_registry_lock();
	compat_for_each_thread(t) {
		/*
		 * No slot yet: the thread never entered the domain.  The
		 * counts are summed over the thread's arrays, unlocks first
		 * (acquire: pairs with the TSan build's release in unlock).
		 */
		if (!compat_thread_count(t, id, lock, unlock))
			continue;
		if (lock[idx] != unlock[idx]) {
			drained = false;
			break;
		}
		/* Where the thread counts now, for TSan's pairing. */
		c = __atomic_load_n(&t->reader.slot, __ATOMIC_RELAXED);
		if ((unsigned int)id < READ_ONCE(t->nr_slots))
			compat_hb_after_reader(t, &c[id].unlock[idx]);
	}
	compat_registry_unlock();
	return drained;
}

/*
 * Counts that can never balance: a thread has counted more unlocks than
 * locks under an index of @ssp (an unlock under the wrong index, which is
 * also what a lost update leaves).  Says so, naming the domain and the
 * thread, once per grace period, when two looks in a row find it (on a
 * weakly ordered machine one look can see a fresh unlock before its lock);
 * the grace period then waits for good, as the kernel's would.  @state: 0,
 * 1 when the last look found it, 2 when said.
 */
static void srcu_check_counts(struct srcu_struct *ssp, int *state)
{
	const struct compat_thread *t;
	unsigned long lock[2], unlock[2];
	bool found = false;
	char name[16];

	if (*state == 2)
		return;
	compat_registry_lock();
	compat_for_each_thread(t) {
		if (!compat_thread_count(t, ssp->reader.id, lock, unlock) ||
		    ((long)(lock[0] - unlock[0]) >= 0 &&
		     (long)(lock[1] - unlock[1]) >= 0))
			continue;
		found = true;
		if (*state != 1)
			continue;
		compat_thread_name(t, name, sizeof(name));
		fprintf(compat_log_stream(),
			"revocable: SRCU %s: the counts of thread %d (%s) do not add up (read index 0: %lu locks, %lu unlocks; index 1: %lu locks, %lu unlocks): an unlock under the wrong index, or a lost count; this grace period cannot end\n",
			ssp->name, t->tid, name, lock[0], unlock[0], lock[1],
			unlock[1]);
	}
	compat_registry_unlock();
	*state = found ? *state + 1 : 0;
}

struct srcu_reporter {
	unsigned int every_ms;
	void (*report)(void *arg, unsigned int waited_ms);
	void *arg;
	struct timespec start;
	unsigned int next_ms;
	int counts;		/* srcu_check_counts() */
};

static unsigned int srcu_ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (unsigned int)((now.tv_sec - start->tv_sec) * 1000 +
			      (now.tv_nsec - start->tv_nsec) / 1000000);
}

static void srcu_wait_idx(struct srcu_struct *ssp, int idx,
			  struct srcu_reporter *rep)
{
	struct timespec ts = { 0, 2000 };
	unsigned int tries = 0, waited;

	while (!srcu_idx_drained(ssp, idx)) {
		if (rep) {
			waited = srcu_ms_since(&rep->start);
			if (waited >= rep->next_ms) {
				rep->report(rep->arg, waited);
				srcu_check_counts(ssp, &rep->counts);
				rep->next_ms = waited + rep->every_ms;
			}
		}
		if (++tries < 8) {
			sched_yield();
			continue;
		}
		nanosleep(&ts, NULL);
		if (ts.tv_nsec < 1000000)
			ts.tv_nsec *= 2;
	}
}

/*
 * A free domain id, or -ENOMEM; registry lock held.  When none is free the
 * limit doubles: the table and the stack of free ids grow, and every
 * thread gets slots for the new ids first.  A failure leaves the limit as
 * it was (what did grow stays, unused).
 */
static int srcu_id_get(void)
{
	unsigned int limit = compat_srcu_id_limit, *ids;
	struct srcu_struct **table;

	if (srcu_nr_free)
		return (int)srcu_free_ids[--srcu_nr_free];
	if (!compat_srcu_domains) {
		compat_srcu_domains = calloc(limit, sizeof(*compat_srcu_domains));
		srcu_free_ids = calloc(limit, sizeof(*srcu_free_ids));
		if (!compat_srcu_domains || !srcu_free_ids) {
			free(compat_srcu_domains);
			free(srcu_free_ids);
			compat_srcu_domains = NULL;
			srcu_free_ids = NULL;
			return -ENOMEM;
		}
	}
	if (srcu_ids_used < limit)
		return (int)srcu_ids_used++;
	if (limit > INT_MAX / 2)
		return -ENOMEM;
	table = realloc(compat_srcu_domains, 2 * (size_t)limit * sizeof(*table));
	if (!table)
		return -ENOMEM;
	memset(table + limit, 0, limit * sizeof(*table));
	compat_srcu_domains = table;
	ids = realloc(srcu_free_ids, 2 * (size_t)limit * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	srcu_free_ids = ids;
	if (compat_slots_reserve(2 * limit))
		return -ENOMEM;
	compat_srcu_id_limit = 2 * limit;
	return (int)srcu_ids_used++;
}

int __init_srcu_struct(struct srcu_struct *ssp, const char *name)
{
	pthread_condattr_t attr;
	int id;

	memset(ssp, 0, sizeof(*ssp));
	ssp->reader.id = -1;
	compat_race_by_design(&ssp->reader.idx, sizeof(ssp->reader.idx));
	ssp->name = name;
	compat_registry_lock();
	id = srcu_id_get();
	if (id >= 0)
		compat_srcu_domains[id] = ssp;
	compat_registry_unlock();
	if (id < 0) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	ssp->reader.id = id;

	pthread_mutex_init(&ssp->gp_lock, NULL);
	pthread_mutex_init(&ssp->cb_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ssp->cb_cond, &attr);
	pthread_cond_init(&ssp->cb_done_cond, &attr);
	pthread_condattr_destroy(&attr);
	ssp->cb_tail = &ssp->cb_head;
	return 0;
}

void compat_srcu_static_init_failed(const char *name)
{
	fprintf(stderr, "revocable: no memory at load time for static domain %s\n",
		name);
	abort();
}

void compat_srcu_set_name(struct srcu_struct *ssp, const char *name)
{
	if (name)
		WRITE_ONCE(ssp->name, name);
}

/*
 * The locks a grace period or a call_srcu() of @ssp takes, held by the
 * calling thread: only a signal handler that interrupted it there can be
 * calling, and any wait would be on itself.  See compat_lock().
 */
bool compat_srcu_would_deadlock(const struct srcu_struct *ssp)
{
	if (compat_holds_none())
		return false;
	return compat_registry_held() || compat_mb_lock_held() ||
	       compat_holds(&ssp->gp_lock) || compat_holds(&ssp->cb_lock);
}

static unsigned long srcu_gp_count;

unsigned long compat_srcu_gp_count(void)
{
	return __atomic_load_n(&srcu_gp_count, __ATOMIC_SEQ_CST);
}

/*
 * A grace period issues two membarrier() calls, as liburcu's does.  Each
 * stands for the full barrier that every running thread executes on our
 * behalf (readers here have only compiler barriers):
 *
 * (1) At the start, after the caller's updates (a cleared resource
 *     pointer): a reader whose lock increment we do not see afterwards had
 *     not passed that barrier when we issued it, so everything it loads
 *     later sees the updates, and it cannot reach what the caller is about
 *     to free.  The increment of every other reader is visible to the
 *     loads of srcu_idx_drained().
 * (2) At the end, once every counted reader's unlock increment is seen:
 *     each of them then executes a full barrier after that increment, so
 *     the accesses of its section, which come before it in program order,
 *     are complete before the caller frees anything.
 *
 * Between them only the order of this thread's own accesses matters: the
 * flip sends new readers to the index already drained, so that readers
 * that keep arriving cannot hold off the second wait; readers that still
 * count under the old index after it began after (1) and are harmless,
 * and there are finitely many.  Old readers may count under either index
 * (they read the index before an earlier flip), hence both waits.  The
 * model (model/revocable.pml) checks this counting; TSan follows it through the
 * release/acquire pair on the unlock counter.
 *
 * When membarrier() fails here (a seccomp filter installed after start-up
 * denies it), compat_mb_all_threads() switches every reader to fences for
 * the rest of the process and, in place of the barrier that failed, runs
 * a heavy barrier of its own: a signal to each task that may be running,
 * whose handler fences.  Each thread then passes a full barrier after the
 * switch is visible to it: what it did before is covered as (1) or (2)
 * would have covered it, what it does after fences by itself.  The full
 * argument is compat_mb_lost()'s, in thread.c.
 */
static void srcu_grace_period(struct srcu_struct *ssp,
			      struct srcu_reporter *rep)
{
	struct compat_held h;
	int idx;

	/* Registered, so that gp_lock is recorded for our handlers. */
	(void)compat_thread_self();
	compat_lock(&ssp->gp_lock, &h);
	compat_mb_all_threads();			/* (1) */
	idx = READ_ONCE(ssp->reader.idx) & 1;
	srcu_wait_idx(ssp, idx ^ 1, rep);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	WRITE_ONCE(ssp->reader.idx, ssp->reader.idx + 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	srcu_wait_idx(ssp, idx, rep);
	compat_mb_all_threads();			/* (2) */
	__atomic_add_fetch(&srcu_gp_count, 1, __ATOMIC_SEQ_CST);
	compat_unlock(&ssp->gp_lock, &h);
}

void synchronize_srcu(struct srcu_struct *ssp)
{
	srcu_grace_period(ssp, NULL);
}

void compat_synchronize_srcu_report(struct srcu_struct *ssp,
				    unsigned int every_ms,
				    void (*report)(void *arg,
						   unsigned int waited_ms),
				    void *arg)
{
	struct srcu_reporter rep = {
		.every_ms = every_ms,
		.report = report,
		.arg = arg,
		.next_ms = every_ms,
	};

	/* As the kernel's revocable_srcu: 0, or no @report, never reports. */
	if (!every_ms || !report) {
		srcu_grace_period(ssp, NULL);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &rep.start);
	srcu_grace_period(ssp, &rep);
}

/*
 * The gate fork() closes: callbacks run inside it, and the prepare handler
 * shuts it and waits until none runs.  Plain mutex and condition rather
 * than a rwlock: a rwlock held for writing cannot be given back in the
 * child (glibc records the writer by TID, which the child does not share),
 * while the gate is never held across fork().
 */
static pthread_mutex_t cb_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_gate_cond = PTHREAD_COND_INITIALIZER;
static unsigned int cb_gate_running;
static bool cb_gate_shut;

static void cb_gate_enter(void)
{
	pthread_mutex_lock(&cb_gate_lock);
	while (cb_gate_shut)
		pthread_cond_wait(&cb_gate_cond, &cb_gate_lock);
	cb_gate_running++;
	pthread_mutex_unlock(&cb_gate_lock);
}

static void cb_gate_leave(void)
{
	pthread_mutex_lock(&cb_gate_lock);
	if (!--cb_gate_running)
		pthread_cond_broadcast(&cb_gate_cond);
	pthread_mutex_unlock(&cb_gate_lock);
}

/* Run @func(@head) as a callback of the library: see in_interrupt(). */
static void srcu_run_callback(rcu_callback_t func, struct rcu_head *head)
{
	struct compat_thread *self = compat_thread_self();

	self->in_callback++;
	func(head);
	self->in_callback--;
}

/*
 * cb_lock as the worker takes it (@h NULL: no signal handler runs on it),
 * or as a caller that runs the queue itself took it (compat_lock()): what
 * it holds is then recorded truly while callbacks run in its thread.
 */
static void srcu_cb_lock(struct srcu_struct *ssp, struct compat_held *h)
{
	if (h)
		compat_lock(&ssp->cb_lock, h);
	else
		pthread_mutex_lock(&ssp->cb_lock);
}

static void srcu_cb_unlock(struct srcu_struct *ssp, struct compat_held *h)
{
	if (h)
		compat_unlock(&ssp->cb_lock, h);
	else
		pthread_mutex_unlock(&ssp->cb_lock);
}

/*
 * Run a batch: what is queued on @ssp, after a grace period.  Called with
 * cb_lock held (see srcu_cb_lock()) by the one thread that runs @ssp's
 * callbacks (its worker, or the caller in srcu_cb_drain()); returns with
 * it held, the batch counted as done and the barriers woken.  The batch
 * stays visible in cb_inflight until it starts running, for fork().
 */
static void srcu_cb_run_batch(struct srcu_struct *ssp, struct compat_held *h)
{
	struct rcu_head *list = ssp->cb_head, *next;
	unsigned long n;

	ssp->cb_inflight = list;
	ssp->cb_head = NULL;
	ssp->cb_tail = &ssp->cb_head;
	srcu_cb_unlock(ssp, h);

	synchronize_srcu(ssp);
	cb_gate_enter();
	srcu_cb_lock(ssp, h);
	ssp->cb_inflight = NULL;
	srcu_cb_unlock(ssp, h);
	for (n = 0; list; n++) {
		next = list->next;
		srcu_run_callback(list->func, list);
		list = next;
	}

	srcu_cb_lock(ssp, h);
	ssp->cb_done += n;
	pthread_cond_broadcast(&ssp->cb_done_cond);
	/* Counted done before fork() can see the batch gone. */
	cb_gate_leave();
}

/*
 * A worker with nothing to do for this long leaves, and the next
 * call_srcu() starts another: a process with thousands of domains keeps
 * threads only for those that revoke asynchronously now.
 */
#define SRCU_CB_IDLE_MS	1000

/* Whether the worker, idle until @deadline, may leave now (cb_lock held). */
static bool srcu_cb_idle_wait(struct srcu_struct *ssp,
			      const struct timespec *deadline)
{
	return pthread_cond_timedwait(&ssp->cb_cond, &ssp->cb_lock,
				      deadline) == ETIMEDOUT &&
	       !ssp->cb_head && !ssp->cb_drainer && !ssp->cb_stop;
}

static void *srcu_cb_worker(void *arg)
{
	struct srcu_struct *ssp = arg;
	struct timespec deadline;
	char name[16];

	snprintf(name, sizeof(name), "srcu-cb-%d", ssp->reader.id);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&ssp->cb_lock);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += SRCU_CB_IDLE_MS / 1000;
		/* A caller that ran the queue before we started finishes first. */
		while ((!ssp->cb_head || ssp->cb_drainer) && !ssp->cb_stop) {
			if (!srcu_cb_idle_wait(ssp, &deadline))
				continue;
			/*
			 * Nobody joins a worker that left on its own, and
			 * cleanup_srcu_struct() joins only a running one.
			 */
			ssp->cb_running = false;
			pthread_detach(pthread_self());
			pthread_mutex_unlock(&ssp->cb_lock);
			return NULL;
		}
		if (!ssp->cb_head || ssp->cb_drainer)
			break;
		srcu_cb_run_batch(ssp, NULL);
	}
	pthread_mutex_unlock(&ssp->cb_lock);
	return NULL;
}

/*
 * Start the domain's worker if it has work and none is running (first use,
 * the first use in a fork() child, or the first use after a start failed).
 * Called with cb_lock held; false if no thread could be started.
 */
static bool srcu_cb_kick(struct srcu_struct *ssp)
{
	if (ssp->cb_running || !ssp->cb_head)
		return true;
	if (compat_service_thread(&ssp->cb_worker, srcu_cb_worker, ssp))
		return false;
	ssp->cb_running = true;
	return true;
}

/*
 * Without a worker: run the queue in the calling thread, batch by batch,
 * until it is empty or a worker has started (it then waits for us and
 * takes over).  Called with cb_lock held (taken with compat_lock() and
 * @h), by a caller that may wait for a grace period of @ssp (not inside
 * one of its read-side sections), when no one else runs the queue.  One
 * runner at a time keeps the batches in order, which srcu_barrier()'s
 * count relies on.
 */
static void srcu_cb_drain(struct srcu_struct *ssp, struct compat_held *h)
{
	ssp->cb_drainer = pthread_self();
	while (ssp->cb_head && !ssp->cb_running)
		srcu_cb_run_batch(ssp, h);
	ssp->cb_drainer = 0;
	pthread_cond_broadcast(&ssp->cb_cond);
	pthread_cond_broadcast(&ssp->cb_done_cond);
}

void call_srcu(struct srcu_struct *ssp, struct rcu_head *head,
	       rcu_callback_t func)
{
	struct compat_held h;	/* for compat_srcu_would_deadlock() */

	head->func = func;
	head->next = NULL;
	compat_lock(&ssp->cb_lock, &h);
	*ssp->cb_tail = head;
	ssp->cb_tail = &head->next;
	ssp->cb_queued++;
	if (srcu_cb_kick(ssp)) {
		pthread_cond_signal(&ssp->cb_cond);
		compat_unlock(&ssp->cb_lock, &h);
		return;
	}
	/*
	 * No thread to defer to (pthread_create() failed; each call tries
	 * again).  The callback stays queued for the next call_srcu() that
	 * starts the worker, or for srcu_barrier(), whose caller waits by
	 * contract and runs the queue itself.  Never here: the caller of an
	 * async revoke may hold a lock that its callback takes.
	 */
	WARN_ONCE(1, "call_srcu(%s): cannot start the callback thread; callbacks wait for the next call_srcu() that can, or srcu_barrier()\n",
		  ssp->name);
	compat_unlock(&ssp->cb_lock, &h);
}

/*
 * Wait until the callbacks queued before the call have run: as many have
 * run as had been queued (batches run one at a time, in order).  Without
 * a worker, the caller runs them itself.  A wait that could only end by
 * this thread's doing (called from one of @ssp's callbacks, or inside a
 * read-side section of @ssp with callbacks pending) warns and returns.
 */
void srcu_barrier(struct srcu_struct *ssp)
{
	pthread_t self = pthread_self();
	struct compat_held h;	/* for compat_srcu_would_deadlock() */
	unsigned long target;

	compat_lock(&ssp->cb_lock, &h);
	target = ssp->cb_queued;
	srcu_cb_kick(ssp);
	while ((long)(ssp->cb_done - target) < 0) {
		if (WARN_ONCE((ssp->cb_running &&
			       pthread_equal(ssp->cb_worker, self)) ||
			      (ssp->cb_drainer &&
			       pthread_equal(ssp->cb_drainer, self)) ||
			      srcu_read_lock_held(ssp),
			      "srcu_barrier(%s) would wait for its own thread\n",
			      ssp->name))
			break;
		if (!ssp->cb_running && !ssp->cb_drainer) {
			srcu_cb_drain(ssp, &h);
			continue;
		}
		pthread_cond_wait(&ssp->cb_done_cond, &ssp->cb_lock);
	}
	compat_unlock(&ssp->cb_lock, &h);
}

void cleanup_srcu_struct(struct srcu_struct *ssp)
{
	const struct compat_thread *t;
	unsigned long lock[2], unlock[2];
	bool skewed;
	long held;

	if (WARN_ON(ssp->reader.id < 0))
		return;
	srcu_barrier(ssp);
	pthread_mutex_lock(&ssp->cb_lock);
	ssp->cb_stop = true;
	pthread_cond_signal(&ssp->cb_cond);
	pthread_mutex_unlock(&ssp->cb_lock);
	if (ssp->cb_running)
		pthread_join(ssp->cb_worker, NULL);
	ssp->cb_running = false;

	compat_registry_lock();
	held = 0;
	skewed = false;
	compat_for_each_thread(t) {
		if (!compat_thread_count(t, ssp->reader.id, lock, unlock))
			continue;
		held += (long)(lock[0] + lock[1] - unlock[0] - unlock[1]);
		skewed |= lock[0] != unlock[0] || lock[1] != unlock[1];
	}
	/*
	 * Readers still inside, or counts that do not add up: keep the id
	 * reserved forever rather than hand unbalanced counts to the next
	 * domain.  Otherwise the id is free again.
	 */
	compat_srcu_domains[ssp->reader.id] = NULL;
	if (WARN(held, "cleanup_srcu_struct(%s): %ld readers still inside\n",
		 ssp->name, held)) {
	} else if (WARN(skewed, "cleanup_srcu_struct(%s): the counts do not add up (an unlock under the wrong index?); its id is not used again\n",
			ssp->name)) {
	} else {
		srcu_free_ids[srcu_nr_free++] = (unsigned int)ssp->reader.id;
	}
	compat_registry_unlock();
	ssp->reader.id = -1;
	pthread_mutex_destroy(&ssp->gp_lock);
	pthread_mutex_destroy(&ssp->cb_lock);
	pthread_cond_destroy(&ssp->cb_cond);
	pthread_cond_destroy(&ssp->cb_done_cond);
}

int srcu_read_lock_held(const struct srcu_struct *ssp)
{
	const struct compat_thread *t = compat_thread_peek();

	return t && ssp->reader.id >= 0 &&
	       compat_sections_held(t, ssp->reader.id) > 0;
}

/*
 * What thread @tid does now, by /proc, to end a line of the report: the
 * state letter of its stat and, when it is in a system call, the call's
 * number (its syscall file).  A reader that sleeps in its access looks
 * like one that left it without a withdraw; the line tells the user
 * where to look.
 */
static void show_task_now(int tid)
{
	char buf[512], *p;
	long nr;

	if (!compat_task_file(tid, "stat", buf, sizeof(buf)) ||
	    !(p = strrchr(buf, ')')) || p[1] != ' ' || !p[2]) {
		fputc('\n', compat_log_stream());
		return;
	}
	fprintf(compat_log_stream(), ", state %c", p[2]);
	if (compat_task_file(tid, "syscall", buf, sizeof(buf)) &&
	    sscanf(buf, "%ld", &nr) == 1 && nr >= 0)
		fprintf(compat_log_stream(), ", in system call %ld", nr);
	fputc('\n', compat_log_stream());
}

/*
 * The report of a slow grace period: every thread inside a section, per
 * domain by its name, with what it does now, and every thread whose counts
 * in a domain do not add up (more unlocks than locks under an index).
 */
void debug_show_all_locks(void)
{
	bool any_held = false;
	const struct compat_thread *t;
	unsigned long lock[2], unlock[2];
	const struct srcu_struct *ssp;
	unsigned int id, n;
	char name[16];
	long held;
	bool skewed;

	fprintf(compat_log_stream(), "revocable: threads inside SRCU read-side sections:\n");
	compat_registry_lock();
	compat_for_each_thread(t) {
		n = READ_ONCE(t->nr_slots);
		if (n > compat_srcu_id_limit)
			n = compat_srcu_id_limit;
		for (id = 0; compat_srcu_domains && id < n; id++) {
			ssp = compat_srcu_domains[id];
			if (!ssp || !compat_thread_count(t, (int)id, lock, unlock))
				continue;
			held = (long)(lock[0] + lock[1] - unlock[0] - unlock[1]);
			skewed = (long)(lock[0] - unlock[0]) < 0 ||
				 (long)(lock[1] - unlock[1]) < 0;
			if (held <= 0 && !skewed)
				continue;
			compat_thread_name(t, name, sizeof(name));
			if (held > 0) {
				fprintf(compat_log_stream(),
					"  thread %d (%s): %ld access(es) in SRCU %s",
					t->tid, name, held, ssp->name);
				show_task_now(t->tid);
				any_held = true;
			}
			if (skewed)
				fprintf(compat_log_stream(),
					"  thread %d (%s): counts in SRCU %s do not add up (index 0: %lu locks, %lu unlocks; index 1: %lu locks, %lu unlocks)\n",
					t->tid, name, ssp->name, lock[0],
					unlock[0], lock[1], unlock[1]);
		}
	}
	compat_registry_unlock();
	if (any_held)
		fprintf(compat_log_stream(),
			"revocable: an access ends only at its withdraw (or its thread's exit): a thread that left one by siglongjmp(), a fiber switch or a cancellation that did not unwind holds it until it exits\n");
}

/* ----- fork (steps run by thread.c's handlers) ---------------------------- */

/* A callback that forks is inside the gate itself, and goes on in both. */
static unsigned int cb_gate_own(void)
{
	const struct compat_thread *self = compat_thread_peek();

	return self && self->in_callback ? 1 : 0;
}

static void srcu_fork_prepare(void)
{
	pthread_mutex_lock(&cb_gate_lock);
	cb_gate_shut = true;
	while (cb_gate_running > cb_gate_own())
		pthread_cond_wait(&cb_gate_cond, &cb_gate_lock);
	pthread_mutex_unlock(&cb_gate_lock);
}

/* Registry lock held: the set of domains cannot change. */
static void srcu_fork_prepare_locked(void)
{
	int id;

	for (id = 0; compat_srcu_domains && id < (int)compat_srcu_id_limit; id++)
		if (compat_srcu_domains[id])
			pthread_mutex_lock(&compat_srcu_domains[id]->cb_lock);
}

static void srcu_fork_parent_locked(void)
{
	int id;

	for (id = 0; compat_srcu_domains && id < (int)compat_srcu_id_limit; id++)
		if (compat_srcu_domains[id])
			pthread_mutex_unlock(&compat_srcu_domains[id]->cb_lock);
}

static void srcu_fork_parent(void)
{
	pthread_mutex_lock(&cb_gate_lock);
	cb_gate_shut = false;
	pthread_cond_broadcast(&cb_gate_cond);
	pthread_mutex_unlock(&cb_gate_lock);
}

static void srcu_fork_child_domain(struct srcu_struct *ssp)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
	pthread_condattr_t attr;
	struct rcu_head *tail;

	/*
	 * A grace period another thread had under way is abandoned with
	 * it; the next one starts from whatever index it left, which is
	 * as correct as any starting point.  Its lock is made anew only
	 * if that thread held it: a lock this thread can take is given
	 * back the ordinary way, which is what TSan (fully awake in the
	 * child of a single-threaded parent) can follow.  cb_lock was
	 * taken by the prepare handler, in this very thread.  Waiters on
	 * the conditions were other threads: those are made anew.
	 */
	if (pthread_mutex_trylock(&ssp->gp_lock))
		ssp->gp_lock = fresh;
	else
		pthread_mutex_unlock(&ssp->gp_lock);
	pthread_mutex_unlock(&ssp->cb_lock);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ssp->cb_cond, &attr);
	pthread_cond_init(&ssp->cb_done_cond, &attr);
	pthread_condattr_destroy(&attr);

	/* The worker's batch had not started: it goes first again. */
	if (ssp->cb_inflight) {
		for (tail = ssp->cb_inflight; tail->next; tail = tail->next)
			;
		tail->next = ssp->cb_head;
		if (!ssp->cb_head)
			ssp->cb_tail = &tail->next;
		ssp->cb_head = ssp->cb_inflight;
		ssp->cb_inflight = NULL;
	}
	/*
	 * Started again by the next call_srcu() or srcu_barrier(), unless
	 * this thread is the domain's worker (fork() from a callback): it
	 * goes back to its loop once the callback returns.
	 */
	ssp->cb_running = ssp->cb_running &&
			  pthread_equal(ssp->cb_worker, pthread_self());
	if (ssp->cb_drainer && !pthread_equal(ssp->cb_drainer, pthread_self()))
		ssp->cb_drainer = 0;
}

/* Unlink @head from *@pp's list; true if it was there. */
static bool srcu_list_forget(struct rcu_head **pp, struct rcu_head *head,
			     struct rcu_head ***tailp)
{
	for (; *pp; pp = &(*pp)->next) {
		if (*pp != head)
			continue;
		*pp = head->next;
		if (tailp && *tailp == &head->next)
			*tailp = pp;
		return true;
	}
	return false;
}

/*
 * Called before srcu_fork_child(), for a head that lived on the
 * stack of a thread the child did not get: that stack is free memory here
 * (glibc gives it to the next thread the child creates), and the thread
 * that waited for the callback is gone.  Counted as done for barriers.
 */
static void srcu_fork_forget(void *head)
{
	struct srcu_struct *ssp;
	int id;

	for (id = 0; compat_srcu_domains && id < (int)compat_srcu_id_limit; id++) {
		ssp = compat_srcu_domains[id];
		if (!ssp)
			continue;
		if (srcu_list_forget(&ssp->cb_inflight, head, NULL) ||
		    srcu_list_forget(&ssp->cb_head, head, &ssp->cb_tail)) {
			ssp->cb_done++;
			return;
		}
	}
}

static void srcu_fork_child(void)
{
	int id;

	for (id = 0; compat_srcu_domains && id < (int)compat_srcu_id_limit; id++)
		if (compat_srcu_domains[id])
			srcu_fork_child_domain(compat_srcu_domains[id]);
	/* Threads waiting at the gate were not copied. */
	pthread_cond_init(&cb_gate_cond, NULL);
	cb_gate_running = cb_gate_own();
	cb_gate_shut = false;
}

COMPAT_FORK_OPS(srcu_fork_ops,
		.rank = COMPAT_FORK_RANK_SRCU,
		.prepare = srcu_fork_prepare,
		.prepare_locked = srcu_fork_prepare_locked,
		.parent_locked = srcu_fork_parent_locked,
		.parent = srcu_fork_parent,
		.forget = srcu_fork_forget,
		.child = srcu_fork_child);
