/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/error-injection.h>.  The kernel's marker
 * lists a function that fail_function may make return an error; userspace
 * has no such injector, so it expands to nothing.
 */
#ifndef _COMPAT_LINUX_ERROR_INJECTION_H
#define _COMPAT_LINUX_ERROR_INJECTION_H

#define ALLOW_ERROR_INJECTION(fname, _etype)

#endif
