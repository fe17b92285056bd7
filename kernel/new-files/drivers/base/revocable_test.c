// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for revocable resources.
 *
 * The upstream series' scenarios, the invariants of the design and one
 * regression test per defect that got the upstream series reverted.  Every
 * wait is bounded: a regression fails a test instead of hanging the run.
 * Tests that provoke a warning on purpose print a marker before and after
 * it, so that the QEMU flow can tell an expected warning from a real one.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/platform_device.h>
#include <linux/revocable.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>

#define TEST_RES	((void *)0x12345678)
#define TEST_TIMEOUT	msecs_to_jiffies(5000)

#define EXPECT_WARN_BEGIN()	pr_info("revocable_test: expected warning begin\n")
#define EXPECT_WARN_END()	pr_info("revocable_test: expected warning end\n")

/* ----- the upstream scenarios -------------------------------------------- */

static void revocable_test_basic(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable rev;

	rp = revocable_provider_alloc(TEST_RES);
	KUNIT_ASSERT_NOT_NULL(test, unrcu_pointer(rp));
	KUNIT_ASSERT_EQ(test, revocable_init(rp, &rev), 0);
	KUNIT_EXPECT_PTR_EQ(test, revocable_try_access(&rev), TEST_RES);
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);
	revocable_provider_revoke(&rp);
	KUNIT_EXPECT_NULL(test, unrcu_pointer(rp));
}

static void revocable_test_revocation(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable rev;

	rp = revocable_provider_alloc(TEST_RES);
	KUNIT_ASSERT_EQ(test, revocable_init(rp, &rev), 0);
	KUNIT_EXPECT_PTR_EQ(test, revocable_try_access(&rev), TEST_RES);
	revocable_withdraw_access(&rev);
	revocable_provider_revoke(&rp);
	KUNIT_EXPECT_NULL(test, revocable_try_access(&rev));
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);
}

static void revocable_test_with_macro(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	void *res;

	rp = revocable_provider_alloc(TEST_RES);
	{
		REVOCABLE_TRY_ACCESS_WITH(rp, res);
		KUNIT_EXPECT_PTR_EQ(test, res, TEST_RES);
	}
	revocable_provider_revoke(&rp);
	{
		REVOCABLE_TRY_ACCESS_WITH(rp, res);
		KUNIT_EXPECT_NULL(test, res);
	}
}

/* A subsystem's own guard class over struct revocable_scope, as gpiolib's. */
struct test_guard {
	struct revocable_scope access;
	void *res;
};

static struct test_guard test_guard_enter(struct revocable_provider *rp)
{
	struct test_guard g;

	g.res = revocable_scope_enter(&g.access, rp);
	return g;
}

DEFINE_CLASS(test_guard, struct test_guard, revocable_scope_exit(&_T.access),
	     test_guard_enter(rp), struct revocable_provider *rp)

/*
 * CLASS(revocable) and a class built on struct revocable_scope: both give the
 * resource, keep it valid after the revoke has begun, give NULL to accesses
 * begun later, and end their access when the scope ends (the wait returns).
 */
static void revocable_test_scope_class(struct kunit *test)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable_provider *begun;

	KUNIT_ASSERT_NOT_NULL(test, ref);
	{
		CLASS(revocable, a)(ref);
		CLASS(test_guard, g)(ref);

		KUNIT_EXPECT_PTR_EQ(test, a.res, TEST_RES);
		KUNIT_EXPECT_PTR_EQ(test, g.res, TEST_RES);
		begun = revocable_revoke_begin(&rp);
		KUNIT_EXPECT_NOT_NULL(test, begun);
		{
			CLASS(revocable, late)(ref);

			KUNIT_EXPECT_NULL(test, late.res);
		}
		KUNIT_EXPECT_PTR_EQ(test, g.res, TEST_RES);
	}
	KUNIT_EXPECT_EQ(test, revocable_revoke_wait(begun), 0);
	{
		CLASS(revocable, none)(NULL);

		KUNIT_EXPECT_NULL(test, none.res);
	}
	revocable_provider_put(ref);
}

static void revocable_test_scoped_macro(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	bool accessed = false;
	void *res;

	rp = revocable_provider_alloc(TEST_RES);
	REVOCABLE_TRY_ACCESS_SCOPED(rp, res) {
		KUNIT_EXPECT_PTR_EQ(test, res, TEST_RES);
		accessed = true;
	}
	KUNIT_EXPECT_TRUE(test, accessed);
	revocable_provider_revoke(&rp);
	accessed = false;
	REVOCABLE_TRY_ACCESS_SCOPED(rp, res) {
		KUNIT_EXPECT_NULL(test, res);
		accessed = true;
	}
	KUNIT_EXPECT_TRUE(test, accessed);
}

static void revocable_test_provider_use_after_free(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	struct revocable rev;

	rp = revocable_provider_alloc(TEST_RES);
	KUNIT_EXPECT_NE(test, revocable_init(NULL, &rev), 0);

	/* A provider whose last reference is dropped inside our RCU section. */
	ref = revocable_provider_get_rcu(&rp);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	revocable_provider_revoke(&rp);
	rcu_read_lock();
	revocable_provider_put(ref);
	KUNIT_EXPECT_NE(test, revocable_init(RCU_INITIALIZER(ref), &rev), 0);
	rcu_read_unlock();

	KUNIT_EXPECT_NE(test, revocable_init(rp, &rev), 0);
}

/* ----- threads ------------------------------------------------------------ */

struct test_reader {
	struct revocable_provider *ref;
	struct completion inside, leave, done;
	void *got;
	unsigned int hold_ms;
	bool withdrawn;
};

static int test_reader_fn(void *data)
{
	struct test_reader *r = data;
	struct revocable acc;

	r->got = revocable_access(r->ref, &acc);
	complete(&r->inside);
	if (r->hold_ms)
		msleep(r->hold_ms);
	else
		wait_for_completion(&r->leave);
	WRITE_ONCE(r->withdrawn, true);
	revocable_withdraw_access(&acc);
	complete(&r->done);
	return 0;
}

static void test_reader_start(struct kunit *test, struct test_reader *r,
			      struct revocable_provider *ref,
			      unsigned int hold_ms)
{
	struct task_struct *t;

	memset(r, 0, sizeof(*r));
	r->ref = ref;
	r->hold_ms = hold_ms;
	init_completion(&r->inside);
	init_completion(&r->leave);
	init_completion(&r->done);
	t = kthread_run(test_reader_fn, r, "revocable_reader");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r->inside,
							  TEST_TIMEOUT), 0);
}

struct test_revoker {
	struct revocable_provider __rcu **rpp;
	struct completion done;
	int ret;
};

static int test_revoker_fn(void *data)
{
	struct test_revoker *r = data;

	r->ret = revocable_revoke(r->rpp);
	complete(&r->done);
	return 0;
}

