// SPDX-License-Identifier: GPL-2.0
/*
 * Media unplug storm: the platform devices of the V4L2 test drivers, vivid.0
 * and vimc.0, are unbound and bound again through sysfs, one after the
 * other, while threads use their nodes, each through an fd of its own:
 *  - a streaming client that stops giving buffers back and ends up blocked
 *    in VIDIOC_DQBUF, then reads the buffers it mapped; another one that
 *    waits in poll(); a read() client; a VIDIOC_DQEVENT sleeper;
 *  - VIDIOC_QUERYCAP, G_FMT, ENUM_FMT, G_INPUT, QUERYCTRL, G_CTRL and
 *    SUBDEV_QUERYCAP in a loop on every node, and open() and close() in a
 *    loop;
 *  - with -c V4L2_CTL (Debian's v4l2-ctl), on a vivid capture node,
 *    v4l2-ctl -d NODE --stream-mmap --stream-count=100000.
 * A queue has one owner, so vivid's vid-cap, meta-cap and touch-cap nodes
 * take turns at the DQBUF, read() and v4l2-ctl roles, and vimc's "RGB/YUV
 * Capture" and "Raw Capture 1" at the DQBUF and poll() ones (drivers[]).
 * The main thread also holds an fd on every node, used after the unbind.
 *
 * vivid and vimc keep what their file operations use until the last close,
 * so they would not show an unbind that does not wait for the operations in
 * progress.  With -q MODULE (v4l2_quick.ko, kernel/guest/modules/v4l2-quick),
 * loaded unless it is already, a third device takes its turn after them:
 * v4l2-quick.0, whose driver frees its state as soon as
 * video_unregister_device() returns.  Three clients keep calling its
 * V4L2_QUICK_IOC_SLEEP, which sleeps 20 to 100 ms inside the driver, and
 * VIDIOC_QUERYCAP (w_sleep()), besides the ioctl and open/close loops: the
 * unbind comes while they sleep in the driver, so one that does not wait
 * for them lets them use freed memory (KASAN; without it, EIO).
 *
 * Checks, for a bounded time:
 *  - a call that fails on a node does so after the unbind started, with
 *    ENODEV; poll() gives POLLERR | POLLHUP | POLLPRI; opening a removed
 *    node fails with ENOENT, ENODEV or ENXIO; close() works;
 *  - a caller blocked at the unbind returns within the bound after the
 *    unbind started, and the unbind itself completes within it;
 *  - buffers mapped before the unbind are still readable after it;
 *  - v4l2-ctl sees the removal and exits by itself (w_ctl());
 *  - with -q, v4l2-quick.0 is unbound while clients sleep in its driver,
 *    and their calls give ENODEV from then on;
 *  - kmemleak, if the kernel has it, reports nothing new at the end.
 * The console (KASAN, lockdep, WARNING, hung tasks) is judged by the caller.
 *
 * usage: media_unplug_storm [-t SECONDS] [-b BOUND_MS] [-c V4L2_CTL]
 *                           [-q V4L2_QUICK_MODULE]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <linux/v4l2-subdev.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "storm.h"

#define PLAT		"/sys/bus/platform"
#define MAXNODES	16
#define MAXBUF		16	/* vivid's sdr-cap allocates 8 at least */
#define REQUEUE		2	/* buffers a client gives back, then no more */
#define NTURNS		3	/* the nodes take turns at the roles */

/*
 * v4l2-quick's private ioctl (kernel/guest/modules/v4l2-quick/v4l2_quick.c):
 * sleep for the __u32 number of milliseconds (at most 200) in the driver.
 */
#define V4L2_QUICK_IOC_SLEEP	_IOW('V', BASE_VIDIOC_PRIVATE + 0, __u32)
#define QUICK			"v4l2-quick"	/* its driver and node name */

enum role { DQBUF, POLLER, READER, EVENTS, CTL, SLEEP0, SLEEP1, SLEEP2,
	    NROLES, HAMMER = NROLES, OPENCLOSE, NCLIENTS };
static const char *const role_name[NCLIENTS] = { "DQBUF sleeper",
	"poll waiter", "read sleeper", "DQEVENT sleeper", "v4l2-ctl",
	"v4l2-quick sleeper", "v4l2-quick sleeper", "v4l2-quick sleeper",
	"ioctl hammer", "open/close loop" };

struct gen;

struct drv {
	const char *name, *dev;		/* the platform driver and device */
	const char *role[NROLES][NTURNS];	/* the node of a role, by turn */
	void (*setup)(struct gen *g);
	long long unbind;		/* the longest unbind */
	atomic_llong latency;		/* the latest return after one */
	atomic_int unbinds, woken;
};

struct node {
	char path[48];		/* /dev/videoN, /dev/v4l-subdevN... */
	char name[64];		/* its video4linux name */
	dev_t rdev;
	__u32 caps;		/* device_caps; 0 for a subdevice */
	int held;		/* the main thread's fd, used after the unbind */
};

