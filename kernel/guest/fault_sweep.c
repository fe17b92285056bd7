// SPDX-License-Identifier: GPL-2.0
/*
 * Fault sweep: every allocation a life cycle of the revocable core or of
 * a converted driver makes in the calling task is failed in turn, and
 * the cycle must end in success or in its documented error, with its
 * objects in a consistent state afterwards.
 *
 * A scenario is one whole cycle run by this (single) thread: create,
 * use, remove.  For N = 1, 2, ... the sweep writes N to
 * /proc/thread-self/fail-nth, runs the cycle, and reads fail-nth back: 0
 * means the Nth failable call of the cycle (a slab or page allocation)
 * was made to fail, anything else that the cycle ended before making an
 * Nth one; that run is the last, and must have succeeded completely.
 * Only one call fails per run: once the fault is spent, the rest of the
 * cycle, its teardown included, runs without faults.  Waits for devtmpfs
 * to create a node are not counted (their polls depend on timing).  After each run,
 * without faults, the scenario's state is checked (nothing left
 * published, no device left behind, no line left requested) and cleaned
 * up if a failed teardown step legitimately left something.
 *
 * Each scenario reports its number of injection points, how many of them
 * surfaced as an error (and which), and how many were absorbed (a
 * fallback, or an allocation whose failure is not reported, such as
 * kmemleak's own bookkeeping or a uevent).  The counts vary a little
 * between boots: slab pages and the debugging allocators' pools are
 * refilled when they run out, not on every cycle.
 *
 * Then fail_function: each function of the series marked with
 * ALLOW_ERROR_INJECTION() is made to fail once, in every scenario that
 * calls it; the scenario must report the failure (a documented error, or
 * for an input device the missing event node) and be consistent after.
 * Last, kmemleak must report nothing that leaked during the sweep.
 *
 * The console (KASAN, lockdep, WARNING, hung tasks) is judged by the
 * caller: an error path that warns on an injected failure fails the run.
 *
 * Needs CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAIL_FUNCTION
 * (kernel/harness/configs/revocable-faults.config), debugfs and configfs
 * mounted, test_revocable.ko, test_revocable_fops.ko, revocable_faults.ko
 * (kernel/guest/modules/revocable-faults) and gpio-sim loaded, and
 * uinput.
 *
 * usage: fault_sweep [-v VERBOSE] [-n MAX_POINTS]
 *   -v  failslab's and fail_page_alloc's verbose (default 0: silent;
 *       1: a line per injected failure; 2: with its stack)
 *   -n  give up on a scenario after this many points (default 20000)
 */
#define _GNU_SOURCE
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "kmemleak.h"

#define DEBUGFS		"/sys/kernel/debug"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define FEI		DEBUGFS "/fail_function"

/* The revocable kselftest's debugfs driver (test_revocable.ko). */
#define RT_DIR		DEBUGFS "/revocable_test"
#define RT_RES		"fault-sweep"
/* The core's other life cycles (revocable_faults.ko). */
#define RF_DIR		DEBUGFS "/revocable_faults"
/* The file-operations kselftest's device (test_revocable_fops.ko). */
#define RFO_DIR		DEBUGFS "/revocable_fops_test"
#define RFO_NODE	"/dev/revocable_fops_test"
#define RFO_SYS		"/sys/class/misc/revocable_fops_test"
#define RFO_IOC_GEN	_IO('R', 1)
/* gpio-sim through configfs: one chip per cycle, one kept for the lines. */
#define SIM		"/sys/kernel/config/gpio-sim"
#define SIM_CHIP	SIM "/fault-sweep"
#define SIM_LINES	SIM "/fault-sweep-lines"
#define EDGES		(GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING | \
			 GPIO_V2_LINE_FLAG_EDGE_FALLING)
/* uinput */
#define UI_NAME		"fault-sweep"

#define PLAN		16	/* the ksft_set_plan() below, checked */
#define MAX_NOTES	16

/* How one run of a cycle ended. */
struct outcome {
	int err;		/* errno of the step that failed; 0: none */
	const char *step;	/* that step */
	char broken[160];	/* a result that contradicts a contract */
};

struct scenario {
	const char *name;
	int (*setup)(void);		/* before the sweep: 0, or -1 (said why) */
	void (*run)(struct outcome *o);	/* the cycle, faults armed */
	const char *(*check)(void);	/* after it: NULL when consistent */
	void (*teardown)(void);
	const int *errs;		/* the documented errors, 0-terminated */
};

static int nth_fd = -1;
static unsigned int verbose, max_points = 20000;
static long page_size;

/* ----- fail-nth ---------------------------------------------------------- */

static void arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (write(nth_fd, buf, len) != len)
		ksft_exit_fail_msg("writing %s: %s\n", FAIL_NTH, strerror(errno));
}

