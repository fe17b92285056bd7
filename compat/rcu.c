// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RCU for the compat layer: liburcu's memb flavour, with threads
 * registered on first use.  This file sees liburcu's headers and none of
 * the compat linux/ ones except the thread block, so the two namespaces
 * never meet.
 */
#define _LGPL_SOURCE
#include <urcu/urcu-memb.h>

#include "compat_internal.h"

_Static_assert(sizeof(struct rcu_head) == 2 * sizeof(void *),
	       "compat struct rcu_head must match liburcu's");

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
	urcu_memb_read_unlock();
}

void compat_synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
}

void compat_call_rcu(struct rcu_head *head,
		     void (*func)(struct rcu_head *head))
{
	compat_rcu_register();
	urcu_memb_call_rcu(head, func);
}

void compat_rcu_barrier(void)
{
	compat_rcu_register();
	urcu_memb_barrier();
}