static void test_revoker_start(struct kunit *test, struct test_revoker *r,
			       struct revocable_provider __rcu **rpp)
{
	struct task_struct *t;

	r->rpp = rpp;
	r->ret = -1;
	init_completion(&r->done);
	t = kthread_run(test_revoker_fn, r, "revocable_revoker");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
}

/*
 * Upstream's concurrent scenario: a reader is inside, the revoke blocks
 * behind it, a late reader sees NULL, the first reader leaves and the
 * revoke completes.
 */
static void revocable_test_concurrent_access(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	struct test_reader first;
	struct test_revoker rv;
	struct revocable acc;

	rp = revocable_provider_alloc(TEST_RES);
	ref = revocable_provider_get_rcu(&rp);
	test_reader_start(test, &first, ref, 0);
	KUNIT_EXPECT_PTR_EQ(test, first.got, TEST_RES);

	test_revoker_start(test, &rv, &rp);
	KUNIT_EXPECT_EQ(test,
			wait_for_completion_timeout(&rv.done,
						    msecs_to_jiffies(100)),
			0);
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);

	complete(&first.leave);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&rv.done,
							  TEST_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, rv.ret, 1);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&first.done,
							  TEST_TIMEOUT), 0);
	revocable_provider_put(ref);
}

/* ----- invariants --------------------------------------------------------- */

/* I1 + I2: revoke returns only after the reader withdrew. */
static void revocable_test_i1_revoke_waits_for_readers(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	struct test_reader r;
	struct revocable acc;

	rp = revocable_provider_alloc(TEST_RES);
	ref = revocable_provider_get_rcu(&rp);
	test_reader_start(test, &r, ref, 200);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(r.withdrawn));
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	KUNIT_EXPECT_NULL(test, revocable_provider_get_rcu(&rp));
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r.done,
							  TEST_TIMEOUT), 0);
	revocable_provider_put(ref);
}

/* I2: the resource stays valid while revoke waits. */
struct test_checker {
	struct revocable_provider *ref;
	struct completion inside, done;
	bool live;
};

static int test_checker_fn(void *data)
{
	struct test_checker *c = data;
	struct revocable acc;
	char *buf = revocable_access(c->ref, &acc);
	int i;

	complete(&c->inside);
	c->live = !!buf;
	for (i = 0; i < 20 && buf; i++) {
		if (strcmp(buf, "live"))
			c->live = false;
		msleep(20);
	}
	revocable_withdraw_access(&acc);
	complete(&c->done);
	return 0;
}

static void revocable_test_i2_access_valid_during_revoke(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct test_checker c = { };
	struct task_struct *t;
	char *buf = kstrdup("live", GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	rp = revocable_provider_alloc(buf);
	c.ref = revocable_provider_get_rcu(&rp);
	init_completion(&c.inside);
	init_completion(&c.done);
	t = kthread_run(test_checker_fn, &c, "revocable_checker");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&c.inside,
							  TEST_TIMEOUT), 0);
	revocable_provider_revoke(&rp);
	kfree(buf);	/* KASAN reports any access after this */
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&c.done,
							  TEST_TIMEOUT), 0);
	KUNIT_EXPECT_TRUE(test, c.live);
	revocable_provider_put(c.ref);
}

/* I3: a nested access on one handle is refused, not miscounted. */
static void revocable_test_i3_nested_handle_refused(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable rev;

	rp = revocable_provider_alloc(TEST_RES);
	KUNIT_ASSERT_EQ(test, revocable_init(rp, &rev), 0);
	KUNIT_EXPECT_PTR_EQ(test, revocable_try_access(&rev), TEST_RES);
	EXPECT_WARN_BEGIN();
	KUNIT_EXPECT_NULL(test, revocable_try_access(&rev));
	EXPECT_WARN_END();
	revocable_withdraw_access(&rev);
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
}

/* I4: the provider shell outlives every consumer reference. */
static void revocable_test_i4_provider_outlives_refs(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	struct revocable acc;
	char *buf = kstrdup("res", GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	rp = revocable_provider_alloc(buf);
	ref = revocable_provider_get_rcu(&rp);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	kfree(buf);
	msleep(20);	/* let RCU callbacks run: the shell must not go */
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
}

/* I5: idempotent revoke; concurrent revokers, exactly one wins. */
static void revocable_test_i5_revoke_idempotent(struct kunit *test)
{
	struct revocable_provider __rcu *rp;

	rp = revocable_provider_alloc(TEST_RES);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 0);
	KUNIT_EXPECT_EQ(test, revocable_revoke_async(&rp, NULL, NULL), 0);
	KUNIT_EXPECT_NULL(test, revocable_revoke_begin(&rp));
}

/* I6: accesses move no reference count: the provider bytes do not change. */
static void revocable_test_i6_access_writes_nothing_shared(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	u8 before[40], after[40];
	struct revocable acc;
	void *res;
	int i;

	rp = revocable_provider_alloc(TEST_RES);
	ref = revocable_provider_get_rcu(&rp);
	memcpy(before, ref, sizeof(before));
	for (i = 0; i < 1000; i++) {
		KUNIT_EXPECT_NOT_NULL(test, revocable_access(ref, &acc));
		revocable_withdraw_access(&acc);
		REVOCABLE_TRY_ACCESS_SCOPED(rp, res)
			KUNIT_EXPECT_NOT_NULL(test, res);
	}
	memcpy(after, ref, sizeof(after));
	KUNIT_EXPECT_EQ(test, memcmp(before, after, sizeof(before)), 0);
	revocable_provider_put(ref);
	revocable_provider_revoke(&rp);
}

/*
 * A wait inside an access of its own domain is found by lockdep in the
 * kernel (CONFIG_DEBUG_LOCK_ALLOC, while debug_locks is on), always in
 * userspace.  Without it the call would wait for itself: the cases that
 * make such a call skip.
 */
static void skip_unless_inside_access_found(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC) || !READ_ONCE(debug_locks))
		kunit_skip(test, "finding a wait inside an access needs lockdep");
}

/* I7: revoke inside an access of the same domain is an error. */
static void revocable_test_i7_revoke_inside_access(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	struct revocable acc;
	int ret;

	skip_unless_inside_access_found(test);

	rp = revocable_provider_alloc(TEST_RES);
	ref = revocable_provider_get_rcu(&rp);
	revocable_access(ref, &acc);
	EXPECT_WARN_BEGIN();
	ret = revocable_revoke(&rp);
	EXPECT_WARN_END();
	KUNIT_EXPECT_EQ(test, ret, -EDEADLK);
	KUNIT_EXPECT_NULL(test, unrcu_pointer(rp));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
	revocable_domain_barrier(revocable_default_domain());
}

/* ----- the upstream defects ---------------------------------------------- */

