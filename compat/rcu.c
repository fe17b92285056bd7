// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RCU for the compat layer: liburcu's bp ("bulletproof") flavour.  It
 * registers threads itself on first use, keeps its reader registry out of
 * thread-local storage (which glibc hands to the next thread a fork()
 * child creates), and has fork hooks for that registry and for its
 * call_rcu threads, which thread.c's fork handlers call.  Only the library
 * uses these read-side sections, briefly; the access fast path is SRCU.
 * This file sees liburcu's headers and none of the compat linux/ ones
 * except the thread block, so the two namespaces never meet.
 */
/*
 * The read side is a call into liburcu-bp, not its inline version: that
 * one accesses the reader records through a type declared 128-byte
 * aligned that liburcu's arena does not align (UBSan reports it), and
 * TSan cannot pair the inlined accesses with the uninstrumented library.
 * Only revocable_provider_get_rcu() takes an RCU read lock; the access
 * fast path is SRCU.
 */
#include <linux/compat_tsan.h>
#include <urcu/urcu-bp.h>

#include "compat_internal.h"

/* The compat struct rcu_head starts with these two pointers. */
_Static_assert(sizeof(struct rcu_head) == 2 * sizeof(void *),
	       "compat struct rcu_head must start like liburcu's");

/*
 * ThreadSanitizer cannot see inside liburcu, so it would take every
 * callback and every access after synchronize_rcu() for a race with the
 * read-side sections before it.  Each read-side unlock and each call_rcu()
 * therefore releases this token, and each callback and the end of each
 * grace period or barrier acquires it.  That is slightly more order than
 * RCU gives (a reader that began after the grace period started is
 * ordered too), so a race against such a reader could be missed; the
 * orders it does state are exactly RCU's guarantees.
 */
static char compat_rcu_tsan_token __maybe_unused;

#ifdef COMPAT_TSAN
/* The compat struct rcu_head as this file sees it. */
struct compat_tsan_rcu_head {
	struct rcu_head head;
	void (*tsan_func)(struct rcu_head *head);
};

static void compat_rcu_tsan_trampoline(struct rcu_head *head)
{
	compat_tsan_acquire(&compat_rcu_tsan_token);
	((struct compat_tsan_rcu_head *)head)->tsan_func(head);
	/* For rcu_barrier(), which returns once the callback has run. */
	compat_tsan_release(&compat_rcu_tsan_token);
}
#endif

void compat_rcu_read_lock(void)
{
	urcu_bp_read_lock();
}

void compat_rcu_read_unlock(void)
{
	compat_tsan_release(&compat_rcu_tsan_token);
	urcu_bp_read_unlock();
}

void compat_synchronize_rcu(void)
{
	urcu_bp_synchronize_rcu();
	compat_tsan_acquire(&compat_rcu_tsan_token);
}

void compat_call_rcu(struct rcu_head *head,
		     void (*func)(struct rcu_head *head))
{
#ifdef COMPAT_TSAN
	((struct compat_tsan_rcu_head *)head)->tsan_func = func;
	func = compat_rcu_tsan_trampoline;
	compat_tsan_release(&compat_rcu_tsan_token);
#endif
	urcu_bp_call_rcu(head, func);
}

void compat_rcu_barrier(void)
{
	urcu_bp_barrier();
	compat_tsan_acquire(&compat_rcu_tsan_token);
}

/*
 * liburcu's order: its call_rcu threads pause before its registry lock is
 * taken (they run grace periods), and resume after it is released.
 */
void compat_rcu_fork_prepare(void)
{
	urcu_bp_call_rcu_before_fork();
	urcu_bp_before_fork();
}

void compat_rcu_fork_parent(void)
{
	urcu_bp_after_fork_parent();
	urcu_bp_call_rcu_after_fork_parent();
}

void compat_rcu_fork_child(void)
{
	urcu_bp_after_fork_child();
	urcu_bp_call_rcu_after_fork_child();
}
