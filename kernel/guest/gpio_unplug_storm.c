// SPDX-License-Identifier: GPL-2.0
/*
 * GPIO unplug storm: a gpio-sim chip is made live and removed through
 * configfs, again and again, while threads use it through every path of the
 * character device (line info, v2 line values get and set, blocking read()
 * and poll() for edge events through the v2 and the v1 uAPI).  The main
 * thread also holds edge-event requests of both uAPIs that it closes only
 * after the chip is gone.
 *
 * Checks, for a bounded time:
 *  - every call on a removed chip gives the documented error: -ENODEV for
 *    ioctl() and read(), EPOLLHUP | EPOLLERR for poll(); opening a removed
 *    chip's node fails with ENOENT, ENODEV or ENXIO;
 *  - a thread blocked in read() or poll() returns within a bound after the
 *    removal starts, and the removal itself completes within it;
 *  - kmemleak, if the kernel has it, reports nothing new at the end.
 * The console (KASAN, lockdep, WARNING, hung tasks) is judged by the caller.
 *
 * With -m MODULE (gpio_slow_chip.ko), the second half of the time goes to a
 * chip whose get and set sleep (a slow-bus expander), added and removed
 * through debugfs while threads read and write its lines: callers are
 * inside the driver when it is removed, which catches a removal that does
 * not wait for them.
 *
 * usage: gpio_unplug_storm [-t SECONDS] [-b BOUND_MS] [-m SLOW_CHIP_MODULE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "storm.h"

#define CFG		"/sys/kernel/config/gpio-sim/storm"
#define NLINES		8
#define SLOW_LIVE	"/sys/kernel/debug/gpio-slow/live"

/* One incarnation of the chip. */
struct gen {
	char chip[80];		/* /dev/gpiochipN */
	char sysfs[160];	/* /sys/devices/platform/gpio-sim.N/gpiochipN */
	atomic_int gone;	/* the removal has started */
	atomic_llong gone_ns;	/* when */
	unsigned int nlines;
	atomic_uint next_out;	/* the next output line for w_values */
};

static atomic_llong slow_removals;
static unsigned int seed = 1;

static int gone(struct gen *g, const char *what, int err, int expect)
{
	return storm_gone(&g->gone, &g->gone_ns, what, err, expect);
}
static const char *slow_module;

/* A call of a worker's loop returned @ret: true when the chip is gone. */
static int call_gone(struct gen *g, long ret, const char *what)
{
	atomic_fetch_add(&calls, 1);
	return ret < 0 && gone(g, what, errno, ENODEV);
}

/* ioctl(@fd, @req, @arg) through call_gone(), which names @req. */
#define IOCTL_GONE(g, fd, req, arg)	call_gone(g, ioctl(fd, req, arg), #req)

static int open_chip(struct gen *g)
{
	return storm_open(g->chip, O_RDWR, &g->gone, "failed on a live chip");
}

/* A v2 line request on the chip fd; returns the line fd or -1 (gone). */
static int request_v2(struct gen *g, int cfd, unsigned int off, __u64 flags)
{
	struct gpio_v2_line_request req;
	int err;

	memset(&req, 0, sizeof(req));
	req.offsets[0] = off;
	req.num_lines = 1;
	req.config.flags = flags;
	snprintf(req.consumer, sizeof(req.consumer), "storm%u", off);
	atomic_fetch_add(&calls, 1);
	if (ioctl(cfd, GPIO_V2_GET_LINE_IOCTL, &req) == 0)
		return req.fd;
	/*
	 * An edge request that the removal overtakes between the line's
	 * request and the lookup of its interrupt fails with ENXIO: the
	 * character device's edge_detector_setup() turns every error of
	 * gpiod_to_irq(), the removed chip's ENODEV included, into ENXIO
	 * (stock does the same; seen once in 44,000 calls).
	 */
	err = errno;
	gone(g, "GPIO_V2_GET_LINE_IOCTL", err,
	     (flags & (GPIO_V2_LINE_FLAG_EDGE_RISING |
		       GPIO_V2_LINE_FLAG_EDGE_FALLING)) && err == ENXIO ?
	     ENXIO : ENODEV);
	return -1;
}