/* What fail-nth has left to count: 0 once the armed fault was injected. */
static unsigned int nth_left(void)
{
	char buf[16] = "";
	ssize_t n = pread(nth_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		ksft_exit_fail_msg("reading %s: %s\n", FAIL_NTH, strerror(errno));
	return strtoul(buf, NULL, 10);
}

/* Stop counting; returns what was left, 0 when the fault was injected. */
static unsigned int disarm(void)
{
	unsigned int left = nth_left();

	if (write(nth_fd, "0", 1) != 1)
		ksft_exit_fail_msg("writing %s: %s\n", FAIL_NTH, strerror(errno));
	return left;
}

/*
 * Around a wait whose polls would be counted (and their number depends
 * on timing): stop counting, then go on from where the count was.
 */
static unsigned int nth_pause(void)
{
	return disarm();
}

static void nth_resume(unsigned int left)
{
	if (left)
		arm(left);
}

/* ----- files ------------------------------------------------------------- */

/* Write @val to @path: 0, or -1 with errno set. */
static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	err = errno;
	close(fd);
	errno = err;
	return n < 0 ? -1 : 0;
}

/* Read @path into @buf without its newline: 0, or -1 with errno set. */
static int get(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	errno = err;
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* A knob the sweep cannot do without. */
static void knob(const char *path, const char *val)
{
	if (put(path, val))
		ksft_exit_fail_msg("%s = %s: %s\n", path, val, strerror(errno));
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * devtmpfs creates a device's node asynchronously, and not at all when
 * the allocation of its request fails (device_add() goes on without it).
 * Wait for @path, not counted by fail-nth: up to 5 s, or 1 s once the
 * armed fault was injected (or none is armed).  0, or -1 with errno
 * ENOENT.
 */
static int node_wait(const char *path)
{
	unsigned int left = nth_pause();
	int i, bound = left ? 500 : 100, ret = -1;

	for (i = 0; i < bound && ret; i++) {
		if (access(path, F_OK) == 0)
			ret = 0;
		else
			sleep_ms(10);
	}
	nth_resume(left);
	if (ret)
		errno = ENOENT;
	return ret;
}

/* Whether a name in @dir starts with @prefix (-1: @dir unreadable). */
static int dir_has(const char *dir, const char *prefix)
{
	struct dirent *de;
	int found = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			found = 1;
	closedir(d);
	return found;
}

/* ----- outcomes ---------------------------------------------------------- */

/* Step @step returned @ret: 1 (and the outcome records it) when it failed. */
static int failed(struct outcome *o, const char *step, long ret)
{
	if (ret >= 0)
		return 0;
	o->err = errno;
	o->step = step;
	return 1;
}

/* A teardown step failed: recorded unless an earlier step failed. */
static void failed_late(struct outcome *o, const char *step)
{
	if (o->err)
		return;
	o->err = errno;
	o->step = step;
}

static __printf(2, 3) void broken(struct outcome *o, const char *fmt, ...)
{
	va_list ap;

	if (o->broken[0])
		return;
	va_start(ap, fmt);
	vsnprintf(o->broken, sizeof(o->broken), fmt, ap);
	va_end(ap);
}

/*
 * Wait up to 2 s for an event on @fd, which @after should have caused:
 * 1 when there is one to read; 0 (recorded in @o) when poll() failed or
 * nothing came.
 */
static int readable(struct outcome *o, int fd, const char *after)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, 2000);

	if (failed(o, "poll", n))
		return 0;
	if (!n)
		broken(o, "nothing to read within 2 s of %s", after);
	return n > 0;
}

/* ----- the revocable kselftest's driver: provider, consumers, revoke ----- */

/*
 * Publish a resource, read it through a consumer reference by each
 * access form (revocable_access(), REVOCABLE_TRY_ACCESS_WITH(),
 * REVOCABLE_TRY_ACCESS_SCOPED()), revoke it (two-phase), read it gone.
 */
static void run_provider(struct outcome *o)
{
	int pfd, cfd = -1, published = 0, off;
	char buf[64];
	ssize_t n;

	pfd = open(RT_DIR "/provider", O_WRONLY | O_CLOEXEC);
	if (failed(o, "open provider", pfd))
		return;
	if (failed(o, "alloc", write(pfd, "alloc " RT_RES, strlen("alloc " RT_RES))))
		goto out;
	published = 1;
	cfd = open(RT_DIR "/consumer", O_RDONLY | O_CLOEXEC);
	if (failed(o, "open consumer", cfd))
		goto out;
	for (off = 0; off < 3; off++) {
		n = pread(cfd, buf, sizeof(buf) - 1, off);
		if (failed(o, "read", n))
			goto out;
		buf[n] = 0;
		if (strcmp(buf, RT_RES)) {
			broken(o, "access form %d read \"%s\" from a live provider", off, buf);
			goto out;
		}
	}
	if (failed(o, "revoke", write(pfd, "revoke", 6)))
		goto out;
	published = 0;
	n = pread(cfd, buf, sizeof(buf) - 1, 0);
	if (failed(o, "read after revoke", n))
		goto out;
	buf[n] = 0;
	if (strcmp(buf, "(gone)"))
		broken(o, "a revoked provider read \"%s\"", buf);
out:
	if (published && write(pfd, "revoke", 6) < 0)
		failed_late(o, "revoke");
	if (cfd >= 0)
		close(cfd);
	close(pfd);
}

