/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/atomic.h>, on the compiler's __atomic
 * builtins (which ThreadSanitizer understands, unlike inline assembly).
 * Value-returning operations are fully ordered, as in the kernel.
 */
#ifndef _COMPAT_LINUX_ATOMIC_H
#define _COMPAT_LINUX_ATOMIC_H

#include <runtime/annotate.h>
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

/*
 * A release that publishes a pointer (revocable_provider_publish()): for
 * race detectors the start of the edge that rcu_dereference() of the same
 * pointer ends, as rcu_assign_pointer() is.
 */
#define cmpxchg_release(ptr, old, new)					\
	({								\
		compat_rcu_pointer_store(ptr);				\
		cmpxchg((ptr), (old), (new));				\
	})

#define try_cmpxchg(ptr, oldp, new)					\
	__atomic_compare_exchange_n((ptr), (oldp), (new), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

#define ATOMIC_INIT(i)		{ (i) }

/*
 * The operations are functions of an atomic_t * or atomic_long_t *, as in
 * the kernel, so that a void * (a callback's argument) converts to one.
 */
#define __COMPAT_ATOMIC_OPS(op, atype, type)				\
	static __always_inline type op##_read(const atype *v)		\
	{								\
		return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);	\
	}								\
	static __always_inline type op##_read_acquire(const atype *v)	\
	{								\
		return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE);	\
	}								\
	static __always_inline void op##_set(atype *v, type i)		\
	{								\
		__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);	\
	}								\
	static __always_inline void op##_set_release(atype *v, type i)	\
	{								\
		__atomic_store_n(&v->counter, i, __ATOMIC_RELEASE);	\
	}								\
	static __always_inline void op##_inc(atype *v)			\
	{								\
		__atomic_add_fetch(&v->counter, 1, __ATOMIC_RELAXED);	\
	}								\
	static __always_inline void op##_dec(atype *v)			\
	{								\
		__atomic_sub_fetch(&v->counter, 1, __ATOMIC_RELAXED);	\
	}								\
	static __always_inline type op##_add_return(type i, atype *v)	\
	{								\
		return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); \
	}								\
	static __always_inline type op##_inc_return(atype *v)		\
	{								\
		return op##_add_return(1, v);				\
	}								\
	static __always_inline type op##_dec_return(atype *v)		\
	{								\
		return op##_add_return(-1, v);				\
	}								\
	static __always_inline type op##_dec_return_release(atype *v)	\
	{								\
		return __atomic_sub_fetch(&v->counter, 1, __ATOMIC_RELEASE); \
	}								\
	static __always_inline bool op##_dec_and_test(atype *v)		\
	{								\
		return op##_dec_return(v) == 0;				\
	}								\
	static __always_inline type op##_cmpxchg(atype *v, type old,	\
						 type new)		\
	{								\
		return cmpxchg(&v->counter, old, new);			\
	}

__COMPAT_ATOMIC_OPS(atomic, atomic_t, int)
__COMPAT_ATOMIC_OPS(atomic_long, atomic_long_t, long)

#endif
