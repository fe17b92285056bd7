// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Hotplug-storm stress: readers in access loops (some sleeping inside,
 * all taking their references from the owners' slots) against owners that
 * create, revoke and re-create providers with every kind of revoke: plain,
 * asynchronous, batched and two-phase.  Freed resources are poisoned and
 * every access checks its resource is live; every revoke must finish within
 * a bound.  A spawner keeps creating short-lived threads, a quarter of
 * which exit inside an access: the library releases it (with a WARN) and
 * no revoke may wait for them.
 *
 * Built twice: stress (calls into the library) and stress-inline
 * (-D_LGPL_SOURCE: the readers' accesses are inline).
 *
 * usage: stress [--seconds N] [--readers N] [--bound-ms N]
 * Exit status 0 when no access saw a dead resource and no revoke was slow.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <revocable.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

#define MAGIC		0x4c495645u	/* "LIVE" */
#define SLOTS_PER_OWNER	8
#define OWNERS		2
#define NSLOTS		(SLOTS_PER_OWNER * OWNERS)
#define MAX_READERS	32

struct res {
	uint32_t magic;
	atomic_bool dead;	/* set by a two-phase revoke before it waits */
};

static struct revocable_provider *slots[NSLOTS];
static struct res *owned[NSLOTS];	/* each owner's own pointers */
static atomic_bool stop;
static unsigned int bound_ms = 5000;

static atomic_ulong accesses, gone, refs, no_ref, dead_seen, violations;
static atomic_ulong revokes[4], slow_revokes, async_freed;
static atomic_ulong max_revoke_us;
static atomic_ulong spawned, exited_inside;

static void res_free(struct res *r)
{
	memset(&r->magic, 0x6b, sizeof(r->magic));
	free(r);
}

static void *reader(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;

	while (!atomic_load(&stop)) {
		struct revocable_provider *ref;
		unsigned int n;

		ref = revocable_provider_get_rcu(&slots[rand_r(&seed) % NSLOTS]);
		if (!ref) {
			atomic_fetch_add(&no_ref, 1);
			continue;
		}
		atomic_fetch_add(&refs, 1);
		for (n = 1 + rand_r(&seed) % 16; n; n--) {
			struct revocable acc;
			struct res *r = revocable_access(ref, &acc);

			atomic_fetch_add(&accesses, 1);
			if (!r) {
				atomic_fetch_add(&gone, 1);
			} else if (r->magic != MAGIC) {
				atomic_fetch_add(&violations, 1);
			} else if (rand_r(&seed) % 64 == 0) {
				/* Sleep inside, as a reader waiting on hardware. */
				for (int i = 0; i < 20 && !atomic_load(&r->dead); i++)
					test_sleep_us(50);
				if (atomic_load(&r->dead))
					atomic_fetch_add(&dead_seen, 1);
				if (r->magic != MAGIC)
					atomic_fetch_add(&violations, 1);
			}
			revocable_withdraw_access(&acc);
		}
		revocable_provider_put(ref);
	}
	return NULL;
}

struct leaver {
	unsigned int seed;
	struct revocable_provider *ref;
};

static void *leaver(void *arg)
{
	struct leaver *l = arg;
	struct revocable acc;
	struct res *r;
	unsigned int n;

	l->ref = revocable_provider_get_rcu(&slots[rand_r(&l->seed) % NSLOTS]);
	if (!l->ref)
		return NULL;
	for (n = 1 + rand_r(&l->seed) % 8; n; n--) {
		r = revocable_access(l->ref, &acc);
		atomic_fetch_add(&accesses, 1);
		if (r && r->magic != MAGIC)
			atomic_fetch_add(&violations, 1);
		if (n == 1 && rand_r(&l->seed) % 4 == 0) {
			atomic_fetch_add(&exited_inside, 1);
			pthread_exit(NULL);	/* inside the access */
		}
		revocable_withdraw_access(&acc);
	}
	return NULL;
}

/* Threads come and go; the reference outlives its thread, put here. */
static void *spawner(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	struct leaver l;
	pthread_t t;

	while (!atomic_load(&stop)) {
		l.seed = rand_r(&seed);
		l.ref = NULL;
		if (pthread_create(&t, NULL, leaver, &l))
			continue;
		pthread_join(t, NULL);
		revocable_provider_put(l.ref);
		atomic_fetch_add(&spawned, 1);
	}
	return NULL;
}

static void publish(unsigned int i)
{
	struct res *r = calloc(1, sizeof(*r));
	struct revocable_provider *rp;

	if (!r)
		return;
	r->magic = MAGIC;
	rp = revocable_provider_alloc(r);
	if (!rp) {
		free(r);
		return;
	}
	owned[i] = r;
	__atomic_store_n(&slots[i], rp, __ATOMIC_RELEASE);
}

static void async_done(void *arg)
{
	res_free(arg);
	atomic_fetch_add(&async_freed, 1);
}

static void account(unsigned int kind, unsigned long t0)
{
	unsigned long us = test_now_us() - t0, max = atomic_load(&max_revoke_us);

	atomic_fetch_add(&revokes[kind], 1);
	while (us > max && !atomic_compare_exchange_weak(&max_revoke_us, &max, us))
		;
	if (us > bound_ms * 1000UL) {
		atomic_fetch_add(&slow_revokes, 1);
		fprintf(stderr, "stress: a revoke took %lu ms\n", us / 1000);
	}
}

/* Revoke slot i (owned by the caller) one of three ways. */
static void unplug(unsigned int i, unsigned int how)
{
	struct res *r = owned[i];
	struct revocable_provider *rp;
	unsigned long t0 = test_now_us();

	if (!r)
		return;
	owned[i] = NULL;
	switch (how) {
	case 0:
		if (revocable_revoke(&slots[i]) == 1)
			account(0, t0);
		res_free(r);
		break;
	case 1:
		if (revocable_revoke_async(&slots[i], async_done, r) == 1)
			account(1, t0);
		break;
	default:
		rp = revocable_revoke_begin(&slots[i]);
		atomic_store(&r->dead, true);	/* wake the sleepers */
		if (rp && !revocable_revoke_wait(rp))
			account(3, t0);
		res_free(r);
		break;
	}
}

static void *owner(void *arg)
{
	unsigned int base = (unsigned int)(uintptr_t)arg * SLOTS_PER_OWNER;
	unsigned int seed = base + 77, i;

	while (!atomic_load(&stop)) {
		unsigned int k = base + rand_r(&seed) % SLOTS_PER_OWNER;
		unsigned int how = rand_r(&seed) % 8;

		if (!owned[k]) {
			publish(k);
		} else if (how == 7) {
			/* Batch: everything this owner has, one wait. */
			struct revocable_provider **batch[SLOTS_PER_OWNER];
			struct res *rs[SLOTS_PER_OWNER];
			unsigned long t0 = test_now_us();
			int n;

			for (i = 0; i < SLOTS_PER_OWNER; i++) {
				batch[i] = &slots[base + i];
				rs[i] = owned[base + i];
				owned[base + i] = NULL;
			}
			n = revocable_revoke_batch(batch, SLOTS_PER_OWNER);
			if (n > 0)
				account(2, t0);
			for (i = 0; i < SLOTS_PER_OWNER; i++)
				if (rs[i])
					res_free(rs[i]);
		} else {
			unplug(k, how % 3);
		}
		test_sleep_us(100 + rand_r(&seed) % 400);
	}
	for (i = 0; i < SLOTS_PER_OWNER; i++)
		unplug(base + i, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned int seconds = 10, nreaders = 4, i;
	pthread_t readers[MAX_READERS], owners[OWNERS], spawn;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < (unsigned int)argc)
			seconds = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--readers") && i + 1 < (unsigned int)argc)
			nreaders = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--bound-ms") && i + 1 < (unsigned int)argc)
			bound_ms = (unsigned int)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--seconds N] [--readers N] [--bound-ms N]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nreaders || nreaders > MAX_READERS)
		nreaders = 4;

	for (i = 0; i < OWNERS; i++)
		pthread_create(&owners[i], NULL, owner, (void *)(uintptr_t)i);
	for (i = 0; i < nreaders; i++)
		pthread_create(&readers[i], NULL, reader, (void *)(uintptr_t)(i + 1));
	pthread_create(&spawn, NULL, spawner, (void *)(uintptr_t)4242);
	sleep(seconds);
	atomic_store(&stop, true);
	pthread_join(spawn, NULL);
	for (i = 0; i < nreaders; i++)
		pthread_join(readers[i], NULL);
	for (i = 0; i < OWNERS; i++)
		pthread_join(owners[i], NULL);
	revocable_domain_barrier(revocable_default_domain());

	printf("stress: %us, %u readers, %u owners x %u slots\n", seconds,
	       nreaders, OWNERS, SLOTS_PER_OWNER);
	printf("  accesses %lu (resource gone: %lu), references %lu (slot empty: %lu)\n",
	       atomic_load(&accesses), atomic_load(&gone), atomic_load(&refs),
	       atomic_load(&no_ref));
	printf("  revokes: plain %lu, async %lu (freed %lu), batch %lu, two-phase %lu\n",
	       atomic_load(&revokes[0]), atomic_load(&revokes[1]),
	       atomic_load(&async_freed), atomic_load(&revokes[2]),
	       atomic_load(&revokes[3]));
	printf("  short-lived threads %lu, of which exited inside an access %lu\n",
	       atomic_load(&spawned), atomic_load(&exited_inside));
	printf("  sleeping readers woken by two-phase revoke: %lu\n",
	       atomic_load(&dead_seen));
	printf("  slowest revoke %lu us (bound %u ms), over the bound: %lu\n",
	       atomic_load(&max_revoke_us), bound_ms, atomic_load(&slow_revokes));
	printf("  accesses that saw a dead resource: %lu\n", atomic_load(&violations));
	return atomic_load(&violations) || atomic_load(&slow_revokes) ||
	       atomic_load(&revokes[1]) != atomic_load(&async_freed) ? 1 : 0;
}
