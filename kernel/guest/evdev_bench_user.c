// SPDX-License-Identifier: GPL-2.0
/*
 * "ninja -C build kernel-bench-evdev": on a uinput device's event node,
 * time a loop of EVIOCGVERSION ("version") and a loop of open(O_RDONLY)
 * and close of the node ("open"), each from one CPU and from every online
 * CPU at once (a descriptor each), and a stream of events written to
 * uinput and read back from the event node, 16 events a batch ("stream").
 * Prints the time per call, per open and close, or per event read, as the
 * median of the rounds.  A close waits for an RCU grace period (6.12's
 * evdev_detach_client() calls synchronize_rcu(), some milliseconds under
 * TCG), so the open loop runs LOOPS / 1000 times.
 *
 * Then a device's whole life ("life"): a uinput device created, its event
 * node opened by a reader, the device destroyed while the reader holds
 * the node (its read then fails with ENODEV), and the reader's close; ns
 * per device, LIFE_DEVICES devices a round.
 *
 * usage: evdev_bench_user [LOOPS [ROUNDS]]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <unistd.h>

#include "bench_user.h"

#define BATCH		16
/* Devices per round of the lifecycle row. */
#define LIFE_DEVICES	20

/*
 * Write BATCH events to uinput, read them back; ns per event read.  The
 * input core drops a key event that does not change the key's state (and
 * then its SYN_REPORT), so the batch starts pressed and ends released.
 */
static double stream(int ufd, int efd, long loops)
{
	struct input_event in[BATCH], out[BATCH];
	double t0;

	memset(in, 0, sizeof(in));
	for (int i = 0; i < BATCH; i += 2) {
		in[i].type = EV_KEY;
		in[i].code = KEY_A;
		/* Press, release, ...: every event changes the key's state. */
		in[i].value = !((i / 2) & 1);
		in[i + 1].type = EV_SYN;
		in[i + 1].code = SYN_REPORT;
	}
	t0 = now_ns();
	for (long l = 0; l < loops; l++) {
		size_t got = 0;

		if (write(ufd, in, sizeof(in)) != sizeof(in)) {
			perror("uinput write");
			exit(1);
		}
		while (got < sizeof(out)) {
			ssize_t n = read(efd, (char *)out + got, sizeof(out) - got);

			if (n <= 0) {
				perror("evdev read");
				exit(1);
			}
			got += n;
		}
	}
	return (now_ns() - t0) / (loops * (double)BATCH);
}

static void node_of(int ufd, char *node, size_t size)
{
	char sys[64], path[128];
	struct dirent *de;
	DIR *d;

	if (ioctl(ufd, UI_GET_SYSNAME(sizeof(sys)), sys) < 0) {
		perror("UI_GET_SYSNAME");
		exit(1);
	}
	snprintf(path, sizeof(path), "/sys/devices/virtual/input/%s", sys);
	d = opendir(path);
	if (!d) {
		perror(path);
		exit(1);
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "event", 5))
			snprintf(node, size, "/dev/input/%.40s", de->d_name);
	closedir(d);
	for (int i = 0; i < 500 && access(node, F_OK); i++)
		usleep(10000);
}

/* Create a uinput device with one key; its event node into @node. */
static int uinput_create(const char *name, char *node, size_t size)
{
	struct uinput_setup us = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 1, .product = 2 },
	};
	int ufd = open("/dev/uinput", O_RDWR | O_CLOEXEC);

	snprintf(us.name, sizeof(us.name), "%s", name);
	if (ufd < 0 || ioctl(ufd, UI_SET_EVBIT, EV_KEY) ||
	    ioctl(ufd, UI_SET_KEYBIT, KEY_A) || ioctl(ufd, UI_DEV_SETUP, &us) ||
	    ioctl(ufd, UI_DEV_CREATE)) {
		perror("uinput");
		exit(1);
	}
	node_of(ufd, node, size);
	return ufd;
}

/* One device's life with a reader attached; ns. */
static double life_one(void)
{
	char node[64] = "", c;
	double t0 = now_ns();
	int ufd = uinput_create("evdev-life", node, sizeof(node));
	int efd = open(node, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (efd < 0) {
		perror(node);
		exit(1);
	}
	if (ioctl(ufd, UI_DEV_DESTROY)) {
		perror("UI_DEV_DESTROY");
		exit(1);
	}
	if (read(efd, &c, 1) >= 0) {
		fprintf(stderr, "evdev_bench_user: a read after destroy worked\n");
		exit(1);
	}
	close(efd);
	close(ufd);
	return now_ns() - t0;
}

static void bench_life(int rounds)
{
	double ns[MAX_ROUNDS];

	for (int r = 0; r < rounds; r++) {
		double sum = 0;

		for (int i = 0; i < LIFE_DEVICES; i++)
			sum += life_one();
		ns[r] = sum / LIFE_DEVICES;
	}
	qsort(ns, rounds, sizeof(ns[0]), bench_cmp);
	printf("EVDEVBENCH: life cpus=1 ns_per_op=%.3f\n", ns[rounds / 2]);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long loops = argc > 1 ? atol(argv[1]) : 100000;
	int rounds = bench_rounds(argc > 2 ? atoi(argv[2]) : 5);
	int cpus = bench_cpus(), ufd, efd, fds[MAX_CPUS], v = 0;
	struct uinput_setup us = {
		.id = { .bustype = BUS_VIRTUAL, .vendor = 1, .product = 2 },
		.name = "evdev-bench",
	};
	char node[64] = "";
	double ns[MAX_ROUNDS];

	ufd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
	if (ufd < 0 || ioctl(ufd, UI_SET_EVBIT, EV_KEY) ||
	    ioctl(ufd, UI_SET_KEYBIT, KEY_A) || ioctl(ufd, UI_DEV_SETUP, &us) ||
	    ioctl(ufd, UI_DEV_CREATE)) {
		perror("uinput");
		return 1;
	}
	node_of(ufd, node, sizeof(node));
	for (int i = 0; i < cpus; i++) {
		fds[i] = open(node, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			perror(node);
			return 1;
		}
	}
	bench_ioctl("EVDEVBENCH", "version", fds, cpus, loops, rounds,
		    EVIOCGVERSION, &v, sizeof(v));
	for (int i = 0; i < cpus; i++)
		close(fds[i]);
	bench_open_close("EVDEVBENCH", "open", node, cpus,
			 loops / 1000 > 0 ? loops / 1000 : 1, rounds);
	pin(0);
	efd = open(node, O_RDONLY | O_CLOEXEC);
	if (efd < 0) {
		perror(node);
		return 1;
	}
	for (int r = 0; r < rounds; r++)
		ns[r] = stream(ufd, efd, loops / 10);
	qsort(ns, rounds, sizeof(ns[0]), bench_cmp);
	printf("EVDEVBENCH: stream cpus=1 ns_per_op=%.3f\n", ns[rounds / 2]);
	close(efd);
	ioctl(ufd, UI_DEV_DESTROY);
	close(ufd);
	bench_life(rounds);
	return 0;
}
