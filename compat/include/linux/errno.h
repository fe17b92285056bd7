/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/errno.h>: the UAPI header has the kernel's
 * values, and libc's <errno.h> includes it too, so this only forwards.
 */
#include_next <linux/errno.h>
