// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace half of "ninja -C build kernel-bench-gpio": time a loop of
 * GPIO_V2_LINE_GET_VALUES_IOCTL on a line of a gpio-sim chip ("user"), and
 * a loop that requests one line with GPIO_V2_GET_LINE_IOCTL on the chip's
 * descriptor and closes the request it gets ("request"), each from one CPU
 * and from every online CPU at once (a line each), and print the time per
 * call, or per request and close (median of the rounds).  A request costs
 * far more than a read of values, so its loop runs LOOPS / 10 times.
 *
 * Then a device's whole life, as libgpiod's test suite lives it: open and
 * close of the chip's node ("open"), and gpio-sim chips made and unmade
 * through configfs, one step at a time ("chip_create": the directories and
 * attributes; "chip_enable": live=1, the probe and gpiochip_add();
 * "chip_disable": live=0, the removal and the GPIO device's release;
 * "chip_remove": the directories gone; "chip_life": all four), in ns per
 * chip.  Last, the same chips' life once more with ftrace's function
 * profiler counting what the life calls that waits for readers or
 * callbacks (grace periods, barriers) and what it allocates per CPU:
 * "GPIOGP: FUNCTION hits_per_chip=N us_per_chip=T" (T: wall time inside,
 * sleeping included), with the paths a removal takes and the deferred work
 * and waits a chip's life may leave to the next step; and that life's own
 * steps, "GPIOGPSTEP: STEP ns_per_chip=T" (a step's time under the
 * profiler, to tell which boots a profile stands for).
 *
 * usage: gpio_bench_user /dev/gpiochipN [LOOPS [ROUNDS]]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_user.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define SIM		"/sys/kernel/config/gpio-sim"
#define TRACING		"/sys/kernel/tracing"
/* Chips per round of the lifecycle rows. */
#define LIFE_CHIPS	20

enum { LIFE_CREATE, LIFE_ENABLE, LIFE_DISABLE, LIFE_REMOVE, LIFE_STEPS };

static const char *const life_name[LIFE_STEPS] = {
	"chip_create", "chip_enable", "chip_disable", "chip_remove",
};

/*
 * What a chip's life may wait for or allocate per CPU, in both kernels:
 * names a kernel does not have are left out of the profile.
 */
static const char *const gp_funcs[] = {
	"synchronize_rcu", "synchronize_rcu_expedited", "rcu_barrier",
	"synchronize_srcu", "synchronize_srcu_expedited", "srcu_barrier",
	"init_srcu_struct", "cleanup_srcu_struct",
	"revocable_srcu_synchronize_report", "revocable_srcu_barrier",
	"__revocable_srcu_init", "revocable_srcu_cleanup",
	"revocable_domain_alloc", "revocable_domain_free",
	"revocable_revoke", "revocable_revoke_wait",
	"gpio_sim_device_deactivate", "platform_device_unregister",
	"gpiodev_release", "device_del", "kobject_uevent_env",
	"process_one_work", "handle_softirqs", "rcu_core", "__run_timers",
	"schedule_timeout", "usleep_range_state", "__flush_work",
	"wait_for_completion", "call_rcu", "pcpu_balance_workfn",
	"pcpu_alloc_noprof", "free_percpu",
	"gpiochip_add_data_with_key", "gpiochip_remove",
};

static int put_file(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

static int put_attr(const char *dir, const char *attr, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	return put_file(path, val, 0);
}

static void life_fail(const char *what, const char *dir)
{
	fprintf(stderr, "gpio_bench_user: %s %s: %s\n", what, dir,
		strerror(errno));
	exit(1);
}

/* One chip's life, each step's time added to @ns[step]. */
static void life_one(int n, double *ns)
{
	char dir[96], bank[112];
	double t;

	snprintf(dir, sizeof(dir), SIM "/life%d", n);
	snprintf(bank, sizeof(bank), "%s/bank0", dir);

	t = now_ns();
	if (mkdir(dir, 0755) || mkdir(bank, 0755))
		life_fail("mkdir", dir);
	if (put_attr(bank, "num_lines", "8") || put_attr(bank, "label", "life"))
		life_fail("configuring", bank);
	ns[LIFE_CREATE] += now_ns() - t;

	t = now_ns();
	if (put_attr(dir, "live", "1"))
		life_fail("enabling", dir);
	ns[LIFE_ENABLE] += now_ns() - t;

	t = now_ns();
	if (put_attr(dir, "live", "0"))
		life_fail("disabling", dir);
	ns[LIFE_DISABLE] += now_ns() - t;

	t = now_ns();
	if (rmdir(bank) || rmdir(dir))
		life_fail("rmdir", dir);
	ns[LIFE_REMOVE] += now_ns() - t;
}

/* The lifecycle rows: the median over @rounds rounds of LIFE_CHIPS chips. */
static void bench_life(int rounds)
{
	double ns[LIFE_STEPS + 1][MAX_ROUNDS];
	int r, i, step;

	for (r = 0; r < rounds; r++) {
		double sum[LIFE_STEPS] = { 0 };

		for (i = 0; i < LIFE_CHIPS; i++)
			life_one(i, sum);
		ns[LIFE_STEPS][r] = 0;
		for (step = 0; step < LIFE_STEPS; step++) {
			ns[step][r] = sum[step] / LIFE_CHIPS;
			ns[LIFE_STEPS][r] += ns[step][r];
		}
	}
	for (step = 0; step <= LIFE_STEPS; step++) {
		qsort(ns[step], rounds, sizeof(ns[step][0]), bench_cmp);
		printf("GPIOBENCH: %s cpus=1 ns_per_op=%.3f\n",
		       step < LIFE_STEPS ? life_name[step] : "chip_life",
		       ns[step][rounds / 2]);
	}
	fflush(stdout);
}

/*
 * Sum a function's hits and time (us) over the profiler's per-CPU tables,
 * whose rows read "  NAME  HITS  TIME us  AVG us  S^2 us".
 */
static void gp_profile_sum(const char *func, long *hits, double *us)
{
	char path[96], name[128], line[256];
	double t;
	long h;
	FILE *f;

	*hits = 0;
	*us = 0;
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), TRACING "/trace_stat/function%d", cpu);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, " %127s %ld %lf", name, &h, &t) == 3 &&
			    !strcmp(name, func)) {
				*hits += h;
				*us += t;
			}
		fclose(f);
	}
}

