// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the QEMU initramfs: mount what the programs need, run them,
 * and power off.
 *
 * A test run (kernel-qemu*) has /plan, kernel/harness/plan as
 * kernel/harness/kernel.sh resolved it for the run (KUnit already ran
 * during boot): its steps run in order, each between "INIT: step NAME
 * begin at uptime U" and "INIT: step NAME end": its modules are loaded
 * (finit_module, or /bin/modprobe), its program runs, its modules are
 * unloaded.  Before the first step that needs Debian's userspace, /tmp
 * and configfs are mounted and busybox installs its applets.
 * kernel/harness/judge.py console reads these markers against the same
 * /plan.
 *
 * A benchmark run (kernel-bench*) has no /plan, but the benchmark
 * programs or module that it runs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define PLAN_MAX	16384
#define MAX_STEPS	16
#define MAX_MODULES	8
#define MAX_ARGS	16

static void sayf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("INIT: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

static void say(const char *msg)
{
	sayf("%s", msg);
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

/* The first line of /proc/@pid/@name into @buf; "?" when it cannot be read. */
static void proc_line(const char *pid, const char *name, char *buf, size_t size)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, name);
	snprintf(buf, size, "?");
	f = fopen(path, "r");
	if (!f)
		return;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = i + 1 < n ? ' ' : '\0';
}

/*
 * Before a bounded step is killed: each process still in its session, with
 * its state and where it sleeps, so that the console tells a test that
 * left a background child behind (state S) from a task stuck in the
 * kernel (state D, which the hung-task detector reports as well).
 */
static void show_session(pid_t sid, const char *what)
{
	char stat[512], wchan[64], cmd[160], *p;
	struct dirent *d;
	DIR *dir = opendir("/proc");
	long s;

	if (!dir)
		return;
	sayf("%s: timed out; the processes of its session:", what);
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		proc_line(d->d_name, "stat", stat, sizeof(stat));
		/* pid (comm) state ppid pgrp session ... */
		p = strrchr(stat, ')');
		if (!p || sscanf(p + 2, "%*c %*d %*d %ld", &s) != 1 || s != sid)
			continue;
		proc_line(d->d_name, "wchan", wchan, sizeof(wchan));
		proc_line(d->d_name, "cmdline", cmd, sizeof(cmd));
		sayf("  pid %s state %c wchan %s: %s", d->d_name, p[2],
		     wchan[0] ? wchan : "-", cmd);
	}
	closedir(dir);
}

/*
 * runv() in a session of its own, killed as a whole after @secs seconds:
 * a test that fails while a background child of it still holds the
 * runner's pipe (gpio-sim.sh's test 4.1 on a loaded host) must end the run
 * with its failure, not hang it.  @what names it in the message.  Returns
 * the exit status, KILLED when it had to be killed, -1 if it did not start.
 */
#define KILLED	(-2)

static int runv_bounded(char *const argv[], int secs, const char *what)
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
	show_session(pid, what);
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
	return KILLED;
}

