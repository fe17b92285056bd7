// SPDX-License-Identifier: GPL-2.0
/*
 * rcutorture, the RCU maintainers' own test, on the SRCU flavors the 7.2
 * series changes (the one-grace-period scan of SRCU-fast and
 * SRCU-fast-updown, "srcu: end an idle SRCU-fast grace period after one
 * RCU grace period") and on classic SRCU, whose path it leaves alone.
 *
 * For each TYPE:FLAVOR argument: modprobe rcutorture with
 * torture_type=TYPE reader_flavor=FLAVOR, let it run for -t seconds,
 * remove it, and read what it printed to the kernel log since the load:
 * rcutorture ends with "End of test: SUCCESS" or "End of test: FAILURE"
 * (a reader saw freed data: a grace period ended too early, or a
 * grace period did not end).  One TAP result per run.
 *
 * usage: rcu_torture_run [-t SECONDS] TYPE:FLAVOR...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"

/* Run ARGV (a NULL-terminated list), return its exit status or -1. */
static int run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Read the kernel log from @fd (opened on /dev/kmsg and moved to its end
 * before the load) up to its current end; return 1 for SUCCESS, 0 for
 * FAILURE, -1 when the end-of-test line is missing.
 */
static int verdict(int fd, const char *type)
{
	char rec[8192];
	int found = -1;

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg;

		if (n < 0 && errno == EPIPE)	/* overwritten records */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (!strstr(msg, "End of test:"))
			continue;
		ksft_print_msg("%s: %s", type, msg);
		if (strstr(msg, "End of test: SUCCESS"))
			found = found < 0 ? 1 : found;
		else
			found = 0;
	}
	return found;
}

int main(int argc, char **argv)
{
	unsigned int secs = 30;
	int opt, i;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't')
			ksft_exit_fail_msg("usage: %s [-t SECONDS] TYPE:FLAVOR...\n", argv[0]);
		secs = strtoul(optarg, NULL, 0);
	}
	ksft_print_header();
	ksft_set_plan(argc - optind);
	for (i = optind; i < argc; i++) {
		char type[64], flavor[32], p_type[96], p_flavor[64];
		char *load[] = { "/bin/modprobe", "rcutorture", p_type, p_flavor,
				 "stat_interval=0", "verbose=0", NULL };
		char *unload[] = { "/bin/modprobe", "-r", "rcutorture", NULL };
		int fd, ok;

		if (sscanf(argv[i], "%63[^:]:%31s", type, flavor) != 2) {
			ksft_test_result_fail("%s: not TYPE:FLAVOR\n", argv[i]);
			continue;
		}
		snprintf(p_type, sizeof(p_type), "torture_type=%s", type);
		snprintf(p_flavor, sizeof(p_flavor), "reader_flavor=%s", flavor);
		fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || lseek(fd, 0, SEEK_END) < 0)
			ksft_exit_fail_msg("/dev/kmsg: %s\n", strerror(errno));
		ksft_print_msg("%s reader_flavor=%s for %u s\n", type, flavor, secs);
		if (run(load) != 0) {
			ksft_test_result_fail("rcutorture %s reader_flavor=%s: modprobe failed\n",
					      type, flavor);
			close(fd);
			continue;
		}
		sleep(secs);
		if (run(unload) != 0)
			ksft_print_msg("modprobe -r rcutorture failed\n");
		ok = verdict(fd, type);
		close(fd);
		ksft_test_result(ok == 1, "rcutorture %s reader_flavor=%s%s\n", type, flavor,
				 ok < 0 ? " (no end-of-test line)" : "");
	}
	ksft_finished();
}
