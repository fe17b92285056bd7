// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RCU for the compat layer: liburcu's memb flavour, with threads
 * registered on first use.  This file sees liburcu's headers and none of
 * the compat linux/ ones except the thread block, so the two namespaces
 * never meet.
 */
/*
 * The read side is inlined from liburcu's headers, except under TSan: the
 * inlined code shares words with the uninstrumented library through plain
 * and assembly accesses TSan cannot pair, so there it stays a library call.
 */
#include <linux/compat_tsan.h>
#ifndef COMPAT_TSAN
#define _LGPL_SOURCE
#endif
#include <urcu/urcu-memb.h>

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

static inline void compat_rcu_register(void)
{
	struct compat_thread *t = compat_thread_self();

	if (caa_unlikely(!t->rcu_registered)) {
		urcu_memb_register_thread();
		t->rcu_registered = true;
	}
}

void compat_rcu_thread_exit(void)
{
	urcu_memb_unregister_thread();
}

void compat_rcu_read_lock(void)
{
	compat_rcu_register();
	urcu_memb_read_lock();
}

void compat_rcu_read_unlock(void)
{
	compat_tsan_release(&compat_rcu_tsan_token);
	urcu_memb_read_unlock();
}

void compat_synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
	compat_tsan_acquire(&compat_rcu_tsan_token);
}

void compat_call_rcu(struct rcu_head *head,
		     void (*func)(struct rcu_head *head))
{
	compat_rcu_register();
#ifdef COMPAT_TSAN
	((struct compat_tsan_rcu_head *)head)->tsan_func = func;
	func = compat_rcu_tsan_trampoline;
	compat_tsan_release(&compat_rcu_tsan_token);
#endif
	urcu_memb_call_rcu(head, func);
}

void compat_rcu_barrier(void)
{
	compat_rcu_register();
	urcu_memb_barrier();
	compat_tsan_acquire(&compat_rcu_tsan_token);
}
