// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * revocable-bench: the access, revoke and memory costs of librevocable
 * against its peers, all measured in the same run, printed as ratios.
 *
 * usage: revocable-bench [--quick] [--json PATH] [--so LIBPATH]
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <revocable.h>
#include <linux/srcu.h>		/* compat_srcu_gp_count(): the static library's */

#include "bench.h"
#include "upstream.h"

#define MAX_THREADS	64
#define REPEATS		5

static int target = 42;
struct revocable_provider *bench_slot;	/* the owner's slot */
struct revocable_provider *bench_ref;	/* a long-lived consumer reference */
#define slot bench_slot
#define ref bench_ref
static bool so_loaded;
static struct up_provider *up_rp;
static int *volatile plain_ptr = &target;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static atomic_long refcount = 1;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ----- the access loops ---------------------------------------------------- */

static uint64_t loop_plain(uint64_t n)
{
	uint64_t sum = 0;

	while (n--)
		sum += (uint64_t)*plain_ptr;
	return sum;
}

static uint64_t loop_rwlock(uint64_t n)
{
	uint64_t sum = 0;

	while (n--) {
		pthread_rwlock_rdlock(&rwlock);
		sum += (uint64_t)*plain_ptr;
		pthread_rwlock_unlock(&rwlock);
	}
	return sum;
}

/* weak_ptr::lock(): increment unless zero, use, decrement. */
static uint64_t loop_refcount(uint64_t n)
{
	uint64_t sum = 0;

	while (n--) {
		long c = atomic_load_explicit(&refcount, memory_order_relaxed);

		while (c && !atomic_compare_exchange_weak(&refcount, &c, c + 1))
			;
		if (c) {
			sum += (uint64_t)*plain_ptr;
			atomic_fetch_sub(&refcount, 1);
		}
	}
	return sum;
}

/* The library's own accessors, out of line (lgpl_loops.c has them inline). */
#define BENCH_LOOP(name)	loop_ours_##name
#define BENCH_LOOP_SCOPE	static
#include "access_loops.h"

static uint64_t loop_upstream(uint64_t n)
{
	return up_with_macro_loop(up_rp, n);
}

struct peer {
	const char *name;
	const char *key;
	uint64_t (*loop)(uint64_t n);
	bool urcu;
};

/* Indices below name rows of this table. */
enum {
	P_PLAIN, P_URCU, P_OURS_REF, P_OURS_WITH, P_OURS_HANDLE,
	P_LGPL_REF, P_LGPL_WITH, P_LGPL_HANDLE,
	P_URCU_OUTLINE, P_SO_REF, P_SO_WITH, P_SO_HANDLE,
	P_RWLOCK, P_REFCOUNT, P_UPSTREAM,
};

static const struct peer peers[] = {
	[P_PLAIN] = { "plain pointer load", "plain", loop_plain, false },
	[P_URCU] = { "liburcu-memb read side (inline)", "urcu", peer_urcu_read_loop, true },
	[P_OURS_REF] = { "static: revocable_access", "ours_ref", loop_ours_access, false },
	[P_OURS_WITH] = { "static: TRY_ACCESS_WITH", "ours_with", loop_ours_with, false },
	[P_OURS_HANDLE] = { "static: revocable_try_access", "ours_handle", loop_ours_handle, false },
	[P_LGPL_REF] = { "_LGPL_SOURCE: revocable_access", "lgpl_ref", lgpl_loop_access, false },
	[P_LGPL_WITH] = { "_LGPL_SOURCE: TRY_ACCESS_WITH", "lgpl_with", lgpl_loop_with, false },
	[P_LGPL_HANDLE] = { "_LGPL_SOURCE: revocable_try_access", "lgpl_handle", lgpl_loop_handle, false },
	[P_URCU_OUTLINE] = { "liburcu-memb read side (call)", "urcu_call", peer_urcu_read_loop_outline, true },
	[P_SO_REF] = { ".so: revocable_access", "so_ref", so_loop_access, false },
	[P_SO_WITH] = { ".so: TRY_ACCESS_WITH", "so_with", so_loop_with, false },
	[P_SO_HANDLE] = { ".so: revocable_try_access", "so_handle", so_loop_handle, false },
	[P_RWLOCK] = { "pthread_rwlock read", "rwlock", loop_rwlock, false },
	[P_REFCOUNT] = { "atomic refcount get/put", "refcount", loop_refcount, false },
	[P_UPSTREAM] = { "upstream design (WITH macro)", "upstream", loop_upstream, false },
};
#define NPEERS ((int)(sizeof(peers) / sizeof(peers[0])))

