/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/rcupdate.h>.  The read side and grace
 * periods are liburcu's bp flavour, which registers threads on first use;
 * callbacks run on a worker thread of runtime/rcu.c's own.
 */
#ifndef _COMPAT_LINUX_RCUPDATE_H
#define _COMPAT_LINUX_RCUPDATE_H

#include <linux/atomic.h>
#include <linux/cleanup.h>
#include <runtime/annotate.h>
#include <runtime/thread.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/types.h>

/*
 * call_rcu() and call_srcu() queue it, embedded in the caller's object:
 * queueing a callback allocates nothing.  rcu.c, which cannot include
 * this header, sees the same two members.
 */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

typedef void (*rcu_callback_t)(struct rcu_head *head);

void compat_rcu_read_lock(void);
void compat_rcu_read_unlock(void);
void compat_synchronize_rcu(void);
void compat_call_rcu(struct rcu_head *head, rcu_callback_t func);
void compat_rcu_barrier(void);

#define rcu_read_lock()		compat_rcu_read_lock()
#define rcu_read_unlock()	compat_rcu_read_unlock()
#define synchronize_rcu()	compat_synchronize_rcu()
#define call_rcu(head, func)	compat_call_rcu((head), (func))
#define rcu_barrier()		compat_rcu_barrier()

/*
 * No polled grace periods: a cookie never reads as elapsed, and its holder
 * defers to call_rcu() as it would without one.
 */
static inline unsigned long get_state_synchronize_rcu(void)
{
	return 0;
}

static inline bool poll_state_synchronize_rcu(unsigned long oldstate)
{
	(void)oldstate;
	return false;
}

#define rcu_dereference_raw(p)	__atomic_load_n(&(p), __ATOMIC_CONSUME)
/*
 * A publication and its reader are a happens-before edge that race
 * detectors cannot see through the atomics (helgrind and DRD take them for
 * plain accesses): rcu_assign_pointer() begins it on the pointer's
 * address, rcu_dereference() ends it there.  Neither is on the access
 * path, which reads the resource with srcu_dereference().
 */
#define rcu_dereference(p)						\
	({								\
		__typeof__(p) __p = rcu_dereference_raw(p);		\
		compat_hb_after(&(p));					\
		__p;							\
	})
#define rcu_dereference_check(p, c) rcu_dereference_raw(p)
#define rcu_dereference_protected(p, c) (p)
#define rcu_access_pointer(p)	READ_ONCE(p)
#define rcu_assign_pointer(p, v)					\
	do {								\
		compat_rcu_pointer_store(&(p));				\
		__atomic_store_n(&(p), (v), __ATOMIC_RELEASE);		\
	} while (0)
#define RCU_INIT_POINTER(p, v)	do { compat_rcu_pointer_store(&(p)); WRITE_ONCE(p, v); } while (0)
#define RCU_INITIALIZER(v)	(v)
#define unrcu_pointer(p)	(p)
/* As with the kernel's debug objects: the compat fork handler needs them. */
#define init_rcu_head_on_stack(head)	compat_rcu_head_on_stack((head), true)
#define destroy_rcu_head_on_stack(head)	compat_rcu_head_on_stack((head), false)
#define rcu_replace_pointer(rcu_ptr, ptr, c)				\
	({								\
		__typeof__(ptr) __old = (rcu_ptr);			\
		rcu_assign_pointer((rcu_ptr), (ptr));			\
		__old;							\
	})

DEFINE_LOCK_GUARD_0(rcu, rcu_read_lock(), rcu_read_unlock())

#endif
