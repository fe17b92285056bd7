/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/completion.h>, on a mutex and a condvar. */
#ifndef _COMPAT_LINUX_COMPLETION_H
#define _COMPAT_LINUX_COMPLETION_H

#include <pthread.h>
#include <linux/types.h>

struct completion {
	unsigned int done;
	pthread_mutex_t lock;
	pthread_cond_t wait;
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