struct worker {
	const struct peer *peer;
	uint64_t iters;
	pthread_barrier_t *bar;
	double ns;
	uint64_t sum;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	double t0;

	if (w->peer->urcu)
		peer_urcu_thread_init();
	w->peer->loop(1000);	/* warm up: registration, caches */
	pthread_barrier_wait(w->bar);
	t0 = now_ns();
	w->sum = w->peer->loop(w->iters);
	w->ns = now_ns() - t0;
	if (w->peer->urcu)
		peer_urcu_thread_exit();
	return NULL;
}

/* One run: per-thread ns/op (mean over threads) and aggregate Mops/s. */
static void run_once(const struct peer *p, int nthreads, uint64_t iters,
		     double *ns_op, double *mops)
{
	struct worker w[MAX_THREADS];
	pthread_t t[MAX_THREADS];
	pthread_barrier_t bar;
	double worst = 0, total = 0;
	int i;

	pthread_barrier_init(&bar, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .peer = p, .iters = iters, .bar = &bar };
		pthread_create(&t[i], NULL, worker_fn, &w[i]);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(t[i], NULL);
		total += w[i].ns;
		if (w[i].ns > worst)
			worst = w[i].ns;
		if (w[i].sum != iters * (uint64_t)target)
			fprintf(stderr, "bench: %s returned a wrong sum\n", p->name);
	}
	pthread_barrier_destroy(&bar);
	*ns_op = total / nthreads / (double)iters;
	*mops = (double)iters * nthreads / worst * 1e3;
}

struct result {
	double ns_op;
	double mops;
};

/* ----- JSON ----------------------------------------------------------------- */

static FILE *json;
static bool json_first;

static void json_open(const char *path)
{
	json = fopen(path, "w");
	if (!json) {
		perror(path);
		exit(2);
	}
	fprintf(json, "{");
	json_first = true;
}

static void json_num(const char *key, double v)
{
	if (!json)
		return;
	fprintf(json, "%s\n  \"%s\": %.6g", json_first ? "" : ",", key, v);
	json_first = false;
}

/* Print one ratio against its target (if any) and record it in the JSON. */
static void report(const char *key, const char *label, double v,
		   const char *goal)
{
	printf("  %-54s %7.2fx", label, v);
	if (goal)
		printf(" (target %s)", goal);
	printf("\n");
	json_num(key, v);
}

static void json_close(void)
{
	if (!json)
		return;
	fprintf(json, "\n}\n");
	fclose(json);
}

/* ----- sections -------------------------------------------------------------- */

/*
 * The design's ratios over the access table: row @num on thread count
 * @nt against row @den on @dt (0: 1 thread, 1: 2 threads), of the time
 * per operation or of the aggregate throughput.
 */
struct ratio {
	const char *key, *label;
	int num, nt, den, dt;
	enum { NS, MOPS } of;
	const char *goal;
};

