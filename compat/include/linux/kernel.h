/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/kernel.h>. */
#ifndef _COMPAT_LINUX_KERNEL_H
#define _COMPAT_LINUX_KERNEL_H

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/printk.h>
#include <linux/types.h>

#define might_sleep() do { } while (0)

#endif