static const char *check_provider(void)
{
	char buf[64] = "";
	int fd = open(RT_DIR "/consumer", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return "the consumer file is unreadable";
	buf[n] = 0;
	if (!strcmp(buf, "(gone)"))
		return NULL;
	put(RT_DIR "/provider", "revoke");
	return "a provider was left published";
}

/* ----- the core's other cycles (revocable_faults.ko) --------------------- */

static void run_rf(struct outcome *o, const char *cmd)
{
	failed(o, cmd, put(RF_DIR "/run", cmd));
}

static void run_rf_domain(struct outcome *o)
{
	run_rf(o, "domain");
}

static void run_rf_async(struct outcome *o)
{
	run_rf(o, "async");
}

static void run_rf_batch(struct outcome *o)
{
	run_rf(o, "batch");
}

static void run_rf_devm(struct outcome *o)
{
	run_rf(o, "devm");
}

static const char *check_rf(void)
{
	char buf[32];

	if (get(RF_DIR "/live", buf, sizeof(buf)))
		return "revocable_faults' live count is unreadable";
	return strcmp(buf, "0") ? "a resource outlived its cycle" : NULL;
}

/* ----- revocable file operations: the kselftest's misc device ------------ */

/*
 * Plug the device (revocable_fops_create(), misc_register()), open it
 * (the helper's open, which allocates for a driver with mmap), write,
 * read, ioctl, map and fault a page, close, unplug (revoke).
 */
static void run_fops(struct outcome *o)
{
	int fd, gen, mapped;
	char buf[8];
	void *map;
	ssize_t n;

	if (failed(o, "plug", put(RFO_DIR "/plug", "1")))
		return;
	if (failed(o, "device node", node_wait(RFO_NODE)))
		goto out_unplug;
	fd = open(RFO_NODE, O_RDWR | O_CLOEXEC);
	if (failed(o, "open", fd))
		goto out_unplug;
	if (failed(o, "write", write(fd, "ping", 4)))
		goto out_close;
	n = read(fd, buf, sizeof(buf));
	if (failed(o, "read", n))
		goto out_close;
	if (n != 4 || memcmp(buf, "ping", 4)) {
		broken(o, "read %zd bytes, not the 4 written", n);
		goto out_close;
	}
	gen = ioctl(fd, RFO_IOC_GEN);
	if (failed(o, "ioctl", gen))
		goto out_close;
	map = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		failed(o, "mmap", -1);
		goto out_close;
	}
	/* A page table this fault needs may fail too: the fault is retried. */
	memcpy(&mapped, map, sizeof(mapped));
	if (mapped != gen)
		broken(o, "the mapping reads generation %d, the ioctl %d", mapped, gen);
	munmap(map, page_size);
out_close:
	/* The flush of a live device succeeds. */
	if (close(fd))
		failed_late(o, "close");
out_unplug:
	if (put(RFO_DIR "/plug", "0"))
		failed_late(o, "unplug");
}

static const char *check_fops(void)
{
	char opens[32], releases[32];

	/* Left plugged when the unplug's own write failed. */
	if (access(RFO_SYS, F_OK) == 0 && put(RFO_DIR "/plug", "0"))
		return "a plugged device cannot be unplugged";
	if (access(RFO_SYS, F_OK) == 0)
		return "the device outlived its unplug";
	if (get(RFO_DIR "/opens", opens, sizeof(opens)) ||
	    get(RFO_DIR "/releases", releases, sizeof(releases)))
		return "the open and release counts are unreadable";
	return strcmp(opens, releases) ? "a successful open was not released once" : NULL;
}

/* ----- gpio-sim: a chip's creation and removal --------------------------- */

/*
 * Make a gpio-sim chip through configfs (its probe adds the GPIO device,
 * which the conversion gives a revocable domain and provider), open its
 * character device, ask its info, and remove it again.
 */
static void run_sim_chip(struct outcome *o)
{
	int made = 0, bank = 0, live = 0, fd;
	struct gpiochip_info ci;
	char name[32], node[64];

	if (failed(o, "mkdir chip", mkdir(SIM_CHIP, 0755)))
		return;
	made = 1;
	if (failed(o, "mkdir bank", mkdir(SIM_CHIP "/bank0", 0755)))
		goto out;
	bank = 1;
	if (failed(o, "num_lines", put(SIM_CHIP "/bank0/num_lines", "8")))
		goto out;
	if (failed(o, "live=1", put(SIM_CHIP "/live", "1")))
		goto out;
	live = 1;
	if (failed(o, "chip_name", get(SIM_CHIP "/bank0/chip_name", name, sizeof(name))))
		goto out;
	snprintf(node, sizeof(node), "/dev/%s", name);
	if (failed(o, "device node", node_wait(node)))
		goto out;
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (failed(o, "open", fd))
		goto out;
	if (!failed(o, "GPIO_GET_CHIPINFO_IOCTL", ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &ci)) &&
	    ci.lines != 8)
		broken(o, "the chip has %u lines, not 8", ci.lines);
	close(fd);
