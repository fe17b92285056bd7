/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/completion.h>, on a futex word.  Not on a
 * condition variable: in a fork() child, a condition variable copied with
 * waiters of threads that were not copied can block the signalling side
 * for good, while a futex wake never waits for anyone.
 */
#ifndef _COMPAT_LINUX_COMPLETION_H
#define _COMPAT_LINUX_COMPLETION_H

#include <linux/types.h>

struct completion {
	unsigned int done;		/* UINT_MAX: completed for all */
};

void init_completion(struct completion *x);
void complete(struct completion *x);
void complete_all(struct completion *x);
void wait_for_completion(struct completion *x);
/* Returns 0 on timeout, else the jiffies left (at least 1). */
unsigned long wait_for_completion_timeout(struct completion *x,
					  unsigned long timeout);
bool completion_done(struct completion *x);

#endif