/* One incarnation of a device, from its bind to its unbind. */
struct gen {
	struct drv *drv;
	struct node node[MAXNODES];
	int nnodes;
	atomic_int gone;	/* the unbind has started */
	atomic_llong gone_ns;	/* when */
	atomic_int unbound;	/* the unbind has returned */
	atomic_int armed;	/* blocking clients about to block, or done */
};

struct client {
	struct gen *g;
	enum role role;
	int node;
	pthread_t th;
	pid_t pid;		/* v4l2-ctl */
};

static const char *v4l2_ctl, *quick_module;
static atomic_llong frames, mapped, sigbus, ctl_runs, ctl_ok;
static unsigned int seed = 1;
static __thread sigjmp_buf *bus_env;

/*
 * A call on a node of @g failed with @err: the unbind must have started and
 * the error be ENODEV.  Returns 1 (the caller stops).
 */
static int gone(struct gen *g, const char *what, int err)
{
	long long lat;

	if (!atomic_load(&g->gone)) {
		complain(what, "failed on a bound device", err);
		return 1;
	}
	lat = now_ns() - atomic_load(&g->gone_ns);
	if (err == ENODEV && lat > atomic_load(&g->drv->latency))
		atomic_store(&g->drv->latency, lat);
	return storm_gone(&g->gone, &g->gone_ns, what, err, ENODEV);
}

/* A call returned @ret (errno set): 1 when it failed. */
static int failed(struct gen *g, long ret, const char *what)
{
	atomic_fetch_add(&calls, 1);
	return ret < 0 && gone(g, what, errno);
}

/* A blocking client is about to block, or ends without having blocked. */
static void arm(struct gen *g, int *armed)
{
	if (!*armed) {
		*armed = 1;
		atomic_fetch_add(&g->armed, 1);
	}
}

/* A client that was blocked (@armed) returned because of the unbind. */
static void woke(struct gen *g, int armed)
{
	if (armed && atomic_load(&g->gone))
		atomic_fetch_add(&g->drv->woken, 1);
}

static int open_node(struct gen *g, int i, int flags)
{
	struct node *n = &g->node[i];
	int fd = open(n->path, flags | O_RDWR | O_CLOEXEC);
	struct stat st;

	atomic_fetch_add(&calls, 1);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENODEV && errno != ENXIO)
			complain("open", n->path, errno);
		else if (!atomic_load(&g->gone))
			complain("open", "failed on a bound device", errno);
		else
			atomic_fetch_add(&gone_calls, 1);
		return -1;
	}
	if (fstat(fd, &st) || st.st_rdev != n->rdev)
		complain("open", "reached another device than the node's", 0);
	else if (atomic_load(&g->unbound))
		complain("open", "a removed node opened", 0);
	return fd;
}

static void close_node(int fd)
{
	if (close(fd))
		complain("close", "failed", errno);
}

/* The (single-planar) buffer type of a node's device_caps, 0 if none. */
static __u32 buf_type(__u32 caps)
{
	static const __u32 map[][2] = {
		{ V4L2_CAP_VIDEO_CAPTURE, V4L2_BUF_TYPE_VIDEO_CAPTURE },
		{ V4L2_CAP_VIDEO_OUTPUT, V4L2_BUF_TYPE_VIDEO_OUTPUT },
		{ V4L2_CAP_VBI_CAPTURE, V4L2_BUF_TYPE_VBI_CAPTURE },
		{ V4L2_CAP_VBI_OUTPUT, V4L2_BUF_TYPE_VBI_OUTPUT },
		{ V4L2_CAP_SDR_CAPTURE, V4L2_BUF_TYPE_SDR_CAPTURE },
		{ V4L2_CAP_META_CAPTURE, V4L2_BUF_TYPE_META_CAPTURE },
		{ V4L2_CAP_META_OUTPUT, V4L2_BUF_TYPE_META_OUTPUT },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(map); i++)
		if (caps & map[i][0])
			return map[i][1];
	return 0;
}

/*
 * The first control of @fd whose value VIDIOC_G_CTRL gives, 0 if it has
 * none (or is gone).
 */
static __u32 first_ctrl(struct gen *g, int fd)
{
	struct v4l2_queryctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };

	for (;;) {
		atomic_fetch_add(&calls, 1);
		if (ioctl(fd, VIDIOC_QUERYCTRL, &q)) {
			/* EINVAL: the end of the list; ENOTTY: no controls */
			if (errno != EINVAL && errno != ENOTTY)
				gone(g, "VIDIOC_QUERYCTRL", errno);
			return 0;
		}
		if ((q.type == V4L2_CTRL_TYPE_INTEGER ||
		     q.type == V4L2_CTRL_TYPE_BOOLEAN ||
		     q.type == V4L2_CTRL_TYPE_MENU) &&
		    !(q.flags & (V4L2_CTRL_FLAG_DISABLED | V4L2_CTRL_FLAG_WRITE_ONLY)))
			return q.id;
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
}