out:
	if (live && put(SIM_CHIP "/live", "0"))
		failed_late(o, "live=0");
	if (bank && rmdir(SIM_CHIP "/bank0"))
		failed_late(o, "rmdir bank");
	if (made && rmdir(SIM_CHIP))
		failed_late(o, "rmdir chip");
}

static const char *check_sim_chip(void)
{
	char live[8];

	/* Left by a teardown step whose own allocation failed. */
	if (access(SIM_CHIP, F_OK) == 0) {
		if (!get(SIM_CHIP "/live", live, sizeof(live)) && !strcmp(live, "1") &&
		    put(SIM_CHIP "/live", "0"))
			return "a live chip cannot be removed";
		rmdir(SIM_CHIP "/bank0");
		if (rmdir(SIM_CHIP))
			return "the chip's configfs directory cannot be removed";
	}
	return dir_has("/sys/bus/platform/devices", "gpio-sim.") ?
		"a gpio-sim device outlived its configfs chip" : NULL;
}

/* ----- gpio-sim: line requests and edge events --------------------------- */

static char line_node[64], line_pull[224];

/* A chip that stays for the whole sweep; its line 2 is pulled for events. */
static int setup_lines(void)
{
	char name[32], dev[32];

	if (mkdir(SIM_LINES, 0755) || mkdir(SIM_LINES "/bank0", 0755) ||
	    put(SIM_LINES "/bank0/num_lines", "8") || put(SIM_LINES "/live", "1") ||
	    get(SIM_LINES "/bank0/chip_name", name, sizeof(name)) ||
	    get(SIM_LINES "/dev_name", dev, sizeof(dev))) {
		ksft_print_msg("gpio-sim chip for the line requests: %s\n", strerror(errno));
		return -1;
	}
	snprintf(line_node, sizeof(line_node), "/dev/%s", name);
	snprintf(line_pull, sizeof(line_pull), "/sys/devices/platform/%s/%s/sim_gpio2/pull",
		 dev, name);
	if (node_wait(line_node)) {
		ksft_print_msg("%s did not appear\n", line_node);
		return -1;
	}
	return 0;
}

static void teardown_lines(void)
{
	put(SIM_LINES "/live", "0");
	rmdir(SIM_LINES "/bank0");
	rmdir(SIM_LINES);
}

/*
 * Request line 2 with edge detection through the v2 uAPI, pull it up and
 * read the rising edge, request line 4's edge events through the v1 uAPI,
 * release both.
 */
static void run_lines(struct outcome *o)
{
	struct gpio_v2_line_request req;
	struct gpioevent_request ereq;
	struct gpio_v2_line_event ev;
	int cfd, lfd = -1, efd = -1, pulled = 0;

	cfd = open(line_node, O_RDWR | O_CLOEXEC);
	if (failed(o, "open", cfd))
		return;
	memset(&req, 0, sizeof(req));
	req.offsets[0] = 2;
	req.num_lines = 1;
	req.config.flags = EDGES;
	snprintf(req.consumer, sizeof(req.consumer), "fault-sweep");
	if (failed(o, "GPIO_V2_GET_LINE_IOCTL", ioctl(cfd, GPIO_V2_GET_LINE_IOCTL, &req)))
		goto out;
	lfd = req.fd;
	if (failed(o, "pull-up", put(line_pull, "pull-up")))
		goto out;
	pulled = 1;
	if (!readable(o, lfd, "the pull-up"))
		goto out;
	if (failed(o, "read event", read(lfd, &ev, sizeof(ev))))
		goto out;
	if (ev.id != GPIO_V2_LINE_EVENT_RISING_EDGE || ev.offset != 2)
		broken(o, "event %u on line %u, not a rising edge on line 2", ev.id, ev.offset);
	memset(&ereq, 0, sizeof(ereq));
	ereq.lineoffset = 4;
	ereq.handleflags = GPIOHANDLE_REQUEST_INPUT;
	ereq.eventflags = GPIOEVENT_REQUEST_BOTH_EDGES;
	snprintf(ereq.consumer_label, sizeof(ereq.consumer_label), "fault-sweep");
	if (failed(o, "GPIO_GET_LINEEVENT_IOCTL", ioctl(cfd, GPIO_GET_LINEEVENT_IOCTL, &ereq)))
		goto out;
	efd = ereq.fd;
out:
	if (pulled && put(line_pull, "pull-down"))
		failed_late(o, "pull-down");
	if (efd >= 0)
		close(efd);
	if (lfd >= 0)
		close(lfd);
	close(cfd);
}

