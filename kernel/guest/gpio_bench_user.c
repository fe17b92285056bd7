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
 * usage: gpio_bench_user /dev/gpiochipN [LOOPS [ROUNDS]]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/gpio.h>
#include <unistd.h>

#include "bench_user.h"

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
	strcpy(req->consumer, "gpio_bench_user");
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
	return 0;
}