static void on_sigbus(int sig)
{
	if (bus_env)
		siglongjmp(*bus_env, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read every page of the buffers mapped; a SIGBUS is counted. */
static void read_mappings(void *const *map, const size_t *len)
{
	volatile unsigned char sum = 0;
	volatile int i = 0;
	sigjmp_buf env;

	bus_env = &env;
	if (sigsetjmp(env, 1)) {
		atomic_fetch_add(&sigbus, 1);
		ksft_print_msg("SIGBUS reading mapped buffer %d after the unbind\n", i);
		i++;
	}
	for (; i < MAXBUF; i++) {
		for (size_t off = 0; map[i] && off < len[i]; off += 4096)
			sum += ((const volatile unsigned char *)map[i])[off];
		atomic_fetch_add(&mapped, !!map[i]);
	}
	bus_env = NULL;
}

/*
 * MMAP streaming that gives the first REQUEUE buffers back and no more, so
 * that it ends up blocked in VIDIOC_DQBUF (DQBUF) or in poll() (POLLER)
 * until the unbind; then, once the unbind has returned, it reads the
 * buffers it mapped.
 */
static void *w_stream(void *arg)
{
	struct client *c = arg;
	struct gen *g = c->g;
	int poller = c->role == POLLER, armed = 0, fd;
	struct v4l2_requestbuffers rb = {
		.count = 3, .memory = V4L2_MEMORY_MMAP,
		.type = buf_type(g->node[c->node].caps),
	};
	struct v4l2_buffer b = { .type = rb.type, .memory = V4L2_MEMORY_MMAP };
	unsigned int queued = 0, dequeued = 0;
	struct pollfd p = { .events = POLLIN | POLLPRI };
	void *map[MAXBUF] = { NULL };
	size_t len[MAXBUF] = { 0 };

	fd = open_node(g, c->node, poller ? O_NONBLOCK : 0);
	p.fd = fd;
	if (fd < 0 || failed(g, ioctl(fd, VIDIOC_REQBUFS, &rb), "VIDIOC_REQBUFS"))
		goto out;
	for (b.index = 0; b.index < rb.count && b.index < MAXBUF; b.index++) {
		if (failed(g, ioctl(fd, VIDIOC_QUERYBUF, &b), "VIDIOC_QUERYBUF"))
			goto out;
		map[b.index] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd,
				    b.m.offset);
		len[b.index] = b.length;
		if (map[b.index] == MAP_FAILED) {
			map[b.index] = NULL;
			failed(g, -1, "mmap");
			goto out;
		}
		if (failed(g, ioctl(fd, VIDIOC_QBUF, &b), "VIDIOC_QBUF"))
			goto out;
		queued++;
	}
	if (failed(g, ioctl(fd, VIDIOC_STREAMON, &rb.type), "VIDIOC_STREAMON"))
		goto out;
	for (;;) {
		if (!queued)
			arm(g, &armed);
		if (poller) {
			atomic_fetch_add(&calls, 1);
			if (poll(&p, 1, -1) < 0) {
				complain("poll", "failed", errno);
				break;
			}
			if (p.revents & (POLLERR | POLLHUP)) {
				if (p.revents != (POLLERR | POLLHUP | POLLPRI))
					complain("poll", "not POLLERR | POLLHUP | POLLPRI", 0);
				gone(g, "poll on a streaming fd", ENODEV);
				woke(g, armed);
				break;
			}
		}
		atomic_fetch_add(&calls, 1);
		if (ioctl(fd, VIDIOC_DQBUF, &b)) {
			if (poller && errno == EAGAIN)
				continue;
			gone(g, poller ? "VIDIOC_DQBUF after poll" :
			     "blocking VIDIOC_DQBUF", errno);
			woke(g, armed);
			break;
		}
		queued--;
		atomic_fetch_add(&frames, 1);
		if (dequeued++ < REQUEUE) {
			if (failed(g, ioctl(fd, VIDIOC_QBUF, &b), "VIDIOC_QBUF"))
				break;
			queued++;
		}
	}
	while (atomic_load(&g->gone) && !atomic_load(&g->unbound) &&
	       now_ns() - atomic_load(&g->gone_ns) < bound_ns)
		usleep(1000);
	read_mappings(map, len);
out:
	arm(g, &armed);
	for (int i = 0; i < MAXBUF; i++)
		if (map[i])
			munmap(map[i], len[i]);
	if (fd >= 0)
		close_node(fd);
	return NULL;
}

/* read() I/O, a frame at a time, until the unbind. */
static void *w_read(void *arg)
{
	struct client *c = arg;
	struct gen *g = c->g;
	const size_t size = 1 << 20;
	char *buf = malloc(size);
	int fd = buf ? open_node(g, c->node, 0) : -1, armed = 0;
	ssize_t n = 1;

	while (fd >= 0 && n > 0) {
		atomic_fetch_add(&calls, 1);
		n = read(fd, buf, size);
		if (n > 0) {
			atomic_fetch_add(&frames, 1);
			arm(g, &armed);
		} else if (n == 0) {
			complain("read", "returned 0", 0);
		} else {
			gone(g, "blocking read", errno);
			woke(g, armed);
		}
	}
	arm(g, &armed);
	if (fd >= 0)
		close_node(fd);
	free(buf);
	return NULL;
}

/* A control's events: the initial one, then a blocking VIDIOC_DQEVENT. */
static void *w_event(void *arg)
{
	struct client *c = arg;
	struct gen *g = c->g;
	struct v4l2_event_subscription sub = {
		.type = V4L2_EVENT_CTRL, .flags = V4L2_EVENT_SUB_FL_SEND_INITIAL,
	};
	int fd = open_node(g, c->node, 0), armed = 0;
	unsigned int pending = 1;
	struct v4l2_event ev;

	sub.id = fd >= 0 ? first_ctrl(g, fd) : 0;
	if (fd >= 0 && !sub.id && !atomic_load(&g->gone))
		complain(g->node[c->node].name, "no control to watch", 0);
	if (sub.id && !failed(g, ioctl(fd, VIDIOC_SUBSCRIBE_EVENT, &sub),
			      "VIDIOC_SUBSCRIBE_EVENT")) {
		for (;;) {
			if (!pending)
				arm(g, &armed);
			atomic_fetch_add(&calls, 1);
			if (ioctl(fd, VIDIOC_DQEVENT, &ev)) {
				gone(g, "blocking VIDIOC_DQEVENT", errno);
				woke(g, armed);
				break;
			}
			pending = ev.pending;
			atomic_fetch_add(&events, 1);
		}
	}
	arm(g, &armed);
	if (fd >= 0)
		close_node(fd);
	return NULL;
}

#define IOC(x)	{ x, #x }
static const struct {
	unsigned long req;
	const char *name;
} hammer_ioc[] = {
	IOC(VIDIOC_QUERYCAP), IOC(VIDIOC_G_FMT), IOC(VIDIOC_ENUM_FMT),
	IOC(VIDIOC_G_INPUT), IOC(VIDIOC_QUERYCTRL), IOC(VIDIOC_G_CTRL),
	IOC(VIDIOC_SUBDEV_QUERYCAP),
};

#define NIOC	ARRAY_SIZE(hammer_ioc)

/*
 * The ioctls of hammer_ioc on every node, until each one is gone; what a
 * node does not support (ENOTTY or EINVAL the first time) is left out.
 */
static void *w_hammer(void *arg)
{
	struct client *c = arg;
	struct gen *g = c->g;
	signed char ok[MAXNODES][NIOC] = { { 0 } };
	__u32 ctrl[MAXNODES];
	int fd[MAXNODES], live = 0;
	union {
		struct v4l2_capability cap;
		struct v4l2_format f;
		struct v4l2_fmtdesc d;
		int input;
		struct v4l2_queryctrl q;
		struct v4l2_control ctl;
		struct v4l2_subdev_capability sd;
	} u;

	for (int i = 0; i < g->nnodes; i++) {
		fd[i] = open_node(g, i, O_NONBLOCK);
		ctrl[i] = fd[i] >= 0 ? first_ctrl(g, fd[i]) : 0;
		live += fd[i] >= 0;
	}
	while (live) {
		for (int i = 0; i < g->nnodes; i++) {
			__u32 type = buf_type(g->node[i].caps);
			int tried = 0;

			for (unsigned int k = 0; fd[i] >= 0 && k < NIOC; k++) {
				if (ok[i][k] < 0 || ((k == 1 || k == 2) && !type) ||
				    ((k == 4 || k == 5) && !ctrl[i]))
					continue;
				tried = 1;
				memset(&u, 0, sizeof(u));
				if (k == 1)
					u.f.type = type;
				else if (k == 2)
					u.d.type = type;
				else if (k == 4 || k == 5)	/* q.id, ctl.id */
					u.q.id = ctrl[i];
				atomic_fetch_add(&calls, 1);
				if (ioctl(fd[i], hammer_ioc[k].req, &u) == 0) {
					ok[i][k] = 1;
					continue;
				}
				if (!ok[i][k] && (errno == ENOTTY || errno == EINVAL)) {
					ok[i][k] = -1;
					continue;
				}
				gone(g, hammer_ioc[k].name, errno);
				tried = 0;
				break;
			}
			if (fd[i] >= 0 && !tried) {	/* gone, or nothing to do */
				close_node(fd[i]);
				fd[i] = -1;
				live--;
			}
		}
	}
	return NULL;
}

/* open() and close() of every node, up to a pass after the unbind. */
static void *w_openclose(void *arg)
{
	struct client *c = arg;
	struct gen *g = c->g;
	int last;

	do {
		last = atomic_load(&g->unbound);
		for (int i = 0; i < g->nnodes; i++) {
			int fd = open_node(g, i, O_NONBLOCK);

			if (fd >= 0)
				close_node(fd);
		}
		usleep(500);
	} while (!last);
	return NULL;
}

/*
 * v4l2-ctl streaming from the node until the unbind.  v4l-utils 1.22.1's
 * streaming_set_cap() prints a '<' a frame, then on the removal
 * "VIDIOC_DQBUF: failed: No such device" (do_handle_cap(); unbound between
 * its DQBUF and QBUF, "do_handle_cap: qbuf error") and stops; main() then
 * exits with app_result, which only doioctl() sets: 0.
 */
static void *w_ctl(void *arg)
{
	struct client *c = arg;
	struct gen *g = c->g;
	const char *node = g->node[c->node].path;
	int p[2] = { -1, -1 }, status = -1, armed = 0, nframes = 0, seen, ok;
	char out[16384], *line;
	size_t len = 0;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) == 0)
		c->pid = fork();
	if (c->pid < 0)
		complain("v4l2-ctl", "pipe or fork failed", errno);
	if (c->pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execl(v4l2_ctl, v4l2_ctl, "-d", node, "--stream-mmap",
		      "--stream-count=100000", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (p[0] >= 0 && (n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0) {
		for (ssize_t i = 0; i < n; i++)
			nframes += out[len + i] == '<';
		len += n;
		if (nframes)
			arm(g, &armed);
		if (len > sizeof(out) / 2) {	/* keep the end */
			memmove(out, out + len / 2, len - len / 2);
			len -= len / 2;
		}
	}
	out[len] = 0;
	if (atomic_load(&g->gone))
		gone(g, "v4l2-ctl", ENODEV);	/* its return, within the bound */
	else
		complain("v4l2-ctl", "exited before the unbind", 0);
	arm(g, &armed);
	if (p[0] >= 0)
		close(p[0]);
	if (c->pid > 0)
		waitpid(c->pid, &status, 0);
	seen = strstr(out, "VIDIOC_DQBUF: failed: No such device") ||
	       strstr(out, "do_handle_cap: qbuf error");
	ok = seen && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	woke(g, nframes && seen);
	/* Judged only if it streamed before the unbind (it starts slowly). */
	atomic_fetch_add(&ctl_runs, nframes > 0);
	atomic_fetch_add(&ctl_ok, nframes && ok);
	ksft_print_msg("v4l2-ctl -d %s: %d frames%s, removal %s, exit status %d\n",
		       node, nframes, nframes ? "" : " (not judged)",
		       seen ? "seen" : "not seen",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	for (line = strtok(out, "\n"); !ok && line; line = strtok(NULL, "\n"))
		ksft_print_msg("v4l2-ctl: %s\n", line);
	return NULL;
}

/*
 * v4l2-quick: V4L2_QUICK_IOC_SLEEP for 20 to 100 ms, then VIDIOC_QUERYCAP,
 * in a loop until the unbind.  The driver frees the state that both use as
 * soon as video_unregister_device() returns, so the unbind must wait for
 * the sleep in progress: it returns 0, and the next call gives ENODEV.  A
 * sleep that returned with the unbind started was in the driver when it
 * came: such a client counts as a blocked caller woken by the unbind.
 */
static void *w_sleep(void *arg)
{
	struct client *c = arg;
	struct gen *g = c->g;
	unsigned int s = (unsigned int)now_ns() + c->role;
	int fd = open_node(g, c->node, 0), armed = 0, inside = 0;
	struct v4l2_capability cap;
	__u32 ms;

	while (fd >= 0) {
		ms = 20 + rand_r(&s) % 81;
		arm(g, &armed);
		if (failed(g, ioctl(fd, V4L2_QUICK_IOC_SLEEP, &ms),
			   "V4L2_QUICK_IOC_SLEEP"))
			break;
		inside |= atomic_load(&g->gone);
		memset(&cap, 0, sizeof(cap));
		if (failed(g, ioctl(fd, VIDIOC_QUERYCAP, &cap), "VIDIOC_QUERYCAP"))
			break;
		if (strcmp((const char *)cap.card, QUICK))
			complain("VIDIOC_QUERYCAP", "v4l2-quick's card name changed", 0);
	}
	woke(g, inside);
	arm(g, &armed);
	if (fd >= 0)
		close_node(fd);
	return NULL;
}

static int read_attr(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int find_node(struct gen *g, const char *name)
{
	for (int i = 0; name && i < g->nnodes; i++)
		if (strstr(g->node[i].name, name))
			return i;
	return -1;
}

/*
 * The nodes of the bound device, from its video4linux directory in sysfs;
 * the main thread opens each one and holds the fd.
 */
static int find_nodes(struct gen *g)
{
	char dir[96], path[160], val[32];
	struct v4l2_capability cap;
	unsigned int maj, min;
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), PLAT "/devices/%s/video4linux", g->drv->dev);
	d = opendir(dir);
	while (d && (de = readdir(d)) && g->nnodes < MAXNODES) {
		struct node *n = &g->node[g->nnodes];

		snprintf(path, sizeof(path), "%s/%.32s/name", dir, de->d_name);
		if (de->d_name[0] == '.' || read_attr(path, n->name, sizeof(n->name)))
			continue;
		snprintf(path, sizeof(path), "%s/%.32s/dev", dir, de->d_name);
		if (read_attr(path, val, sizeof(val)) ||
		    sscanf(val, "%u:%u", &maj, &min) != 2)
			continue;
		n->rdev = makedev(maj, min);
		snprintf(n->path, sizeof(n->path), "/dev/%.32s", de->d_name);
		for (int i = 0; i < 500 && access(n->path, F_OK); i++)
			usleep(10000);	/* devtmpfs */
		n->held = open_node(g, g->nnodes++, O_NONBLOCK);
		if (n->held >= 0 && ioctl(n->held, VIDIOC_QUERYCAP, &cap) == 0)
			n->caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ?
				  cap.device_caps : cap.capabilities;
		else if (n->held >= 0 && errno != ENOTTY)	/* a subdevice */
			failed(g, -1, "VIDIOC_QUERYCAP");
	}
	if (d)
		closedir(d);
	return g->nnodes ? 0 : -1;
}

/* vivid: 30 frames a second rather than 5 on its capture nodes. */
static void vivid_setup(struct gen *g)
{
	struct v4l2_streamparm p = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.parm.capture.timeperframe = { 1, 30 },
	};
	int n = find_node(g, "vid-cap");

	if (n >= 0 && g->node[n].held >= 0)
		failed(g, ioctl(g->node[n].held, VIDIOC_S_PARM, &p), "VIDIOC_S_PARM");
}

/*
 * vimc: the pipelines validate only if the sensors give the Bayer format
 * the debayers take by default, and the raw capture nodes take it too; then
 * "RGB/YUV Capture" (Sensor A's pipeline) and "Raw Capture 1" (Sensor B's)
 * stream.
 */
static void vimc_setup(struct gen *g)
{
	static const char *const names[] = { "Sensor A", "Sensor B",
		"Raw Capture 0", "Raw Capture 1" };
	struct v4l2_subdev_format sf = {
		.which = V4L2_SUBDEV_FORMAT_ACTIVE,
		.format = { .width = 640, .height = 480,
			    .code = MEDIA_BUS_FMT_SRGGB8_1X8,
			    .field = V4L2_FIELD_NONE,
			    .colorspace = V4L2_COLORSPACE_SRGB },
	};
	struct v4l2_format f = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.fmt.pix = { .width = 640, .height = 480,
			     .pixelformat = V4L2_PIX_FMT_SRGGB8,
			     .field = V4L2_FIELD_NONE,
			     .colorspace = V4L2_COLORSPACE_SRGB },
	};

	for (int i = 0; i < 4; i++) {
		int n = find_node(g, names[i]);

		if (n >= 0 && g->node[n].held >= 0)
			failed(g, ioctl(g->node[n].held, i < 2 ?
					VIDIOC_SUBDEV_S_FMT : VIDIOC_S_FMT,
					i < 2 ? (void *)&sf : (void *)&f),
			       i < 2 ? "VIDIOC_SUBDEV_S_FMT" : "VIDIOC_S_FMT");
	}
}

