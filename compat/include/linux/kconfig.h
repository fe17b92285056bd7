/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for the kernel's <linux/kconfig.h>: the build forces
 * this file into every compat translation unit, like Kbuild does with the
 * real one.  The CONFIG_ values come from meson (revocable-config.h).
 */
#ifndef _COMPAT_LINUX_KCONFIG_H
#define _COMPAT_LINUX_KCONFIG_H

#include "revocable-config.h"

/*
 * IS_ENABLED(CONFIG_FOO) is 1 when CONFIG_FOO is defined to 1, else 0.
 * The placeholder turns "1" into an extra argument that shifts the 1 into
 * the position that is picked.
 */
#define __compat_placeholder_1 0,
#define __compat_second(ignored, val, ...) val
#define __compat_defined3(junk) __compat_second(junk 1, 0)
#define __compat_defined2(val) __compat_defined3(__compat_placeholder_##val)
#define __compat_defined(x) __compat_defined2(x)
#define IS_ENABLED(option) __compat_defined(option)
#define IS_BUILTIN(option) __compat_defined(option)

#endif
