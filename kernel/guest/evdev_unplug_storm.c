// SPDX-License-Identifier: GPL-2.0
/*
 * evdev unplug storm: a uinput device is created and destroyed, again and
 * again, while threads use its event node: blocking read(), poll(), and a
 * loop of EVIOCGNAME, EVIOCGBIT, EVIOCGVERSION, EVIOCGRAB and ungrab and
 * writes of events; another thread feeds events through uinput.  The main
 * thread holds a descriptor it only uses after the device is gone.
 *
 * Checks, for a bounded time:
 *  - events injected through uinput reach the readers;
 *  - every call on a destroyed device gives what evdev has always given:
 *    -ENODEV for read(), write() and ioctl(), EPOLLHUP | EPOLLERR for
 *    poll(); opening the removed node fails with ENOENT, ENODEV or ENXIO;
 *  - a thread blocked in read() or poll() returns within a bound after the
 *    destroy starts, and the destroy itself completes within it;
 *  - kmemleak, if the kernel has it, reports nothing new at the end.
 * The console (KASAN, lockdep, WARNING, hung tasks) is judged by the caller.
 *
 * With -e EVTEST (Debian's evtest), a real client is run last against a
 * device that sends three presses of KEY_A and is then destroyed; its
 * output must show the events and the removal.
 *
 * usage: evdev_unplug_storm [-t SECONDS] [-b BOUND_MS] [-e EVTEST]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "storm.h"


/* One incarnation of the device. */
struct gen {
	int ufd;		/* uinput */
	char node[64];		/* /dev/input/eventN */
	atomic_int gone;	/* the destroy has started */
	atomic_llong gone_ns;	/* when */
};

static unsigned int seed = 1;

/* A failed call on the device: ENODEV, since its destroy started. */
static int gone(struct gen *g, const char *what, int err)
{
	return storm_gone(&g->gone, &g->gone_ns, what, err, ENODEV);
}

static int open_node(struct gen *g, int flags)
{
	return storm_open(g->node, flags, &g->gone, "failed on a live device");
}

static void *w_read(void *arg)
{
	struct gen *g = arg;
	struct input_event ev[16];
	int fd = open_node(g, O_RDONLY);
	ssize_t n;

	while (fd >= 0) {
		atomic_fetch_add(&calls, 1);
		n = read(fd, ev, sizeof(ev));
		if (n < 0 && gone(g, "read", errno))
			break;
		if (n % sizeof(ev[0]))
			complain("read", "partial event", 0);
		atomic_fetch_add(&events, n / sizeof(ev[0]));
	}
	return storm_worker_end(fd, -1);
}

static void *w_poll(void *arg)
{
	struct gen *g = arg;
	struct input_event ev[16];
	int fd = open_node(g, O_RDONLY | O_NONBLOCK);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	while (fd >= 0) {
		atomic_fetch_add(&calls, 1);
		if (poll(&pfd, 1, (int)(2 * bound_ns / 1000000)) < 0) {
			complain("poll", "failed", errno);
			break;
		}
		if (pfd.revents & (POLLHUP | POLLERR)) {
			if ((pfd.revents & (POLLHUP | POLLERR)) != (POLLHUP | POLLERR))
				complain("poll", "HUP without ERR or the reverse", 0);
			gone(g, "poll", ENODEV);
			break;
		}
		if (!pfd.revents) {
			complain("poll", "timed out on a live device", 0);
			break;
		}
		n = read(fd, ev, sizeof(ev));
		if (n < 0 && errno != EAGAIN && gone(g, "read after poll", errno))
			break;
	}
	return storm_worker_end(fd, -1);
}

static int inject(int fd, int code, int value)
{
	struct input_event ev[2] = {
		{ .type = EV_KEY, .code = code, .value = value },
		{ .type = EV_SYN, .code = SYN_REPORT },
	};

	return write(fd, ev, sizeof(ev)) == sizeof(ev) ? 0 : -1;
}