/* A call on an fd the main thread held across the unbind: ENODEV. */
static void held(long ret, const char *what)
{
	atomic_fetch_add(&calls, 1);
	if (ret >= 0 || errno != ENODEV)
		complain(what, "not ENODEV after the unbind", ret >= 0 ? 0 : errno);
	else
		atomic_fetch_add(&gone_calls, 1);
}

/*
 * After the unbind, the fds the main thread held across it (opening the
 * removed nodes is the open/close loop's last pass).
 */
static void check_held(struct gen *g)
{
	struct v4l2_capability cap;
	char buf[16];
	void *m;

	for (struct node *n = g->node; n < g->node + g->nnodes; n++) {
		struct pollfd p = { .fd = n->held,
				    .events = POLLIN | POLLOUT | POLLPRI };

		if (n->held >= 0) {
			held(ioctl(n->held, VIDIOC_QUERYCAP, &cap), "held fd: ioctl");
			if (poll(&p, 1, 0) != 1 ||
			    p.revents != (POLLERR | POLLHUP | POLLPRI))
				complain("held fd: poll", "not POLLERR | POLLHUP | POLLPRI", 0);
			if (n->caps & V4L2_CAP_READWRITE)
				held(read(n->held, buf, sizeof(buf)), "held fd: read");
			m = n->caps & V4L2_CAP_STREAMING ? mmap(NULL, 4096,
				PROT_READ, MAP_SHARED, n->held, 0) : NULL;
			if (m)
				held(m == MAP_FAILED ? -1 : 0, "held fd: mmap");
			if (m && m != MAP_FAILED)
				munmap(m, 4096);
			close_node(n->held);
		}
	}
}

static int sysfs_bind(struct drv *d, const char *how)
{
	char path[96];

	snprintf(path, sizeof(path), PLAT "/drivers/%s/%s", d->name, how);
	return write_file(path, d->dev);
}

static int is_bound(struct drv *d)
{
	char path[96];

	snprintf(path, sizeof(path), PLAT "/devices/%s/driver", d->dev);
	return access(path, F_OK) == 0;
}

/*
 * Bind @d, let the clients at it, unbind it, and check what the unbind did
 * to them.  Returns -1 when the storm must stop (a client is stuck, or the
 * bind or the unbind failed).
 */
static int incarnation(struct drv *d)
{
	void *(*const fn[NCLIENTS])(void *) = { w_stream, w_stream, w_read,
		w_event, w_ctl, w_sleep, w_sleep, w_sleep, w_hammer, w_openclose };
	struct gen *g = calloc(1, sizeof(*g));
	struct client c[NCLIENTS];
	int nc = 0, nblock = 0, ret, stuck = 0, turn;
	struct timespec dl;
	long long t0, lat;

	if (!g)
		ksft_exit_fail_msg("out of memory\n");
	g->drv = d;
	turn = atomic_load(&d->unbinds) % NTURNS;
	ret = sysfs_bind(d, "bind");
	if (ret || find_nodes(g)) {
		complain("bind", d->dev, ret ? -ret : ENOENT);
		return -1;
	}
	if (d->setup)
		d->setup(g);
	for (int r = 0; r < NCLIENTS; r++) {
		const char *name = r < NROLES ? d->role[r][turn] : NULL;

		if (r < NROLES && (!name || (r == CTL && !v4l2_ctl)))
			continue;
		c[nc] = (struct client){ .g = g, .role = r, .pid = -1,
					 .node = find_node(g, name) };
		if (r < NROLES && c[nc].node < 0) {
			complain(name, "no such node", 0);
			continue;
		}
		if (pthread_create(&c[nc].th, NULL, fn[r], &c[nc]))
			ksft_exit_fail_msg("pthread_create failed\n");
		nblock += r < NROLES;
		nc++;
	}

	/* The unbind comes once every blocking client blocks, or the bound. */
	t0 = now_ns();
	while (atomic_load(&g->armed) < nblock && now_ns() - t0 < bound_ns)
		usleep(2000);
	if (atomic_load(&g->armed) < nblock)
		ksft_print_msg("%s: %d of %d blocking clients blocked before the unbind\n",
			       d->dev, atomic_load(&g->armed), nblock);
	usleep(1000 + rand_r(&seed) % 20000);

	atomic_store(&g->gone_ns, now_ns());
	atomic_store(&g->gone, 1);
	t0 = now_ns();
	ret = sysfs_bind(d, "unbind");
	lat = now_ns() - t0;
	atomic_store(&g->unbound, 1);
	if (ret)
		complain("unbind", d->dev, -ret);
	d->unbind = lat > d->unbind ? lat : d->unbind;
	removal_max = lat > removal_max ? lat : removal_max;
	atomic_fetch_add(&d->unbinds, 1);
	atomic_fetch_add(&removals, 1);

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += bound_ns / 1000000000LL + 1;
	for (int i = 0; i < nc; i++) {
		if (pthread_timedjoin_np(c[i].th, NULL, &dl) == 0)
			continue;
		atomic_fetch_add(&late, 1);
		ksft_print_msg("%s: %s still blocked %lld ms after the unbind started\n",
			       d->dev, role_name[c[i].role],
			       (now_ns() - atomic_load(&g->gone_ns)) / 1000000);
		if (c[i].role == CTL && c[i].pid > 0)
			kill(c[i].pid, SIGKILL);
		stuck = 1;
	}
	if (stuck)
		return -1;	/* g stays: the stuck clients use it */
	check_held(g);
	free(g);
	return ret ? -1 : 0;
}

static struct drv drivers[] = {
	{ .name = "vivid", .dev = "vivid.0", .setup = vivid_setup, .role = {
		[DQBUF] = { "vid-cap", "meta-cap", "touch-cap" },
		[POLLER] = { "sdr-cap", "sdr-cap", "sdr-cap" },
		[READER] = { "meta-cap", "touch-cap", "vid-cap" },
		[EVENTS] = { "vid-cap", "vid-cap", "vid-cap" },
		[CTL] = { "touch-cap", "vid-cap", "meta-cap" } } },
	{ .name = "vimc", .dev = "vimc.0", .setup = vimc_setup, .role = {
		[DQBUF] = { "RGB/YUV Capture", "Raw Capture 1", "RGB/YUV Capture" },
		[POLLER] = { "Raw Capture 1", "RGB/YUV Capture", "Raw Capture 1" },
		[EVENTS] = { "Sensor A", "Sensor B", "Sensor A" } } },
	/* Last: only with -q. */
	{ .name = QUICK, .dev = QUICK ".0", .role = {
		[SLEEP0] = { QUICK, QUICK, QUICK },
		[SLEEP1] = { QUICK, QUICK, QUICK },
		[SLEEP2] = { QUICK, QUICK, QUICK } } },
};

#define NDRV	ARRAY_SIZE(drivers)
#define QUICK_DRV	(&drivers[NDRV - 1])

/*
 * storm_start() takes one option of the storm's own (-c): take -q MODULE
 * out of @argv before it.  Returns the new argc.
 */
static int take_quick_opt(int argc, char **argv)
{
	int j = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				argv[j++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "-q") && i + 1 < argc)
			quick_module = argv[++i];
		else if (!strncmp(argv[i], "-q", 2) && argv[i][2])
			quick_module = argv[i] + 2;
		else
			argv[j++] = argv[i];
	}
	argv[j] = NULL;
	return j;
}

/* Load v4l2_quick.ko unless its driver is there already. */
static void load_quick(void)
{
	int fd;

	if (!access(PLAT "/drivers/" QUICK, F_OK))
		return;
	fd = open(quick_module, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
		ksft_exit_fail_msg("loading %s: %s\n", quick_module, strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	char path[96];
	long long end;
	int leak, used = 1, ret;
	unsigned int ndrv;

	argc = take_quick_opt(argc, argv);
	end = storm_start(argc, argv, 'c', &v4l2_ctl,
			  "[-c V4L2_CTL] [-q V4L2_QUICK_MODULE]");
	ksft_set_plan(7);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGBUS, &sa, NULL);
	ndrv = quick_module ? NDRV : NDRV - 1;
	if (quick_module)
		load_quick();
	for (unsigned int i = 0; i < ndrv; i++) {
		snprintf(path, sizeof(path), PLAT "/devices/%s", drivers[i].dev);
		if (access(path, F_OK))
			ksft_exit_skip("%s: %s (modules vivid and vimc loaded?)\n",
				       path, strerror(errno));
		if (is_bound(&drivers[i]) && sysfs_bind(&drivers[i], "unbind"))
			ksft_exit_fail_msg("unbinding %s before the storm failed\n",
					   drivers[i].dev);
	}
	leak = kmemleak_report(1);

	for (unsigned int k = 0; k < ndrv || now_ns() < end; k++)
		if (incarnation(&drivers[k % ndrv]))
			break;

	/* Leave the devices bound, as init left them. */
	for (unsigned int i = 0; i < ndrv && !atomic_load(&late); i++) {
		ret = is_bound(&drivers[i]) ? 0 : sysfs_bind(&drivers[i], "bind");
		if (ret)
			complain("bind after the storm", drivers[i].dev, -ret);
	}
	ksft_print_msg("calls %lld, unbinds %lld, calls that saw a node gone %lld, frames %lld, events %lld, buffers read after an unbind %lld\n",
		       atomic_load(&calls), atomic_load(&removals),
		       atomic_load(&gone_calls), atomic_load(&frames),
		       atomic_load(&events), atomic_load(&mapped));
	for (struct drv *d = drivers; d < drivers + ndrv; d++) {
		ksft_print_msg("%s: %d unbinds, %d blocked callers woken by one\n",
			       d->dev, atomic_load(&d->unbinds),
			       atomic_load(&d->woken));
		storm_print_longest(d->dev, "driver unbind", d->unbind,
				    atomic_load(&d->latency));
		if (d != QUICK_DRV)
			used &= atomic_load(&d->unbinds) > 0 &&
				atomic_load(&d->woken) > 0;
	}
	storm_results("media_storm_devices_unbound_under_use",
		      used && atomic_load(&gone_calls) > 0,
		      "media_storm", "driver unbind", leak);
	ksft_test_result(atomic_load(&sigbus) == 0 && atomic_load(&mapped) > 0,
			 "media_storm_mapped_buffers_readable_after_unbind\n");
	if (!v4l2_ctl)
		ksft_test_result_skip("media_storm_v4l2_ctl_sees_removal (no v4l2-ctl given)\n");
	else
		ksft_test_result(atomic_load(&ctl_runs) > 0 &&
				 atomic_load(&ctl_ok) == atomic_load(&ctl_runs),
				 "media_storm_v4l2_ctl_sees_removal\n");
	if (!quick_module)
		ksft_test_result_skip("media_storm_v4l2_quick_unbound_in_ioctls (no v4l2-quick module given)\n");
	else
		ksft_test_result(atomic_load(&QUICK_DRV->unbinds) > 0 &&
				 atomic_load(&QUICK_DRV->woken) > 0,
				 "media_storm_v4l2_quick_unbound_in_ioctls\n");
	ksft_finished();
}
