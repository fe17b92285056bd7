/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/cleanup.h>: the subset lib/ uses, on the
 * compiler's cleanup attribute.
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