static const struct ratio access_ratios[] = {
	{ "p1_lgpl_access_vs_urcu",
	  "P1 _LGPL_SOURCE access / liburcu inline, 1 thread",
	  P_LGPL_REF, 0, P_URCU, 0, NS, "<= 1.5x" },
	{ "p1_lgpl_with_vs_urcu",
	  "P1 _LGPL_SOURCE WITH / liburcu inline, 1 thread",
	  P_LGPL_WITH, 0, P_URCU, 0, NS, "<= 1.5x" },
	{ "p1_lgpl_handle_vs_urcu",
	  "P1 _LGPL_SOURCE try_access / liburcu inline, 1 thread",
	  P_LGPL_HANDLE, 0, P_URCU, 0, NS, "<= 1.5x" },
	{ "p1_refcount_vs_lgpl_access",
	  "P1 refcount get/put / _LGPL_SOURCE access, 1 thread",
	  P_REFCOUNT, 0, P_LGPL_REF, 0, NS, ">= 2x" },
	{ "p2_lgpl_scaling_2t",
	  "P2 _LGPL_SOURCE access, 2 threads / 1 thread aggregate",
	  P_LGPL_REF, 1, P_LGPL_REF, 0, MOPS, ">= 1.8x" },
	{ "p1_access_vs_urcu",
	  "static access / liburcu inline, 1 thread",
	  P_OURS_REF, 0, P_URCU, 0, NS, NULL },
	{ "p1_so_access_vs_urcu_call",
	  ".so access / liburcu called, 1 thread",
	  P_SO_REF, 0, P_URCU_OUTLINE, 0, NS, "<= 1x" },
	{ "p2_scaling_2t",
	  "P2 static access, 2 threads / 1 thread aggregate",
	  P_OURS_REF, 1, P_OURS_REF, 0, MOPS, ">= 1.8x" },
	{ "p2_vs_rwlock_2t",
	  "P2 _LGPL_SOURCE access / rwlock, 2 threads aggregate",
	  P_LGPL_REF, 1, P_RWLOCK, 1, MOPS, ">= 10x" },
	{ "p2_vs_refcount_2t",
	  "P2 _LGPL_SOURCE access / refcount, 2 threads aggregate",
	  P_LGPL_REF, 1, P_REFCOUNT, 1, MOPS, ">= 5x" },
	{ "p3_upstream_with_vs_ours_with",
	  "P3 upstream WITH / our static WITH, 1 thread",
	  P_UPSTREAM, 0, P_OURS_WITH, 0, NS, ">= 3x" },
	{ "p3_upstream_with_vs_lgpl_with",
	  "P3 upstream WITH / _LGPL_SOURCE WITH, 1 thread",
	  P_UPSTREAM, 0, P_LGPL_WITH, 0, NS, ">= 3x" },
};

static void bench_access(bool quick)
{
	int counts[3] = { 1, 2, (int)sysconf(_SC_NPROCESSORS_ONLN) };
	uint64_t iters = quick ? 2000000 : 20000000;
	struct result res[NPEERS][3];
	int ncounts = counts[2] > 2 ? 3 : 2;
	double urcu1, ns[REPEATS], mo[REPEATS];
	char key[96];
	int p, c, r;

	if (counts[2] > MAX_THREADS)
		counts[2] = MAX_THREADS;
	printf("Access round trip (%llu iterations per thread, median of %d runs)\n\n",
	       (unsigned long long)iters, REPEATS);
	printf("%-34s %7s %9s %11s %10s\n", "", "threads", "ns/op",
	       "agg Mops/s", "vs urcu");
	for (c = 0; c < ncounts; c++) {
		for (p = 0; p < NPEERS; p++) {
			if (!so_loaded && p >= P_SO_REF && p <= P_SO_HANDLE) {
				res[p][c] = (struct result){ 0, 0 };
				continue;
			}
			for (r = 0; r < REPEATS; r++)
				run_once(&peers[p], counts[c], iters, &ns[r], &mo[r]);
			res[p][c].ns_op = median(ns, REPEATS);
			res[p][c].mops = median(mo, REPEATS);
		}
		urcu1 = res[P_URCU][c].ns_op;
		for (p = 0; p < NPEERS; p++) {
			if (!res[p][c].ns_op)
				continue;
			printf("%-34s %7d %9.2f %11.1f %9.2fx\n", peers[p].name,
			       counts[c], res[p][c].ns_op, res[p][c].mops,
			       res[p][c].ns_op / urcu1);
			snprintf(key, sizeof(key), "access_%s_t%d_ns", peers[p].key, counts[c]);
			json_num(key, res[p][c].ns_op);
			snprintf(key, sizeof(key), "access_%s_t%d_mops", peers[p].key, counts[c]);
			json_num(key, res[p][c].mops);
		}
		printf("\n");
	}

	/* The design's targets, as ratios measured above. */
	printf("Ratios\n");
	for (p = 0; p < (int)(sizeof(access_ratios) / sizeof(access_ratios[0])); p++) {
		const struct ratio *q = &access_ratios[p];
		const struct result *n = &res[q->num][q->nt], *d = &res[q->den][q->dt];

		if (!n->ns_op || !d->ns_op)	/* the .so was not loaded */
			continue;
		report(q->key, q->label,
		       q->of == MOPS ? n->mops / d->mops : n->ns_op / d->ns_op,
		       q->goal);
	}
	if (so_loaded) {
		printf("  %-46s %7.2f ns\n",
		       ".so access round trip, 1 thread", res[P_SO_REF][0].ns_op);
		json_num("p1_so_access_ns", res[P_SO_REF][0].ns_op);
	}
	printf("\n");
}

