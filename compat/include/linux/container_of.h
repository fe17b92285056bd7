/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/container_of.h>. */
#ifndef _COMPAT_LINUX_CONTAINER_OF_H
#define _COMPAT_LINUX_CONTAINER_OF_H

#include <stddef.h>

#define container_of(ptr, type, member)					\
	((type *)((char *)(ptr) - offsetof(type, member)))

#endif