struct test_sharer {
	struct revocable *shared;
	struct completion go, done, leave, exited;
	void *got;
};

static int test_sharer_fn(void *data)
{
	struct test_sharer *s = data;

	wait_for_completion(&s->go);
	s->got = revocable_try_access(s->shared);
	complete(&s->done);
	wait_for_completion(&s->leave);
	revocable_withdraw_access(s->shared);
	complete(&s->exited);
	return 0;
}

/*
 * Bug 1: two contexts share one handle, with the domain's index flipped
 * between their accesses.  Upstream, the second access overwrote the
 * first one's index and the revoke hung.  Here it is refused, and the
 * revoke completes.
 */
static void revocable_test_bug1_shared_handle(struct kunit *test)
{
	struct revocable_provider __rcu *rp, *other;
	struct test_sharer s = { };
	struct test_revoker rv, flip;
	struct task_struct *t;
	struct revocable shared;

	rp = revocable_provider_alloc(TEST_RES);
	KUNIT_ASSERT_EQ(test, revocable_init(rp, &shared), 0);
	s.shared = &shared;
	init_completion(&s.go);
	init_completion(&s.done);
	init_completion(&s.leave);
	init_completion(&s.exited);
	t = kthread_run(test_sharer_fn, &s, "revocable_sharer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));

	KUNIT_EXPECT_NOT_NULL(test, revocable_try_access(&shared));
	/*
	 * A revoke in the same domain, from another thread, flips the SRCU
	 * index and then waits for our access.
	 */
	other = revocable_provider_alloc(TEST_RES);
	test_revoker_start(test, &flip, &other);
	msleep(50);
	EXPECT_WARN_BEGIN();
	complete(&s.go);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&s.done,
							  TEST_TIMEOUT), 0);
	EXPECT_WARN_END();
	KUNIT_EXPECT_NULL(test, s.got);
	KUNIT_EXPECT_EQ(test, completion_done(&flip.done), false);
	revocable_withdraw_access(&shared);
	/* The sharer's withdraw, with no access left on the handle, warns. */
	EXPECT_WARN_BEGIN();
	complete(&s.leave);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&s.exited,
							  TEST_TIMEOUT), 0);
	EXPECT_WARN_END();
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&flip.done,
							  TEST_TIMEOUT), 0);
	revocable_deinit(&shared);

	test_revoker_start(test, &rv, &rp);
	KUNIT_ASSERT_NE_MSG(test, wait_for_completion_timeout(&rv.done,
							      TEST_TIMEOUT), 0,
			    "revoke hung after a shared handle was used");
	KUNIT_EXPECT_EQ(test, rv.ret, 1);
}

struct test_getter {
	struct revocable_provider __rcu **slot;
	struct completion done;
	bool stop;
	unsigned long refs;
};

static int test_getter_fn(void *data)
{
	struct test_getter *g = data;
	struct revocable_provider *ref;
	struct revocable rev;

	while (!READ_ONCE(g->stop)) {
		ref = revocable_provider_get_rcu(g->slot);
		if (ref) {
			g->refs++;
			if (!revocable_init(RCU_INITIALIZER(ref), &rev)) {
				revocable_try_access(&rev);
				revocable_withdraw_access(&rev);
				revocable_deinit(&rev);
			}
			revocable_provider_put(ref);
		}
		cond_resched();
	}
	complete(&g->done);
	return 0;
}

/* Bug 2: taking consumer references races the provider's release. */
static void revocable_test_bug2_get_races_release(struct kunit *test)
{
	struct revocable_provider __rcu *slot = NULL;
	struct test_getter g = { .slot = &slot };
	struct task_struct *t;
	unsigned long end;

	init_completion(&g.done);
	t = kthread_run(test_getter_fn, &g, "revocable_getter");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	end = jiffies + msecs_to_jiffies(300);
	while (time_before(jiffies, end)) {
		rcu_assign_pointer(slot, unrcu_pointer(revocable_provider_alloc(TEST_RES)));
		cond_resched();
		KUNIT_EXPECT_EQ(test, revocable_revoke_async(&slot, NULL, NULL), 1);
	}
	WRITE_ONCE(g.stop, true);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&g.done,
							  TEST_TIMEOUT), 0);
	revocable_domain_barrier(revocable_default_domain());
}

/* Bug 3: after revoke, neither the owner nor consumers dangle. */
static void revocable_test_bug3_no_dangling_pointer(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *file_ref;
	char *buf = kstrdup("hello", GFP_KERNEL), *res;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	rp = revocable_provider_alloc(buf);
	file_ref = revocable_provider_get_rcu(&rp);	/* "open" */
	revocable_provider_revoke(&rp);
	KUNIT_EXPECT_NULL(test, unrcu_pointer(rp));
	kfree(buf);
	REVOCABLE_TRY_ACCESS_SCOPED(file_ref, res)	/* "read" */
		KUNIT_EXPECT_NULL(test, res);
	KUNIT_EXPECT_NULL(test, revocable_provider_get_rcu(&rp));
	revocable_provider_put(file_ref);		/* "close" */
}

struct test_racer {
	struct revocable_provider __rcu **slot;
	atomic_long_t go, done;
	struct revocable_provider *won;
	unsigned long rounds;
	struct completion exited;
};

/* A short spin that differs per round, so the two racers' timing sweeps. */
static void test_racer_spin(unsigned long round)
{
	ndelay((round * 2654435761UL) % 256);
}

static int test_racer_fn(void *data)
{
	struct test_racer *r = data;
	unsigned long i;

	for (i = 1; i <= r->rounds; i++) {
		while (atomic_long_read(&r->go) != i) {
			if (atomic_long_read(&r->go) < 0)
				goto out;
			cond_resched();
		}
		test_racer_spin(i);
		WRITE_ONCE(r->won, revocable_revoke_begin(r->slot));
		/* Publish won with done: the test reads won after done. */
		atomic_long_set_release(&r->done, i);
	}
out:
	complete(&r->exited);
	return 0;
}

/*
 * Bug 4: rcu_replace_pointer() is a load and a store, so two revokers could
 * both see the provider and both drop the owner's reference.  Race
 * revocable_revoke_begin() from two threads, round after round: exactly
 * one may win each round.
 */
