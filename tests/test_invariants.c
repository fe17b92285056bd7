// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * docs/design.md, "Invariants": one or more tests per invariant I1-I7
 * (I8: test_misuse.c).
 */
#include <string.h>

#include "testutil.h"

TEST_SUITE("invariants");
TEST_GROUP(invariants, "I1-I7", 30);

TEST(invariants, i1_revoke_returns_only_after_readers_withdrew)
{
	struct test_res *r = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc(r);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct test_reader h;
	struct revocable acc;

	test_reader_start(&h, ref, 200, NULL);
	ck_assert_ptr_eq(h.res, r);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_msg(h.withdrawn, "revoke returned while a reader was inside");
	/* After revoke: no new access, no new reference. */
	ck_assert_ptr_null(revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	ck_assert_ptr_null(revocable_provider_get_rcu(&rp));
	test_res_free(r);
	JOIN_OR_FAIL(&h.thread, 5000);
	revocable_provider_put(ref);
}
END_TEST

TEST(invariants, i2_access_stays_valid_while_revoke_waits)
{
	struct test_res *r = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc(r);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct test_reader h;

	test_reader_start(&h, ref, 150, NULL);
	revocable_provider_revoke(&rp);
	/* Poison: had the reader still been inside, it would have noticed. */
	memset(r, 0x6b, sizeof(*r));
	JOIN_OR_FAIL(&h.thread, 5000);
	ck_assert(h.saw_live);
	free(r);
	revocable_provider_put(ref);
}
END_TEST

struct sharer {
	struct revocable *shared;
	volatile bool *stop;
	unsigned long ok, refused;
	struct test_thread thread;
};

static void *sharer_fn(void *arg)
{
	struct sharer *s = arg;

	while (!READ_ONCE(*s->stop)) {
		if (revocable_try_access(s->shared))
			s->ok++;
		else
			__atomic_add_fetch(&s->refused, 1, __ATOMIC_RELAXED);
		revocable_withdraw_access(s->shared);
	}
	return NULL;
}

static unsigned long sharers_refused(struct sharer *s)
{
	return __atomic_load_n(&s[0].refused, __ATOMIC_RELAXED) +
	       __atomic_load_n(&s[1].refused, __ATOMIC_RELAXED);
}

/*
 * I3: two threads share one handle, with revokes of other providers in
 * the same domain flipping the read index meanwhile.  Sharing is refused
 * with a warning, and the final revoke still completes.  The two threads
 * must meet inside an access for a refusal: on a loaded machine that can
 * take longer than the 20 revokes, so the revokes go on (10 s at most)
 * until one is seen.
 */
TEST(invariants, i3_shared_handle_detected_and_revoke_completes)
{
	struct test_res *r = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc(r);
	struct revocable_provider __rcu *other;
	struct revocable shared;
	volatile bool stop = false;
	struct sharer s[2];
	unsigned long w0 = compat_warn_count(), t0;
	int i;

	ck_assert_int_eq(revocable_init(rp, &shared), 0);
	for (i = 0; i < 2; i++) {
		s[i].shared = &shared;
		s[i].stop = &stop;
		s[i].ok = s[i].refused = 0;
		test_thread_start(&s[i].thread, sharer_fn, &s[i]);
	}
	t0 = test_now_ms();
	for (i = 0; i < 20 || (!sharers_refused(s) &&
			       test_now_ms() - t0 < test_bound_ms(10000)); i++) {
		other = revocable_provider_alloc(r);
		revocable_provider_revoke(&other);
		test_sleep_ms(5);
	}
	WRITE_ONCE(stop, true);
	for (i = 0; i < 2; i++)
		JOIN_OR_FAIL(&s[i].thread, 5000);
	ck_assert_uint_gt(s[0].ok + s[1].ok, 0);
	ck_assert_uint_gt(s[0].refused + s[1].refused, 0);
	ck_assert_uint_gt(compat_warn_count(), w0);
	ASSERT_WARNED_IN_LIB();
	revocable_deinit(&shared);
	t0 = test_now_ms();
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_uint_lt(test_now_ms() - t0, test_bound_ms(2000));
	test_res_free(r);
}
END_TEST

TEST(invariants, i3_nested_access_on_one_handle_refused)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable rev;

	ck_assert_int_eq(revocable_init(rp, &rev), 0);
	ck_assert_ptr_eq(revocable_try_access(&rev), (void *)1);
	ck_assert_uint_eq(WARNS(ck_assert_ptr_null(revocable_try_access(&rev))), 1);
	ASSERT_WARNED_IN_LIB();
	revocable_withdraw_access(&rev);	/* the refused one */
	revocable_withdraw_access(&rev);	/* the real one */
	revocable_deinit(&rev);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
}
END_TEST

