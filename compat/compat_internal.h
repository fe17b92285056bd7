/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private interfaces shared by the compat/ sources. */
#ifndef _COMPAT_INTERNAL_H
#define _COMPAT_INTERNAL_H

#include <linux/compat_thread.h>

struct srcu_struct;

/* The registry of live thread blocks, plus one for exited threads. */
extern struct compat_thread compat_graveyard;
extern struct compat_thread *compat_threads;
/* Domain slots in use, for naming them in reports. */
extern struct srcu_struct *compat_srcu_domains[COMPAT_SRCU_MAX_DOMAINS];

void compat_registry_lock(void);
void compat_registry_unlock(void);

/* A full barrier on behalf of every running thread of the process. */
void compat_mb_all_threads(void);

/* The RCU shims (compat/rcu.c), declared here for both namespaces. */
struct rcu_head;
void compat_rcu_read_lock(void);
void compat_rcu_read_unlock(void);
void compat_synchronize_rcu(void);
void compat_call_rcu(struct rcu_head *head,
		     void (*func)(struct rcu_head *head));
void compat_rcu_barrier(void);

/* Called from the exit destructor of a thread that used liburcu. */
void compat_rcu_thread_exit(void);

#define compat_for_each_thread(t)					\
	for ((t) = compat_threads; (t); (t) = (t)->next)

#endif