static void revocable_test_bug4_concurrent_revokers(struct kunit *test)
{
	struct revocable_domain *dom = revocable_domain_alloc("kunit-bug4");
	struct revocable_provider __rcu *slot = NULL;
	struct test_racer r = { .slot = &slot, .rounds = 2000 };
	unsigned long deadline = jiffies + msecs_to_jiffies(3000);
	struct revocable_provider *mine, *won;
	unsigned long i, doubles = 0, spins;
	struct task_struct *t;

	KUNIT_ASSERT_NOT_NULL(test, dom);
	revocable_domain_set_slow(dom, 0, NULL, NULL);
	atomic_long_set(&r.go, 0);
	atomic_long_set(&r.done, 0);
	init_completion(&r.exited);
	t = kthread_run(test_racer_fn, &r, "revocable_racer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* 2000 rounds, or at least 200 within 3 s on a slow (KCSAN) kernel. */
	for (i = 1; i <= r.rounds; i++) {
		if (i > 200 && time_after(jiffies, deadline))
			break;
		rcu_assign_pointer(slot,
				   unrcu_pointer(revocable_provider_alloc_in(dom, TEST_RES)));
		atomic_long_set(&r.go, i);
		test_racer_spin(i + 7);
		mine = revocable_revoke_begin(&slot);
		for (spins = 0; atomic_long_read_acquire(&r.done) != i; spins++) {
			if (spins > 10000000UL)
				break;
			cond_resched();
		}
		won = READ_ONCE(r.won);
		if (atomic_long_read_acquire(&r.done) != i || !(mine || won)) {
			KUNIT_FAIL(test, "round %lu: racer stuck or nobody revoked", i);
			atomic_long_set(&r.go, -1);
			break;
		}
		if (mine && won)
			doubles++;
		/* Finish once, whoever won, so a double win cannot double-put. */
		KUNIT_EXPECT_EQ(test, revocable_revoke_wait(mine ? mine : won), 0);
	}
	kunit_info(test, "%lu rounds\n", i - 1);
	atomic_long_set(&r.go, -1);	/* the racer waits for a next round */
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r.exited,
							  TEST_TIMEOUT), 0);
	KUNIT_EXPECT_EQ_MSG(test, doubles, 0UL,
			    "%lu rounds had two winning revokers", doubles);
	KUNIT_EXPECT_EQ(test, revocable_domain_free(dom), 0);
}

/* Hung tasks: two-phase revoke lets a sleeping reader out first. */
static void revocable_test_two_phase_wakes_sleeper(struct kunit *test)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *begun;
	struct test_reader r;
	struct revocable acc;

	rp = revocable_provider_alloc(TEST_RES);
	test_reader_start(test, &r, revocable_provider_get_rcu(&rp), 0);
	begun = revocable_revoke_begin(&rp);
	KUNIT_ASSERT_NOT_NULL(test, begun);
	KUNIT_EXPECT_NULL(test, revocable_access(r.ref, &acc));
	revocable_withdraw_access(&acc);
	complete(&r.leave);	/* the driver fails the sleeper's I/O */
	KUNIT_EXPECT_EQ(test, revocable_revoke_wait(begun), 0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r.done,
							  TEST_TIMEOUT), 0);
	revocable_provider_put(r.ref);
}

/* ----- extensions --------------------------------------------------------- */

static void revocable_test_domains_are_independent(struct kunit *test)
{
	struct revocable_domain *dom = revocable_domain_alloc("kunit");
	struct revocable_provider __rcu *ra, *rb;
	struct test_revoker rv;
	struct test_reader r;

	KUNIT_ASSERT_NOT_NULL(test, dom);
	ra = revocable_provider_alloc_in(dom, TEST_RES);
	rb = revocable_provider_alloc(TEST_RES);
	test_reader_start(test, &r, revocable_provider_get_rcu(&ra), 0);
	test_revoker_start(test, &rv, &rb);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&rv.done,
							  TEST_TIMEOUT), 0);
	complete(&r.leave);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r.done,
							  TEST_TIMEOUT), 0);
	revocable_provider_put(r.ref);
	revocable_provider_revoke(&ra);
	KUNIT_EXPECT_EQ(test, revocable_domain_free(dom), 0);
}

static void test_async_done(void *arg)
{
	complete(arg);
}

static void revocable_test_async_and_batch(struct kunit *test)
{
	struct revocable_provider __rcu *rp[8];
	struct revocable_provider __rcu **slots[8];
	struct completion done;
	int i;

	init_completion(&done);
	rp[0] = revocable_provider_alloc(TEST_RES);
	KUNIT_EXPECT_EQ(test, revocable_revoke_async(&rp[0], test_async_done,
						     &done), 1);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&done,
							  TEST_TIMEOUT), 0);

	for (i = 0; i < ARRAY_SIZE(rp); i++) {
		rp[i] = revocable_provider_alloc(TEST_RES);
		slots[i] = &rp[i];
	}
	revocable_provider_revoke(&rp[2]);
	KUNIT_EXPECT_EQ(test, revocable_revoke_batch(slots, ARRAY_SIZE(rp)),
			ARRAY_SIZE(rp) - 1);
	for (i = 0; i < ARRAY_SIZE(rp); i++)
		KUNIT_EXPECT_NULL(test, unrcu_pointer(rp[i]));
}

static void test_slow_hook(struct revocable_domain *dom,
			   unsigned int waited_ms, void *arg)
{
	atomic_inc(arg);
}

static void revocable_test_slow_revoke_reported(struct kunit *test)
{
	struct revocable_domain *dom = revocable_domain_alloc("kunit-slow");
	struct revocable_provider __rcu *rp;
	struct test_reader r;
	atomic_t reports = ATOMIC_INIT(0);

	KUNIT_ASSERT_NOT_NULL(test, dom);
	revocable_domain_set_slow(dom, 20, test_slow_hook, &reports);
	rp = revocable_provider_alloc_in(dom, TEST_RES);
	test_reader_start(test, &r, revocable_provider_get_rcu(&rp), 150);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_GE(test, atomic_read(&reports), 2);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&r.done,
							  TEST_TIMEOUT), 0);
	revocable_provider_put(r.ref);
	KUNIT_EXPECT_EQ(test, revocable_domain_free(dom), 0);
}

/*
 * devm: the provider lives while the driver is bound and is revoked
 * through the owner's slot on unbind; a revoke by the driver itself
 * before that leaves the action nothing to do.
 */
static void revocable_test_devm_revokes_at_unbind(struct kunit *test)
{
	struct revocable_provider __rcu *slot = NULL, *early = NULL;
	struct revocable_provider *ref;
	struct revocable acc;
	struct device *dev;

	/*
	 * A root device rather than kunit_device_register(), which 6.1 does
	 * not have: its devres actions run when it is unregistered.
	 */
	dev = root_device_register("revocable-devm");
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(dev));
	KUNIT_ASSERT_EQ(test, devm_revocable_provider_alloc(dev, &slot, TEST_RES), 0);
	KUNIT_ASSERT_EQ(test, devm_revocable_provider_alloc(dev, &early, TEST_RES), 0);
	EXPECT_WARN_BEGIN();
	KUNIT_EXPECT_EQ(test, devm_revocable_provider_alloc(dev, &slot, TEST_RES),
			-EBUSY);
	KUNIT_EXPECT_EQ(test, devm_revocable_provider_alloc(dev, NULL, TEST_RES),
			-EINVAL);
	EXPECT_WARN_END();

	ref = revocable_provider_get_rcu(&slot);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	KUNIT_EXPECT_PTR_EQ(test, revocable_access(ref, &acc), TEST_RES);
	revocable_withdraw_access(&acc);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&early), 1);

	root_device_unregister(dev);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(slot));
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
}

