/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/kthread.h>: a kernel thread is a pthread
 * named like the kthread (compat/kthread.c).  kthread_run() returns once
 * the thread runs, with its "current" or an ERR_PTR().  Nobody joins a
 * kthread in the kernel; here the KUnit runner joins the threads a case
 * started when the case ends (compat_kthread_reap()).
 */
#ifndef _COMPAT_LINUX_KTHREAD_H
#define _COMPAT_LINUX_KTHREAD_H

#include <sched.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/sched.h>

struct task_struct *compat_kthread_run(int (*threadfn)(void *data),
				       void *data, const char *namefmt, ...)
	__printf(3, 4);

#define kthread_run(threadfn, data, namefmt, ...)			\
	compat_kthread_run(threadfn, data, namefmt, ##__VA_ARGS__)

/*
 * Joins every kthread started since the last call, waiting up to
 * @timeout_ms for all of them together; returns how many were still
 * running, which are left to run on detached.
 */
unsigned int compat_kthread_reap(unsigned int timeout_ms);

/* The kernel's is in <linux/sched.h>, which its <linux/kthread.h> includes. */
#ifndef cond_resched
#define cond_resched()	((void)sched_yield())
#endif

#endif
