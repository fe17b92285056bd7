// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the QEMU test initramfs: mount what the tests need, load the
 * debugfs test module, run the kselftest (KUnit already ran during boot),
 * report, and power off.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(const char *msg)
{
	printf("INIT: %s\n", msg);
	fflush(stdout);
}

static int run(const char *path)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, (char *)NULL);
		perror("exec");
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = (int)syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret;
}

int main(void)
{
	char msg[128];
	int ret;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);

	if (access("/revocable_bench.ko", F_OK) == 0) {
		/* The benchmark runs in its init and then refuses to load. */
		say("running revocable_bench.ko");
		load("/revocable_bench.ko");
	}

	if (access("/revocable_selftest", F_OK) == 0) {
		if (load("/revocable_test.ko")) {
			perror("INIT: loading revocable_test.ko");
			say("module load failed");
		} else {
			say("revocable_test.ko loaded");
		}
		ret = run("/revocable_selftest");
		snprintf(msg, sizeof(msg), "selftest exit status %d", ret);
		say(msg);
		if (syscall(SYS_delete_module, "revocable_test", O_NONBLOCK))
			perror("INIT: unloading revocable_test");
		else
			say("revocable_test unloaded");
	}

	say("done, powering off");
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
