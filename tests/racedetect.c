// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A correct consumer for the race detectors (racedetect.sh): built against
 * the installed library the way a program would be, run under helgrind,
 * DRD or ThreadSanitizer, it must get no report.  With the argument "racy"
 * it also has a plain data race of its own, on memory its threads share
 * outside any access, which the detector must report.
 *
 * What it does is what the library's orderings are for: readers read a
 * resource and write their own part of it inside accesses, with every
 * kind of access (handle, handle from revocable_init(), both scope
 * macros, the last through a reference taken with revocable_provider_get());
 * the provider reads those writes, poisons the resource and
 * frees it right after revocable_revoke(), revocable_revoke_wait() after
 * revocable_revoke_begin(), revocable_revoke_batch() or
 * revocable_provider_revoke() returns, or in the done callback of
 * revocable_revoke_async(), and uses its own resource with
 * revocable_access_unchecked() before its revoke; one resource is published
 * with revocable_provider_publish() while the readers already poll its
 * slot; references are dropped after the revoke, so
 * the shells are freed by the library's deferred frees; the domain is freed
 * at the end.  After the start, no user-level lock orders a reader's
 * accesses against the provider's frees: only the library does.  Readers
 * keep accessing while the revokes run, and one reader of each resource
 * is inside an access when its revoke begins, so that the grace period
 * waits for it; they signal through relaxed atomics, which order nothing
 * (and which helgrind and DRD take for reads).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <revocable.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define READERS		3
#define ROUNDS		40
#define MAGIC		0x5eed

struct res {
	int magic;
	int seen[READERS + 1];	/* one per reader, the last the provider's */
};

struct reader {
	pthread_t thread;
	int id;
	int got;
};

static struct revocable_provider *slot_sync, *slot_async;
/* Revoked by begin and wait, by one batch, and published late. */
static struct revocable_provider *slot_begun, *slot_batch[2], *slot_late;
enum { MORE_BEGUN, MORE_BATCH0, MORE_BATCH1, MORE_LATE, MORE };
static struct revocable_domain *dom;
static pthread_barrier_t started;
static pthread_mutex_t async_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t async_cond = PTHREAD_COND_INITIALIZER;
static int async_done, async_seen;
static int racy;
/* Signals that order nothing: see above. */
static unsigned long holding, live_after, sync_revoking, async_revoked, freed;
/* The deliberate race: written by every reader, with no lock. */
static int racy_counter;

static struct res *res_new(void)
{
	struct res *r = calloc(1, sizeof(*r));

	if (!r)
		exit(1);
	r->magic = MAGIC;
	return r;
}

/* Read the resource and write this reader's part of it. */
static int use(struct res *r, int id)
{
	if (!r)
		return 0;
	if (r->magic != MAGIC) {
		fprintf(stderr, "racedetect: reader %d saw a freed resource\n", id);
		exit(1);
	}
	r->seen[id]++;
	return 1;
}

static void signal_relaxed(unsigned long *flag)
{
	__atomic_fetch_add(flag, 1, __ATOMIC_RELAXED);
}

static void wait_relaxed(unsigned long *flag, unsigned long n)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (__atomic_load_n(flag, __ATOMIC_RELAXED) < n) {
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > 120) {
			fprintf(stderr, "racedetect: stuck\n");
			exit(1);
		}
	}
}

/* Runs on the library's worker once the readers of slot_async drained. */
static void async_free(void *arg)
{
	struct res *r = arg;
	int i, n = 0;

	for (i = 0; i <= READERS; i++)
		n += r->seen[i];
	r->magic = 0;
	free(r);
	pthread_mutex_lock(&async_lock);
	async_seen = n;
	async_done = 1;
	pthread_cond_signal(&async_cond);
	pthread_mutex_unlock(&async_lock);
}

/* One access of each kind; whether the first one found the resource. */
static int round_of_accesses(struct reader *rd, struct revocable_provider *ref,
			     struct revocable_provider *ref2,
			     struct revocable *init_rev,
			     struct revocable_provider *const more[MORE])
{
	struct revocable rev;
	struct res *r;
	int live, i;

	for (i = 0; i < MORE; i++) {
		struct res *m;

		REVOCABLE_TRY_ACCESS_WITH(more[i], m);
		use(m, rd->id);
	}

	if (racy)
		racy_counter++;
	r = revocable_access(ref, &rev);
	live = use(r, rd->id);
	revocable_withdraw_access(&rev);

	r = revocable_try_access(init_rev);
	use(r, rd->id);
	revocable_withdraw_access(init_rev);

	REVOCABLE_TRY_ACCESS_SCOPED(ref2, r) {
		use(r, rd->id);
	}
	return live;
}

