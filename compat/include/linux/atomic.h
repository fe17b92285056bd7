/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/atomic.h>, on liburcu's uatomic and the
 * compiler's __atomic builtins.  Value-returning operations are fully
 * ordered, as in the kernel.
 */
#ifndef _COMPAT_LINUX_ATOMIC_H
#define _COMPAT_LINUX_ATOMIC_H

#include <linux/types.h>
#include <urcu/uatomic.h>

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

#define atomic_read(v)		uatomic_read(&(v)->counter)
#define atomic_set(v, i)	uatomic_set(&(v)->counter, (i))
#define atomic_inc(v)		uatomic_inc(&(v)->counter)
#define atomic_dec(v)		uatomic_dec(&(v)->counter)
#define atomic_add_return(i, v)	uatomic_add_return(&(v)->counter, (i))
#define atomic_inc_return(v)	uatomic_add_return(&(v)->counter, 1)
#define atomic_dec_return(v)	uatomic_sub_return(&(v)->counter, 1)
#define atomic_dec_and_test(v)	(atomic_dec_return(v) == 0)

#define atomic_long_read(v)	uatomic_read(&(v)->counter)
#define atomic_long_set(v, i)	uatomic_set(&(v)->counter, (i))
#define atomic_long_inc(v)	uatomic_inc(&(v)->counter)
#define atomic_long_dec(v)	uatomic_dec(&(v)->counter)
#define atomic_long_inc_return(v) uatomic_add_return(&(v)->counter, 1)
#define atomic_long_dec_return(v) uatomic_sub_return(&(v)->counter, 1)

#endif
