/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/debug_locks.h>.  The only "locks" userspace
 * can report are SRCU read-side sections, so debug_show_all_locks() lists
 * the threads that are inside one, per domain.
 */
#ifndef _COMPAT_LINUX_DEBUG_LOCKS_H
#define _COMPAT_LINUX_DEBUG_LOCKS_H

extern int debug_locks;
void debug_show_all_locks(void);

#endif
