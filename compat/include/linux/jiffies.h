/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/jiffies.h>: one jiffy is a millisecond. */
#ifndef _COMPAT_LINUX_JIFFIES_H
#define _COMPAT_LINUX_JIFFIES_H

#include <linux/types.h>

#define HZ 1000

unsigned long compat_jiffies(void);
#define jiffies compat_jiffies()

static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	return m;
}

static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)j;
}

#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)

#endif
