/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/preempt.h>.  A thread has no interrupt
 * context; the nearest thing is a callback that the library runs from its
 * own service threads (an SRCU callback), where waiting for a grace period
 * of the library would wait on the very thread that must end it.
 */
#ifndef _COMPAT_LINUX_PREEMPT_H
#define _COMPAT_LINUX_PREEMPT_H

#include <runtime/thread.h>

#define in_interrupt()	(compat_thread_self()->in_callback != 0)
#define in_task()	(!in_interrupt())

#endif
