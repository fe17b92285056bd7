/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The monotonic clock and sleeps of the test programs: the Check suites
 * (through testutil.h) and the stand-alone stress and failnth programs.
 */
#ifndef REVOCABLE_TEST_CLOCK_H
#define REVOCABLE_TEST_CLOCK_H

#include <errno.h>
#include <time.h>

static inline unsigned long test_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline unsigned long test_now_ms(void)
{
	return test_now_us() / 1000;
}

/* Sleeps the whole time, a signal handler in between or not. */
static inline void test_sleep_us(unsigned long us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline void test_sleep_ms(unsigned int ms)
{
	test_sleep_us(ms * 1000UL);
}

#endif
