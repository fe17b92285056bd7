/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/cleanup.h>: the subset lib/ and the KUnit
 * suite use, on the compiler's cleanup attribute.
 */
#ifndef _COMPAT_LINUX_CLEANUP_H
#define _COMPAT_LINUX_CLEANUP_H

#include <linux/compiler.h>

#define DEFINE_FREE(_name, _type, _free)				\
	static inline void __free_##_name(void *p)			\
	{								\
		_type _T = *(_type *)p;					\
		_free;							\
	}
#define __free(_name)	__cleanup(__free_##_name)

/*
 * A class: a type with a constructor taking @_init_args and a destructor
 * run on a copy of the object (_T) when the variable goes out of scope.
 */
#define DEFINE_CLASS(_name, _type, _exit, _init, _init_args...)	\
	typedef _type class_##_name##_t;				\
	static inline void class_##_name##_destructor(_type *p)	\
	{								\
		_type _T = *p;						\
		_exit;							\
	}								\
	static inline _type class_##_name##_constructor(_init_args)	\
	{								\
		_type t = _init;					\
		return t;						\
	}

#define CLASS(_name, var)						\
	class_##_name##_t var __cleanup(class_##_name##_destructor) =	\
		class_##_name##_constructor

#define DEFINE_LOCK_GUARD_0(_name, _lock, _unlock)			\
	typedef struct {						\
		int unused;						\
	} class_##_name##_t;						\
	static inline void class_##_name##_destructor(class_##_name##_t *_T) \
	{								\
		(void)_T;						\
		_unlock;						\
	}								\
	static inline class_##_name##_t class_##_name##_constructor(void) \
	{								\
		class_##_name##_t _t = { 0 };				\
		_lock;							\
		return _t;						\
	}

#define guard(_name)							\
	class_##_name##_t __UNIQUE_ID(guard)				\
		__cleanup(class_##_name##_destructor) =			\
		class_##_name##_constructor()

#define __scoped_guard(_name, _label)					\
	for (class_##_name##_t scope __cleanup(class_##_name##_destructor) = \
		     class_##_name##_constructor(), *done = NULL;	\
	     !done; done = (void *)1)
#define scoped_guard(_name)	__scoped_guard(_name, __UNIQUE_ID(label))

#endif
