// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace half of "ninja -C build kernel-bench-gpio": time a loop of
 * GPIO_V2_LINE_GET_VALUES_IOCTL on a line of a gpio-sim chip, from one CPU
 * and from every online CPU at once (a line request each), and print the
 * time per call (median of the rounds).
 *
 * usage: gpio_bench_user /dev/gpiochipN [LOOPS [ROUNDS]]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/gpio.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS	4

struct worker {
	pthread_t th;
	int fd, cpu;
	long loops;
	double ns;
	pthread_barrier_t *go;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	struct gpio_v2_line_values v = { .mask = 1 };
	cpu_set_t set;
	double t0;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	pthread_barrier_wait(w->go);
	t0 = now_ns();
	for (long i = 0; i < w->loops; i++)
		if (ioctl(w->fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &v)) {
			perror("GPIO_V2_LINE_GET_VALUES_IOCTL");
			exit(1);
		}
	w->ns = (now_ns() - t0) / w->loops;
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long loops = argc > 2 ? atol(argv[2]) : 100000;
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	int cpus = sysconf(_SC_NPROCESSORS_ONLN), cfd;
	struct worker w[MAX_CPUS];
	pthread_barrier_t go;
	double ns[16];

	if (argc < 2) {
		fprintf(stderr, "usage: %s /dev/gpiochipN [LOOPS [ROUNDS]]\n", argv[0]);
		return 2;
	}
	cpus = cpus > MAX_CPUS ? MAX_CPUS : cpus;
	rounds = rounds < 1 ? 1 : rounds > 16 ? 16 : rounds;
	cfd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (cfd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (int i = 0; i < cpus; i++) {
		struct gpio_v2_line_request req;

		memset(&req, 0, sizeof(req));
		req.offsets[0] = MAX_CPUS + i;
		req.num_lines = 1;
		req.config.flags = GPIO_V2_LINE_FLAG_INPUT;
		strcpy(req.consumer, "gpio_bench_user");
		if (ioctl(cfd, GPIO_V2_GET_LINE_IOCTL, &req)) {
			perror("GPIO_V2_GET_LINE_IOCTL");
			return 1;
		}
		w[i].fd = req.fd;
		w[i].cpu = i;
		w[i].loops = loops;
		w[i].go = &go;
	}
	for (int n = 1; n <= cpus; n = n == 1 ? cpus : cpus + 1) {
		for (int r = 0; r < rounds; r++) {
			double sum = 0;

			pthread_barrier_init(&go, NULL, n);
			for (int i = 0; i < n; i++)
				pthread_create(&w[i].th, NULL, run, &w[i]);
			for (int i = 0; i < n; i++) {
				pthread_join(w[i].th, NULL);
				sum += w[i].ns;
			}
			pthread_barrier_destroy(&go);
			ns[r] = sum / n;
		}
		qsort(ns, rounds, sizeof(ns[0]), cmp);
		printf("GPIOBENCH: user cpus=%d ns_per_op=%.3f\n", n, ns[rounds / 2]);
		fflush(stdout);
	}
	return 0;
}
