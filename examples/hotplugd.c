// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hotplugd: a small daemon built on librevocable.
 *
 * A "hotplug" thread plugs and unplugs devices at random.  Worker threads
 * open a random device (take a consumer reference from its slot), serve a
 * few requests through it (each request is one access, sometimes sleeping
 * inside), and close it.  Unplugging revokes the device in two phases,
 * fails the requests sleeping on it, waits for the rest, then poisons and
 * frees it.  Any request that ever sees a poisoned device is counted as a
 * use-after-free; the exit status is non-zero if there is one.
 *
 * Usage: hotplugd [-t seconds] [-w workers] [-d device slots]
 *        hotplugd --demo   (one device, one worker, one unplug, narrated)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <revocable.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEV_MAGIC	0x44455649u
#define DEV_POISON	0x6b6b6b6bu
#define MAX_SLOTS	64
#define MAX_WORKERS	64

struct device {
	uint32_t magic;
	unsigned int id;
	atomic_bool dead;		/* set between revoke begin and wait */
	atomic_ulong served;
};

struct stats {
	atomic_ulong served, gone, failed_io, opens, failed_opens;
	atomic_ulong plugs, unplugs, uaf;
};

static struct revocable_provider *slots[MAX_SLOTS];
static struct device *owned[MAX_SLOTS];	/* the owner's own pointers */
static unsigned int nslots = 8;
static atomic_bool stopping;
static struct stats st;
static bool demo;		/* --demo: unplug() narrates */
static atomic_int demo_step;

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return (unsigned int)rand_r(seed) % n;
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	nanosleep(&ts, NULL);
}

/* One request: an access; some requests "wait for the hardware". */
static void serve_request(struct revocable_provider *ref, unsigned int *seed)
{
	struct revocable acc;
	struct device *dev = revocable_access(ref, &acc);

	if (!dev) {
		atomic_fetch_add(&st.gone, 1);
	} else if (dev->magic != DEV_MAGIC) {
		atomic_fetch_add(&st.uaf, 1);
	} else {
		if (rnd(seed, 16) == 0) {
			/* Sleep inside the access until done or unplugged. */
			for (int i = 0; i < 20 && !atomic_load(&dev->dead); i++)
				sleep_us(50);
		}
		if (atomic_load(&dev->dead)) {
			atomic_fetch_add(&st.failed_io, 1);
		} else {
			atomic_fetch_add(&dev->served, 1);
			atomic_fetch_add(&st.served, 1);
		}
	}
	revocable_withdraw_access(&acc);
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!atomic_load(&stopping)) {
		struct revocable_provider *ref;
		unsigned int n;

		ref = revocable_provider_get_rcu(&slots[rnd(&seed, nslots)]);
		if (!ref) {
			atomic_fetch_add(&st.failed_opens, 1);
			sleep_us(10);
			continue;
		}
		atomic_fetch_add(&st.opens, 1);
		for (n = 1 + rnd(&seed, 32); n; n--)
			serve_request(ref, &seed);
		revocable_provider_put(ref);
	}
	return NULL;
}

static int plug(unsigned int i)
{
	struct device *dev = calloc(1, sizeof(*dev));
	struct revocable_provider *rp;

	if (!dev)
		return -1;
	dev->magic = DEV_MAGIC;
	dev->id = i;
	rp = revocable_provider_alloc(dev);
	if (!rp) {
		free(dev);
		return -1;
	}
	owned[i] = dev;
	__atomic_store_n(&slots[i], rp, __ATOMIC_RELEASE);
	atomic_fetch_add(&st.plugs, 1);
	return 0;
}

static void release_device(struct device *dev)
{
	memset(&dev->magic, 0x6b, sizeof(dev->magic));
	free(dev);
}

/* Two-phase unplug: fail new and sleeping requests, then drain. */
static void unplug(unsigned int i)
{
	struct revocable_provider *rp = revocable_revoke_begin(&slots[i]);
	struct device *dev = owned[i];

	if (!rp)
		return;
	owned[i] = NULL;
	if (demo)
		printf("hotplug: unplug device %u: revoke begun, new accesses fail; "
		       "waking the request sleeping on it\n", i);
	atomic_store(&dev->dead, true);
	revocable_revoke_wait(rp);
	if (demo)
		printf("hotplug: revoke done, no access left: device %u freed\n", i);
	release_device(dev);
	atomic_fetch_add(&st.unplugs, 1);
}

