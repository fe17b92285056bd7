/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/workqueue.h>, for the one use the library
 * has: a work item queued from an RCU callback, to do there what may sleep.
 * Userspace RCU callbacks run in a thread that may sleep (the callback
 * worker, or an rcu_barrier() caller), so queue_work() runs the item at
 * once in the thread that queues it.
 */
#ifndef _COMPAT_LINUX_WORKQUEUE_H
#define _COMPAT_LINUX_WORKQUEUE_H

#include <linux/types.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	work_func_t func;
};

struct workqueue_struct;

#define system_unbound_wq	((struct workqueue_struct *)NULL)
#define INIT_WORK(work, fn)	((work)->func = (fn))

static inline bool queue_work(struct workqueue_struct *wq,
			      struct work_struct *work)
{
	(void)wq;
	work->func(work);
	return true;
}

#endif
