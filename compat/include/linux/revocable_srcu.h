/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/revocable_srcu.h>, a revocable domain's
 * read side.  In the kernel that is per-CPU counts updated without a
 * memory barrier and ordered by synchronize_rcu() on the waiting side; in
 * userspace it is the compat SRCU, whose read side has no barrier either
 * (membarrier() on the waiting side plays synchronize_rcu()'s part).
 */
#ifndef _COMPAT_LINUX_REVOCABLE_SRCU_H
#define _COMPAT_LINUX_REVOCABLE_SRCU_H

#include <stdint.h>
#include <linux/srcu.h>

#define revocable_srcu				srcu_struct
#define revocable_srcu_read_lock		srcu_read_lock
#define revocable_srcu_read_unlock		srcu_read_unlock
#define revocable_srcu_dereference		srcu_dereference
#define revocable_srcu_read_lock_held		srcu_read_lock_held
#define revocable_srcu_init(ssp)		init_srcu_struct(ssp)
#define revocable_srcu_cleanup(ssp)		(cleanup_srcu_struct(ssp), 0)
#define revocable_srcu_synchronize		synchronize_srcu
#define revocable_srcu_synchronize_report	compat_synchronize_srcu_report
#define revocable_srcu_call			call_srcu
#define revocable_srcu_barrier			srcu_barrier
#define revocable_srcu_set_name			compat_srcu_set_name
#define revocable_srcu_would_deadlock		compat_srcu_would_deadlock
/*
 * Userspace only: revocable_domain_barrier() also runs the frees of the
 * shells released so far (cheap here), so that a program that frees its
 * domains and exits leaves nothing queued for valgrind to report.
 */
#define revocable_flush_released()		rcu_barrier()
#define DEFINE_STATIC_REVOCABLE_SRCU(name)	DEFINE_STATIC_SRCU(name)

/*
 * The kernel's scope forms keep a pointer to the counters they entered
 * (revocable_srcu_enter()); here the token is the read index carried in a
 * pointer, NULL for index 0, as Tiny SRCU's srcu_read_lock_fast() gives
 * it: the scope forms must not take a NULL token for "no access".  Only
 * kernel-side code built over compat (the KUnit suite) uses these.
 */
struct revocable_srcu_ctr;

static __always_inline struct revocable_srcu_ctr *
revocable_srcu_enter(struct srcu_struct *ssp)
{
	return (struct revocable_srcu_ctr *)(uintptr_t)srcu_read_lock(ssp);
}

static __always_inline void revocable_srcu_exit(struct srcu_struct *ssp,
						struct revocable_srcu_ctr *scp)
{
	srcu_read_unlock(ssp, (int)(uintptr_t)scp);
}

#endif
