/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The read side of a revocable domain.
 *
 * A reader counts its access with one interrupt-safe increment of a per-CPU
 * counter and no memory barrier.  The ordering a reader's barrier would
 * give comes from the waiting side instead: a grace period reads the
 * counters around a synchronize_rcu(), and before that grace period ends
 * every CPU executes a full barrier after it began (as it notices the
 * grace period, or in the expedited IPI), which orders each reader's
 * increment against the reader's own accesses.  This is what SRCU's
 * srcu_read_lock_fast() does from Linux 6.15 on; this kernel does not have
 * it, so drivers/base/revocable_srcu.c implements it for revocable.
 *
 * Readers must run where RCU is watching: not in NMI handlers, not from
 * the idle loop, not on a CPU that is going offline.  CONFIG_PROVE_RCU
 * checks each access.
 */
#ifndef __LINUX_REVOCABLE_SRCU_H
#define __LINUX_REVOCABLE_SRCU_H

#include <linux/compiler.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

/**
 * struct revocable_srcu_ctr - one read index's counts on one CPU
 * @locks: accesses entered under the index on this CPU
 * @unlocks: accesses ended under the index on this CPU
 *
 * An access may end on another CPU than it began on: only the sums over
 * all CPUs mean anything.
 */
struct revocable_srcu_ctr {
	unsigned long locks;
	unsigned long unlocks;
};

/**
 * struct revocable_srcu_data - both read indexes' counts on one CPU
 * @ctr: the counts, by read index
 */
struct revocable_srcu_data {
	struct revocable_srcu_ctr ctr[2];
};

/**
 * struct revocable_srcu - a domain's readers and grace periods
 * @ctrp: the counters new readers count in: @sda's of index @idx
 * @idx: bit 0 is the read index new readers count under
 * @sda: the per-CPU counts
 * @gp_lock: serialises grace periods
 * @cb_lock: protects @cbs and @cbs_tail
 * @cbs: callbacks waiting for a grace period
 * @cbs_tail: where the next callback is linked
 * @cb_queued: callbacks queued so far; written under @cb_lock, read
 *	without it
 * @cb_done: callbacks invoked so far; written by @cb_work alone, read
 *	without a lock
 * @cb_wq: revocable_srcu_barrier() waits here for @cb_done
 * @cb_work: runs a grace period for @cbs, then the callbacks
 * @dep_map: lockdep's view of the read side
 */
struct revocable_srcu {
	struct revocable_srcu_ctr __percpu *ctrp;
	unsigned int idx;
	struct revocable_srcu_data __percpu *sda;
	struct mutex gp_lock;		/* serialises grace periods */
	spinlock_t cb_lock;		/* protects cbs and cbs_tail */
	struct rcu_head *cbs;
	struct rcu_head **cbs_tail;
	unsigned long cb_queued;
	unsigned long cb_done;
	wait_queue_head_t cb_wq;
	struct work_struct cb_work;
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	struct lockdep_map dep_map;
#endif
};

void __revocable_srcu_cb_work(struct work_struct *work);

#define __REVOCABLE_SRCU_INITIALIZER(var)				\
	.ctrp = &var##_data.ctr[0],					\
	.sda = &var##_data,						\
	.gp_lock = __MUTEX_INITIALIZER(var.gp_lock),			\
	.cb_lock = __SPIN_LOCK_UNLOCKED(var.cb_lock),			\
	.cbs_tail = &var.cbs,						\
	.cb_wq = __WAIT_QUEUE_HEAD_INITIALIZER(var.cb_wq),		\
	.cb_work = __WORK_INITIALIZER(var.cb_work, __revocable_srcu_cb_work)

/*
 * A read side defined at build time, usable before any initcall (the
 * default domain's).
 */
