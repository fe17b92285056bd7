/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ThreadSanitizer builds (meson setup -Db_sanitize=thread).  liburcu is
 * not instrumented and TSan does not model fences or membarrier(), so the
 * compat layer tells it about the orderings those provide: see rcu.c,
 * compiler.h and <revocable/reader.h>.  Outside TSan its two macros expand
 * to nothing.  It includes nothing, so that rcu.c can read it before
 * liburcu's headers.
 */
#ifndef _RUNTIME_TSAN_H
#define _RUNTIME_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define COMPAT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define COMPAT_TSAN 1
#endif
#endif

#ifdef COMPAT_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define compat_tsan_acquire(addr)	__tsan_acquire(addr)
#define compat_tsan_release(addr)	__tsan_release(addr)
#else
#define compat_tsan_acquire(addr)	do { } while (0)
#define compat_tsan_release(addr)	do { } while (0)
#endif

#endif
