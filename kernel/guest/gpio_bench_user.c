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
#include <unistd.h>

#include "bench_user.h"

int main(int argc, char **argv)
{
	long loops = argc > 2 ? atol(argv[2]) : 100000;
	int rounds = bench_rounds(argc > 3 ? atoi(argv[3]) : 5);
	int cpus = bench_cpus(), cfd, fds[MAX_CPUS];
	struct gpio_v2_line_values v = { .mask = 1 };

	if (argc < 2) {
		fprintf(stderr, "usage: %s /dev/gpiochipN [LOOPS [ROUNDS]]\n", argv[0]);
		return 2;
	}
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
		fds[i] = req.fd;
	}
	bench_ioctl("GPIOBENCH", "user", fds, cpus, loops, rounds,
		    GPIO_V2_LINE_GET_VALUES_IOCTL, &v, sizeof(v));
	return 0;
}