/*
 * The bound accessor, from a real driver binding: a plain load in probe
 * and while bound; after unbind, CONFIG_REVOCABLE_DEBUG's check catches
 * the call, also for a provider the driver forgot to revoke.
 */
static struct {
	struct revocable_provider __rcu *devm_slot;
	struct revocable_provider __rcu *plain_slot;
	void *in_probe;
} test_bound;

static int test_bound_probe(struct platform_device *pdev)
{
	int ret;

	ret = devm_revocable_provider_alloc(&pdev->dev, &test_bound.devm_slot,
					    TEST_RES);
	if (ret)
		return ret;
	/* Once: CONFIG_DEBUG_TEST_DRIVER_REMOVE probes twice. */
	if (!rcu_access_pointer(test_bound.plain_slot))
		test_bound.plain_slot = revocable_provider_alloc(TEST_RES);
	test_bound.in_probe =
		revocable_access_bound(rcu_access_pointer(test_bound.devm_slot),
				       &pdev->dev);
	return 0;
}

static struct platform_driver test_bound_driver = {
	.probe = test_bound_probe,
	.driver = {
		.name = "revocable-kunit-bound",
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
	},
};

static void revocable_test_bound_accessor(struct kunit *test)
{
	struct revocable_provider *dref = NULL, *pref = NULL;
	struct platform_device *pdev;

	if (!IS_ENABLED(CONFIG_REVOCABLE_DEBUG))
		kunit_skip(test, "the check needs CONFIG_REVOCABLE_DEBUG");
	memset(&test_bound, 0, sizeof(test_bound));
	KUNIT_ASSERT_EQ(test, platform_driver_register(&test_bound_driver), 0);
	pdev = platform_device_register_simple("revocable-kunit-bound", -1,
					       NULL, 0);
	if (IS_ERR(pdev)) {
		KUNIT_FAIL(test, "platform device: %ld", PTR_ERR(pdev));
		goto out_driver;
	}
	KUNIT_EXPECT_PTR_EQ(test, test_bound.in_probe, TEST_RES);
	dref = revocable_provider_get_rcu(&test_bound.devm_slot);
	pref = revocable_provider_get_rcu(&test_bound.plain_slot);
	KUNIT_EXPECT_NOT_NULL(test, dref);
	KUNIT_EXPECT_NOT_NULL(test, pref);
	if (!dref || !pref)
		goto out_device;
	KUNIT_EXPECT_PTR_EQ(test, revocable_access_bound(pref, &pdev->dev),
			    TEST_RES);

	device_release_driver(&pdev->dev);
	KUNIT_EXPECT_NULL(test, rcu_access_pointer(test_bound.devm_slot));
	EXPECT_WARN_BEGIN();
	KUNIT_EXPECT_NULL(test, revocable_access_bound(dref, &pdev->dev));
	/* Never revoked, still published: only the check stands in the way. */
	KUNIT_EXPECT_NULL(test, revocable_access_bound(pref, &pdev->dev));
	EXPECT_WARN_END();
	KUNIT_EXPECT_PTR_EQ(test, revocable_access_unchecked(pref), TEST_RES);

out_device:
	platform_device_unregister(pdev);
out_driver:
	platform_driver_unregister(&test_bound_driver);
	revocable_provider_revoke(&test_bound.plain_slot);
	revocable_provider_put(pref);
	revocable_provider_put(dref);
}

/* ----- the misuse matrix -------------------------------------------------- */

/*
 * One case per cell of the misuse matrix (docs/design.md, "Misuse matrix"):
 * a call made wrongly, its defined result, and that what it left behind
 * still works (the revoke that follows, the reference that follows; a
 * second drop of a reference is a use-after-free that KASAN, ASan or
 * valgrind reports).  Cells that warn print the markers around the call.
 * The cases are named misuse_FUNCTION__MISUSE, after the matrix's rows and
 * columns; tests/check-misuse-matrix.py checks that both list the same.
 */
#define MISUSE(fn, m)	static void misuse_##fn##__##m(struct kunit *test)
#define MISUSE_CASE(fn, m)						\
	{ .run_case = misuse_##fn##__##m, .name = "misuse_" #fn "__" #m }

/*
 * Calls @call between the expected-warning markers.  Where the runtime
 * counts warnings (the userspace runner: compat_warn_count()), the cell
 * also fails when the call did not warn.
 */
#ifdef kunit_warn_count
#define MISUSE_WARN_COUNT()	kunit_warn_count()

static void misuse_warned(struct kunit *test, unsigned long before)
{
	KUNIT_EXPECT_GT_MSG(test, kunit_warn_count(), before,
			    "the call did not warn");
}
#else
#define MISUSE_WARN_COUNT()	0UL

static void misuse_warned(struct kunit *test, unsigned long before)
{
}
#endif
#define WARNS(call)							\
	({								\
		unsigned long __w = MISUSE_WARN_COUNT();		\
		typeof(call) __r;					\
		EXPECT_WARN_BEGIN();					\
		__r = (call);						\
		EXPECT_WARN_END();					\
		misuse_warned(test, __w);				\
		__r;							\
	})
#define WARNS_VOID(call)						\
	do {								\
		unsigned long __w = MISUSE_WARN_COUNT();		\
		EXPECT_WARN_BEGIN();					\
		call;							\
		EXPECT_WARN_END();					\
		misuse_warned(test, __w);				\
	} while (0)

/* A provider in the default domain, a consumer's reference, an access. */
struct misuse_held {
	struct revocable_provider __rcu *slot;
	struct revocable_provider *ref;
	struct revocable acc;
};

static void misuse_enter(struct kunit *test, struct misuse_held *h)
{
	h->slot = revocable_provider_alloc(TEST_RES);
	h->ref = revocable_provider_get_rcu(&h->slot);
	KUNIT_EXPECT_PTR_EQ(test, revocable_access(h->ref, &h->acc), TEST_RES);
}

/* Ends the access and the reference; a drop left to the background ends. */
static void misuse_leave(struct kunit *test, struct misuse_held *h)
{
	revocable_withdraw_access(&h->acc);
	revocable_provider_put(h->ref);
	KUNIT_EXPECT_EQ(test,
			revocable_domain_barrier(revocable_default_domain()), 0);
}

MISUSE(domain_alloc, null)
{
	struct revocable_domain *dom = revocable_domain_alloc(NULL);
	struct revocable_provider __rcu *rp;

	/* No name: the domain is called "unnamed" and works. */
	KUNIT_ASSERT_NOT_NULL(test, dom);
	rp = revocable_provider_alloc_in(dom, TEST_RES);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_EQ(test, revocable_domain_free(dom), 0);
}

MISUSE(domain_free, null)
{
	KUNIT_EXPECT_EQ(test, revocable_domain_free(NULL), 0);
}

MISUSE(domain_free, default_domain)
{
	KUNIT_EXPECT_EQ(test, WARNS(revocable_domain_free(revocable_default_domain())),
			-EINVAL);
}

MISUSE(domain_free, out_of_order)
{
	struct revocable_domain *dom = revocable_domain_alloc("misuse");
	struct revocable_provider __rcu *rp;

	KUNIT_ASSERT_NOT_NULL(test, dom);
	rp = revocable_provider_alloc_in(dom, TEST_RES);
	/* Freed before its provider is revoked: refused, domain intact. */
	KUNIT_EXPECT_EQ(test, WARNS(revocable_domain_free(dom)), -EBUSY);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_EQ(test, revocable_domain_free(dom), 0);
}

MISUSE(domain_free, inside_access)
{
	struct revocable_domain *dom;
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	struct revocable acc;

	skip_unless_inside_access_found(test);
	dom = revocable_domain_alloc("misuse");
	KUNIT_ASSERT_NOT_NULL(test, dom);
	rp = revocable_provider_alloc_in(dom, TEST_RES);
	ref = revocable_provider_get_rcu(&rp);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	KUNIT_EXPECT_EQ(test, WARNS(revocable_domain_free(dom)), -EDEADLK);
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
	KUNIT_EXPECT_EQ(test, revocable_domain_free(dom), 0);
}

MISUSE(domain_barrier, null)
{
	KUNIT_EXPECT_EQ(test, WARNS(revocable_domain_barrier(NULL)), -EINVAL);
}

MISUSE(domain_barrier, inside_access)
{
	struct misuse_held h;

	skip_unless_inside_access_found(test);
	misuse_enter(test, &h);
	KUNIT_EXPECT_EQ(test,
			WARNS(revocable_domain_barrier(revocable_default_domain())),
			-EDEADLK);
	misuse_leave(test, &h);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&h.slot), 1);
}

