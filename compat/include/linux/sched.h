/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/sched.h>: "current" is the calling thread's
 * compat block, registered on first use.
 */
#ifndef _COMPAT_LINUX_SCHED_H
#define _COMPAT_LINUX_SCHED_H

#include <linux/compat_thread.h>

struct task_struct;

#define current ((struct task_struct *)compat_thread_self())

#endif