static const char *check_lines(void)
{
	struct gpio_v2_line_info info;
	const char *msg = NULL;
	unsigned int line;
	int fd;

	put(line_pull, "pull-down");
	fd = open(line_node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return "the chip's node cannot be opened";
	for (line = 2; line <= 4 && !msg; line += 2) {
		memset(&info, 0, sizeof(info));
		info.offset = line;
		if (ioctl(fd, GPIO_V2_GET_LINEINFO_IOCTL, &info))
			msg = "GPIO_V2_GET_LINEINFO_IOCTL failed";
		else if (info.flags & GPIO_V2_LINE_FLAG_USED)
			msg = "a released line is still requested";
	}
	close(fd);
	return msg;
}

/* ----- uinput and the converted evdev ------------------------------------ */

/*
 * Create an input device through uinput (evdev attaches to it: its
 * revocable file operations), open its event node, ask its name, inject
 * a key press and read it, destroy the device.
 */
static void run_uinput(struct outcome *o)
{
	struct uinput_setup us = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 1, .product = 2 },
	};
	struct input_event ev[2] = {
		{ .type = EV_KEY, .code = KEY_A, .value = 1 },
		{ .type = EV_SYN, .code = SYN_REPORT },
	};
	char sys[64], path[128], node[64] = "", name[64] = "";
	int ufd, efd = -1, created = 0, n;
	struct input_event in[4];
	struct dirent *de;
	DIR *d;

	ufd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
	if (failed(o, "open uinput", ufd))
		return;
	if (failed(o, "UI_SET_EVBIT", ioctl(ufd, UI_SET_EVBIT, EV_KEY)) ||
	    failed(o, "UI_SET_KEYBIT", ioctl(ufd, UI_SET_KEYBIT, KEY_A)))
		goto out;
	snprintf(us.name, sizeof(us.name), UI_NAME);
	if (failed(o, "UI_DEV_SETUP", ioctl(ufd, UI_DEV_SETUP, &us)) ||
	    failed(o, "UI_DEV_CREATE", ioctl(ufd, UI_DEV_CREATE)))
		goto out;
	created = 1;
	if (failed(o, "UI_GET_SYSNAME", ioctl(ufd, UI_GET_SYSNAME(sizeof(sys)), sys)))
		goto out;
	snprintf(path, sizeof(path), "/sys/devices/virtual/input/%s", sys);
	d = opendir(path);
	if (!d) {
		failed(o, "opendir", -1);
		goto out;
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "event", 5))
			snprintf(node, sizeof(node), "/dev/input/%.40s", de->d_name);
	closedir(d);
	/* evdev failed to attach: the input core goes on without it. */
	if (!node[0]) {
		errno = ENOENT;
		failed(o, "event node", -1);
		goto out;
	}
	if (failed(o, "device node", node_wait(node)))
		goto out;
	efd = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (failed(o, "open event node", efd))
		goto out;
	if (failed(o, "EVIOCGNAME", ioctl(efd, EVIOCGNAME(sizeof(name) - 1), name)))
		goto out;
	if (strcmp(name, UI_NAME))
		broken(o, "EVIOCGNAME gave \"%s\"", name);
	if (failed(o, "write event", write(ufd, ev, sizeof(ev))))
		goto out;
	if (!readable(o, efd, "its injection"))
		goto out;
	n = read(efd, in, sizeof(in));
	if (failed(o, "read event", n))
		goto out;
	if (n < (int)sizeof(in[0]) || in[0].type != EV_KEY || in[0].code != KEY_A ||
	    in[0].value != 1)
		broken(o, "the event read is not the KEY_A press written");
out:
	if (efd >= 0)
		close(efd);
	if (created && ioctl(ufd, UI_DEV_DESTROY))
		failed_late(o, "UI_DEV_DESTROY");
	close(ufd);
}

