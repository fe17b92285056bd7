// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * I8 where only userspace has it: misuse across threads, injected
 * allocation failures, the library's warning path (file:line, counted every
 * time), and waiting calls from the library's own callbacks.  Every other
 * cell of docs/design.md's misuse matrix is a case of the KUnit suite
 * revocable_misuse, which runs in userspace as well (tests/kunit/).
 */

#include <linux/slab.h>

#include "testutil.h"

struct other_ctx {
	struct revocable *rev;
	unsigned long warns;
	struct test_thread thread;
};

static void *withdraw_elsewhere(void *arg)
{
	struct other_ctx *o = arg;

	o->warns = WARNS(revocable_withdraw_access(o->rev));
	return NULL;
}

TEST_SUITE("misuse");
TEST_GROUP(misuse, "I8", 20);

TEST(misuse, withdraw_from_another_thread_warns_and_keeps_access)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable rev;
	struct other_ctx o = { .rev = &rev };

	ck_assert_int_eq(revocable_init(rp, &rev), 0);
	ck_assert_ptr_nonnull(revocable_try_access(&rev));
	test_thread_start(&o.thread, withdraw_elsewhere, &o);
	JOIN_OR_FAIL(&o.thread, 5000);
	ck_assert_uint_eq(o.warns, 1);
	/* Still ours: a second access is refused as nested. */
	ck_assert_uint_eq(WARNS(ck_assert_ptr_null(revocable_try_access(&rev))), 1);
	ASSERT_WARNED_IN_LIB();
	revocable_withdraw_access(&rev);
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
}
END_TEST