MISUSE(domain_set_slow, null)
{
	KUNIT_EXPECT_EQ(test, WARNS(revocable_domain_set_slow(NULL, 1, NULL, NULL)),
			-EINVAL);
}

MISUSE(provider_alloc, null)
{
	KUNIT_EXPECT_NULL(test, unrcu_pointer(WARNS(revocable_provider_alloc(NULL))));
}

MISUSE(provider_alloc_in, null)
{
	struct revocable_domain *dom = revocable_default_domain();

	KUNIT_EXPECT_NULL(test,
			  unrcu_pointer(WARNS(revocable_provider_alloc_in(NULL, TEST_RES))));
	KUNIT_EXPECT_NULL(test,
			  unrcu_pointer(WARNS(revocable_provider_alloc_in(dom, NULL))));
}

MISUSE(provider_publish, null)
{
	struct revocable_provider __rcu *rp = NULL;
	struct revocable_provider __rcu *p = revocable_provider_alloc(TEST_RES);

	KUNIT_EXPECT_EQ(test, WARNS(revocable_provider_publish(NULL, unrcu_pointer(p))),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, WARNS(revocable_provider_publish(&rp, NULL)), -EINVAL);
	KUNIT_EXPECT_NULL(test, unrcu_pointer(rp));
	KUNIT_EXPECT_EQ(test, revocable_revoke(&p), 1);
}

MISUSE(provider_publish, twice)
{
	struct revocable_provider __rcu *rp = NULL;
	struct revocable_provider __rcu *a = revocable_provider_alloc(TEST_RES);
	struct revocable_provider __rcu *b = revocable_provider_alloc(TEST_RES);

	KUNIT_EXPECT_EQ(test, revocable_provider_publish(&rp, unrcu_pointer(a)), 0);
	KUNIT_EXPECT_EQ(test, WARNS(revocable_provider_publish(&rp, unrcu_pointer(b))),
			-EBUSY);
	KUNIT_EXPECT_PTR_EQ(test, unrcu_pointer(rp), unrcu_pointer(a));
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&b), 1);
}

MISUSE(provider_get_rcu, null)
{
	KUNIT_EXPECT_NULL(test, WARNS(revocable_provider_get_rcu(NULL)));
}

MISUSE(provider_get_rcu, after_revoke)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);

	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_NULL(test, revocable_provider_get_rcu(&rp));
}

MISUSE(provider_get, null)
{
	KUNIT_EXPECT_NULL(test, revocable_provider_get(NULL));
}

MISUSE(provider_put, null)
{
	revocable_provider_put(NULL);
}

MISUSE(provider_put, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable acc;

	revocable_provider_put(ref);
	/* Would drop the owner's reference of a live provider: refused. */
	WARNS_VOID(revocable_provider_put(ref));
	ref = revocable_provider_get_rcu(&rp);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	KUNIT_EXPECT_PTR_EQ(test, revocable_access(ref, &acc), TEST_RES);
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
}

MISUSE(revoke, null)
{
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke(NULL)), -EINVAL);
}

MISUSE(revoke, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);

	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 0);
}

/*
 * A provider in two slots.  A consumer's reference keeps the shell: without
 * one the second slot would point at freed memory (undefined).
 */
MISUSE(revoke, second_slot)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider __rcu *other = rp;
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable acc;

	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke(&other)), 0);
	KUNIT_EXPECT_NULL(test, unrcu_pointer(other));
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
}

MISUSE(revoke, inside_access)
{
	struct misuse_held h;
	struct revocable later;

	skip_unless_inside_access_found(test);
	misuse_enter(test, &h);
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke(&h.slot)), -EDEADLK);
	/* Revoked for new accesses; the drop comes once the reader leaves. */
	KUNIT_EXPECT_NULL(test, revocable_access(h.ref, &later));
	revocable_withdraw_access(&later);
	misuse_leave(test, &h);
}

MISUSE(provider_revoke, null)
{
	WARNS_VOID(revocable_provider_revoke(NULL));
}

MISUSE(provider_revoke, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);

	revocable_provider_revoke(&rp);
	KUNIT_EXPECT_NULL(test, unrcu_pointer(rp));
	/* An empty slot: nothing to do, and no warning. */
	revocable_provider_revoke(&rp);
}

