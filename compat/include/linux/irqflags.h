/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/irqflags.h>: threads have no interrupts. */
#ifndef _COMPAT_LINUX_IRQFLAGS_H
#define _COMPAT_LINUX_IRQFLAGS_H

#include <stdbool.h>

#define irqs_disabled()	false

#endif