static double time_revoke(void)
{
	struct revocable_provider *rp = revocable_provider_alloc(&target);
	double t0 = now_ns();

	revocable_revoke(&rp);
	return now_ns() - t0;
}

struct holder {
	struct revocable_provider *ref;
	unsigned int hold_us;
	atomic_int inside;
};

static void *holder_fn(void *arg)
{
	struct holder *h = arg;
	struct revocable acc;

	revocable_access(h->ref, &acc);
	atomic_store(&h->inside, 1);
	usleep(h->hold_us);
	revocable_withdraw_access(&acc);
	return NULL;
}

static void bench_revoke(bool quick)
{
	int n = quick ? 50 : 300, nb = quick ? 2000 : 10000, i;
	struct revocable_domain *dom = revocable_default_domain();
	struct revocable_provider **rps, ***slots;
	double *v = calloc(n, sizeof(*v)), rev_on, rev_off, sync;
	double batch, singles, t0, hold;
	unsigned long gps;
	struct holder h = { .hold_us = 5000 };
	pthread_t t;

	printf("Revoke (median of %d unless noted)\n\n", n);
	/*
	 * As in a program with readers: this thread is registered with both
	 * (liburcu's synchronize_rcu() returns at once with no registered
	 * thread at all; ours is registered by its first access).
	 */
	peer_urcu_thread_init();
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		peer_urcu_synchronize();
		v[i] = now_ns() - t0;
	}
	sync = median(v, n);
	for (i = 0; i < n; i++)
		v[i] = time_revoke();
	rev_on = median(v, n);
	revocable_domain_set_slow(dom, 0, NULL, NULL);
	for (i = 0; i < n; i++)
		v[i] = time_revoke();
	rev_off = median(v, n);

	rps = calloc(nb, sizeof(*rps));
	slots = calloc(nb, sizeof(*slots));
	for (i = 0; i < nb; i++) {
		rps[i] = revocable_provider_alloc(&target);
		slots[i] = &rps[i];
	}
	gps = compat_srcu_gp_count();
	t0 = now_ns();
	revocable_revoke_batch(slots, nb);
	batch = now_ns() - t0;
	gps = compat_srcu_gp_count() - gps;
	for (i = 0; i < nb; i++)
		rps[i] = revocable_provider_alloc(&target);
	t0 = now_ns();
	for (i = 0; i < nb; i++)
		revocable_revoke(&rps[i]);
	singles = now_ns() - t0;
	revocable_domain_set_slow(dom, 2000, NULL, NULL);

	slot = revocable_provider_alloc(&target);
	h.ref = revocable_provider_get_rcu(&slot);
	pthread_create(&t, NULL, holder_fn, &h);
	while (!atomic_load(&h.inside))
		usleep(10);
	t0 = now_ns();
	revocable_revoke(&slot);
	hold = now_ns() - t0;
	pthread_join(t, NULL);
	revocable_provider_put(h.ref);

	printf("  liburcu synchronize_rcu()               %9.1f us\n", sync / 1e3);
	printf("  revocable_revoke(), no readers           %9.1f us  (%.2fx synchronize_rcu; default: slow-report on)\n",
	       rev_on / 1e3, rev_on / sync);
	printf("  revocable_revoke(), no readers           %9.1f us  (%.2fx; slow-report off)\n",
	       rev_off / 1e3, rev_off / sync);
	printf("  revocable_revoke_batch() of %d         %9.1f us  (%.0f ns per provider, %lu grace period(s))\n",
	       nb, batch / 1e3, batch / nb, gps);
	printf("  %d single revokes                     %9.1f us  (%.1fx the batch)\n",
	       nb, singles / 1e3, singles / batch);
	printf("  revoke while a reader holds 5 ms         %9.1f us\n\n", hold / 1e3);
	report("p4_revoke_vs_synchronize_rcu", "P4 revoke (default) / synchronize_rcu",
	       rev_on / sync, "<= 2x");
	report("p4_revoke_report_off_vs_synchronize_rcu",
	       "P4 revoke (report off) / synchronize_rcu", rev_off / sync, NULL);
	printf("  %-54s %7lu (target 1 per domain)\n",
	       "P4 grace periods for a batch in one domain", gps);
	json_num("p4_batch_grace_periods", (double)gps);
	json_num("p4_batch_ns_per_provider", batch / nb);
	printf("\n");
	json_num("revoke_synchronize_rcu_us", sync / 1e3);
	json_num("revoke_no_readers_us", rev_off / 1e3);
	json_num("revoke_no_readers_slowreport_us", rev_on / 1e3);
	json_num("revoke_batch_us", batch / 1e3);
	json_num("revoke_batch_n", nb);
	json_num("revoke_singles_us", singles / 1e3);
	json_num("revoke_hold5ms_us", hold / 1e3);
	peer_urcu_thread_exit();
	free(rps);
	free(slots);
	free(v);
}