TEST(invariants, i4_provider_outlives_consumer_references)
{
	struct test_res *r = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc(r);
	struct revocable_provider *ref[3];
	struct revocable acc;
	int i;

	for (i = 0; i < 3; i++)
		ref[i] = revocable_provider_get_rcu(&rp);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	test_res_free(r);
	/* The shell is still there for every reference holder. */
	for (i = 0; i < 3; i++) {
		ck_assert_ptr_null(revocable_access(ref[i], &acc));
		revocable_withdraw_access(&acc);
		revocable_provider_put(ref[i]);
	}
}
END_TEST

struct getter {
	struct revocable_provider __rcu **slot;
	volatile bool *stop;
	unsigned long got, live;
	bool bad;
	struct test_thread thread;
};

static void *getter_fn(void *arg)
{
	struct getter *g = arg;
	struct revocable_provider *ref;
	struct revocable acc;
	struct test_res *r;

	while (!READ_ONCE(*g->stop)) {
		ref = revocable_provider_get_rcu(g->slot);
		if (!ref)
			continue;
		g->got++;
		r = revocable_access(ref, &acc);
		if (r) {
			g->live++;
			if (!RES_LIVE(r))
				g->bad = true;
		}
		revocable_withdraw_access(&acc);
		revocable_provider_put(ref);
	}
	return NULL;
}

/* I4 under load: references taken from the slot race revoke + release. */
TEST(invariants, i4_get_rcu_races_revoke_and_release)
{
	struct revocable_provider __rcu *slot = NULL;
	struct revocable_provider __rcu *mine;
	volatile bool stop = false;
	struct getter g[2];
	unsigned long end;
	int i, rounds = 0;

	for (i = 0; i < 2; i++) {
		g[i] = (struct getter){ .slot = &slot, .stop = &stop };
		test_thread_start(&g[i].thread, getter_fn, &g[i]);
	}
	end = test_now_ms() + 300;
	while (rounds < 20 || test_now_ms() < end) {
		struct test_res *r = test_res_new();

		mine = revocable_provider_alloc(r);
		rcu_assign_pointer(slot, mine);
		test_sleep_ms(0);
		ck_assert_int_eq(revocable_revoke(&slot), 1);
		memset(r, 0x6b, sizeof(*r));
		free(r);
		rounds++;
	}
	WRITE_ONCE(stop, true);
	for (i = 0; i < 2; i++) {
		JOIN_OR_FAIL(&g[i].thread, 5000);
		ck_assert(!g[i].bad);
	}
}
END_TEST

TEST(invariants, i5_double_revoke_is_idempotent)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	unsigned long w = compat_warn_count();

	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_int_eq(revocable_revoke(&rp), 0);
	revocable_provider_revoke(&rp);
	ck_assert_int_eq(revocable_revoke_async(&rp, NULL, NULL), 0);
	ck_assert_ptr_null(revocable_revoke_begin(&rp));
	ck_assert_uint_eq(compat_warn_count(), w);
}
END_TEST

struct racer {
	struct revocable_provider __rcu **slot;
	pthread_barrier_t *bar;
	int ret;
	struct test_thread thread;
};

static void *racer_fn(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->bar);
	r->ret = revocable_revoke(r->slot);
	return NULL;
}

/* I5: of concurrent revokers exactly one revokes; no double put. */
TEST(invariants, i5_concurrent_revokers_exactly_one_wins)
{
	struct revocable_domain *dom = revocable_domain_alloc("i5");
	unsigned long w = compat_warn_count();
	pthread_barrier_t bar;
	struct racer r[4];
	int round, i, wins;

	for (round = 0; round < 200; round++) {
		struct revocable_provider __rcu *slot =
			revocable_provider_alloc_in(dom, (void *)1);

		pthread_barrier_init(&bar, NULL, 4);
		for (i = 0; i < 4; i++) {
			r[i] = (struct racer){ .slot = &slot, .bar = &bar };
			test_thread_start(&r[i].thread, racer_fn, &r[i]);
		}
		wins = 0;
		for (i = 0; i < 4; i++) {
			JOIN_OR_FAIL(&r[i].thread, 5000);
			ck_assert(r[i].ret == 0 || r[i].ret == 1);
			wins += r[i].ret;
		}
		pthread_barrier_destroy(&bar);
		ck_assert_int_eq(wins, 1);
	}
	ck_assert_uint_eq(compat_warn_count(), w);
	/* Every provider released exactly once: the domain is empty. */
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/*
 * I6: an access moves no reference count and writes nothing in the
 * provider; only get/put do.
 */
TEST(invariants, i6_access_writes_nothing_in_the_provider)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	unsigned char before[48], after[48];
	struct revocable acc;
	int i;

	memcpy(before, ref, sizeof(before));
	for (i = 0; i < 1000; i++) {
		ck_assert_ptr_nonnull(revocable_access(ref, &acc));
		revocable_withdraw_access(&acc);
		{
			void *res;

			REVOCABLE_TRY_ACCESS_WITH(ref, res);
			ck_assert_ptr_nonnull(res);
		}
	}
	memcpy(after, ref, sizeof(after));
	ck_assert_mem_eq(before, after, sizeof(before));
	revocable_provider_put(ref);
	revocable_provider_revoke(&rp);
}
END_TEST