TEST(misuse, null_handle_calls_warn)
{
	ck_assert_uint_eq(WARNS(ck_assert_ptr_null(revocable_try_access(NULL))), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_uint_eq(WARNS(revocable_withdraw_access(NULL)), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_uint_eq(WARNS(revocable_deinit(NULL)), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_uint_eq(WARNS(ck_assert_ptr_null(revocable_access((void *)1, NULL))), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_uint_eq(WARNS(ck_assert_ptr_null(revocable_access_unchecked(NULL))), 1);
	ASSERT_WARNED_IN_LIB();
}
END_TEST

TEST(misuse, allocation_failures_are_reported)
{
	struct revocable_provider __rcu *rp;

	compat_alloc_fail_countdown = 1;
	ck_assert_ptr_null(revocable_provider_alloc((void *)1));
	compat_alloc_fail_countdown = 1;
	ck_assert_ptr_null(revocable_domain_alloc("x"));
	/* A batch whose scratch array cannot be had still revokes all. */
	rp = revocable_provider_alloc((void *)1);
	{
		struct revocable_provider __rcu **slots[1] = { &rp };

		compat_alloc_fail_countdown = 1;
		ck_assert_int_eq(revocable_revoke_batch(slots, 1), 1);
	}
	ck_assert_ptr_null(rp);
	ck_assert_uint_eq(compat_alloc_fail_countdown, 0);
}
END_TEST

TEST(misuse, warn_prints_file_line_once_and_counts_always)
{
	struct revocable rev;
	unsigned long w = compat_warn_count();
	int i;

	ck_assert_int_eq(revocable_init(NULL, &rev), -ENODEV);
	revocable_deinit(&rev);
	for (i = 0; i < 3; i++)
		revocable_deinit(&rev);
	ck_assert_uint_eq(compat_warn_count() - w, 3);
	ASSERT_WARNED_IN_LIB();
}
END_TEST

/*
 * I7 on the fallback path: a batch that cannot allocate its scratch array
 * revokes one by one, and inside an access still answers -EDEADLK (it
 * once returned a count there), with one WARN per provider it could not
 * wait for; they complete once the access ends.
 */
TEST(misuse, batch_fallback_inside_access_reports_deadlock)
{
	struct test_res *r = test_res_new();
	struct revocable_provider __rcu *a = revocable_provider_alloc(r);
	struct revocable_provider __rcu *b = revocable_provider_alloc(r);
	struct revocable_provider __rcu **slots[2] = { &a, &b };
	struct revocable_provider *ref = revocable_provider_get_rcu(&a);
	struct revocable acc;
	int ret = 0;

	ck_assert_ptr_eq(revocable_access(ref, &acc), r);
	compat_alloc_fail_countdown = 1;
	ck_assert_uint_eq(WARNS(ret = revocable_revoke_batch(slots, 2)), 2);
	ASSERT_WARNED_IN_LIB();
	ck_assert_uint_eq(compat_alloc_fail_countdown, 0);
	ck_assert_int_eq(ret, -EDEADLK);
	ck_assert_ptr_null(a);
	ck_assert_ptr_null(b);
	ck_assert(RES_LIVE(r));
	revocable_withdraw_access(&acc);
	ck_assert_ptr_null(revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
	revocable_domain_barrier(revocable_default_domain());
	test_res_free(r);
}
END_TEST

/*
 * Waiting calls from a done callback: it runs where the domain's grace
 * periods end, so waiting there would wait on itself.  Each call WARNs
 * naming itself, returns -EDEADLK where it returns a value, and what it
 * revokes completes in the background.  revocable_revoke_async() is the
 * way to cascade, and works.
 */
struct cb_ctx {
	int op;
	struct revocable_provider __rcu *dep[2];
	struct revocable_provider *begun;
	struct revocable_domain *dom;
	struct test_res *res[2];
	unsigned long warns;
	int ret;
	struct completion ran, dep_done;
};

static void cb_dep_done(void *arg)
{
	complete(&((struct cb_ctx *)arg)->dep_done);
}

static void cb_waits(void *arg)
{
	struct cb_ctx *c = arg;
	struct revocable_provider __rcu **slots[2] = { &c->dep[0], &c->dep[1] };
	unsigned long w = compat_warn_count();

	switch (c->op) {
	case 0:
		c->ret = revocable_revoke(&c->dep[0]);
		break;
	case 1:
		c->ret = revocable_revoke_wait(c->begun);
		break;
	case 2:
		c->ret = revocable_revoke_batch(slots, 2);
		break;
	case 3:
		revocable_domain_barrier(revocable_default_domain());
		c->ret = -EDEADLK;
		break;
	case 4:
		c->ret = revocable_domain_free(c->dom);
		break;
	default:
		c->ret = revocable_revoke_async(&c->dep[0], cb_dep_done, c);
		break;
	}
	c->warns = compat_warn_count() - w;
	complete(&c->ran);
}

static void waiting_from_done_callback(int op)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct cb_ctx c = { .op = op };
	struct revocable_provider *ref[2];
	struct revocable acc;
	int i;

	init_completion(&c.ran);
	init_completion(&c.dep_done);
	for (i = 0; i < 2; i++) {
		c.res[i] = test_res_new();
		c.dep[i] = revocable_provider_alloc(c.res[i]);
		ref[i] = revocable_provider_get_rcu(&c.dep[i]);
	}
	if (op == 1)
		c.begun = revocable_revoke_begin(&c.dep[0]);
	if (op == 4)
		c.dom = revocable_domain_alloc("doomed");
	ck_assert_int_eq(revocable_revoke_async(&rp, cb_waits, &c), 1);
	WAIT_OR_FAIL(&c.ran, 5000);
	if (op == 5) {
		/* The cascade: no WARN, done runs after its own grace period. */
		ck_assert_uint_eq(c.warns, 0);
		ck_assert_int_eq(c.ret, 1);
		WAIT_OR_FAIL(&c.dep_done, 5000);
	} else {
		ck_assert_uint_eq(c.warns, 1);
		ASSERT_WARNED_IN_LIB();
		ck_assert_int_eq(c.ret, -EDEADLK);
	}
	/* What the callback revoked is gone, and finishes in the background. */
	if (op != 3 && op != 4)
		ck_assert_ptr_null(revocable_access(ref[0], &acc));
	else
		ck_assert_ptr_eq(revocable_access(ref[0], &acc), c.res[0]);
	revocable_withdraw_access(&acc);
	if (op == 2) {
		ck_assert_ptr_null(revocable_access(ref[1], &acc));
		revocable_withdraw_access(&acc);
	}
	/* The domain is not stuck: a plain revoke and a barrier return. */
	for (i = 0; i < 2; i++)
		revocable_revoke(&c.dep[i]);
	revocable_domain_barrier(revocable_default_domain());
	for (i = 0; i < 2; i++) {
		revocable_provider_put(ref[i]);
		test_res_free(c.res[i]);
	}
	if (op == 4)
		ck_assert_int_eq(revocable_domain_free(c.dom), 0);
}

/*
 * The owner's reference is dropped exactly once: two threads racing to
 * wait on one begun provider, and a put too many of a begun provider.  The
 * misuses of one call in one thread are the misuse matrix's KUnit cells
 * (kernel/new-files/drivers/base/revocable_test.c), which run here too.
 */
/* Two threads wait on one begun provider at once: one finishes it. */
static void *wait_begun(void *arg)
{
	return (void *)(long)revocable_revoke_wait(arg);
}

TEST(misuse, racing_waits_finish_once)
{
	for (int round = 0; round < 50; round++) {
		struct revocable_provider __rcu *rp =
			revocable_provider_alloc((void *)1);
		struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
		struct revocable_provider *begun = revocable_revoke_begin(&rp);
		unsigned long w = compat_warn_count();
		pthread_t t[2];
		void *r[2];

		for (int i = 0; i < 2; i++)
			ck_assert_int_eq(pthread_create(&t[i], NULL, wait_begun, begun), 0);
		for (int i = 0; i < 2; i++)
			ck_assert_int_eq(pthread_join(t[i], &r[i]), 0);
		/* One 0 and one -EINVAL (with its warning), in either order. */
		ck_assert_int_eq((long)r[0] + (long)r[1], -EINVAL);
		ck_assert_int_eq((long)r[0] * (long)r[1], 0);
		ck_assert_uint_eq(compat_warn_count() - w, 1);
		revocable_provider_put(ref);
	}
}
END_TEST

TEST(misuse, put_too_many_of_begun_provider_warns_and_wait_still_works)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)7);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable_provider *begun = revocable_revoke_begin(&rp);

	revocable_provider_put(ref);
	ck_assert_uint_eq(WARNS(revocable_provider_put(ref)), 1);
	ck_assert_int_eq(revocable_revoke_wait(begun), 0);
}
END_TEST

TEST(misuse, revoke_from_done_callback_warns)
{
	waiting_from_done_callback(0);
}
END_TEST

TEST(misuse, revoke_wait_from_done_callback_warns)
{
	waiting_from_done_callback(1);
}
END_TEST

TEST(misuse, batch_from_done_callback_warns)
{
	waiting_from_done_callback(2);
}
END_TEST

TEST(misuse, barrier_from_done_callback_warns)
{
	waiting_from_done_callback(3);
}
END_TEST

TEST(misuse, domain_free_from_done_callback_warns)
{
	waiting_from_done_callback(4);
}
END_TEST

TEST(misuse, async_revoke_from_done_callback_cascades)
{
	waiting_from_done_callback(5);
}
END_TEST
