/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <asm/barrier.h>: the barriers (smp_mb(),
 * smp_store_release(), ...) are <linux/atomic.h>'s.
 */
#ifndef _COMPAT_ASM_BARRIER_H
#define _COMPAT_ASM_BARRIER_H

#include <linux/atomic.h>

#endif
