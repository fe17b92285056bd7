/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/sched.h>: "current" is a token naming the
 * calling thread (registered on first use), unique for the life of the
 * process, so that a handle left owned by a thread that has exited can be
 * recognised as such.
 */
#ifndef _COMPAT_LINUX_SCHED_H
#define _COMPAT_LINUX_SCHED_H

#include <runtime/thread.h>

struct task_struct;

#define current ((struct task_struct *)compat_thread_self()->reader.token)

/*
 * Userspace only: @owner (a value of "current") names a thread that has
 * exited, or that did not survive a fork() into this process.  Its SRCU
 * read-side sections were released when it went.
 */
#define task_exited_owner(owner)					\
	compat_token_exited((unsigned long)(owner))

#endif
