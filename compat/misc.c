// SPDX-License-Identifier: LGPL-2.1-or-later
/* WARN, printk, allocation, time and completions for the compat layer. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

/*
 * WARN and printk may run in a signal handler that interrupted the library
 * (the warnings of calls it refuses there), so they take no lock they could
 * wait on and do not use stdio's locks: a message is formatted on the stack
 * and written with one write(2), whole unless it is very long.
 */
static void compat_log_vwrite(const char *prefix, const char *fmt, va_list ap)
{
	FILE *stream = compat_log_stream();
	char buf[1024];
	int n = 0, fd = fileno(stream);

	if (prefix)
		n = snprintf(buf, sizeof(buf), "%s", prefix);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (fd < 0) {
		fputs(buf, stream);
		return;
	}
	if (write(fd, buf, strlen(buf)) < 0)
		return;		/* nowhere else to report it */
}

static unsigned long warn_count;
static pthread_mutex_t warn_site_lock = PTHREAD_MUTEX_INITIALIZER;
static char warn_last_site[256];
static char warn_site_copy[256];

void compat_warn(bool *printed, const char *file, int line,
		 const char *fmt, ...)
{
	const char *base = strrchr(file, '/');
	char prefix[300];
	int tries;
	va_list ap;

	base = base ? base + 1 : file;
	__atomic_add_fetch(&warn_count, 1, __ATOMIC_SEQ_CST);
	/*
	 * Tried, not waited for: the holder may be the very code a signal
	 * handler interrupted.  The site is then not recorded.
	 */
	for (tries = 0; tries < 1000; tries++) {
		if (!pthread_mutex_trylock(&warn_site_lock)) {
			snprintf(warn_last_site, sizeof(warn_last_site),
				 "%s:%d", base, line);
			pthread_mutex_unlock(&warn_site_lock);
			break;
		}
		sched_yield();
	}
	if (__atomic_exchange_n(printed, true, __ATOMIC_RELAXED))
		return;
	snprintf(prefix, sizeof(prefix), "WARNING: %s:%d: ", base, line);
	va_start(ap, fmt);
	compat_log_vwrite(prefix, fmt, ap);
	va_end(ap);
}

unsigned long compat_warn_count(void)
{
	return __atomic_load_n(&warn_count, __ATOMIC_SEQ_CST);
}

/* For one reader at a time (a test's main thread). */
const char *compat_warn_last_site(void)
{
	pthread_mutex_lock(&warn_site_lock);
	memcpy(warn_site_copy, warn_last_site, sizeof(warn_site_copy));
	pthread_mutex_unlock(&warn_site_lock);
	return warn_site_copy;
}

void compat_printk(const char *level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	compat_log_vwrite(NULL, fmt, ap);
	va_end(ap);
}

unsigned long compat_alloc_fail_countdown;

void *compat_kmalloc(size_t size, gfp_t flags)
{
	unsigned long left = __atomic_load_n(&compat_alloc_fail_countdown,
					     __ATOMIC_RELAXED);

	if (left && __atomic_sub_fetch(&compat_alloc_fail_countdown, 1,
				       __ATOMIC_RELAXED) == 0) {
		errno = ENOMEM;		/* as malloc() leaves it */
		return NULL;
	}
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

static long futex(unsigned int *word, int op, unsigned int val,
		  const struct timespec *abs)
{
	return syscall(SYS_futex, word, op, val, abs, NULL,
		       FUTEX_BITSET_MATCH_ANY);
}

void init_completion(struct completion *x)
{
	__atomic_store_n(&x->done, 0, __ATOMIC_RELAXED);
}

void complete(struct completion *x)
{
	unsigned int v = __atomic_load_n(&x->done, __ATOMIC_RELAXED);

	while (v != UINT_MAX &&
	       !__atomic_compare_exchange_n(&x->done, &v, v + 1, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	futex(&x->done, FUTEX_WAKE_PRIVATE, 1, NULL);
}

void complete_all(struct completion *x)
{
	__atomic_store_n(&x->done, UINT_MAX, __ATOMIC_RELEASE);
	futex(&x->done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

bool completion_done(struct completion *x)
{
	return __atomic_load_n(&x->done, __ATOMIC_ACQUIRE) != 0;
}

/* Take one completion; false if none is there yet. */
static bool completion_take(struct completion *x)
{
	unsigned int v = __atomic_load_n(&x->done, __ATOMIC_ACQUIRE);

	while (v) {
		if (v == UINT_MAX)
			return true;
		if (__atomic_compare_exchange_n(&x->done, &v, v - 1, true,
						__ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE))
			return true;
	}
	return false;
}

/* Wait until @x is completed or CLOCK_MONOTONIC passes @abs (if set). */
static bool completion_wait(struct completion *x, const struct timespec *abs)
{
	while (!completion_take(x)) {
		if (futex(&x->done, FUTEX_WAIT_BITSET_PRIVATE, 0, abs) &&
		    errno == ETIMEDOUT)
			return completion_take(x);
	}
	return true;
}

void wait_for_completion(struct completion *x)
{
	completion_wait(x, NULL);
}

unsigned long wait_for_completion_timeout(struct completion *x,
					  unsigned long timeout)
{
	unsigned long start = compat_jiffies(), left;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += timeout / 1000;
	ts.tv_nsec += (long)(timeout % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	if (!completion_wait(x, &ts))
		return 0;
	left = timeout - (compat_jiffies() - start);
	return (long)left < 1 ? 1 : left;
}
