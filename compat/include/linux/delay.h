/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/delay.h>: msleep() sleeps, the *delay()
 * functions spin on the monotonic clock, as they busy-wait in the kernel.
 */
#ifndef _COMPAT_LINUX_DELAY_H
#define _COMPAT_LINUX_DELAY_H

#include <errno.h>
#include <time.h>

static inline void msleep(unsigned int msecs)
{
	struct timespec ts = {
		.tv_sec = msecs / 1000,
		.tv_nsec = (long)(msecs % 1000) * 1000000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline void ndelay(unsigned long nsecs)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += nsecs / 1000000000;
	end.tv_nsec += (long)(nsecs % 1000000000);
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec ||
		 (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
}

static inline void udelay(unsigned long usecs)
{
	ndelay(usecs * 1000);
}

#endif