/* One device's life with a domain of its own, as a subsystem lives it. */
static void device_life(void)
{
	struct revocable_domain *dom = revocable_domain_alloc("life");
	struct revocable_provider __rcu *owner;
	struct revocable_provider *consumer;
	struct revocable acc;

	owner = revocable_provider_alloc_in(dom, &target);
	consumer = revocable_provider_get_rcu(&owner);
	if (!dom || !consumer || revocable_access(consumer, &acc) != &target)
		abort();
	revocable_withdraw_access(&acc);
	revocable_revoke(&owner);
	revocable_provider_put(consumer);
	if (revocable_domain_free(dom))
		abort();
}

/* @n providers in a row, each revoked asynchronously, then the barrier. */
static void provider_churn(struct revocable_domain *dom, int n)
{
	for (int i = 0; i < n; i++) {
		struct revocable_provider __rcu *rp =
			revocable_provider_alloc_in(dom, &target);

		revocable_revoke_async(&rp, NULL, NULL);
	}
	revocable_domain_barrier(dom);
}

/* The median over @rounds rounds of @per calls of @fn, in ns per call. */
static double time_rounds(void (*fn)(void), int rounds, int per)
{
	double v[64];

	for (int r = 0; r < rounds; r++) {
		double t0 = now_ns();

		for (int i = 0; i < per; i++)
			fn();
		v[r] = (now_ns() - t0) / per;
	}
	return median(v, rounds);
}

static struct revocable_domain *churn_dom;
static int churn_n;

static void churn_ours(void)
{
	provider_churn(churn_dom, churn_n);
}

static void churn_peer(void)
{
	peer_urcu_churn(churn_n);
}

static void empty_domain(void)
{
	if (revocable_domain_free(revocable_domain_alloc("empty")))
		abort();
}

/*
 * Lifecycle: what creating and removing costs, against liburcu doing the
 * same with call_rcu(), synchronize_rcu() and rcu_barrier(), and flat in
 * the number of domains alive (a process with thousands of devices).
 */