static void *hotplug(void *arg)
{
	unsigned int seed = 12345;

	(void)arg;
	while (!atomic_load(&stopping)) {
		unsigned int i = rnd(&seed, nslots);

		if (__atomic_load_n(&slots[i], __ATOMIC_ACQUIRE))
			unplug(i);
		else
			plug(i);
		sleep_us(200 + rnd(&seed, 800));
	}
	return NULL;
}

/* --demo: the worker's side of one narrated unplug. */
static void *demo_worker(void *arg)
{
	struct revocable_provider *ref = revocable_provider_get_rcu(&slots[0]);
	struct revocable acc;
	struct device *dev;

	(void)arg;
	printf("worker: opened device 0 (took a consumer reference)\n");
	dev = revocable_access(ref, &acc);
	printf("worker: request 1 served by device %u\n", dev->id);
	revocable_withdraw_access(&acc);
	dev = revocable_access(ref, &acc);
	printf("worker: request 2 sleeps inside its access, waiting for device %u\n",
	       dev->id);
	atomic_store(&demo_step, 1);
	while (!atomic_load(&dev->dead))
		sleep_us(1000);
	printf("worker: request 2 fails (device unplugged while it slept); "
	       "its access ends\n");
	revocable_withdraw_access(&acc);
	while (atomic_load(&demo_step) < 2)
		sleep_us(1000);
	dev = revocable_access(ref, &acc);
	printf("worker: request 3: %s\n", dev ? "served: WRONG" :
	       "device 0 is gone (the access returned NULL)");
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
	printf("worker: closed device 0\n");
	return dev;
}

static int run_demo(void)
{
	void *wrong;
	pthread_t t;

	demo = true;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (plug(0))
		return 1;
	printf("hotplug: device 0 plugged\n");
	pthread_create(&t, NULL, demo_worker, NULL);
	while (atomic_load(&demo_step) < 1)
		sleep_us(1000);
	unplug(0);
	atomic_store(&demo_step, 2);
	pthread_join(t, &wrong);
	revocable_domain_barrier(revocable_default_domain());
	printf("hotplugd --demo: %s\n", wrong ? "FAILED" :
	       "ok, the device was freed only after its last access ended");
	return wrong ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int seconds = 5, nworkers = 4, i;
	struct revocable_provider **batch[MAX_SLOTS];
	pthread_t workers[MAX_WORKERS], hp;
	int opt;

	if (argc == 2 && !strcmp(argv[1], "--demo"))
		return run_demo();
	while ((opt = getopt(argc, argv, "t:w:d:")) != -1) {
		switch (opt) {
		case 't':
			seconds = (unsigned int)atoi(optarg);
			break;
		case 'w':
			nworkers = (unsigned int)atoi(optarg);
			break;
		case 'd':
			nslots = (unsigned int)atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-t seconds] [-w workers] [-d slots] | --demo\n",
				argv[0]);
			return 2;
		}
	}
	if (!nworkers || nworkers > MAX_WORKERS || !nslots || nslots > MAX_SLOTS) {
		fprintf(stderr, "hotplugd: 1..%d workers and 1..%d slots\n",
			MAX_WORKERS, MAX_SLOTS);
		return 2;
	}

	for (i = 0; i < nslots; i += 2)
		plug(i);
	pthread_create(&hp, NULL, hotplug, NULL);
	for (i = 0; i < nworkers; i++)
		pthread_create(&workers[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	sleep(seconds);
	atomic_store(&stopping, true);
	pthread_join(hp, NULL);
	for (i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);

	/* Shutdown: revoke what is left in one batch, then free it. */
	for (i = 0; i < nslots; i++)
		batch[i] = &slots[i];
	st.unplugs += (unsigned long)revocable_revoke_batch(batch, nslots);
	for (i = 0; i < nslots; i++)
		if (owned[i])
			release_device(owned[i]);
	revocable_domain_barrier(revocable_default_domain());

	printf("hotplugd: %us, %u workers, %u slots\n", seconds, nworkers, nslots);
	printf("  requests served      %lu\n", atomic_load(&st.served));
	printf("  requests, dev gone   %lu\n", atomic_load(&st.gone));
	printf("  requests failed (unplugged while sleeping) %lu\n",
	       atomic_load(&st.failed_io));
	printf("  opens                %lu (failed: %lu)\n",
	       atomic_load(&st.opens), atomic_load(&st.failed_opens));
	printf("  plugs / unplugs      %lu / %lu\n", atomic_load(&st.plugs),
	       atomic_load(&st.unplugs));
	printf("  use-after-free seen  %lu\n", atomic_load(&st.uaf));
	return atomic_load(&st.uaf) || st.plugs != st.unplugs ? 1 : 0;
}
