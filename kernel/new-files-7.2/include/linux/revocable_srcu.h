/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read side of a revocable domain: an SRCU-fast srcu_struct.
 *
 * A revocable access is a short section that may sleep, entered and ended
 * by the same task, counted with one per-CPU increment and no memory
 * barrier: srcu_read_lock_fast().  These wrappers give the revocable core
 * the few operations it needs in the terms it shares with its userspace
 * build; they add no state and no grace-period machinery of their own.
 */
#ifndef __LINUX_REVOCABLE_SRCU_H
#define __LINUX_REVOCABLE_SRCU_H

#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>

#define revocable_srcu			srcu_struct
#define revocable_srcu_ctr		srcu_ctr
#define DEFINE_STATIC_REVOCABLE_SRCU(var)	DEFINE_STATIC_SRCU_FAST(var)
#define revocable_srcu_init(ssp)	init_srcu_struct_fast(ssp)
#define revocable_srcu_dereference(p, ssp)	srcu_dereference((p), (ssp))
#define revocable_srcu_read_lock_held(ssp)	srcu_read_lock_held(ssp)
#define revocable_srcu_call(ssp, head, func)	call_srcu((ssp), (head), (func))
#define revocable_srcu_barrier(ssp)	srcu_barrier(ssp)

/*
 * cleanup_srcu_struct() warns about, and leaks, a structure that still has
 * readers; the core has nothing more to do in that case.
 */
static inline int revocable_srcu_cleanup(struct srcu_struct *ssp)
{
	cleanup_srcu_struct(ssp);
	return 0;
}

/* The scope forms keep the counters they entered. */
static __always_inline struct srcu_ctr __percpu *
revocable_srcu_enter(struct srcu_struct *ssp)
{
	return srcu_read_lock_fast(ssp);
}

static __always_inline void revocable_srcu_exit(struct srcu_struct *ssp,
						struct srcu_ctr __percpu *scp)
{
	srcu_read_unlock_fast(ssp, scp);
}

/*
 * A handle keeps the index of the counters instead, as srcu_read_lock()
 * returns it: the conversion is SRCU's own, one subtraction.
 */
static __always_inline int revocable_srcu_read_lock(struct srcu_struct *ssp)
{
	return __srcu_ptr_to_ctr(ssp, srcu_read_lock_fast(ssp));
}

static __always_inline void revocable_srcu_read_unlock(struct srcu_struct *ssp,
						       int idx)
{
	srcu_read_unlock_fast(ssp, __srcu_ctr_to_ptr(ssp, idx));
}

struct revocable_srcu_waiter {
	struct work_struct work;
	struct srcu_struct *ssp;
	struct completion done;
};

static inline void revocable_srcu_wait_work(struct work_struct *work)
{
	struct revocable_srcu_waiter *w =
		container_of(work, struct revocable_srcu_waiter, work);

	synchronize_srcu_expedited(w->ssp);
	complete(&w->done);
}

/*
 * synchronize_srcu_expedited() that calls @report(@arg, ms waited) every
 * @every_ms while readers hold it up (never when @every_ms is 0 or @report
 * NULL).  A revoke is what a device's removal waits for, so the grace
 * period is an expedited one.  SRCU has no asynchronous expedited grace
 * period, so with the report on, a worker waits for it while this context
 * waits for the worker with a timeout and reports: the report runs in the
 * revoker's context, as its contract says.
 */
static inline void
revocable_srcu_synchronize_report(struct srcu_struct *ssp,
				  unsigned int every_ms,
				  void (*report)(void *arg,
						 unsigned int waited_ms),
				  void *arg)
{
	struct revocable_srcu_waiter w = { .ssp = ssp };
	unsigned long start = jiffies;

	might_sleep();
	if (!every_ms || !report) {
		synchronize_srcu_expedited(ssp);
		return;
	}
	init_completion(&w.done);
	INIT_WORK_ONSTACK(&w.work, revocable_srcu_wait_work);
	queue_work(system_unbound_wq, &w.work);
	while (!wait_for_completion_timeout(&w.done,
					    msecs_to_jiffies(every_ms)))
		report(arg, jiffies_to_msecs(jiffies - start));
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
}

#endif /* __LINUX_REVOCABLE_SRCU_H */
