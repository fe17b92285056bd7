/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/slab.h>, on malloc. */
#ifndef _COMPAT_LINUX_SLAB_H
#define _COMPAT_LINUX_SLAB_H

#include <stdlib.h>
#include <linux/types.h>

#define GFP_KERNEL	0x1u
#define GFP_ATOMIC	0x2u
#define GFP_NOWAIT	0x4u
#define __GFP_ZERO	0x100u

/*
 * compat_alloc_fail_countdown lets tests make the Nth following allocation
 * fail, to exercise every -ENOMEM path; 0 means never.
 */
extern unsigned long compat_alloc_fail_countdown;
/*
 * The same for the start of the library's service threads (its callback
 * workers), which then fails as pthread_create() does without resources.
 */
extern unsigned long compat_thread_fail_countdown;
void *compat_kmalloc(size_t size, gfp_t flags);

static inline void *kmalloc(size_t size, gfp_t flags)
{
	return compat_kmalloc(size, flags);
}

static inline void *kzalloc(size_t size, gfp_t flags)
{
	return compat_kmalloc(size, flags | __GFP_ZERO);
}

/* One zeroed object of the type of @P (a variable or a type). */
#define kzalloc_obj(P, flags)	((typeof(P) *)kzalloc(sizeof(P), (flags)))

static inline void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	return compat_kmalloc(n * size, flags);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#endif
