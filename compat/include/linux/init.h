/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/init.h>. */
#ifndef _COMPAT_LINUX_INIT_H
#define _COMPAT_LINUX_INIT_H

#define __init
#define __exit

#endif
