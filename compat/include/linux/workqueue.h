/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/workqueue.h>, for the one use the library
 * has: a work item queued from any context (a provider's release, which may
 * come inside an access or with the caller's locks held) to do later what
 * may sleep.  It is run by the RCU callback thread, after a grace period of
 * RCU: later, in a thread that may sleep, as a work item would be.
 */
#ifndef _COMPAT_LINUX_WORKQUEUE_H
#define _COMPAT_LINUX_WORKQUEUE_H

#include <linux/container_of.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	struct rcu_head rcu;
	work_func_t func;
};

struct workqueue_struct;

#define system_unbound_wq	((struct workqueue_struct *)NULL)
#define INIT_WORK(work, fn)	((work)->func = (fn))

static inline void __compat_work_run(struct rcu_head *head)
{
	struct work_struct *work = container_of(head, struct work_struct, rcu);

	work->func(work);
}

static inline bool queue_work(struct workqueue_struct *wq,
			      struct work_struct *work)
{
	(void)wq;
	call_rcu(&work->rcu, __compat_work_run);
	return true;
}

#endif
