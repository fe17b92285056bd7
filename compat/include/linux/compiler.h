/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/compiler.h> and friends. */
#ifndef _COMPAT_LINUX_COMPILER_H
#define _COMPAT_LINUX_COMPILER_H

#include <stdbool.h>
#include <stddef.h>

#include <runtime/tsan.h>

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

#define barrier()	__asm__ __volatile__("" : : : "memory")

#ifdef COMPAT_TSAN
/*
 * The kernel's memory model (and KCSAN) treats READ_ONCE()/WRITE_ONCE()
 * as marked, atomic accesses: tell TSan the same with relaxed atomics,
 * which compile to the same plain loads and stores.
 */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val)						\
	__atomic_store_n(&(x), (val), __ATOMIC_RELAXED)
#else
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)						\
	do {								\
		*(volatile __typeof__(x) *)&(x) = (val);		\
	} while (0)
#endif

#ifndef __percpu
#define __percpu
#endif
#ifndef __rcu
#define __rcu
#endif
#ifndef __acquires
#define __acquires(x)
#define __releases(x)
#endif
#define __must_check	__attribute__((__warn_unused_result__))
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define noinline	__attribute__((__noinline__))
#define __cold		__attribute__((__cold__))
#define __maybe_unused	__attribute__((__unused__))
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#define __noreturn	__attribute__((__noreturn__))
#define __used		__attribute__((__used__))
#define __weak		__attribute__((__weak__))
#define __section(s)	__attribute__((__section__(s)))
#ifndef __cleanup
#define __cleanup(func)	__attribute__((__cleanup__(func)))
#endif
#define __aligned(x)	__attribute__((__aligned__(x)))
#define ____cacheline_aligned __aligned(64)

#define ___PASTE(a, b)	a##b
#define __PASTE(a, b)	___PASTE(a, b)
#ifndef __UNIQUE_ID
#define __UNIQUE_ID(prefix) __PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif
