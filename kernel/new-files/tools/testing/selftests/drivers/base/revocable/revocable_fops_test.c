// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest for revocable file operations, against the revocable_fops_test
 * module's /dev/revocable_fops_test: every file operation before and after
 * the device is unplugged, readers blocked in read() and poll() woken by
 * the unplug, release exactly once per open, mappings zapped (SIGBUS), and
 * unplug racing threads that call every operation.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"

#define DEV		"/dev/revocable_fops_test"
#define CTL		"/sys/kernel/debug/revocable_fops_test/"
#define RFO_IOC_GEN	_IO('R', 1)
#define RFO_IOC_SLEEP	_IO('R', 2)

static int ctl_write(const char *file, const char *val)
{
	int fd = open(file, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static long ctl_read(const char *name)
{
	char path[128], buf[32] = "";
	int fd;

	snprintf(path, sizeof(path), CTL "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return atol(buf);
}

static int plug(void)
{
	int i, ret = ctl_write(CTL "plug", "1");

	/* devtmpfs creates the node asynchronously. */
	for (i = 0; !ret && i < 500 && access(DEV, F_OK); i++)
		usleep(10000);
	return ret;
}

static int unplug(void)
{
	return ctl_write(CTL "plug", "0");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __thread sigjmp_buf bus_jmp;
static __thread int bus_armed;

static void on_sigbus(int sig)
{
	if (__atomic_load_n(&bus_armed, __ATOMIC_RELAXED))
		siglongjmp(bus_jmp, 1);
	_exit(99);
}

/* Read the first word of a mapping; -2 when the access raises SIGBUS. */
static long touch(const int *p)
{
	long v;

	if (sigsetjmp(bus_jmp, 1)) {
		__atomic_store_n(&bus_armed, 0, __ATOMIC_RELAXED);
		return -2;
	}
	__atomic_store_n(&bus_armed, 1, __ATOMIC_SEQ_CST);
	v = __atomic_load_n(p, __ATOMIC_RELAXED);
	__atomic_store_n(&bus_armed, 0, __ATOMIC_SEQ_CST);
	return v;
}

FIXTURE(rfo) {
	int unused;
};

FIXTURE_SETUP(rfo)
{
	struct sigaction sa = { .sa_handler = on_sigbus };

	sigaction(SIGBUS, &sa, NULL);
	unplug();
	ASSERT_EQ(0, plug());
}

FIXTURE_TEARDOWN(rfo)
{
	unplug();
}

TEST_F(rfo, every_op_before_and_after_unplug)
{
	long rel0 = ctl_read("releases");
	char buf[64];
	struct pollfd pfd;
	int *map;
	int fd, gen, i;

	fd = open(DEV, O_RDWR | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, write(fd, "hello", 5));
	ASSERT_EQ(5, read(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, memcmp(buf, "hello", 5));
	gen = ioctl(fd, RFO_IOC_GEN);
	ASSERT_LT(0, gen);
	ASSERT_EQ(10, lseek(fd, 10, SEEK_SET));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_EQ(POLLIN | POLLOUT, pfd.revents);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK | O_ASYNC));
	map = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(gen, touch(map));

	ASSERT_EQ(0, unplug());
	errno = 0;
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, write(fd, "x", 1));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, RFO_IOC_GEN));
	EXPECT_EQ(ENODEV, errno);
	errno = 0;
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ENODEV, errno);
	pfd.revents = 0;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLHUP | POLLERR, pfd.revents & (POLLHUP | POLLERR));
	/* The mapping is zapped: the page is no longer the device's. */
	EXPECT_EQ(-2, touch(map));
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(ENODEV, errno);
	for (i = 0; i < 500 && access(DEV, F_OK) == 0; i++)
		usleep(10000);	/* devtmpfs removes the node asynchronously */
	EXPECT_NE(0, access(DEV, F_OK));
	EXPECT_EQ(0, munmap(map, getpagesize()));
	EXPECT_EQ(rel0, ctl_read("releases"));
	/* flush reports the device gone; release still runs, once. */
	errno = 0;
	EXPECT_EQ(-1, close(fd));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(rel0 + 1, ctl_read("releases"));
}

struct blocked {
	int fd;
	int use_poll;
	long ret;
	int err;
	short revents;
	double t_done;
	int started;
};

static void *blocked_fn(void *arg)
{
	struct blocked *b = arg;
	char buf[64];

	b->started = 1;
	if (b->use_poll) {
		struct pollfd pfd = { .fd = b->fd, .events = POLLIN };

		b->ret = poll(&pfd, 1, 10000);
		b->revents = pfd.revents;
	} else {
		b->ret = read(b->fd, buf, sizeof(buf));
	}
	b->err = errno;
	b->t_done = now();
	return NULL;
}

static void unplug_wakes(struct __test_metadata *_metadata, int use_poll)
{
	struct blocked b = { .use_poll = use_poll };
	pthread_t th;
	double t0;

	b.fd = open(DEV, O_RDWR);
	ASSERT_LE(0, b.fd);
	ASSERT_EQ(0, pthread_create(&th, NULL, blocked_fn, &b));
	while (!b.started)
		usleep(1000);
	usleep(200000);		/* well inside the call by now */
	ASSERT_EQ(0, b.t_done);
	t0 = now();
	ASSERT_EQ(0, unplug());
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_GT(2.0, b.t_done - t0);
	if (use_poll) {
		EXPECT_EQ(1, b.ret);
		EXPECT_EQ(POLLHUP | POLLERR, b.revents & (POLLHUP | POLLERR));
	} else {
		EXPECT_EQ(-1, b.ret);
		EXPECT_EQ(ENODEV, b.err);
	}
	close(b.fd);
}