static void *w_ioctls(void *arg)
{
	struct gen *g = arg;
	unsigned long bits[KEY_MAX / (8 * sizeof(long)) + 1];
	char name[64];
	int fd = open_node(g, O_RDWR), v, i = 0;

	while (fd >= 0) {
		atomic_fetch_add(&calls, 1);
		switch (i++ % 6) {
		case 0:
			v = ioctl(fd, EVIOCGNAME(sizeof(name)), name);
			break;
		case 1:
			v = ioctl(fd, EVIOCGBIT(EV_KEY, sizeof(bits)), bits);
			break;
		case 2:
			v = ioctl(fd, EVIOCGVERSION, &v);
			break;
		case 3:
			v = ioctl(fd, EVIOCGRAB, 1);
			break;
		case 4:
			v = ioctl(fd, EVIOCGRAB, 0);
			break;
		default:
			v = inject(fd, KEY_B, i & 1);
			break;
		}
		if (v < 0 && gone(g, "ioctl/write", errno))
			break;
	}
	return storm_worker_end(fd, -1);
}

/* Feeds events through uinput until the destroy starts. */
static void *w_feed(void *arg)
{
	struct gen *g = arg;
	int i = 0;

	while (!atomic_load(&g->gone)) {
		if (inject(g->ufd, KEY_A, i++ & 1))
			complain("uinput write", "failed on a live device", errno);
		usleep(500);
	}
	return NULL;
}

static int create_device(struct gen *g, const char *name)
{
	struct uinput_setup us = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 1, .product = 1 },
	};
	char sys[64], path[128];
	struct dirent *de;
	DIR *d;
	int i;

	g->ufd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
	if (g->ufd < 0)
		ksft_exit_fail_msg("/dev/uinput: %s\n", strerror(errno));
	strncpy(us.name, name, sizeof(us.name) - 1);
	if (ioctl(g->ufd, UI_SET_EVBIT, EV_KEY) || ioctl(g->ufd, UI_SET_KEYBIT, KEY_A) ||
	    ioctl(g->ufd, UI_SET_KEYBIT, KEY_B) || ioctl(g->ufd, UI_DEV_SETUP, &us) ||
	    ioctl(g->ufd, UI_DEV_CREATE) ||
	    ioctl(g->ufd, UI_GET_SYSNAME(sizeof(sys)), sys) < 0)
		ksft_exit_fail_msg("uinput setup: %s\n", strerror(errno));
	snprintf(path, sizeof(path), "/sys/devices/virtual/input/%s", sys);
	d = opendir(path);
	if (!d)
		ksft_exit_fail_msg("%s: %s\n", path, strerror(errno));
	g->node[0] = 0;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "event", 5))
			snprintf(g->node, sizeof(g->node), "/dev/input/%.40s", de->d_name);
	closedir(d);
	if (!g->node[0])
		ksft_exit_fail_msg("%s has no event node\n", path);
	/* devtmpfs creates the node asynchronously. */
	for (i = 0; i < 500 && access(g->node, F_OK); i++)
		usleep(10000);
	return access(g->node, F_OK) ? -1 : 0;
}

static void destroy_device(struct gen *g)
{
	long long t0 = now_ns(), lat;

	if (ioctl(g->ufd, UI_DEV_DESTROY))
		complain("UI_DEV_DESTROY", "failed", errno);
	lat = now_ns() - t0;
	if (lat > removal_max)
		removal_max = lat;
	close(g->ufd);
	atomic_fetch_add(&removals, 1);
}

/* The descriptor held across the destroy: everything on it must fail. */
static void check_held(struct gen *g, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	struct input_event ev;
	char name[64];

	if (fd < 0)
		return;
	atomic_fetch_add(&calls, 5);
	if (read(fd, &ev, sizeof(ev)) >= 0 || errno != ENODEV)
		complain("held read", "not ENODEV", errno);
	if (inject(fd, KEY_B, 1) == 0 || errno != ENODEV)
		complain("held write", "not ENODEV", errno);
	if (ioctl(fd, EVIOCGNAME(sizeof(name)), name) >= 0 || errno != ENODEV)
		complain("held EVIOCGNAME", "not ENODEV", errno);
	if (ioctl(fd, EVIOCGRAB, 1) >= 0 || errno != ENODEV)
		complain("held EVIOCGRAB", "not ENODEV", errno);
	if (poll(&pfd, 1, 0) != 1 ||
	    (pfd.revents & (POLLHUP | POLLERR)) != (POLLHUP | POLLERR))
		complain("held poll", "not POLLHUP | POLLERR", 0);
	close(fd);
}

