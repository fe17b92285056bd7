/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemleak from a guest program (the unplug storms, through storm.h, and
 * the fault sweep): forget what is reported so far, or scan and print
 * what leaked since.
 */
#ifndef KMEMLEAK_H
#define KMEMLEAK_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

/* Write @val to @path: 0, or -errno. */
static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* 1 when kmemleak reports something (printed), 0 when not, -1 without it. */
static int kmemleak_report(int clear)
{
	char buf[4096];
	ssize_t n, total = 0;
	int fd;

	if (access(KMEMLEAK, F_OK))
		return -1;
	if (clear)
		return write_file(KMEMLEAK, "clear");
	/* Objects are reported once they are old enough and still unreferenced. */
	sleep(6);
	write_file(KMEMLEAK, "scan");
	write_file(KMEMLEAK, "scan");
	fd = open(KMEMLEAK, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		fputs(buf, stdout);
		total += n;
	}
	close(fd);
	return total > 0;
}

#endif
