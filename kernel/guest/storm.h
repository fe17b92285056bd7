/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unplug storms (kernel/guest/gpio_unplug_storm.c,
 * kernel/guest/evdev_unplug_storm.c and kernel/guest/media_unplug_storm.c)
 * share: their counters, the check that a call failing on a removed device
 * gives the documented error within the bound, and kmemleak (kmemleak.h,
 * which the fault sweep includes too).  Included once by each program.
 */
#ifndef STORM_H
#define STORM_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "kmemleak.h"

static atomic_llong calls, gone_calls, events, removals, bad, late;
static atomic_llong max_latency_ns;
static long long bound_ns = 5000LL * 1000000, removal_max;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void complain(const char *what, const char *detail, int err)
{
	atomic_fetch_add(&bad, 1);
	ksft_print_msg("unexpected: %s: %s (%s)\n", what, detail,
		       err ? strerror(err) : "no error");
}

/*
 * open() of a device node in a worker, counted as a call: a node that is
 * gone may fail with ENOENT, ENODEV or ENXIO, and only once @gone is set.
 */
static __attribute__((__unused__)) int
storm_open(const char *node, int flags, atomic_int *gone, const char *live)
{
	int fd = open(node, flags | O_CLOEXEC);

	atomic_fetch_add(&calls, 1);
	if (fd < 0 && errno != ENOENT && errno != ENODEV && errno != ENXIO)
		complain("open", node, errno);
	if (fd < 0 && !atomic_load(gone))
		complain("open", live, errno);
	return fd;
}

/*
 * One round's workers: @nw threads running @w[i](@arg), left to run for
 * 2-32 ms, then the device's removal is said to start (@gone, at
 * @gone_ns), which the caller then makes.
 */
static __attribute__((__unused__)) void
storm_run_workers(pthread_t *th, void *(*const *w)(void *), int nw, void *arg,
		  unsigned int *seed, atomic_int *gone, atomic_llong *gone_ns)
{
	for (int i = 0; i < nw; i++)
		if (pthread_create(&th[i], NULL, w[i], arg))
			ksft_exit_fail_msg("pthread_create failed\n");
	usleep(2000 + rand_r(seed) % 30000);
	atomic_store(gone_ns, now_ns());
	atomic_store(gone, 1);
}

/* A worker's end: closes its file descriptors that are open (>= 0). */
static __attribute__((__unused__)) void *storm_worker_end(int fd, int fd2)
{
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
	return NULL;
}

/*
 * A call failed with errno @err: that must be the device's removal (which
 * @gone says has started, at @gone_ns) and the documented error @expect.
 * Returns 1 (the caller stops), after checking that a call blocked at the
 * removal returned within the bound.
 */
static int storm_gone(atomic_int *gone, atomic_llong *gone_ns,
		      const char *what, int err, int expect)
{
	long long lat;

	if (err != expect) {
		complain(what, "wrong error on a removed device", err);
		return 1;
	}
	if (!atomic_load(gone)) {
		/* The device can only disappear through us. */
		complain(what, "device gone before its removal", err);
		return 1;
	}
	atomic_fetch_add(&gone_calls, 1);
	lat = now_ns() - atomic_load(gone_ns);
	if (lat > atomic_load(&max_latency_ns))
		atomic_store(&max_latency_ns, lat);
	if (lat > bound_ns) {
		atomic_fetch_add(&late, 1);
		ksft_print_msg("%s returned %lld ms after the removal started\n",
			       what, lat / 1000000);
	}
	return 1;
}


/*
 * The options every storm takes, -t SECONDS (how long it runs, default 5)
 * and -b BOUND_MS (the longest a blocked call may take to return after a
 * removal), and one of its own, -@opt ARG, whose ARG goes to *@arg.
 * Prints the KTAP header and returns when the storm is to end
 * (CLOCK_MONOTONIC ns).
 */
static long long storm_start(int argc, char **argv, int opt, const char **arg,
			     const char *usage)
{
	char opts[] = { 't', ':', 'b', ':', (char)opt, ':', 0 };
	unsigned int seconds = 5;
	int c;

	while ((c = getopt(argc, argv, opts)) != -1) {
		if (c == 't')
			seconds = atoi(optarg);
		else if (c == 'b')
			bound_ns = atoll(optarg) * 1000000;
		else if (c == opt)
			*arg = optarg;
		else
			ksft_exit_fail_msg("usage: %s [-t SECONDS] [-b BOUND_MS] %s\n",
					   argv[0], usage);
	}
	ksft_print_header();
	return now_ns() + seconds * 1000000000LL;
}

/*
 * The line of the longest removal and of the latest return of a call after
 * a removal started, for the whole storm or (@who) a part of it.
 */
static void storm_print_longest(const char *who, const char *what,
				long long removal, long long latency)
{
	ksft_print_msg("%s%slongest %s %lld ms, latest return after a %s %lld ms (bound %lld ms)\n",
		       who ? who : "", who ? ": " : "", what, removal / 1000000,
		       what, latency / 1000000, bound_ns / 1000000);
}

/*
 * The results every storm ends with.  @first names its first result, true
 * when @removed (the device went away under use and callers saw it gone);
 * @prefix names the others: no undocumented error, every blocked caller
 * back within the bound, and no leak (@leak: kmemleak_report(1) before the
 * storm).  @what is what the storm does to the device, for the summary.
 */
static void storm_results(const char *first, int removed, const char *prefix,
			  const char *what, int leak)
{
	storm_print_longest(NULL, what, removal_max, atomic_load(&max_latency_ns));
	ksft_test_result(removed, "%s\n", first);
	ksft_test_result(atomic_load(&bad) == 0, "%s_documented_errors\n", prefix);
	ksft_test_result(atomic_load(&late) == 0 && removal_max <= bound_ns,
			 "%s_blocked_callers_return\n", prefix);
	if (atomic_load(&late)) {
		ksft_test_result_fail("%s_no_leak (not checked: a caller is stuck)\n",
				      prefix);
		return;
	}
	leak = leak < 0 ? -1 : kmemleak_report(0);
	if (leak < 0)
		ksft_test_result_skip("%s_no_leak (no kmemleak)\n", prefix);
	else
		ksft_test_result(leak == 0, "%s_no_leak\n", prefix);
}

#endif /* STORM_H */