MISUSE(provider_revoke, inside_access)
{
	struct misuse_held h;
	struct revocable later;

	skip_unless_inside_access_found(test);
	misuse_enter(test, &h);
	/* Revoked for new accesses; the drop comes once the reader leaves. */
	WARNS_VOID(revocable_provider_revoke(&h.slot));
	KUNIT_EXPECT_NULL(test, unrcu_pointer(h.slot));
	KUNIT_EXPECT_NULL(test, revocable_access(h.ref, &later));
	revocable_withdraw_access(&later);
	misuse_leave(test, &h);
}

MISUSE(revoke_async, null)
{
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_async(NULL, NULL, NULL)),
			-EINVAL);
}

static void misuse_count_done(void *arg)
{
	atomic_inc(arg);
}

MISUSE(revoke_async, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	atomic_t done = ATOMIC_INIT(0);

	KUNIT_EXPECT_EQ(test, revocable_revoke_async(&rp, misuse_count_done, &done),
			1);
	/* The slot is empty: 0, and this done never runs. */
	KUNIT_EXPECT_EQ(test, revocable_revoke_async(&rp, misuse_count_done, &done),
			0);
	KUNIT_EXPECT_EQ(test,
			revocable_domain_barrier(revocable_default_domain()), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&done), 1);
}

MISUSE(revoke_async, second_slot)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider __rcu *other = rp;
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	atomic_t done = ATOMIC_INIT(0);

	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	KUNIT_EXPECT_EQ(test,
			WARNS(revocable_revoke_async(&other, misuse_count_done, &done)),
			0);
	KUNIT_EXPECT_EQ(test,
			revocable_domain_barrier(revocable_default_domain()), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&done), 0);
	revocable_provider_put(ref);
}

MISUSE(revoke_batch, null)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider __rcu **slots[2] = { NULL, &rp };

	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_batch(NULL, 1)), -EINVAL);
	/* A NULL entry is skipped; the others are revoked. */
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_batch(slots, 2)), 1);
	KUNIT_EXPECT_NULL(test, unrcu_pointer(rp));
}

MISUSE(revoke_batch, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider __rcu *other = rp;
	struct revocable_provider __rcu **slots[2] = { &rp, &other };

	/* One provider in two slots of the batch: revoked once. */
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_batch(slots, 2)), 1);
	KUNIT_EXPECT_EQ(test, revocable_revoke_batch(slots, 2), 0);
}

MISUSE(revoke_batch, inside_access)
{
	struct revocable_provider __rcu **slots[1];
	struct misuse_held h;

	skip_unless_inside_access_found(test);
	misuse_enter(test, &h);
	slots[0] = &h.slot;
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_batch(slots, 1)), -EDEADLK);
	KUNIT_EXPECT_NULL(test, unrcu_pointer(h.slot));
	misuse_leave(test, &h);
}

MISUSE(revoke_begin, null)
{
	KUNIT_EXPECT_NULL(test, WARNS(revocable_revoke_begin(NULL)));
}

MISUSE(revoke_begin, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider *begun = revocable_revoke_begin(&rp);

	KUNIT_ASSERT_NOT_NULL(test, begun);
	KUNIT_EXPECT_NULL(test, revocable_revoke_begin(&rp));
	KUNIT_EXPECT_EQ(test, revocable_revoke_wait(begun), 0);
}

MISUSE(revoke_begin, second_slot)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider __rcu *other = rp;
	struct revocable_provider *begun = revocable_revoke_begin(&rp);

	KUNIT_ASSERT_NOT_NULL(test, begun);
	KUNIT_EXPECT_NULL(test, WARNS(revocable_revoke_begin(&other)));
	KUNIT_EXPECT_EQ(test, revocable_revoke_wait(begun), 0);
}

MISUSE(revoke_wait, null)
{
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_wait(NULL)), -EINVAL);
}

MISUSE(revoke_wait, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable_provider *begun = revocable_revoke_begin(&rp);
	struct revocable acc;

	KUNIT_ASSERT_PTR_EQ(test, begun, ref);
	/* An access between the begin and the wait gets NULL. */
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	KUNIT_EXPECT_EQ(test, revocable_revoke_wait(begun), 0);
	/* A second drop would free the shell under ref. */
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_wait(begun)), -EINVAL);
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
}

MISUSE(revoke_wait, out_of_order)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable acc;

	/* Never begun, live: refused, the owner's reference stays. */
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_wait(ref)), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, revocable_access(ref, &acc), TEST_RES);
	revocable_withdraw_access(&acc);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
	/* Revoked without begin: refused too. */
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_wait(ref)), -EINVAL);
	revocable_provider_put(ref);
}

MISUSE(revoke_wait, after_async)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct completion done;

	init_completion(&done);
	KUNIT_EXPECT_EQ(test, revocable_revoke_async(&rp, test_async_done, &done),
			1);
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_wait(ref)), -EINVAL);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&done, TEST_TIMEOUT), 0);
	revocable_provider_put(ref);
}

MISUSE(revoke_wait, inside_access)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref, *begun;
	struct revocable acc;

	skip_unless_inside_access_found(test);
	rp = revocable_provider_alloc(TEST_RES);
	ref = revocable_provider_get_rcu(&rp);
	begun = revocable_revoke_begin(&rp);
	KUNIT_ASSERT_PTR_EQ(test, begun, ref);
	KUNIT_EXPECT_NULL(test, revocable_access(ref, &acc));
	/* Refused with nothing done: the wait may be called again outside. */
	KUNIT_EXPECT_EQ(test, WARNS(revocable_revoke_wait(begun)), -EDEADLK);
	revocable_withdraw_access(&acc);
	KUNIT_EXPECT_EQ(test, revocable_revoke_wait(begun), 0);
	revocable_provider_put(ref);
}

MISUSE(access, null)
{
	struct revocable acc;

	KUNIT_EXPECT_NULL(test, revocable_access(NULL, &acc));
	revocable_withdraw_access(&acc);
}

MISUSE(access_unchecked, null)
{
	KUNIT_EXPECT_NULL(test, WARNS(revocable_access_unchecked(NULL)));
}

MISUSE(try_access_with, null)
{
	struct revocable_provider __rcu *none = NULL;
	void *res;

	/* No provider (an empty slot): the scope sees NULL. */
	REVOCABLE_TRY_ACCESS_WITH(none, res);
	KUNIT_EXPECT_NULL(test, res);
}

MISUSE(try_access_scoped, null)
{
	struct revocable_provider __rcu *none = NULL;
	bool ran = false;
	void *res;

	/* The block runs once, with NULL. */
	REVOCABLE_TRY_ACCESS_SCOPED(none, res) {
		KUNIT_EXPECT_NULL(test, res);
		ran = true;
	}
	KUNIT_EXPECT_TRUE(test, ran);
}

MISUSE(init, null)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable rev;

	KUNIT_EXPECT_EQ(test, WARNS(revocable_init(rp, NULL)), -EINVAL);
	/* A NULL provider: an inert handle. */
	KUNIT_EXPECT_EQ(test, revocable_init(NULL, &rev), -ENODEV);
	KUNIT_EXPECT_NULL(test, revocable_try_access(&rev));
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
}