static void bench_lifecycle(bool quick)
{
	int rounds = quick ? 5 : 15, per = quick ? 20 : 100, many = quick ? 1000 : 10000;
	struct revocable_domain **doms = calloc(many, sizeof(*doms));
	double life, life_many, peer, empty, churn, pchurn;
	int i;

	peer_urcu_thread_init();
	/* A round of each first: threads and caches as in a long-lived process. */
	time_rounds(device_life, 1, per);
	time_rounds(peer_urcu_life, 1, per);
	life = time_rounds(device_life, rounds, per);
	peer = time_rounds(peer_urcu_life, rounds, per);
	empty = time_rounds(empty_domain, rounds, per);
	for (i = 0; i < many; i++)
		doms[i] = revocable_domain_alloc("many");
	life_many = time_rounds(device_life, rounds, per);
	for (i = 0; i < many; i++)
		revocable_domain_free(doms[i]);
	/* Few domains again, after: the drift of the machine cancels out. */
	life = (life + time_rounds(device_life, rounds, per)) / 2;
	churn_dom = revocable_domain_alloc("churn");
	churn_n = per * 10;
	churn = time_rounds(churn_ours, rounds, 1) / churn_n;
	pchurn = time_rounds(churn_peer, rounds, 1) / churn_n;
	revocable_domain_free(churn_dom);
	peer_urcu_thread_exit();
	free(doms);

	printf("Lifecycle (median of %d rounds)\n\n", rounds);
	printf("  device life: own domain, provider, reference, access, revoke, free\n");
	printf("                                             %9.1f us\n", life / 1e3);
	printf("    with %d other domains alive            %9.1f us\n", many, life_many / 1e3);
	printf("  liburcu: malloc, publish, read, synchronize_rcu(), call_rcu(free)\n");
	printf("                                             %9.1f us\n", peer / 1e3);
	printf("  domain alloc + free, no providers          %9.2f us\n", empty / 1e3);
	printf("  provider churn: alloc + async revoke, %d then the barrier: %.2f us each\n",
	       churn_n, churn / 1e3);
	printf("  liburcu: %d call_rcu(free) then rcu_barrier():             %.2f us each\n\n",
	       churn_n, pchurn / 1e3);
	report("l1_device_life_vs_urcu", "L1 device life / liburcu object life",
	       life / peer, NULL);
	report("l2_device_life_many_vs_few",
	       "L2 device life, many domains alive / few", life_many / life, "<= 1.3x");
	report("l3_churn_vs_urcu", "L3 provider churn / liburcu call_rcu churn",
	       churn / pchurn, "<= 1.5x");
	json_num("life_device_us", life / 1e3);
	json_num("life_urcu_us", peer / 1e3);
	json_num("life_empty_domain_us", empty / 1e3);
	json_num("life_churn_us", churn / 1e3);
	json_num("life_urcu_churn_us", pchurn / 1e3);
	printf("\n");
}

static void bench_memory(void)
{
	enum { N = 100000 };
	struct revocable_provider **rps = calloc(N, sizeof(*rps));
	struct mallinfo2 before, after;
	double ours, up = (double)up_provider_bytes();
	int i;

	before = mallinfo2();
	for (i = 0; i < N; i++)
		rps[i] = revocable_provider_alloc(&target);
	after = mallinfo2();
	ours = (double)(after.uordblks - before.uordblks) / N;
	for (i = 0; i < N; i++)
		revocable_revoke_async(&rps[i], NULL, NULL);
	revocable_domain_barrier(revocable_default_domain());
	free(rps);

	printf("Memory per provider (heap bytes, %d providers)\n\n", N);
	printf("  librevocable provider       %6.1f B (the domain is shared)\n", ours);
	printf("  upstream design provider    %6.1f B + per-thread SRCU counters "
	       "(userspace) / per-CPU srcu_data (kernel)\n", up);
	printf("  P5 bytes per provider: %.1f (target <= 64)\n\n", ours);
	json_num("memory_provider_bytes", ours);
	json_num("memory_upstream_provider_bytes", up);
}

int main(int argc, char **argv)
{
	const char *so_path = REVOCABLE_SO_PATH, *err;
	bool quick = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json_open(argv[++i]);
		else if (!strcmp(argv[i], "--so") && i + 1 < argc)
			so_path = argv[++i];
		else {
			fprintf(stderr, "usage: %s [--quick] [--json PATH] [--so LIBPATH]\n",
				argv[0]);
			return 2;
		}
	}
	slot = revocable_provider_alloc(&target);
	ref = revocable_provider_get_rcu(&slot);
	up_rp = up_provider_alloc(&target);
	if (!slot || !ref || !up_rp) {
		fprintf(stderr, "bench: setup failed\n");
		return 1;
	}
	printf("revocable-bench: %ld CPUs%s\n\n", sysconf(_SC_NPROCESSORS_ONLN),
	       quick ? ", --quick" : "");
	err = so_open(so_path, &target);
	so_loaded = !err;
	if (err) {
		printf("librevocable.so not measured: dlopen(%s): %s\n\n",
		       so_path, err);
	} else {
		printf("librevocable.so loaded with dlopen(): %ld bytes of "
		       "initial-exec TLS (target: a pointer)\n\n", so_tls_bytes());
		json_num("so_tls_bytes", (double)so_tls_bytes());
	}
	bench_access(quick);
	so_close();
	revocable_provider_put(ref);
	revocable_revoke(&slot);
	up_provider_revoke(&up_rp);
	bench_revoke(quick);
	bench_lifecycle(quick);
	bench_memory();
	json_close();
	return 0;
}