TEST_F(rfo, blocked_read_woken_by_unplug)
{
	unplug_wakes(_metadata, 0);
}

TEST_F(rfo, blocked_poll_woken_by_unplug)
{
	unplug_wakes(_metadata, 1);
}

TEST_F(rfo, release_exactly_once)
{
	long rel0 = ctl_read("releases"), op0 = ctl_read("opens");
	int fd[3], i;

	for (i = 0; i < 3; i++) {
		fd[i] = open(DEV, O_RDONLY);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(op0 + 3, ctl_read("opens"));
	close(fd[0]);
	EXPECT_EQ(rel0 + 1, ctl_read("releases"));
	ASSERT_EQ(0, unplug());
	EXPECT_EQ(rel0 + 1, ctl_read("releases"));
	/* dup: one open, one release, however many descriptors. */
	i = dup(fd[1]);
	close(fd[1]);
	EXPECT_EQ(rel0 + 1, ctl_read("releases"));
	close(i);
	close(fd[2]);
	EXPECT_EQ(rel0 + 3, ctl_read("releases"));
	usleep(100000);
	EXPECT_EQ(rel0 + 3, ctl_read("releases"));
	EXPECT_EQ(ctl_read("opens"), ctl_read("releases"));
}

TEST_F(rfo, bad_control_calls)
{
	EXPECT_EQ(-EBUSY, ctl_write(CTL "plug", "1"));
	EXPECT_EQ(0, unplug());
	EXPECT_EQ(-ENODEV, unplug());
	EXPECT_EQ(-EINVAL, ctl_write(CTL "plug", "maybe"));
}

struct looper {
	int id;
	int stop;
	long calls, gone, bad;
};

/* One call of the operation @i picks on @fd; 1 when the device is gone. */
static int one_op(struct looper *l, int fd, unsigned int i)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT };
	char buf[64];
	void *map;
	long r;

	errno = 0;
	switch (i % 7) {
	case 0:
		r = read(fd, buf, sizeof(buf));
		l->bad += r < 0 && errno != EAGAIN && errno != ENODEV;
		break;
	case 1:
		r = write(fd, "abc", 3);
		l->bad += r != 3 && errno != ENODEV;
		break;
	case 2:
		r = ioctl(fd, RFO_IOC_SLEEP, 1);
		l->bad += r <= 0 && errno != ENODEV;
		break;
	case 3:
		r = poll(&pfd, 1, 0);
		l->bad += r != 1;
		return !!(pfd.revents & POLLHUP);
	case 4:
		r = lseek(fd, 3, SEEK_SET);
		l->bad += r != 3 && errno != ENODEV;
		break;
	case 5:
		map = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			l->bad += errno != ENODEV;
			return 1;
		}
		r = touch(map);
		munmap(map, getpagesize());
		l->bad += r != -2 && r <= 0;
		return r == -2;
	default:
		r = ioctl(fd, RFO_IOC_GEN);
		l->bad += r <= 0 && errno != ENODEV;
		break;
	}
	return r < 0 && errno == ENODEV;
}

static void *looper_fn(void *arg)
{
	struct looper *l = arg;
	unsigned int i = l->id;
	int fd = -1;

	while (!__atomic_load_n(&l->stop, __ATOMIC_RELAXED)) {
		if (fd < 0) {
			fd = open(DEV, O_RDWR | O_NONBLOCK);
			if (fd < 0) {
				l->bad += errno != ENOENT && errno != ENODEV;
				usleep(500);
				continue;
			}
		}
		l->calls++;
		if (one_op(l, fd, i++)) {
			l->gone++;
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

TEST_F_TIMEOUT(rfo, unplug_races_every_op, 60)
{
	struct looper l[4] = { { 0 } };
	pthread_t th[4];
	long calls = 0, gone = 0, plugs = 0;
	double end = now() + 3;
	int i;

	for (i = 0; i < 4; i++) {
		l[i].id = i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, looper_fn, &l[i]));
	}
	while (now() < end) {
		usleep(20000);
		ASSERT_EQ(0, unplug());
		usleep(2000);
		ASSERT_EQ(0, plug());
		plugs++;
	}
	for (i = 0; i < 4; i++) {
		__atomic_store_n(&l[i].stop, 1, __ATOMIC_RELAXED);
		ASSERT_EQ(0, pthread_join(th[i], NULL));
		EXPECT_EQ(0, l[i].bad);
		calls += l[i].calls;
		gone += l[i].gone;
	}
	ksft_print_msg("%ld unplugs, %ld calls, %ld saw the device gone\n",
		       plugs, calls, gone);
	EXPECT_LT(0, gone);
	ASSERT_EQ(0, unplug());
	EXPECT_EQ(ctl_read("opens"), ctl_read("releases"));
}

TEST_HARNESS_MAIN