MISUSE(try_access, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable rev;

	KUNIT_ASSERT_EQ(test, revocable_init(rp, &rev), 0);
	KUNIT_EXPECT_PTR_EQ(test, revocable_try_access(&rev), TEST_RES);
	/* Nested on one handle: refused, the first access untouched. */
	KUNIT_EXPECT_NULL(test, WARNS(revocable_try_access(&rev)));
	revocable_withdraw_access(&rev);
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
}

MISUSE(try_access, after_deinit)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable rev;

	KUNIT_ASSERT_EQ(test, revocable_init(rp, &rev), 0);
	revocable_deinit(&rev);
	KUNIT_EXPECT_NULL(test, WARNS(revocable_try_access(&rev)));
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
}

MISUSE(withdraw_access, out_of_order)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable rev;

	KUNIT_ASSERT_EQ(test, revocable_init(rp, &rev), 0);
	WARNS_VOID(revocable_withdraw_access(&rev));
	KUNIT_EXPECT_PTR_EQ(test, revocable_try_access(&rev), TEST_RES);
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
}

MISUSE(deinit, twice)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable rev;

	KUNIT_ASSERT_EQ(test, revocable_init(rp, &rev), 0);
	revocable_deinit(&rev);
	WARNS_VOID(revocable_deinit(&rev));
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
}

MISUSE(deinit, inside_access)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(TEST_RES);
	struct revocable rev;

	KUNIT_ASSERT_EQ(test, revocable_init(rp, &rev), 0);
	KUNIT_EXPECT_PTR_EQ(test, revocable_try_access(&rev), TEST_RES);
	/* Withdraws first: the revoke below does not wait for it. */
	WARNS_VOID(revocable_deinit(&rev));
	KUNIT_EXPECT_EQ(test, revocable_revoke(&rp), 1);
}

static struct kunit_case revocable_misuse_cases[] = {
	MISUSE_CASE(domain_alloc, null),
	MISUSE_CASE(domain_free, null),
	MISUSE_CASE(domain_free, default_domain),
	MISUSE_CASE(domain_free, out_of_order),
	MISUSE_CASE(domain_free, inside_access),
	MISUSE_CASE(domain_barrier, null),
	MISUSE_CASE(domain_barrier, inside_access),
	MISUSE_CASE(domain_set_slow, null),
	MISUSE_CASE(provider_alloc, null),
	MISUSE_CASE(provider_alloc_in, null),
	MISUSE_CASE(provider_publish, null),
	MISUSE_CASE(provider_publish, twice),
	MISUSE_CASE(provider_get_rcu, null),
	MISUSE_CASE(provider_get_rcu, after_revoke),
	MISUSE_CASE(provider_get, null),
	MISUSE_CASE(provider_put, null),
	MISUSE_CASE(provider_put, twice),
	MISUSE_CASE(revoke, null),
	MISUSE_CASE(revoke, twice),
	MISUSE_CASE(revoke, second_slot),
	MISUSE_CASE(revoke, inside_access),
	MISUSE_CASE(provider_revoke, null),
	MISUSE_CASE(provider_revoke, twice),
	MISUSE_CASE(provider_revoke, inside_access),
	MISUSE_CASE(revoke_async, null),
	MISUSE_CASE(revoke_async, twice),
	MISUSE_CASE(revoke_async, second_slot),
	MISUSE_CASE(revoke_batch, null),
	MISUSE_CASE(revoke_batch, twice),
	MISUSE_CASE(revoke_batch, inside_access),
	MISUSE_CASE(revoke_begin, null),
	MISUSE_CASE(revoke_begin, twice),
	MISUSE_CASE(revoke_begin, second_slot),
	MISUSE_CASE(revoke_wait, null),
	MISUSE_CASE(revoke_wait, twice),
	MISUSE_CASE(revoke_wait, out_of_order),
	MISUSE_CASE(revoke_wait, after_async),
	MISUSE_CASE(revoke_wait, inside_access),
	MISUSE_CASE(access, null),
	MISUSE_CASE(access_unchecked, null),
	MISUSE_CASE(try_access_with, null),
	MISUSE_CASE(try_access_scoped, null),
	MISUSE_CASE(init, null),
	MISUSE_CASE(try_access, twice),
	MISUSE_CASE(try_access, after_deinit),
	MISUSE_CASE(withdraw_access, out_of_order),
	MISUSE_CASE(deinit, twice),
	MISUSE_CASE(deinit, inside_access),
	{}
};

static struct kunit_suite revocable_misuse_suite = {
	.name = "revocable_misuse",
	.test_cases = revocable_misuse_cases,
};

static struct kunit_case revocable_test_cases[] = {
	KUNIT_CASE(revocable_test_basic),
	KUNIT_CASE(revocable_test_revocation),
	KUNIT_CASE(revocable_test_with_macro),
	KUNIT_CASE(revocable_test_scoped_macro),
	KUNIT_CASE(revocable_test_provider_use_after_free),
	KUNIT_CASE(revocable_test_concurrent_access),
	KUNIT_CASE(revocable_test_i1_revoke_waits_for_readers),
	KUNIT_CASE(revocable_test_i2_access_valid_during_revoke),
	KUNIT_CASE(revocable_test_i3_nested_handle_refused),
	KUNIT_CASE(revocable_test_i4_provider_outlives_refs),
	KUNIT_CASE(revocable_test_i5_revoke_idempotent),
	KUNIT_CASE(revocable_test_i6_access_writes_nothing_shared),
	KUNIT_CASE(revocable_test_i7_revoke_inside_access),
	KUNIT_CASE(revocable_test_bug1_shared_handle),
	KUNIT_CASE(revocable_test_bug2_get_races_release),
	KUNIT_CASE(revocable_test_bug3_no_dangling_pointer),
	KUNIT_CASE(revocable_test_bug4_concurrent_revokers),
	KUNIT_CASE(revocable_test_two_phase_wakes_sleeper),
	KUNIT_CASE(revocable_test_domains_are_independent),
	KUNIT_CASE(revocable_test_async_and_batch),
	KUNIT_CASE(revocable_test_slow_revoke_reported),
	KUNIT_CASE(revocable_test_devm_revokes_at_unbind),
	KUNIT_CASE(revocable_test_bound_accessor),
	KUNIT_CASE(revocable_test_scope_class),
	{}
};

static struct kunit_suite revocable_test_suite = {
	.name = "revocable",
	.test_cases = revocable_test_cases,
};

kunit_test_suites(&revocable_test_suite, &revocable_misuse_suite);

MODULE_DESCRIPTION("KUnit tests for revocable resources");
MODULE_LICENSE("GPL");
