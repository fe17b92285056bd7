/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/printk.h>: messages go to stderr. */
#ifndef _COMPAT_LINUX_PRINTK_H
#define _COMPAT_LINUX_PRINTK_H

#include <linux/compiler.h>

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#include <stdio.h>

/* Where messages and WARNs go: compat_log if set, else stderr. */
extern FILE *compat_log;
FILE *compat_log_stream(void);

void compat_printk(const char *level, const char *fmt, ...) __printf(2, 3);

#define pr_err(fmt, ...)  compat_printk("err", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) compat_printk("warn", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...) compat_printk("info", pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...) do { } while (0)

#endif
