// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * kthread_run() for the KUnit shim: each kernel thread is a pthread that
 * carries the kthread's name, so reports that name threads name it too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/printk.h>

struct compat_kthread {
	int (*fn)(void *data);
	void *data;
	char comm[16];			/* TASK_COMM_LEN, as in the kernel */
	pthread_t thread;
	struct task_struct *task;	/* the thread's "current" */
	struct completion started;
	struct completion exited;
	struct compat_kthread *next;
};

static pthread_mutex_t kthreads_lock = PTHREAD_MUTEX_INITIALIZER;
/* Started and not yet reaped. */
static struct compat_kthread *kthreads;
/* Still running when reaped: kept, since their threads still use them. */
static struct compat_kthread *abandoned;

static void *compat_kthread_fn(void *arg)
{
	struct compat_kthread *k = arg;

	pthread_setname_np(pthread_self(), k->comm);
	k->task = current;
	complete(&k->started);
	k->fn(k->data);
	complete(&k->exited);
	return NULL;
}

struct task_struct *compat_kthread_run(int (*threadfn)(void *data),
				       void *data, const char *namefmt, ...)
{
	struct compat_kthread *k = calloc(1, sizeof(*k));
	va_list ap;
	int err;

	if (!k)
		return ERR_PTR(-ENOMEM);
	k->fn = threadfn;
	k->data = data;
	va_start(ap, namefmt);
	vsnprintf(k->comm, sizeof(k->comm), namefmt, ap);
	va_end(ap);
	init_completion(&k->started);
	init_completion(&k->exited);
	err = pthread_create(&k->thread, NULL, compat_kthread_fn, k);
	if (err) {
		free(k);
		return ERR_PTR(-err);
	}
	wait_for_completion(&k->started);
	pthread_mutex_lock(&kthreads_lock);
	k->next = kthreads;
	kthreads = k;
	pthread_mutex_unlock(&kthreads_lock);
	return k->task;
}

unsigned int compat_kthread_reap(unsigned int timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	struct compat_kthread *k, *next;
	unsigned int stuck = 0;
	long left;

	pthread_mutex_lock(&kthreads_lock);
	k = kthreads;
	kthreads = NULL;
	pthread_mutex_unlock(&kthreads_lock);

	for (; k; k = next) {
		next = k->next;
		left = (long)(deadline - jiffies);
		if (wait_for_completion_timeout(&k->exited,
						left > 0 ? left : 1)) {
			pthread_join(k->thread, NULL);
			free(k);
			continue;
		}
		pr_err("kthread %s is still running\n", k->comm);
		pthread_detach(k->thread);
		pthread_mutex_lock(&kthreads_lock);
		k->next = abandoned;
		abandoned = k;
		pthread_mutex_unlock(&kthreads_lock);
		stuck++;
	}
	return stuck;
}