static const char *check_uinput(void)
{
	char path[300], name[64];
	const char *msg = NULL;
	struct dirent *de;
	DIR *d = opendir("/sys/class/input");

	if (!d)
		return "/sys/class/input is unreadable";
	while ((de = readdir(d)) && !msg) {
		if (strncmp(de->d_name, "input", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/class/input/%s/name", de->d_name);
		if (!get(path, name, sizeof(name)) && !strcmp(name, UI_NAME))
			msg = "an input device outlived its uinput descriptor";
	}
	closedir(d);
	return msg;
}

/* ----- the scenarios ----------------------------------------------------- */

/*
 * The documented errors: an allocation failure surfaces as ENOMEM; a
 * device node that devtmpfs did not create, or an input device that evdev
 * did not attach to, as ENOENT; gpio-sim's "live" whose probe failed as
 * ENXIO; a line whose interrupt could not be mapped as ENXIO (v2) or
 * ENODEV (v1).
 */
static const int errs_mem[] = { ENOMEM, 0 };
static const int errs_node[] = { ENOMEM, ENOENT, 0 };
static const int errs_sim[] = { ENOMEM, ENXIO, ENOENT, 0 };
static const int errs_lines[] = { ENOMEM, ENXIO, ENODEV, 0 };

static const struct scenario scenarios[] = {
	{ "revocable-provider", NULL, run_provider, check_provider, NULL, errs_mem },
	{ "revocable-domain", NULL, run_rf_domain, check_rf, NULL, errs_mem },
	{ "revocable-async", NULL, run_rf_async, check_rf, NULL, errs_mem },
	{ "revocable-batch", NULL, run_rf_batch, check_rf, NULL, errs_mem },
	{ "revocable-devm", NULL, run_rf_devm, check_rf, NULL, errs_mem },
	{ "revocable-fops", NULL, run_fops, check_fops, NULL, errs_node },
	{ "gpio-sim-chip", NULL, run_sim_chip, check_sim_chip, NULL, errs_sim },
	{ "gpio-line-request", setup_lines, run_lines, check_lines, teardown_lines, errs_lines },
	{ "uinput-evdev", NULL, run_uinput, check_uinput, NULL, errs_node },
};

static const struct scenario *find_scenario(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		if (!strcmp(scenarios[i].name, name))
			return &scenarios[i];
	ksft_exit_fail_msg("no scenario %s\n", name);
}

static int documented(const struct scenario *s, int err)
{
	const int *e;

	for (e = s->errs; *e; e++)
		if (*e == err)
			return 1;
	return 0;
}

/* How the injected failures surfaced: step and error, counted. */
struct surfaced {
	const char *step;
	int err;
	unsigned int n;
};

static void count_surfaced(struct surfaced *tab, unsigned int *ntab, const struct outcome *o)
{
	unsigned int i;

	for (i = 0; i < *ntab; i++) {
		if (tab[i].err == o->err && !strcmp(tab[i].step, o->step)) {
			tab[i].n++;
			return;
		}
	}
	if (*ntab < MAX_NOTES)
		tab[(*ntab)++] = (struct surfaced){ o->step, o->err, 1 };
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - t0->tv_sec + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* failslab's and fail_page_alloc's verbose, for both. */
static void set_verbose(unsigned int v)
{
	char val[8];

	snprintf(val, sizeof(val), "%u", v);
	knob(DEBUGFS "/failslab/verbose", val);
	knob(DEBUGFS "/fail_page_alloc/verbose", val);
}

/*
 * Run point @n of @s once more with the injected failure's stack on the
 * console, so that an unexpected outcome names the allocation that caused
 * it.  The points of a sweep are not exactly repeatable (other work of the
 * kernel allocates in the task now and then), so the console says which
 * run it was, and what the re-run gave.
 */
static void rerun_loud(const struct scenario *s, unsigned int n)
{
	struct outcome o = { 0 };
	const char *msg;

	if (verbose >= 2)
		return;
	ksft_print_msg("%s: point %u again, with the stack of the injected failure:\n",
		       s->name, n);
	set_verbose(2);
	arm(n);
	s->run(&o);
	disarm();
	set_verbose(verbose);
	ksft_print_msg("%s: point %u again: %s%s%s\n", s->name, n,
		       o.err ? o.step : "no error",
		       o.err ? ": " : "", o.err ? strerror(o.err) : "");
	msg = s->check();
	if (msg)
		ksft_print_msg("%s: point %u again: inconsistent afterwards: %s\n",
			       s->name, n, msg);
}

/* A problem of the sweep of @s at point @n: the first five are printed. */
static void problem(const struct scenario *s, unsigned int n, unsigned int *bad,
		    const char *what, const char *detail)
{
	if (++*bad <= 5)
		ksft_print_msg("%s: point %u: %s%s%s\n", s->name, n, what,
			       detail ? ": " : "", detail ? detail : "");
}

static void sweep(const struct scenario *s)
{
	unsigned int n, points = 0, bad = 0, errors = 0, absorbed = 0, ntab = 0, i;
	unsigned int reported = 0;
	struct surfaced tab[MAX_NOTES];
	struct timespec t0;
	const char *msg;
	struct outcome o;
	int done = 0;
	char why[200];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (s->setup && s->setup()) {
		ksft_test_result_fail("%s: setup failed\n", s->name);
		return;
	}
	for (n = 1; n <= max_points + 1 && !done && bad < 20; n++) {
		memset(&o, 0, sizeof(o));
		arm(n);
		s->run(&o);
		if (disarm()) {
			/* Nothing was injected: the cycle must have succeeded. */
			done = 1;
			if (o.err) {
				snprintf(why, sizeof(why), "%s: %s", o.step, strerror(o.err));
				problem(s, n, &bad, "the run without a fault failed", why);
			}
		} else {
			points = n;
			if (o.err && !documented(s, o.err)) {
				snprintf(why, sizeof(why), "%s: %s", o.step, strerror(o.err));
				problem(s, n, &bad, "undocumented error", why);
			} else if (o.err) {
				errors++;
				count_surfaced(tab, &ntab, &o);
			} else {
				absorbed++;
			}
		}
		if (o.broken[0])
			problem(s, n, &bad, "contract broken", o.broken);
		msg = s->check();
		if (msg)
			problem(s, n, &bad, "inconsistent afterwards", msg);
		if (bad > reported && bad <= 5)
			rerun_loud(s, n);
		reported = bad;
		if (!done && n % 500 == 0)
			ksft_print_msg("%s: %u points so far (%.0f s)\n", s->name, n,
				       seconds_since(&t0));
	}
	if (s->teardown)
		s->teardown();
	ksft_print_msg("%s: %u injection points in %.1f s: %u surfaced as an error, %u absorbed\n",
		       s->name, points, seconds_since(&t0), errors, absorbed);
	for (i = 0; i < ntab; i++)
		ksft_print_msg("%s:   %u x %s at %s\n", s->name, tab[i].n,
			       strerror(tab[i].err), tab[i].step);
	if (!done && bad < 20)
		ksft_print_msg("%s: still injecting after %u points\n", s->name, max_points);
	if (bad > 5)
		ksft_print_msg("%s: %u problems in all (the first 5 above)\n", s->name, bad);
	ksft_test_result(done && !bad, "%s: %u injection points\n", s->name, points);
}

/* ----- fail_function ----------------------------------------------------- */

struct fei_case {
	const char *func;
	const char *type;	/* as fail_function/injectable lists it */
	long retval;
	const char *scenarios[4];
};

/* The functions the series marks, and the scenarios that call each. */
static const struct fei_case fei_cases[] = {
	{ "revocable_domain_alloc", "NULL", 0,
	  { "revocable-domain", "revocable-fops", "gpio-sim-chip", "uinput-evdev" } },
	{ "__revocable_srcu_init", "ERRNO", -ENOMEM,
	  { "revocable-domain", "gpio-sim-chip" } },
	{ "revocable_provider_alloc_in", "NULL", 0,
	  { "revocable-domain", "revocable-fops", "gpio-sim-chip" } },
	{ "revocable_provider_alloc", "NULL", 0,
	  { "revocable-provider", "revocable-batch" } },
	{ "devm_revocable_provider_alloc", "ERRNO", -ENOMEM,
	  { "revocable-devm" } },
	{ "revocable_fops_create", "ERRNO", -ENOMEM,
	  { "revocable-fops", "uinput-evdev" } },
};

/* Whether fail_function lists @func as injectable with @type. */
static int fei_listed(const char *func, const char *type)
{
	char line[256], want[200];
	int found = 0;
	FILE *f = fopen(FEI "/injectable", "r");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "%s\t%s", func, type);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		found = !strcmp(line, want);
	}
	fclose(f);
	return found;
}

/* Make @c->func fail once, in scenario @s; 0 when that went as documented. */
static int fei_run(const struct fei_case *c, const struct scenario *s)
{
	char path[160], val[32], times[16];
	struct outcome o = { 0 };
	const char *msg;
	int bad = 0;

	knob(FEI "/inject", c->func);
	snprintf(path, sizeof(path), FEI "/%s/retval", c->func);
	snprintf(val, sizeof(val), "%#lx", (unsigned long)c->retval);
	knob(path, val);
	knob(FEI "/times", "1");
	s->run(&o);
	if (get(FEI "/times", times, sizeof(times)))
		ksft_exit_fail_msg("%s/times: %s\n", FEI, strerror(errno));
	knob(FEI "/inject", " ");
	if (strcmp(times, "0")) {
		ksft_print_msg("%s in %s: the function was not called\n", c->func, s->name);
		bad = 1;
	} else if (!o.err) {
		ksft_print_msg("%s in %s: the failure did not surface\n", c->func, s->name);
		bad = 1;
	} else if (!documented(s, o.err)) {
		ksft_print_msg("%s in %s: undocumented error at %s: %s\n", c->func, s->name,
			       o.step, strerror(o.err));
		bad = 1;
	} else {
		ksft_print_msg("%s in %s: %s at %s\n", c->func, s->name, strerror(o.err),
			       o.step);
	}
	if (o.broken[0]) {
		ksft_print_msg("%s in %s: contract broken: %s\n", c->func, s->name, o.broken);
		bad = 1;
	}
	msg = s->check();
	if (msg) {
		ksft_print_msg("%s in %s: inconsistent afterwards: %s\n", c->func, s->name, msg);
		bad = 1;
	}
	return bad;
}

/* Whether /proc/kallsyms names the function @func. */
static int ksym_present(const char *func)
{
	char line[512], name[256];
	int found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", name) == 1 && !strcmp(name, func);
	fclose(f);
	return found;
}

static void fei_sweep(const struct fei_case *c)
{
	unsigned int i, runs = 0, bad = 0;
	char name[128];

	/*
	 * A function of one kernel line only: __revocable_srcu_init() is
	 * revocable_srcu.c's, which the 7.2 series does not have (its domains
	 * are SRCU-fast, and init_srcu_struct_fast()'s allocations are failed
	 * by the fail-nth sweep above).  Absent from a kallsyms that does list
	 * the core is a skip the plan names; anything else fails.
	 */
	if (!ksym_present(c->func) && ksym_present("revocable_domain_alloc")) {
		snprintf(name, sizeof(name), "fail_function:%s", c->func);
		ksft_test_result_code(KSFT_SKIP, name, "not in this kernel\n");
		return;
	}
	if (!fei_listed(c->func, c->type)) {
		ksft_test_result_fail("fail_function %s: not injectable as %s\n", c->func,
				      c->type);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(c->scenarios) && c->scenarios[i]; i++, runs++)
		bad += fei_run(c, find_scenario(c->scenarios[i]));
	ksft_test_result(!bad, "fail_function %s: %u scenarios\n", c->func, runs);
}

/* ----- setup ------------------------------------------------------------- */

/*
 * failslab and fail_page_alloc as fail-nth needs them: sleeping (GFP_KERNEL)
 * allocations and order-0 pages failable too, user pages not (a failed
 * page of this program would be a fault retried, not a test of the
 * kernel).  fail-nth ignores probability, interval and times; they are set
 * as Documentation/fault-injection/ describes for a task filter, which no
 * task here enables (make-it-fail stays 0), so nothing but fail-nth
 * injects.  verbose 0 keeps the console quiet.
 */
static void configure(void)
{
	static const char *const types[] = { "failslab", "fail_page_alloc" };
	char path[128], v[8];
	unsigned int i;

	snprintf(v, sizeof(v), "%u", verbose);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
#define KNOB(name, val) do {							\
		snprintf(path, sizeof(path), DEBUGFS "/%s/" name, types[i]);	\
		knob(path, val);						\
	} while (0)
		KNOB("task-filter", "Y");
		KNOB("probability", "100");
		KNOB("interval", "1");
		KNOB("times", "-1");
		KNOB("space", "0");
		KNOB("verbose", v);
		KNOB("ignore-gfp-wait", "N");
#undef KNOB
	}
	knob(DEBUGFS "/fail_page_alloc/ignore-gfp-highmem", "Y");
	knob(DEBUGFS "/fail_page_alloc/min-order", "0");
	/* fail_function: one failure per run, any task, one line each. */
	knob(FEI "/inject", " ");
	knob(FEI "/task-filter", "N");
	knob(FEI "/probability", "100");
	knob(FEI "/interval", "1");
	knob(FEI "/space", "0");
	knob(FEI "/verbose", "1");
}

