/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/string.h>: libc's, and kstrdup(). */
#ifndef _COMPAT_LINUX_STRING_H
#define _COMPAT_LINUX_STRING_H

#include <string.h>
#include <linux/slab.h>

static inline char *kstrdup(const char *s, gfp_t gfp)
{
	size_t len;
	char *p;

	if (!s)
		return NULL;
	len = strlen(s) + 1;
	p = kmalloc(len, gfp);
	if (p)
		memcpy(p, s, len);
	return p;
}

#endif