static int request_v1_event(struct gen *g, int cfd, unsigned int off)
{
	struct gpioevent_request req;

	memset(&req, 0, sizeof(req));
	req.lineoffset = off;
	req.handleflags = GPIOHANDLE_REQUEST_INPUT;
	req.eventflags = GPIOEVENT_REQUEST_BOTH_EDGES;
	snprintf(req.consumer_label, sizeof(req.consumer_label), "storm%u", off);
	atomic_fetch_add(&calls, 1);
	if (ioctl(cfd, GPIO_GET_LINEEVENT_IOCTL, &req) == 0)
		return req.fd;
	gone(g, "GPIO_GET_LINEEVENT_IOCTL", errno, ENODEV);
	return -1;
}

#define EDGES	(GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING | \
		 GPIO_V2_LINE_FLAG_EDGE_FALLING)

static void *w_info(void *arg)
{
	struct gen *g = arg;
	struct gpio_v2_line_info info;
	struct gpiochip_info ci;
	unsigned int i = 0;
	int fd = open_chip(g);

	while (fd >= 0) {
		memset(&info, 0, sizeof(info));
		info.offset = i++ % g->nlines;
		if (IOCTL_GONE(g, fd, GPIO_V2_GET_LINEINFO_IOCTL, &info) ||
		    IOCTL_GONE(g, fd, GPIO_GET_CHIPINFO_IOCTL, &ci))
			break;
	}
	return storm_worker_end(fd, -1);
}

static void *w_values(void *arg)
{
	struct gen *g = arg;
	struct gpio_v2_line_values v;
	int cfd = open_chip(g), fd = -1;
	unsigned int i = 0;

	if (cfd >= 0)
		fd = request_v2(g, cfd, atomic_fetch_add(&g->next_out, 1),
				GPIO_V2_LINE_FLAG_OUTPUT);
	while (fd >= 0) {
		v.mask = 1;
		v.bits = i++ & 1;
		if (IOCTL_GONE(g, fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &v) ||
		    IOCTL_GONE(g, fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &v))
			break;
	}
	return storm_worker_end(fd, cfd);
}

/*
 * Blocking read() of edge events of @size bytes each on the request @fd
 * until the chip's removal ends it with the documented error; closes @fd.
 */
static void read_events(struct gen *g, int fd, size_t size, const char *what)
{
	char buf[4 * sizeof(struct gpio_v2_line_event)];
	ssize_t n;

	while (fd >= 0) {
		atomic_fetch_add(&calls, 1);
		n = read(fd, buf, 4 * size);
		if (n > 0) {
			atomic_fetch_add(&events, n / size);
			continue;
		}
		if (n == 0)
			complain(what, "returned 0", 0);
		else
			gone(g, what, errno, ENODEV);
		break;
	}
	if (fd >= 0)
		close(fd);
}

/* v2 edge events on line 2; the request outlives the chip fd. */
static void *w_read_v2(void *arg)
{
	struct gen *g = arg;
	int cfd = open_chip(g), fd = -1;

	if (cfd >= 0) {
		fd = request_v2(g, cfd, 2, EDGES);
		close(cfd);
	}
	read_events(g, fd, sizeof(struct gpio_v2_line_event), "read (v2 line request)");
	return NULL;
}

/* poll() with no timeout for v2 edge events on line 3. */
static void *w_poll_v2(void *arg)
{
	struct gen *g = arg;
	struct gpio_v2_line_event ev;
	int cfd = open_chip(g), fd = -1;
	struct pollfd p;

	if (cfd >= 0)
		fd = request_v2(g, cfd, 3, EDGES);
	while (fd >= 0) {
		p.fd = fd;
		p.events = POLLIN;
		atomic_fetch_add(&calls, 1);
		if (poll(&p, 1, -1) != 1) {
			complain("poll", "failed", errno);
			break;
		}
		if (p.revents & (POLLHUP | POLLERR)) {
			if ((p.revents & (POLLHUP | POLLERR)) !=
			    (POLLHUP | POLLERR))
				complain("poll", "only one of POLLHUP, POLLERR", 0);
			gone(g, "poll (v2 line request)", ENODEV, ENODEV);
			break;
		}
		atomic_fetch_add(&calls, 1);
		if (read(fd, &ev, sizeof(ev)) == sizeof(ev))
			atomic_fetch_add(&events, 1);
		else if (gone(g, "read after poll", errno, ENODEV))
			break;
	}
	return storm_worker_end(fd, cfd);
}