static void unconfigure(void)
{
	put(DEBUGFS "/failslab/probability", "0");
	put(DEBUGFS "/fail_page_alloc/probability", "0");
	put(FEI "/inject", " ");
}

/*
 * This program's own memory is faulted in and locked before the sweep:
 * a page table allocated for it while a fault is armed would make a
 * fault of this program fail ("VM_FAULT_OOM leaked out", then retried),
 * which tests nothing of the kernel's error paths.
 */
static void prefault(void)
{
	char stack[256 * 1024];
	DIR *d;

	memset(stack, 0, sizeof(stack));
	/* The stores must happen: the stack grows by them. */
	__asm__ __volatile__("" : : "r"(stack) : "memory");
	free(malloc(64 * 1024));
	d = opendir("/");
	if (d)
		closedir(d);
	if (mlockall(MCL_CURRENT))
		ksft_print_msg("mlockall: %s (going on)\n", strerror(errno));
}

static_assert(ARRAY_SIZE(scenarios) + ARRAY_SIZE(fei_cases) + 1 == PLAN,
	      "ksft_set_plan() must count every result");

int main(int argc, char **argv)
{
	unsigned int i;
	int c, leak;

	while ((c = getopt(argc, argv, "v:n:")) != -1) {
		if (c == 'v')
			verbose = atoi(optarg);
		else if (c == 'n')
			max_points = atoi(optarg);
		else
			ksft_exit_fail_msg("usage: %s [-v VERBOSE] [-n MAX_POINTS]\n", argv[0]);
	}
	ksft_print_header();
	ksft_set_plan(16);
	page_size = sysconf(_SC_PAGESIZE);
	prefault();
	nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		ksft_exit_fail_msg("%s: %s (CONFIG_FAULT_INJECTION?)\n", FAIL_NTH,
				   strerror(errno));
	configure();
	leak = kmemleak_report(1);

	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		sweep(&scenarios[i]);
	for (i = 0; i < ARRAY_SIZE(fei_cases); i++)
		fei_sweep(&fei_cases[i]);
	unconfigure();

	leak = leak < 0 ? -1 : kmemleak_report(0);
	if (leak < 0)
		ksft_test_result_fail("fault_sweep_no_leak (kmemleak unavailable)\n");
	else
		ksft_test_result(!leak, "fault_sweep_no_leak\n");
	ksft_finished();
}
