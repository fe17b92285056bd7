/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/bug.h>.  Every WARN prints "WARNING:
 * file:line: ..." the first time its site fires, and every firing is
 * counted; tests read compat_warn_count() and compat_warn_last_site().
 */
#ifndef _COMPAT_LINUX_BUG_H
#define _COMPAT_LINUX_BUG_H

#include <linux/compiler.h>

void compat_warn(bool *printed, const char *file, int line,
		 const char *fmt, ...) __printf(4, 5) __cold;
unsigned long compat_warn_count(void);
const char *compat_warn_last_site(void);

#define __compat_warn_site(cond, fmt, ...)				\
	({								\
		static bool __printed;					\
		bool __cond = !!(cond);					\
		if (unlikely(__cond))					\
			compat_warn(&__printed, __FILE__, __LINE__,	\
				    fmt, ##__VA_ARGS__);		\
		unlikely(__cond);					\
	})

#define WARN_ON(cond)		__compat_warn_site(cond, "%s\n", #cond)
#define WARN_ON_ONCE(cond)	__compat_warn_site(cond, "%s\n", #cond)
#define WARN(cond, fmt, ...)	__compat_warn_site(cond, fmt, ##__VA_ARGS__)
#define WARN_ONCE(cond, fmt, ...) __compat_warn_site(cond, fmt, ##__VA_ARGS__)

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#ifndef static_assert
#define static_assert(expr, ...)	_Static_assert(expr, #expr)
#endif

#endif