/* I6 for the upstream handle: after init, try/withdraw move no count. */
TEST(invariants, i6_initialised_handle_access_moves_no_refcount)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	unsigned char before[48], after[48];
	struct revocable rev;
	int i;

	ck_assert_int_eq(revocable_init(rp, &rev), 0);
	memcpy(before, rp, sizeof(before));
	for (i = 0; i < 1000; i++) {
		ck_assert_ptr_nonnull(revocable_try_access(&rev));
		revocable_withdraw_access(&rev);
	}
	memcpy(after, rp, sizeof(after));
	ck_assert_mem_eq(before, after, sizeof(before));
	revocable_deinit(&rev);
	revocable_provider_revoke(&rp);
}
END_TEST

TEST(invariants, i7_revoke_inside_own_access_is_an_error)
{
	struct revocable_domain *dom = revocable_domain_alloc("i7");
	struct revocable_provider __rcu *rp =
		revocable_provider_alloc_in(dom, (void *)1);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable acc;
	int ret = 0;

	ck_assert_ptr_nonnull(revocable_access(ref, &acc));
	ck_assert_uint_eq(WARNS(ret = revocable_revoke(&rp)), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_int_eq(ret, -EDEADLK);
	/* New accesses already fail. */
	{
		void *res;

		REVOCABLE_TRY_ACCESS_WITH(ref, res);
		ck_assert_ptr_null(res);
	}
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
	/* The deferred completion released the provider. */
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

TEST(invariants, i7_revoke_wait_inside_access_refused_then_works)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable_provider *begun;
	struct revocable acc;
	int ret = 0;

	revocable_access(ref, &acc);
	begun = revocable_revoke_begin(&rp);
	ck_assert_ptr_nonnull(begun);
	ck_assert_uint_eq(WARNS(ret = revocable_revoke_wait(begun)), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_int_eq(ret, -EDEADLK);
	revocable_withdraw_access(&acc);
	ck_assert_int_eq(revocable_revoke_wait(begun), 0);
	revocable_provider_put(ref);
}
END_TEST

/* No false positive: inside domain A, revoking in domain B is fine. */
TEST(invariants, i7_revoke_in_other_domain_inside_access_is_fine)
{
	struct revocable_domain *a = revocable_domain_alloc("a");
	struct revocable_provider __rcu *ra = revocable_provider_alloc_in(a, (void *)1);
	struct revocable_provider __rcu *rb = revocable_provider_alloc((void *)2);
	void *res;
	int ret = 0;

	REVOCABLE_TRY_ACCESS_SCOPED(ra, res) {
		ck_assert_ptr_nonnull(res);
		ck_assert_uint_eq(WARNS(ret = revocable_revoke(&rb)), 0);
		ck_assert_int_eq(ret, 1);
	}
	ck_assert_int_eq(revocable_revoke(&ra), 1);
	ck_assert_int_eq(revocable_domain_free(a), 0);
}
END_TEST

TEST(invariants, i7_batch_revoke_inside_access_is_an_error)
{
	struct test_two two;
	struct revocable_provider *ref;
	struct revocable acc;
	int ret = 0;

	test_two_init(&two);
	ref = revocable_provider_get_rcu(&two.rp[0]);
	revocable_access(ref, &acc);
	ck_assert_uint_eq(WARNS(ret = revocable_revoke_batch(two.slots, 2)), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_int_eq(ret, -EDEADLK);
	ck_assert_ptr_null(two.rp[0]);
	ck_assert_ptr_null(two.rp[1]);
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
}
END_TEST