static int storm(long long end)
{
	void *(*const w[])(void *) = { w_read, w_read, w_poll, w_ioctls, w_feed };
	const int nw = sizeof(w) / sizeof(w[0]);
	struct timespec dl;
	pthread_t th[5];
	long long t0;

	while (now_ns() < end && !atomic_load(&late)) {
		struct gen g = { .ufd = -1 };
		int held;

		if (create_device(&g, "librevocable-storm"))
			ksft_exit_fail_msg("%s did not appear\n", g.node);
		held = open_node(&g, O_RDWR | O_NONBLOCK);
		storm_run_workers(th, w, nw, &g, &seed, &g.gone, &g.gone_ns);
		pthread_join(th[nw - 1], NULL);		/* the feeder uses ufd */
		t0 = now_ns();
		destroy_device(&g);

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += bound_ns / 1000000000LL + 1;
		for (int i = 0; i < nw - 1; i++) {
			if (pthread_timedjoin_np(th[i], NULL, &dl)) {
				atomic_fetch_add(&late, 1);
				ksft_print_msg("worker %d still blocked %lld ms after the destroy\n",
					       i, (now_ns() - t0) / 1000000);
				return -1;
			}
		}
		check_held(&g, held);
	}
	return 0;
}

/*
 * Debian's evtest against a device that presses KEY_A three times and is
 * then destroyed: its output must show the presses and the removal.
 */
static int run_evtest(const char *evtest)
{
	static char out[65536];
	struct gen g = { .ufd = -1 };
	int pfd[2], status, presses = 0, gone_seen;
	size_t len = 0;
	ssize_t n;
	char *p;
	pid_t pid;

	if (create_device(&g, "librevocable-evtest") || pipe(pfd))
		return 0;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execl(evtest, evtest, g.node, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	sleep(2);	/* evtest prints the device's description first */
	for (int i = 0; i < 3; i++) {
		inject(g.ufd, KEY_A, 1);
		inject(g.ufd, KEY_A, 0);
		usleep(100000);
	}
	usleep(500000);
	destroy_device(&g);
	while (len < sizeof(out) - 1 && (n = read(pfd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	out[len] = 0;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	for (p = out; (p = strstr(p, "code 30 (KEY_A), value 1")); p++)
		presses++;
	gone_seen = strstr(out, "No such device") != NULL;
	for (p = strtok(out, "\n"); p; p = strtok(NULL, "\n"))
		ksft_print_msg("evtest: %s\n", p);
	ksft_print_msg("evtest saw %d presses of KEY_A, removal %s, exit status %d\n",
		       presses, gone_seen ? "seen" : "not seen",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return presses == 3 && gone_seen && WIFEXITED(status);
}

int main(int argc, char **argv)
{
	const char *evtest = NULL;
	long long end;
	int leak;

	signal(SIGPIPE, SIG_IGN);
	end = storm_start(argc, argv, 'e', &evtest, "[-e EVTEST]");
	ksft_set_plan(5);
	leak = kmemleak_report(1);
	storm(end);
	ksft_print_msg("calls %lld, destroys %lld, calls that saw the device gone %lld, events read %lld\n",
		       atomic_load(&calls), atomic_load(&removals),
		       atomic_load(&gone_calls), atomic_load(&events));
	storm_results("evdev_storm_device_destroyed_under_use",
		      atomic_load(&removals) > 0 && atomic_load(&gone_calls) > 0 &&
		      atomic_load(&events) > 0,
		      "evdev_storm", "destroy", leak);
	/* Debian's evtest on a device of its own, after the storm's checks. */
	if (!evtest)
		ksft_test_result_skip("evdev_evtest (no evtest given)\n");
	else
		ksft_test_result(!atomic_load(&late) && run_evtest(evtest),
				 "evdev_evtest_sees_events_and_removal\n");
	ksft_finished();
}
