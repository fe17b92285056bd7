/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/refcount.h>: see <linux/kref.h>. */
#ifndef _COMPAT_LINUX_REFCOUNT_H
#define _COMPAT_LINUX_REFCOUNT_H

#include <linux/kref.h>

#endif
