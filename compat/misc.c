// SPDX-License-Identifier: LGPL-2.1-or-later
/* WARN, printk, allocation, time and completions for the compat layer. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/bug.h>
#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/jiffies.h>
#include <linux/printk.h>
#include <linux/slab.h>

int debug_locks = 1;
FILE *compat_log;

FILE *compat_log_stream(void)
{
	return compat_log ? compat_log : stderr;
}

static unsigned long warn_count;
static char warn_last_site[256];

void compat_warn(bool *printed, const char *file, int line,
		 const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	va_list ap;

	base = base ? base + 1 : file;
	__atomic_add_fetch(&warn_count, 1, __ATOMIC_SEQ_CST);
	snprintf(warn_last_site, sizeof(warn_last_site), "%s:%d", base, line);
	if (__atomic_exchange_n(printed, true, __ATOMIC_RELAXED))
		return;
	fprintf(compat_log_stream(), "WARNING: %s:%d: ", base, line);
	va_start(ap, fmt);
	vfprintf(compat_log_stream(), fmt, ap);
	va_end(ap);
}

unsigned long compat_warn_count(void)
{
	return __atomic_load_n(&warn_count, __ATOMIC_SEQ_CST);
}

const char *compat_warn_last_site(void)
{
	return warn_last_site;
}

void compat_printk(const char *level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vfprintf(compat_log_stream(), fmt, ap);
	va_end(ap);
}

unsigned long compat_alloc_fail_countdown;

void *compat_kmalloc(size_t size, gfp_t flags)
{
	unsigned long left = __atomic_load_n(&compat_alloc_fail_countdown,
					     __ATOMIC_RELAXED);

	if (left && __atomic_sub_fetch(&compat_alloc_fail_countdown, 1,
				       __ATOMIC_RELAXED) == 0)
		return NULL;
	if (flags & __GFP_ZERO)
		return calloc(1, size ? size : 1);
	return malloc(size ? size : 1);
}

unsigned long compat_jiffies(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void init_completion(struct completion *x)
{
	pthread_condattr_t attr;

	x->done = 0;
	pthread_mutex_init(&x->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&x->wait, &attr);
	pthread_condattr_destroy(&attr);
}

void complete(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	if (x->done != ~0u)
		x->done++;
	pthread_cond_signal(&x->wait);
	pthread_mutex_unlock(&x->lock);
}

void complete_all(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	x->done = ~0u;
	pthread_cond_broadcast(&x->wait);
	pthread_mutex_unlock(&x->lock);
}

bool completion_done(struct completion *x)
{
	bool done;

	pthread_mutex_lock(&x->lock);
	done = x->done != 0;
	pthread_mutex_unlock(&x->lock);
	return done;
}

void wait_for_completion(struct completion *x)
{
	pthread_mutex_lock(&x->lock);
	while (!x->done)
		pthread_cond_wait(&x->wait, &x->lock);
	if (x->done != ~0u)
		x->done--;
	pthread_mutex_unlock(&x->lock);
}

unsigned long wait_for_completion_timeout(struct completion *x,
					  unsigned long timeout)
{
	unsigned long start = compat_jiffies(), left = 0;
	struct timespec ts;
	int err = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += timeout / 1000;
	ts.tv_nsec += (long)(timeout % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&x->lock);
	while (!x->done && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&x->wait, &x->lock, &ts);
	if (x->done) {
		if (x->done != ~0u)
			x->done--;
		left = timeout - (compat_jiffies() - start);
		if ((long)left < 1)
			left = 1;
	}
	pthread_mutex_unlock(&x->lock);
	return left;
}