#ifdef CONFIG_DEBUG_LOCK_ALLOC
#define DEFINE_STATIC_REVOCABLE_SRCU(var)				\
	static DEFINE_PER_CPU(struct revocable_srcu_data, var##_data); \
	static struct revocable_srcu var = {				\
		__REVOCABLE_SRCU_INITIALIZER(var),			\
		.dep_map = { .name = #var },				\
	}
#else
#define DEFINE_STATIC_REVOCABLE_SRCU(var)				\
	static DEFINE_PER_CPU(struct revocable_srcu_data, var##_data); \
	static struct revocable_srcu var = {				\
		__REVOCABLE_SRCU_INITIALIZER(var),			\
	}
#endif

int __revocable_srcu_init(struct revocable_srcu *ssp, const char *name,
			  struct lock_class_key *key);

/*
 * Return: 0, or -ENOMEM.  Every read side set up at one call site is one
 * lockdep class, named after the expression, as init_srcu_struct() does.
 */
#define revocable_srcu_init(ssp)					\
	({								\
		static struct lock_class_key __key;			\
									\
		__revocable_srcu_init(ssp, #ssp, &__key);		\
	})

int revocable_srcu_cleanup(struct revocable_srcu *ssp);
void revocable_srcu_synchronize(struct revocable_srcu *ssp);
void revocable_srcu_synchronize_report(struct revocable_srcu *ssp,
				       unsigned int every_ms,
				       void (*report)(void *arg,
						      unsigned int waited_ms),
				       void *arg);
/* The core tests for this one. */
#define revocable_srcu_synchronize_report revocable_srcu_synchronize_report
void revocable_srcu_call(struct revocable_srcu *ssp, struct rcu_head *head,
			 rcu_callback_t func);
void revocable_srcu_barrier(struct revocable_srcu *ssp);

/*
 * Count an access in @scp, counters of @ssp: one increment of this CPU's
 * lock count.  The compiler barrier keeps the section after it in program
 * order; the CPU may still reorder the two, which the grace period's
 * synchronize_rcu() accounts for.
 */
static __always_inline void
__revocable_srcu_count_lock(struct revocable_srcu *ssp,
			    struct revocable_srcu_ctr __percpu *scp)
{
	RCU_LOCKDEP_WARN(in_nmi() || !rcu_is_watching(),
			 "revocable access where RCU is not watching");
	this_cpu_inc(scp->locks);
	barrier();
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	rcu_lock_acquire(&ssp->dep_map);
#endif
}

/* End it, on whichever CPU the caller runs now. */
static __always_inline void
__revocable_srcu_count_unlock(struct revocable_srcu *ssp,
			      struct revocable_srcu_ctr __percpu *scp)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	rcu_lock_release(&ssp->dep_map);
#endif
	barrier();
	this_cpu_inc(scp->unlocks);
}

/* Enter a read-side section of @ssp; returns the index it counts under. */
static __always_inline int revocable_srcu_read_lock(struct revocable_srcu *ssp)
{
	int idx = READ_ONCE(ssp->idx) & 1;

	__revocable_srcu_count_lock(ssp, &ssp->sda->ctr[idx]);
	return idx;
}

/* End a section entered under @idx. */
static __always_inline void revocable_srcu_read_unlock(struct revocable_srcu *ssp,
						       int idx)
{
	__revocable_srcu_count_unlock(ssp, &ssp->sda->ctr[idx]);
}

/*
 * The same section for callers that keep a pointer rather than an index
 * (the scope forms): one load fewer on entry, none on exit.  Returns the
 * counters entered, for revocable_srcu_exit().
 */
static __always_inline struct revocable_srcu_ctr __percpu *
revocable_srcu_enter(struct revocable_srcu *ssp)
{
	struct revocable_srcu_ctr __percpu *scp = READ_ONCE(ssp->ctrp);

	__revocable_srcu_count_lock(ssp, scp);
	return scp;
}

static __always_inline void
revocable_srcu_exit(struct revocable_srcu *ssp,
		    struct revocable_srcu_ctr __percpu *scp)
{
	__revocable_srcu_count_unlock(ssp, scp);
}

/* Whether the caller is inside a section of @ssp, as far as lockdep knows. */
static inline bool
revocable_srcu_read_lock_held(const struct revocable_srcu *ssp)
{
#ifdef CONFIG_DEBUG_LOCK_ALLOC
	return !debug_lockdep_rcu_enabled() || lock_is_held(&ssp->dep_map);
#else
	return true;
#endif
}

#define revocable_srcu_dereference(p, ssp)				\
	rcu_dereference_check((p), revocable_srcu_read_lock_held(ssp))

#endif /* __LINUX_REVOCABLE_SRCU_H */
