// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest for revocable resources, through the revocable_test module's
 * debugfs files: a provider that can be unplugged while consumers hold
 * the consumer file open and read it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../../kselftest_harness.h"

#define DIR_PATH	"/sys/kernel/debug/revocable_test"
#define PROVIDER	DIR_PATH "/provider"
#define CONSUMER	DIR_PATH "/consumer"
#define GONE		"(gone)"

enum { MODE_FN, MODE_WITH, MODE_SCOPED };

static int provider_cmd(const char *cmd)
{
	int fd = open(PROVIDER, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Read the resource through the consumer file, with the given accessor. */
static int consumer_read(int fd, int mode, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, mode);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

FIXTURE(revocable) {
	int fd;
};

FIXTURE_SETUP(revocable)
{
	provider_cmd("revoke");
	ASSERT_EQ(0, provider_cmd("alloc hello"));
	self->fd = open(CONSUMER, O_RDONLY);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(revocable)
{
	close(self->fd);
	provider_cmd("revoke");
}

TEST_F(revocable, read_sees_resource)
{
	char buf[80];
	int mode;

	for (mode = MODE_FN; mode <= MODE_SCOPED; mode++) {
		ASSERT_EQ(0, consumer_read(self->fd, mode, buf, sizeof(buf)));
		EXPECT_STREQ("hello", buf);
	}
}

TEST_F(revocable, revoke_while_open_reads_gone)
{
	char buf[80];
	int mode;

	ASSERT_EQ(0, provider_cmd("revoke"));
	for (mode = MODE_FN; mode <= MODE_SCOPED; mode++) {
		ASSERT_EQ(0, consumer_read(self->fd, mode, buf, sizeof(buf)));
		EXPECT_STREQ(GONE, buf);
	}
}

TEST_F(revocable, open_after_revoke_reads_gone)
{
	char buf[80];
	int fd;

	ASSERT_EQ(0, provider_cmd("revoke"));
	fd = open(CONSUMER, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, consumer_read(fd, MODE_FN, buf, sizeof(buf)));
	EXPECT_STREQ(GONE, buf);
	close(fd);
}

TEST_F(revocable, replug_old_file_gone_new_file_sees_new)
{
	char buf[80];
	int fd;

	ASSERT_EQ(0, provider_cmd("revoke"));
	ASSERT_EQ(0, provider_cmd("alloc world"));
	ASSERT_EQ(0, consumer_read(self->fd, MODE_FN, buf, sizeof(buf)));
	EXPECT_STREQ(GONE, buf);
	fd = open(CONSUMER, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, consumer_read(fd, MODE_WITH, buf, sizeof(buf)));
	EXPECT_STREQ("world", buf);
	close(fd);
}

struct reader {
	int fd;			/* shared between two readers on purpose */
	int mode;
	atomic_int *stop;
	unsigned long reads, gone, bad;
	pthread_t thread;
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	char buf[80];
	int fd;

	while (!atomic_load(r->stop)) {
		/* Readers without a shared file reopen now and then. */
		fd = r->fd >= 0 ? r->fd : open(CONSUMER, O_RDONLY);
		if (fd < 0 || consumer_read(fd, r->mode, buf, sizeof(buf)))
			r->bad++;
		else if (!strcmp(buf, GONE))
			r->gone++;
		else if (strncmp(buf, "gen", 3))
			r->bad++;
		r->reads++;
		if (r->fd < 0 && fd >= 0)
			close(fd);
	}
	return NULL;
}

/*
 * Unplug while open: reader threads hammer read() (two of them on one
 * shared file) while the provider is revoked and re-created in a loop.
 * Every read returns a live resource or "(gone)"; nothing hangs.
 */
TEST_F_TIMEOUT(revocable, unplug_while_open_stress, 60)
{
	struct reader r[4];
	atomic_int stop = 0;
	struct timespec start, now;
	unsigned long reads = 0, gone = 0;
	char cmd[32];
	int i, gen = 0, shared = open(CONSUMER, O_RDONLY);

	ASSERT_LE(0, shared);
	ASSERT_EQ(0, provider_cmd("revoke"));
	for (i = 0; i < 4; i++) {
		r[i] = (struct reader){ .fd = i < 2 ? shared : -1,
					.mode = i % 3, .stop = &stop };
		ASSERT_EQ(0, pthread_create(&r[i].thread, NULL, reader_fn, &r[i]));
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		snprintf(cmd, sizeof(cmd), "alloc gen%d", gen++);
		ASSERT_EQ(0, provider_cmd(cmd));
		usleep(1000);
		ASSERT_EQ(0, provider_cmd("revoke"));
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - start.tv_sec < 3);
	atomic_store(&stop, 1);
	for (i = 0; i < 4; i++) {
		pthread_join(r[i].thread, NULL);
		EXPECT_EQ(0, r[i].bad);
		reads += r[i].reads;
		gone += r[i].gone;
	}
	close(shared);
	TH_LOG("%d plug cycles, %lu reads, %lu saw the device gone",
	       gen, reads, gone);
	EXPECT_LT(0, gen);
	EXPECT_LT(0, reads);
}

TEST_HARNESS_MAIN
