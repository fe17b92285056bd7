// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The upstream series' KUnit scenarios, ported to Check against the
 * upstream-compatible API: they must pass unchanged in meaning.  Those that
 * the kernel's own KUnit suite runs as they are, in userspace too (suite
 * "kunit": basic access, revocation, the provider use-after-free cases),
 * are left to it; these are the ones that exercise what the kernel file
 * cannot: the userspace header's scope macros, and the scenarios with
 * handles shared by consumer threads.
 */
#include <linux/rcupdate.h>

#include "testutil.h"

#define REAL_RES ((void *)0x12345678)

TEST_SUITE("upstream");
TEST_GROUP(kunit_scenarios, "kunit-scenarios", 20);

TEST(kunit_scenarios, try_access_with_macro)
{
	struct revocable_provider __rcu *rp;
	unsigned long w;
	void *res;

	rp = revocable_provider_alloc(REAL_RES);
	w = compat_warn_count();
	{
		REVOCABLE_TRY_ACCESS_WITH(rp, res);
		ck_assert_ptr_eq(res, REAL_RES);
	}
	revocable_provider_revoke(&rp);
	ck_assert_ptr_null(rp);
	{
		REVOCABLE_TRY_ACCESS_WITH(rp, res);
		ck_assert_ptr_null(res);
	}
	ck_assert_uint_eq(compat_warn_count(), w);
}
END_TEST

TEST(kunit_scenarios, try_access_scoped_macro)
{
	struct revocable_provider __rcu *rp;
	bool accessed;
	void *res;

	rp = revocable_provider_alloc(REAL_RES);
	accessed = false;
	REVOCABLE_TRY_ACCESS_SCOPED(rp, res) {
		ck_assert_ptr_eq(res, REAL_RES);
		accessed = true;
	}
	ck_assert(accessed);

	revocable_provider_revoke(&rp);
	ck_assert_ptr_null(rp);

	accessed = false;
	REVOCABLE_TRY_ACCESS_SCOPED(rp, res) {
		ck_assert_ptr_null(res);
		accessed = true;
	}
	ck_assert(accessed);
}
END_TEST

/* A break out of the scoped block must withdraw: revoke then completes. */
TEST(kunit_scenarios, scoped_macro_break_withdraws)
{
	struct revocable_provider __rcu *rp;
	unsigned long t0;
	int loops = 0;
	void *res;

	rp = revocable_provider_alloc(REAL_RES);
	for (int i = 0; i < 3; i++) {
		REVOCABLE_TRY_ACCESS_SCOPED(rp, res) {
			loops++;
			if (res)
				break;
		}
	}
	ck_assert_int_eq(loops, 3);
	t0 = test_now_ms();
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_uint_lt(test_now_ms() - t0, test_bound_ms(1000));
}
END_TEST

struct concurrent_ctx {
	struct revocable_provider __rcu *rp;
	struct revocable rev;
	struct completion started, enter, entered, exit;
	void *expected;
	void *got;
	struct test_thread thread;
};

static void *concurrent_provider(void *arg)
{
	struct concurrent_ctx *ctx = arg;

	complete(&ctx->started);
	wait_for_completion(&ctx->enter);
	revocable_provider_revoke(&ctx->rp);
	complete(&ctx->entered);
	return NULL;
}

static void *concurrent_consumer(void *arg)
{
	struct concurrent_ctx *ctx = arg;

	complete(&ctx->started);
	wait_for_completion(&ctx->enter);
	ctx->got = revocable_try_access(&ctx->rev);
	complete(&ctx->entered);
	wait_for_completion(&ctx->exit);
	revocable_withdraw_access(&ctx->rev);
	return NULL;
}

/*
 * Consumer 1 is inside; the provider's revoke blocks behind it; consumer 2
 * arrives during the revoke and sees NULL; consumer 1 leaves and the revoke
 * completes.
 */
TEST(kunit_scenarios, concurrent_access_revoke_waits_late_reader_null)
{
	struct revocable_provider __rcu *rp;
	struct concurrent_ctx ctx[3];
	int i;

	rp = revocable_provider_alloc(REAL_RES);
	for (i = 0; i < 3; i++) {
		init_completion(&ctx[i].started);
		init_completion(&ctx[i].enter);
		init_completion(&ctx[i].entered);
		init_completion(&ctx[i].exit);
		if (i == 0) {
			ctx[i].rp = rp;
			test_thread_start(&ctx[i].thread, concurrent_provider,
					  &ctx[i]);
		} else {
			ck_assert_int_eq(revocable_init(rp, &ctx[i].rev), 0);
			test_thread_start(&ctx[i].thread, concurrent_consumer,
					  &ctx[i]);
		}
		WAIT_OR_FAIL(&ctx[i].started, 5000);
	}

	complete(&ctx[1].enter);
	WAIT_OR_FAIL(&ctx[1].entered, 5000);
	ck_assert_ptr_eq(ctx[1].got, REAL_RES);

	complete(&ctx[0].enter);
	/* The revoke must still be waiting for consumer 1. */
	ck_assert(!wait_for_completion_timeout(&ctx[0].entered, 100));

	complete(&ctx[2].enter);
	WAIT_OR_FAIL(&ctx[2].entered, 5000);
	ck_assert_ptr_null(ctx[2].got);

	complete(&ctx[1].exit);
	complete(&ctx[2].exit);
	WAIT_OR_FAIL(&ctx[0].entered, 5000);
	for (i = 0; i < 3; i++)
		JOIN_OR_FAIL(&ctx[i].thread, 5000);
	ck_assert_ptr_null(ctx[0].rp);
	for (i = 1; i < 3; i++)
		revocable_deinit(&ctx[i].rev);
}
END_TEST
