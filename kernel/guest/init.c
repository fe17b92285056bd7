// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the QEMU test initramfs: mount what the tests need, load the
 * debugfs test module, run the kselftest (KUnit already ran during boot),
 * then, when the initramfs has them, the kernel's GPIO selftests (with
 * Debian's busybox and bash) and the GPIO unplug storm; report, and power
 * off.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
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

static int runv(char *const argv[])
{
	static char *const envp[] = {
		"PATH=/bin:/sbin:/usr/bin:/usr/sbin", "HOME=/", "TERM=dumb", NULL
	};
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execve(argv[0], argv, envp);
		perror("exec");
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * runv() in a session of its own, killed as a whole after @secs seconds:
 * a test that fails while a background child of it still holds the
 * runner's pipe (gpio-sim.sh's test 4.1 on a loaded host) must end the run
 * with its failure, not hang it.
 */
static int runv_bounded(char *const argv[], int secs)
{
	int status, i;
	pid_t pid = fork();

	if (pid == 0) {
		setsid();
		_exit(runv(argv));
	}
	if (pid < 0)
		return -1;
	for (i = 0; i < secs * 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(100000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("INIT: %s killed after %d s\n", argv[1] ? argv[1] : argv[0], secs);
	return -1;
}

static int run(const char *path)
{
	char *const argv[] = { (char *)path, NULL };

	return runv(argv);
}

/* Run @argv if its program is in the initramfs, and say how it ended. */
static void run_if_present(char *const argv[], const char *what)
{
	char msg[96];

	if (access(argv[0], F_OK))
		return;
	snprintf(msg, sizeof(msg), "%s exit status %d", what, runv(argv));
	say(msg);
}

/*
 * The GPIO stage: tools/testing/selftests/gpio through the kernel's own
 * kselftest runner, then the GPIO unplug storm, then the evdev one; each
 * where the initramfs's second archive has it (see gpio_userspace in
 * kernel/harness/kernel.sh: 6.1 runs only the evdev storm).
 */
static void gpio_stage(void)
{
	char *const install[] = { "/bin/busybox", "--install", "-s", "/bin", NULL };
	char *const modprobe[] = { "/bin/modprobe", "gpio-sim", NULL };
	/* Under KASAN and TCG a test may outlast the runner's default 45 s. */
	char *const ksft[] = { "/bin/sh", "/kselftest/run_kselftest.sh",
			       "--override-timeout", "300", NULL };
	char secs[16] = "5", msg[128], up[16];
	char *const storm[] = { "/gpio_unplug_storm", "-t", secs,
				"-m", "/gpio_slow_chip.ko", NULL };
	char *const evstorm[] = { "/evdev_unplug_storm", "-t", secs,
				  "-e", "/usr/bin/evtest", NULL };
	FILE *f;
	int ret;

	mkdir("/tmp", 01777);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	runv(install);
	f = fopen("/storm_seconds", "r");
	if (f) {
		if (!fgets(secs, sizeof(secs), f))
			strcpy(secs, "5");
		secs[strcspn(secs, "\n")] = 0;
		fclose(f);
	}
	say("gpio tests begin");
	if (access(ksft[1], F_OK) == 0) {
		ret = runv_bounded(ksft, 480);
		snprintf(msg, sizeof(msg), "gpio kselftest exit status %d", ret);
		say(msg);
	}
	/* The uptime is on the scale of the console's timestamps. */
	strcpy(up, "?");
	f = fopen("/proc/uptime", "r");
	if (f) {
		if (fscanf(f, "%15s", up) != 1)
			strcpy(up, "?");
		fclose(f);
	}
	snprintf(msg, sizeof(msg), "gpio unplug storm begins at uptime %s", up);
	say(msg);
	if (access(storm[0], F_OK) == 0)
		runv(modprobe);
	run_if_present(storm, "gpio unplug storm");
	run_if_present(evstorm, "evdev unplug storm");
	say("gpio tests end");
}

static int loadp(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = (int)syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

static int load(const char *path)
{
	return loadp(path, "");
}

static int put(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(val, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/*
 * kernel-bench-gpio: a gpio-sim chip labelled "bench" through configfs,
 * then the userspace loop on its character device and the in-kernel loop
 * of gpio_bench.ko.
 */
static void gpio_bench_stage(void)
{
	const char *cfg = "/sys/kernel/config/gpio-sim/b";
	char path[128], chip[64] = "", dev[96];
	char *const user[] = { "/gpio_bench_user", dev, "100000", "9", NULL };
	FILE *f;

	mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	if (load("/gpio-sim.ko"))
		perror("INIT: loading gpio-sim.ko");
	mkdir(cfg, 0755);
	snprintf(path, sizeof(path), "%s/bank0", cfg);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bank0/num_lines", cfg);
	put(path, "8");
	snprintf(path, sizeof(path), "%s/bank0/label", cfg);
	put(path, "bench");
	snprintf(path, sizeof(path), "%s/live", cfg);
	if (put(path, "1"))
		perror("INIT: gpio-sim live");
	snprintf(path, sizeof(path), "%s/bank0/chip_name", cfg);
	f = fopen(path, "r");
	if (!f || !fgets(chip, sizeof(chip), f))
		say("no gpio-sim chip");
	if (f)
		fclose(f);
	chip[strcspn(chip, "\n")] = 0;
	snprintf(dev, sizeof(dev), "/dev/%s", chip);
	say("running gpio_bench_user");
	runv(user);
	say("running gpio_bench.ko");
	loadp("/gpio_bench.ko", "rounds=9");
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
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);

	if (access("/gpio_bench_user", F_OK) == 0)
		gpio_bench_stage();

	if (access("/evdev_bench_user", F_OK) == 0) {
		char *const evb[] = { "/evdev_bench_user", "100000", "9", NULL };

		say("running evdev_bench_user");
		runv(evb);
	}

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

	if (access("/revocable_fops_selftest", F_OK) == 0) {
		if (load("/revocable_fops_test.ko"))
			perror("INIT: loading revocable_fops_test.ko");
		ret = run("/revocable_fops_selftest");
		snprintf(msg, sizeof(msg), "fops selftest exit status %d", ret);
		say(msg);
		if (syscall(SYS_delete_module, "revocable_fops_test", O_NONBLOCK))
			perror("INIT: unloading revocable_fops_test");
		else
			say("revocable_fops_test unloaded");
	}

	if (access("/bin/busybox", F_OK) == 0)
		gpio_stage();

	say("done, powering off");
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
