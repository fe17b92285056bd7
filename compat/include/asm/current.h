/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <asm/current.h>: "current" is <linux/sched.h>'s. */
#ifndef _COMPAT_ASM_CURRENT_H
#define _COMPAT_ASM_CURRENT_H

#include <linux/sched.h>

#endif
