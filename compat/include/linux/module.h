/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/module.h>: a test program is no module,
 * so the module information checks that it is a string and goes.
 */
#ifndef _COMPAT_LINUX_MODULE_H
#define _COMPAT_LINUX_MODULE_H

#include <linux/bug.h>

struct module;

#define THIS_MODULE		((struct module *)0)

#define __compat_modinfo(info)	static_assert(sizeof(info "") > 1)
#define MODULE_AUTHOR(a)	__compat_modinfo(a)
#define MODULE_DESCRIPTION(d)	__compat_modinfo(d)
#define MODULE_LICENSE(l)	__compat_modinfo(l)

#endif
