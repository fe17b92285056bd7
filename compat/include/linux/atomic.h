/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/atomic.h>, on the compiler's __atomic
 * builtins (which ThreadSanitizer understands, unlike inline assembly).
 * Value-returning operations are fully ordered, as in the kernel.
 */
#ifndef _COMPAT_LINUX_ATOMIC_H
#define _COMPAT_LINUX_ATOMIC_H

#include <linux/compiler.h>
#include <linux/types.h>

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__after_atomic()	barrier()
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

#define xchg(ptr, v)	__atomic_exchange_n((ptr), (v), __ATOMIC_SEQ_CST)
#define cmpxchg(ptr, old, new)						\
	({								\
		__typeof__(*(ptr)) __old = (old);			\
		__atomic_compare_exchange_n((ptr), &__old, (new), false,\
					    __ATOMIC_SEQ_CST,		\
					    __ATOMIC_SEQ_CST);		\
		__old;							\
	})

#define try_cmpxchg(ptr, oldp, new)					\
	__atomic_compare_exchange_n((ptr), (oldp), (new), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_inc(v)		((void)__atomic_add_fetch(&(v)->counter, 1, __ATOMIC_RELAXED))
#define atomic_dec(v)		((void)__atomic_sub_fetch(&(v)->counter, 1, __ATOMIC_RELAXED))
#define atomic_add_return(i, v)	__atomic_add_fetch(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_inc_return(v)	atomic_add_return(1, v)
#define atomic_dec_return(v)	atomic_add_return(-1, v)
#define atomic_dec_and_test(v)	(atomic_dec_return(v) == 0)

#define atomic_long_read(v)		atomic_read(v)
#define atomic_long_set(v, i)		atomic_set(v, i)
#define atomic_long_inc(v)		atomic_inc(v)
#define atomic_long_dec(v)		atomic_dec(v)
#define atomic_long_inc_return(v)	atomic_inc_return(v)
#define atomic_long_dec_return(v)	atomic_dec_return(v)

#endif
