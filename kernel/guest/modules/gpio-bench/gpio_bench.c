// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel half of "ninja -C build kernel-bench-gpio": time a loop of
 * gpiod_get_value_cansleep() on lines of a gpio-sim chip, from one CPU and
 * from every online CPU at once (one line each), and print the time per
 * call.  The module runs in its init and then refuses to stay loaded.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/driver.h>
#include <linux/gpio/machine.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sort.h>

static char *label = "bench";
module_param(label, charp, 0444);
MODULE_PARM_DESC(label, "label of the gpio-sim bank to use");
static unsigned int loops = 100000;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "calls per measurement and CPU");
static unsigned int rounds = 5;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "measurements; the median is printed");

#define MAX_CPUS	4

struct bench_worker {
	struct gpio_desc *desc;
	struct completion start, done;
	u64 ns;
	int sum;
};

static int bench_thread(void *arg)
{
	struct bench_worker *w = arg;
	unsigned int i;
	u64 t0;

	wait_for_completion(&w->start);
	t0 = ktime_get_ns();
	for (i = 0; i < loops; i++)
		w->sum += gpiod_get_value_cansleep(w->desc);
	w->ns = ktime_get_ns() - t0;
	complete(&w->done);
	return 0;
}

/* One measurement on @n CPUs at once: the mean time per call, in ps. */
static u64 bench_round(struct gpio_desc **descs, unsigned int n)
{
	struct bench_worker w[MAX_CPUS];
	struct task_struct *t;
	unsigned int i;
	u64 total = 0;

	for (i = 0; i < n; i++) {
		w[i].desc = descs[i];
		w[i].sum = 0;
		init_completion(&w[i].start);
		init_completion(&w[i].done);
		t = kthread_create(bench_thread, &w[i], "gpio_bench/%u", i);
		if (IS_ERR(t))
			return 0;
		kthread_bind(t, i);
		wake_up_process(t);
	}
	for (i = 0; i < n; i++)
		complete(&w[i].start);
	for (i = 0; i < n; i++) {
		wait_for_completion(&w[i].done);
		total += w[i].ns;
	}
	return div_u64(total * 1000, (u64)n * loops);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int __init gpio_bench_init(void)
{
	struct gpio_desc *descs[MAX_CPUS] = { };
	unsigned int n, i, cpus = min(num_online_cpus(), MAX_CPUS);
	struct gpio_device *gdev;
	struct gpio_chip *gc;
	u64 ps[16];

	rounds = clamp(rounds, 1U, 16U);
	gdev = gpio_device_find_by_label(label);
	if (!gdev) {
		pr_err("GPIOBENCH: no GPIO device labelled %s\n", label);
		return -ENODEV;
	}
	gc = gpio_device_get_chip(gdev);
	for (i = 0; i < cpus; i++) {
		descs[i] = gpiochip_request_own_desc(gc, i, "gpio_bench",
						     GPIO_ACTIVE_HIGH, GPIOD_IN);
		if (IS_ERR(descs[i])) {
			pr_err("GPIOBENCH: line %u: %ld\n", i, PTR_ERR(descs[i]));
			descs[i] = NULL;
			goto out;
		}
	}
	for (n = 1; n <= cpus; n = n == 1 && cpus > 1 ? cpus : cpus + 1) {
		for (i = 0; i < rounds; i++)
			ps[i] = bench_round(descs, n);
		sort(ps, rounds, sizeof(ps[0]), cmp_u64, NULL);
		pr_info("GPIOBENCH: kernel cpus=%u ns_per_op=%llu.%03llu\n", n,
			ps[rounds / 2] / 1000, ps[rounds / 2] % 1000);
	}
out:
	for (i = 0; i < cpus; i++)
		if (descs[i])
			gpiochip_free_own_desc(descs[i]);
	gpio_device_put(gdev);
	return -EAGAIN;
}
module_init(gpio_bench_init);

MODULE_DESCRIPTION("gpiod_get_value_cansleep() benchmark on gpio-sim");
MODULE_LICENSE("GPL");