static void *reader(void *arg)
{
	struct reader *rd = arg;
	struct revocable_provider *ref = revocable_provider_get_rcu(&slot_sync);
	struct revocable_provider *ref2 = revocable_provider_get(ref);
	struct revocable_provider *aref = revocable_provider_get_rcu(&slot_async);
	struct revocable_provider *more[MORE] = {
		revocable_provider_get_rcu(&slot_begun),
		revocable_provider_get_rcu(&slot_batch[0]),
		revocable_provider_get_rcu(&slot_batch[1]),
	};
	struct revocable init_rev;
	int i;

	if (!ref || !aref || !more[MORE_BEGUN] || !more[MORE_BATCH0] ||
	    !more[MORE_BATCH1] || revocable_init(aref, &init_rev))
		exit(1);
	/* Published by main while we poll: the publish orders its setup. */
	while (!(more[MORE_LATE] = revocable_provider_get_rcu(&slot_late)))
		sched_yield();
	for (i = 0; i < ROUNDS; i++)
		rd->got += round_of_accesses(rd, ref, ref2, &init_rev, more);
	/* Then on, only the library orders our accesses before the frees. */
	pthread_barrier_wait(&started);
	if (rd->id == 0) {
		/* Inside an access when the revoke begins, and after. */
		struct revocable rev;
		struct res *r = revocable_access(ref, &rev);

		signal_relaxed(&holding);
		wait_relaxed(&sync_revoking, 1);
		use(r, rd->id);
		revocable_withdraw_access(&rev);
	} else if (rd->id == 1) {
		/* The same for the asynchronous revoke and its callback. */
		struct res *r = revocable_try_access(&init_rev);

		signal_relaxed(&holding);
		wait_relaxed(&async_revoked, 1);
		use(r, rd->id);
		revocable_withdraw_access(&init_rev);
	}
	while (round_of_accesses(rd, ref, ref2, &init_rev, more)) {
		rd->got++;
		signal_relaxed(&live_after);
	}
	/* Nothing of ours (a thread's exit) may order us before the frees. */
	wait_relaxed(&freed, 1);
	revocable_deinit(&init_rev);
	for (i = 0; i < MORE; i++)
		revocable_provider_put(more[i]);
	revocable_provider_put(aref);
	revocable_provider_put(ref2);
	revocable_provider_put(ref);
	return NULL;
}

int main(int argc, char **argv)
{
	struct reader rd[READERS];
	struct res *sync_res = res_new(), *async_res = res_new();
	struct res *more_res[MORE];
	struct revocable_provider **batch[2] = { &slot_batch[0], &slot_batch[1] };
	struct revocable_provider *own, *late, *begun;
	struct revocable rev;
	int i, n = 0;

	racy = argc > 1 && !strcmp(argv[1], "racy");
	dom = revocable_domain_alloc("racedetect");
	if (!dom)
		return 1;
	slot_sync = revocable_provider_alloc_in(dom, sync_res);
	slot_async = revocable_provider_alloc(async_res);
	for (i = 0; i < MORE; i++)
		more_res[i] = res_new();
	slot_begun = revocable_provider_alloc_in(dom, more_res[MORE_BEGUN]);
	slot_batch[0] = revocable_provider_alloc_in(dom, more_res[MORE_BATCH0]);
	slot_batch[1] = revocable_provider_alloc(more_res[MORE_BATCH1]);
	if (!slot_sync || !slot_async || !slot_begun || !slot_batch[0] ||
	    !slot_batch[1])
		return 1;
	if (pthread_barrier_init(&started, NULL, READERS + 1))
		return 1;
	for (i = 0; i < READERS; i++) {
		rd[i].id = i;
		rd[i].got = 0;
		if (pthread_create(&rd[i].thread, NULL, reader, &rd[i]))
			return 1;
	}
	/* The readers poll this slot already. */
	late = revocable_provider_alloc_in(dom, more_res[MORE_LATE]);
	if (!late || revocable_provider_publish(&slot_late, late))
		return 1;
	pthread_barrier_wait(&started);

	/* The provider's own access, through its slot. */
	own = slot_sync;
	use(revocable_access(own, &rev), READERS);
	revocable_withdraw_access(&rev);
	/* The owner can prove its resource live until its revoke. */
	use(revocable_access_unchecked(own), READERS);

	/* Readers inside and around the revoke. */
	wait_relaxed(&holding, 2);
	wait_relaxed(&live_after, 2 * (READERS - 2));
	signal_relaxed(&sync_revoking);
	/* Readers drained: what they wrote is ours to read, then to free. */
	if (revocable_revoke(&slot_sync) != 1)
		return 1;
	for (i = 0; i <= READERS; i++)
		n += sync_res->seen[i];
	sync_res->magic = 0;
	free(sync_res);

	/* The same, freed by the done callback on the library's worker. */
	if (revocable_revoke_async(&slot_async, async_free, async_res) != 1)
		return 1;
	signal_relaxed(&async_revoked);
	pthread_mutex_lock(&async_lock);
	while (!async_done)
		pthread_cond_wait(&async_cond, &async_lock);
	pthread_mutex_unlock(&async_lock);

	/* Two-phase, one batch over two domains, and the late one. */
	begun = revocable_revoke_begin(&slot_begun);
	if (!begun || revocable_revoke_wait(begun))
		return 1;
	if (revocable_revoke_batch(batch, 2) != 2)
		return 1;
	revocable_provider_revoke(&slot_late);
	if (slot_late)
		return 1;
	for (i = 0; i < MORE; i++) {
		int j;

		for (j = 0; j <= READERS; j++)
			n += more_res[i]->seen[j];
		more_res[i]->magic = 0;
		free(more_res[i]);
	}
	signal_relaxed(&freed);

	for (i = 0; i < READERS; i++)
		pthread_join(rd[i].thread, NULL);
	pthread_barrier_destroy(&started);
	revocable_domain_barrier(dom);
	revocable_domain_barrier(revocable_default_domain());
	if (revocable_domain_free(dom))
		return 1;
	printf("racedetect: %d accesses before the revoke, %d before the async revoke%s\n",
	       n, async_seen, racy ? " (with a race of its own)" : "");
	return n > 0 ? 0 : 1;
}