/* The GPIOGP rows, from LIFE_CHIPS chips' lives under the profiler. */
static void bench_life_profile(void)
{
	double ns[LIFE_STEPS] = { 0 }, us;
	size_t i;
	long hits;

	mount("tracefs", TRACING, "tracefs", 0, NULL);
	if (put_file(TRACING "/set_ftrace_filter", "", O_TRUNC)) {
		perror("gpio_bench_user: " TRACING "/set_ftrace_filter");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(gp_funcs); i++)
		put_file(TRACING "/set_ftrace_filter", gp_funcs[i], O_APPEND);
	if (put_file(TRACING "/function_profile_enabled", "1", 0)) {
		perror("gpio_bench_user: function_profile_enabled");
		return;
	}
	for (i = 0; i < LIFE_CHIPS; i++)
		life_one((int)i, ns);
	put_file(TRACING "/function_profile_enabled", "0", 0);
	for (i = 0; i < LIFE_STEPS; i++)
		printf("GPIOGPSTEP: %s ns_per_chip=%.0f\n", life_name[i],
		       ns[i] / LIFE_CHIPS);
	for (i = 0; i < ARRAY_SIZE(gp_funcs); i++) {
		gp_profile_sum(gp_funcs[i], &hits, &us);
		printf("GPIOGP: %s hits_per_chip=%.2f us_per_chip=%.1f\n",
		       gp_funcs[i], (double)hits / LIFE_CHIPS, us / LIFE_CHIPS);
	}
	fflush(stdout);
}

/*
 * One line request and its release.  The request is the worker's own; the
 * kernel writes back only its fd, so the same one serves every iteration.
 */
static int request_close(struct bench_worker *w)
{
	struct gpio_v2_line_request *req = w->priv;

	if (ioctl(w->fd, GPIO_V2_GET_LINE_IOCTL, req))
		return -1;
	return close(req->fd);
}

static void line_request(struct gpio_v2_line_request *req, unsigned int line)
{
	memset(req, 0, sizeof(*req));
	req->offsets[0] = line;
	req->num_lines = 1;
	req->config.flags = GPIO_V2_LINE_FLAG_INPUT;
	snprintf(req->consumer, sizeof(req->consumer), "gpio_bench_user");
}

int main(int argc, char **argv)
{
	long loops = argc > 2 ? atol(argv[2]) : 100000;
	int rounds = bench_rounds(argc > 3 ? atoi(argv[3]) : 5);
	int cpus = bench_cpus(), cfd, fds[MAX_CPUS];
	struct gpio_v2_line_values v = { .mask = 1 };
	struct gpio_v2_line_request reqs[MAX_CPUS];
	struct bench_worker w[MAX_CPUS];

	if (argc < 2) {
		fprintf(stderr, "usage: %s /dev/gpiochipN [LOOPS [ROUNDS]]\n", argv[0]);
		return 2;
	}
	cfd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (cfd < 0) {
		perror(argv[1]);
		return 1;
	}
	/* Lines MAX_CPUS.. stay requested for the values loop. */
	for (int i = 0; i < cpus; i++) {
		line_request(&reqs[i], MAX_CPUS + i);
		if (ioctl(cfd, GPIO_V2_GET_LINE_IOCTL, &reqs[i])) {
			perror("GPIO_V2_GET_LINE_IOCTL");
			return 1;
		}
		fds[i] = reqs[i].fd;
	}
	bench_ioctl("GPIOBENCH", "user", fds, cpus, loops, rounds,
		    GPIO_V2_LINE_GET_VALUES_IOCTL, &v, sizeof(v));
	/* Lines 0.. are free: each worker requests and releases its own. */
	memset(w, 0, sizeof(w));
	for (int i = 0; i < cpus; i++) {
		line_request(&reqs[i], i);
		w[i].fd = cfd;
		w[i].cpu = i;
		w[i].loops = loops / 10 > 0 ? loops / 10 : 1;
		w[i].priv = &reqs[i];
		w[i].op = request_close;
	}
	bench_run("GPIOBENCH", "request", w, cpus, rounds);
	bench_open_close("GPIOBENCH", "open", argv[1], cpus, loops / 10 > 0 ? loops / 10 : 1,
			 rounds);
	bench_life(rounds);
	bench_life_profile();
	return 0;
}
