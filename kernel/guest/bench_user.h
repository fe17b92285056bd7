/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the userspace benchmarks of the converted subsystems share
 * (gpio_bench_user.c, evdev_bench_user.c): time one operation (an ioctl,
 * an open and close of a node, or one the program defines) in a loop from
 * one CPU and then from every online CPU at once (a worker each), and
 * print the median of the rounds as
 *	TAG: WHAT cpus=N ns_per_op=X
 * which kernel/harness/judge.py conv reads.
 */
#ifndef BENCH_USER_H
#define BENCH_USER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS	4
#define MAX_ROUNDS	16

struct bench_worker {
	pthread_t th;
	int fd, cpu;
	long loops;
	unsigned long req;
	unsigned char arg[64];	/* the ioctl's argument, one per thread */
	const char *path;	/* the node bench_open_close() opens */
	void *priv;		/* the program's own state, one per thread */
	/* One operation of the loop; nonzero (with errno set) fails the run. */
	int (*op)(struct bench_worker *w);
	const char *what;	/* for the message when op fails */
	double ns;
	pthread_barrier_t *go;
};

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *bench_loop(void *arg)
{
	struct bench_worker *w = arg;
	double t0;

	pin(w->cpu);
	pthread_barrier_wait(w->go);
	t0 = now_ns();
	for (long i = 0; i < w->loops; i++)
		if (w->op(w)) {
			perror(w->what);
			exit(1);
		}
	w->ns = (now_ns() - t0) / w->loops;
	return NULL;
}

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Clamp the command line's CPU and round counts to what the tables hold. */
static inline int bench_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_CPUS ? MAX_CPUS : (int)n;
}

static inline int bench_rounds(int rounds)
{
	return rounds < 1 ? 1 : rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
}

/*
 * The loop of w[i].op, w[i].loops times each, on one CPU (w[0]) and then
 * on @cpus CPUs at once (w[0..cpus-1], one thread each, pinned to
 * w[i].cpu); @rounds rounds each, the median of the rounds' mean time per
 * operation printed.  The caller fills op, loops, cpu and what it needs.
 */
static inline void bench_run(const char *tag, const char *what,
			     struct bench_worker *w, int cpus, int rounds)
{
	pthread_barrier_t go;
	double ns[MAX_ROUNDS];

	for (int i = 0; i < cpus; i++) {
		w[i].go = &go;
		w[i].what = what;
	}
	/* One CPU, then all of them (once, with a single CPU). */
	for (int n = 1; n <= cpus; n = n == 1 && cpus > 1 ? cpus : cpus + 1) {
		for (int r = 0; r < rounds; r++) {
			double sum = 0;

			pthread_barrier_init(&go, NULL, n);
			for (int i = 0; i < n; i++)
				pthread_create(&w[i].th, NULL, bench_loop, &w[i]);
			for (int i = 0; i < n; i++) {
				pthread_join(w[i].th, NULL);
				sum += w[i].ns;
			}
			pthread_barrier_destroy(&go);
			ns[r] = sum / n;
		}
		qsort(ns, rounds, sizeof(ns[0]), bench_cmp);
		printf("%s: %s cpus=%d ns_per_op=%.3f\n", tag, what, n,
		       ns[rounds / 2]);
		fflush(stdout);
	}
}

static int bench_op_ioctl(struct bench_worker *w)
{
	return ioctl(w->fd, w->req, w->arg);
}

/*
 * ioctl(fds[i], req, a copy of @arg of @size bytes) @loops times on one
 * CPU, then on @cpus CPUs at once; @rounds rounds each, median printed.
 */
static inline void bench_ioctl(const char *tag, const char *what,
			       const int *fds, int cpus, long loops,
			       int rounds, unsigned long req,
			       const void *arg, size_t size)
{
	struct bench_worker w[MAX_CPUS];

	if (size > sizeof(w[0].arg)) {
		fprintf(stderr, "bench_ioctl: argument too large\n");
		exit(2);
	}
	memset(w, 0, sizeof(w));
	for (int i = 0; i < cpus; i++) {
		w[i].fd = fds[i];
		w[i].cpu = i;
		w[i].loops = loops;
		w[i].req = req;
		memcpy(w[i].arg, arg, size);
		w[i].op = bench_op_ioctl;
	}
	bench_run(tag, what, w, cpus, rounds);
}

static int bench_op_open_close(struct bench_worker *w)
{
	int fd = open(w->path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -1 : close(fd);
}

/*
 * open(@path, O_RDONLY) and close of what it returned, @loops times on
 * one CPU, then on @cpus CPUs at once (each opening its own descriptor);
 * @rounds rounds each, median printed.
 */
static inline void bench_open_close(const char *tag, const char *what,
				    const char *path, int cpus, long loops,
				    int rounds)
{
	struct bench_worker w[MAX_CPUS];

	memset(w, 0, sizeof(w));
	for (int i = 0; i < cpus; i++) {
		w[i].cpu = i;
		w[i].loops = loops;
		w[i].path = path;
		w[i].op = bench_op_open_close;
	}
	bench_run(tag, what, w, cpus, rounds);
}

#endif