/* finit_module(@path, @params); -1 with errno set on failure. */
static int loadp(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, err;

	if (fd < 0)
		return -1;
	ret = (int)syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	close(fd);
	errno = err;
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

/* The uptime, on the scale of the console's timestamps, into @up. */
static void read_uptime(char *up, size_t size)
{
	FILE *f = fopen("/proc/uptime", "r");
	char buf[32];

	snprintf(up, size, "?");
	if (!f)
		return;
	if (fscanf(f, "%31s", buf) == 1)
		snprintf(up, size, "%s", buf);
	fclose(f);
}

/* A module a step loads before its program: a file, or modprobe's name. */
struct plan_module {
	const char *name;
	const char *params;	/* NULL: modprobe @name */
};

/* A step of /plan; its strings point into plan_text. */
struct plan_step {
	const char *name;
	int userspace;
	int secs;		/* 0: no bound */
	int retry;		/* run once more if the program fails */
	int nload, nunload;
	struct plan_module load[MAX_MODULES];
	const char *unload[MAX_MODULES];
	char *argv[MAX_ARGS + 1];
};

static char plan_text[PLAN_MAX];
static struct plan_step steps[MAX_STEPS];
static int nsteps;

/* Split @line in place at blanks into at most @max fields; -1 if more. */
static int split(char *line, char **w, int max)
{
	char *save, *t;
	int n = 0;

	for (t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (n == max)
			return -1;
		w[n++] = t;
	}
	return n;
}

/*
 * One line of /plan (kernel/harness/plan describes them) into the step
 * it belongs to, @s (NULL in a KUnit block).  Returns what is wrong with
 * it, or NULL.
 */
static const char *plan_line(char **w, int n, struct plan_step **s)
{
	struct plan_step *p = *s;

	if (!strcmp(w[0], "kunit")) {
		*s = NULL;
		return n == 2 ? NULL : "usage: kunit SUITE";
	}
	if (!strcmp(w[0], "step")) {
		*s = NULL;
		if (n != 3)
			return "usage: step NAME SECTION";
		if (nsteps == MAX_STEPS)
			return "too many steps";
		*s = &steps[nsteps++];
		(*s)->name = w[1];
		return NULL;
	}
	/* The judge's. */
	if (!strcmp(w[0], "expect") || !strcmp(w[0], "format") ||
	    !strcmp(w[0], "skip-ok") || !strcmp(w[0], "fail-ok"))
		return NULL;
	if (!p)
		return "not in a step";
	if (!strcmp(w[0], "userspace") && n == 1) {
		p->userspace = 1;
	} else if (!strcmp(w[0], "load") && (n == 2 || n == 3)) {
		if (p->nload == MAX_MODULES)
			return "too many modules";
		p->load[p->nload].name = w[1];
		p->load[p->nload++].params = n == 3 ? w[2] : "";
	} else if (!strcmp(w[0], "modprobe") && n == 2) {
		if (p->nload == MAX_MODULES)
			return "too many modules";
		p->load[p->nload].name = w[1];
		p->load[p->nload++].params = NULL;
	} else if (!strcmp(w[0], "unload") && n == 2) {
		if (p->nunload == MAX_MODULES)
			return "too many modules";
		p->unload[p->nunload++] = w[1];
	} else if (!strcmp(w[0], "retry") && n >= 2) {
		p->retry = 1;
	} else if (!strcmp(w[0], "run") && n >= 3) {
		if (p->argv[0])
			return "a second run";
		p->secs = atoi(w[1]);
		memcpy(p->argv, w + 2, (n - 2) * sizeof(*w));
		p->argv[n - 2] = NULL;
	} else {
		return "not understood";
	}
	return NULL;
}

/* Read /plan into steps[]; what it cannot read is a "plan error". */
static int read_plan(const char *path)
{
	char *line, *next, *w[MAX_ARGS + 2];
	struct plan_step *s = NULL;
	int fd, n, lineno = 0;
	const char *err;
	size_t len = 0;
	ssize_t r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((r = read(fd, plan_text + len, sizeof(plan_text) - 1 - len)) > 0)
		len += r;
	close(fd);
	if (r < 0 || len == sizeof(plan_text) - 1) {
		sayf("plan error: %s unreadable or longer than %zu bytes", path,
		     sizeof(plan_text) - 2);
		return -1;
	}
	plan_text[len] = 0;
	for (line = plan_text; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		lineno++;
		n = split(line, w, ARRAY_SIZE(w));
		if (n == 0 || (n > 0 && w[0][0] == '#'))
			continue;
		err = n < 0 ? "too many fields" : plan_line(w, n, &s);
		if (err)
			sayf("plan error: %s:%d: %s (%s)", path, lineno, err, w[0]);
	}
	return 0;
}

/*
 * What the steps that run Debian's userspace (the GPIO selftests, the
 * storms) need: /tmp, configfs, and busybox's applets (its sh, modprobe...).
 */
static void userspace(void)
{
	char *const install[] = { "/bin/busybox", "--install", "-s", "/bin", NULL };

	mkdir("/tmp", 01777);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	runv(install);
}

static void run_step(const struct plan_step *s)
{
	const struct plan_module *m;
	char up[32], what[80];
	int i, ret, attempt;

	read_uptime(up, sizeof(up));
	sayf("step %s begin at uptime %s", s->name, up);
	for (i = 0; i < s->nload; i++) {
		m = &s->load[i];
		if (m->params) {
			if (loadp(m->name, m->params))
				sayf("step %s load %s failed: %s", s->name, m->name,
				     strerror(errno));
			else
				sayf("step %s loaded %s", s->name, m->name);
		} else {
			char *const argv[] = { "/bin/modprobe", (char *)m->name, NULL };

			ret = runv(argv);
			if (ret)
				sayf("step %s modprobe %s failed: exit status %d",
				     s->name, m->name, ret);
		}
	}
	for (attempt = 1; s->argv[0]; attempt++) {
		snprintf(what, sizeof(what), "step %s", s->name);
		ret = s->secs > 0 ? runv_bounded(s->argv, s->secs, what) : runv(s->argv);
		if (ret && s->retry && attempt == 1) {
			/* kernel/harness/judge.py console: a note, not a failure. */
			if (ret == KILLED)
				sayf("step %s retried: attempt 1 killed after %d s",
				     s->name, s->secs);
			else
				sayf("step %s retried: attempt 1 exit status %d",
				     s->name, ret);
			continue;
		}
		if (ret == KILLED)
			sayf("step %s killed after %d s", s->name, s->secs);
		sayf("step %s exit status %d", s->name, ret);
		break;
	}
	for (i = 0; i < s->nunload; i++) {
		if (syscall(SYS_delete_module, s->unload[i], O_NONBLOCK))
			sayf("step %s unload %s failed: %s", s->name, s->unload[i],
			     strerror(errno));
		else
			sayf("step %s unloaded %s", s->name, s->unload[i]);
	}
	sayf("step %s end", s->name);
}

static void run_plan(const char *path)
{
	int i, set_up = 0;

	if (read_plan(path))
		return;
	for (i = 0; i < nsteps; i++) {
		if (steps[i].userspace && !set_up) {
			userspace();
			set_up = 1;
		}
		run_step(&steps[i]);
	}
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

	if (access("/plan", F_OK) == 0)
		run_plan("/plan");

	say("done, powering off");
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