/* v1 line events on line 4, with the chip fd open meanwhile. */
static void *w_read_v1(void *arg)
{
	struct gen *g = arg;
	int cfd = open_chip(g), fd = -1;

	if (cfd >= 0)
		fd = request_v1_event(g, cfd, 4);
	read_events(g, fd, sizeof(struct gpioevent_data), "read (v1 line event)");
	return storm_worker_end(cfd, -1);
}

/* Toggle the simulated pull of the edge lines until the chip goes. */
static void *w_pull(void *arg)
{
	static const char *const pull[] = { "pull-up", "pull-down" };
	struct gen *g = arg;
	char path[224];
	unsigned int i = 0;
	int fd, ok = 1;

	while (ok && !atomic_load(&g->gone)) {
		for (unsigned int line = 2; ok && line <= 6; line++) {
			snprintf(path, sizeof(path), "%s/sim_gpio%u/pull",
				 g->sysfs, line);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			ok = fd >= 0 && write(fd, pull[i & 1], strlen(pull[i & 1])) > 0;
			if (fd >= 0)
				close(fd);
		}
		i++;
		usleep(500);
	}
	return NULL;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void setup_configfs(void)
{
	if (mkdir(CFG, 0755) && errno != EEXIST)
		ksft_exit_skip("gpio-sim configfs: %s (module loaded? configfs mounted?)\n",
			       strerror(errno));
	if (mkdir(CFG "/bank0", 0755) && errno != EEXIST)
		ksft_exit_fail_msg("mkdir bank0: %s\n", strerror(errno));
	if (write_file(CFG "/bank0/num_lines", "8"))
		ksft_exit_fail_msg("num_lines: %s\n", strerror(errno));
}

static void teardown_configfs(void)
{
	write_file(CFG "/live", "0");
	rmdir(CFG "/bank0");
	rmdir(CFG);
}

/*
 * A call @call (its result @ret, errno set) on a descriptor @what that the
 * main thread kept across the removal: it must fail with -ENODEV.
 */
static void held_gone(struct gen *g, const char *what, const char *call,
		      long ret)
{
	char msg[64];

	atomic_fetch_add(&calls, 1);
	if (ret >= 0) {
		snprintf(msg, sizeof(msg), "%s succeeded after removal", call);
		complain(what, msg, 0);
		return;
	}
	snprintf(msg, sizeof(msg), "%s %s", what, call);
	gone(g, msg, errno, ENODEV);
}

/*
 * After the removal, the requests the main thread kept open: every call
 * gives the documented error, then they are closed (the release of a
 * request whose IRQ the removal gave back).
 */
static void check_held(struct gen *g, int cfd, int v2, int v1)
{
	struct gpio_v2_line_values v = { .mask = 1 };
	struct gpiohandle_data hd;
	struct gpio_v2_line_info info = { .offset = 0 };
	struct pollfd p[2] = { { .fd = v2, .events = POLLIN },
			       { .fd = v1, .events = POLLIN } };
	char buf[64];

	if (cfd >= 0)
		held_gone(g, "held chip fd", "ioctl",
			  ioctl(cfd, GPIO_V2_GET_LINEINFO_IOCTL, &info));
	if (v2 >= 0) {
		held_gone(g, "held v2 request", "ioctl",
			  ioctl(v2, GPIO_V2_LINE_GET_VALUES_IOCTL, &v));
		held_gone(g, "held v2 request", "read", read(v2, buf, sizeof(buf)));
	}
	if (v1 >= 0) {
		held_gone(g, "held v1 event", "ioctl",
			  ioctl(v1, GPIOHANDLE_GET_LINE_VALUES_IOCTL, &hd));
		held_gone(g, "held v1 event", "read", read(v1, buf, sizeof(buf)));
	}
	if (v2 >= 0 && v1 >= 0) {
		atomic_fetch_add(&calls, 1);
		if (poll(p, 2, 0) != 2 ||
		    (p[0].revents & (POLLHUP | POLLERR)) != (POLLHUP | POLLERR) ||
		    (p[1].revents & (POLLHUP | POLLERR)) != (POLLHUP | POLLERR))
			complain("held requests", "poll is not POLLHUP | POLLERR", 0);
		else
			atomic_fetch_add(&gone_calls, 1);
	}
	if (v1 >= 0)
		close(v1);
	if (v2 >= 0)
		close(v2);
	if (cfd >= 0)
		close(cfd);
}

/*
 * Make the chip live, let the workers at it, remove it, and check what the
 * removal did to them, until @end.  @slow: the sleeping chip instead of
 * gpio-sim.  Returns -1 when a worker is stuck (the run stops there).
 */
static int storm(int slow, long long end)
{
	void *(*const sim[])(void *) = { w_info, w_values, w_read_v2,
					 w_poll_v2, w_read_v1, w_pull };
	void *(*const slw[])(void *) = { w_info, w_values, w_values };
	void *(*const *w)(void *) = slow ? slw : sim;
	int nw = slow ? 3 : 6;
	char name[32], dev[32];
	struct timespec dl;
	pthread_t th[6];
	long long t0, lat;

	while (now_ns() < end && !atomic_load(&late)) {
		struct gen g = { .nlines = slow ? 4 : NLINES };
		int cfd, v2 = -1, v1 = -1;

		if (write_file(slow ? SLOW_LIVE : CFG "/live", "1"))
			ksft_exit_fail_msg("live=1: %s\n", strerror(errno));
		if (slow ? read_file(SLOW_LIVE, name, sizeof(name)) :
		    read_file(CFG "/bank0/chip_name", name, sizeof(name)) ||
		    read_file(CFG "/dev_name", dev, sizeof(dev)))
			ksft_exit_fail_msg("chip_name/dev_name unreadable\n");
		snprintf(g.chip, sizeof(g.chip), "/dev/%s", name);
		snprintf(g.sysfs, sizeof(g.sysfs), "/sys/devices/platform/%s/%s",
			 dev, name);

		/* Requests closed only after the chip is gone. */
		cfd = open_chip(&g);
		if (cfd >= 0 && !slow) {
			v2 = request_v2(&g, cfd, 5, EDGES);
			v1 = request_v1_event(&g, cfd, 6);
		}
		storm_run_workers(th, w, nw, &g, &seed, &g.gone, &g.gone_ns);
		t0 = now_ns();
		if (write_file(slow ? SLOW_LIVE : CFG "/live", "0"))
			ksft_exit_fail_msg("live=0: %s\n", strerror(errno));
		lat = now_ns() - t0;
		if (lat > removal_max)
			removal_max = lat;
		atomic_fetch_add(slow ? &slow_removals : &removals, 1);

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += bound_ns / 1000000000LL + 1;
		for (int i = 0; i < nw; i++) {
			if (pthread_timedjoin_np(th[i], NULL, &dl)) {
				atomic_fetch_add(&late, 1);
				ksft_print_msg("worker %d still blocked %lld ms after the removal\n",
					       i, (now_ns() - t0) / 1000000);
				return -1;
			}
		}
		check_held(&g, cfd, v2, v1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long long end;
	int leak;

	end = storm_start(argc, argv, 'm', &slow_module, "[-m MODULE]");
	ksft_set_plan(4);
	leak = kmemleak_report(1);
	setup_configfs();
	if (slow_module && access(SLOW_LIVE, F_OK)) {
		int fd = open(slow_module, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
			ksft_exit_fail_msg("loading %s: %s\n", slow_module, strerror(errno));
		close(fd);
	}
	if (storm(0, end - (slow_module ? (end - now_ns()) / 2 : 0)) == 0 &&
	    slow_module)
		storm(1, end);
	teardown_configfs();
	ksft_print_msg("calls %lld, removals %lld (gpio-sim) + %lld (slow chip), calls that saw the chip gone %lld, edge events %lld\n",
		       atomic_load(&calls), atomic_load(&removals), atomic_load(&slow_removals),
		       atomic_load(&gone_calls), atomic_load(&events));
	storm_results("storm_chip_removed_under_use",
		      atomic_load(&removals) > 0 && atomic_load(&gone_calls) > 0 &&
		      (!slow_module || atomic_load(&slow_removals) > 0),
		      "storm", "removal", leak);
	ksft_finished();
}
