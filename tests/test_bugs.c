// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * docs/design.md, "Upstream defects": a regression test for each upstream
 * defect, plus the two problems from the debate (per-access cost, hung
 * tasks).
 */
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include <linux/compiler.h>
#include <linux/srcu.h>

#include "testutil.h"

/*
 * Bug 1, reproduced on the SRCU layer itself: two contexts store their
 * read indices in one shared variable; the index flips between their
 * locks; both unlock with the last index written.  The grace period then
 * never ends, exactly as upstream's revoke hung.  This proves the compat
 * SRCU is faithful enough for the next test to mean something.
 */
DEFINE_STATIC_SRCU(bug1_srcu);

TEST_SUITE("upstream-bugs");
TEST_GROUP(regressions, "regressions", 60);

TEST(regressions, bug1_shared_index_hangs_raw_srcu)
{
	struct test_syncer gp;
	int shared_idx, a, b;
	unsigned long t0;

	a = srcu_read_lock(&bug1_srcu);
	shared_idx = a;
	test_syncer_start(&gp, &bug1_srcu);
	/* The grace period flips the index, then waits for a. */
	for (t0 = test_now_ms(); (READ_ONCE(bug1_srcu.reader.idx) & 1) == (unsigned int)a &&
	     test_now_ms() - t0 < test_bound_ms(5000);)
		test_sleep_ms(1);
	b = srcu_read_lock(&bug1_srcu);
	shared_idx = b;		/* the second context overwrites the index */
	ck_assert_int_ne(a, b);
	srcu_read_unlock(&bug1_srcu, shared_idx);
	srcu_read_unlock(&bug1_srcu, shared_idx);
	ck_assert_msg(!test_thread_join(&gp.thread, 300),
		      "corrupted index did not stall the grace period");
	/*
	 * Repair the sums so the process can finish cleanly: index b got one
	 * unlock too many, so count one lock under it (the grace period is
	 * stuck after its flip, so b is current); index a lacks its unlock.
	 */
	ck_assert_int_eq(srcu_read_lock(&bug1_srcu), b);
	srcu_read_unlock(&bug1_srcu, a);
	JOIN_OR_FAIL(&gp.thread, 5000);
}
END_TEST

/*
 * Bug 1 against our handle (the same interleaving through one shared
 * struct revocable: the second access is refused, the owner's index is
 * intact, the revoke completes) is the KUnit case
 * revocable_test_bug1_shared_handle, which the kunit suite runs here too.
 */

/*
 * Bug 2: creating a consumer from a provider whose last reference is being
 * dropped.  Upstream dereferenced a pointer passed by value; here the
 * reference is taken from the slot, under RCU, and must never succeed on a
 * provider whose count reached zero nor touch freed memory (valgrind and
 * ASan runs of this test check the latter).
 */
struct bug2_ctx {
	struct revocable_provider __rcu **slot;
	volatile bool *stop;
	unsigned long refs;
	struct test_thread thread;
};

static void *bug2_consumer(void *arg)
{
	struct bug2_ctx *c = arg;
	struct revocable rev;

	while (!READ_ONCE(*c->stop)) {
		struct revocable_provider *ref = revocable_provider_get_rcu(c->slot);

		if (!ref)
			continue;
		WRITE_ONCE(c->refs, c->refs + 1);
		if (!revocable_init(ref, &rev)) {
			revocable_try_access(&rev);
			revocable_withdraw_access(&rev);
			revocable_deinit(&rev);
		}
		revocable_provider_put(ref);
	}
	return NULL;
}

TEST(regressions, bug2_consumer_creation_races_release)
{
	struct revocable_provider __rcu *slot = NULL;
	volatile bool stop = false;
	struct bug2_ctx c[2];
	unsigned long w = compat_warn_count(), end;
	int i;

	for (i = 0; i < 2; i++) {
		c[i] = (struct bug2_ctx){ .slot = &slot, .stop = &stop };
		test_thread_start(&c[i].thread, bug2_consumer, &c[i]);
	}
	end = test_now_ms() + 300;
	/* Until time is up and the consumers got references (5 s more at most). */
	while (test_now_ms() < end ||
	       (!READ_ONCE(c[0].refs) && !READ_ONCE(c[1].refs) &&
		test_now_ms() < end + 5000)) {
		rcu_assign_pointer(slot, revocable_provider_alloc((void *)1));
		sched_yield();
		ck_assert_int_eq(revocable_revoke_async(&slot, NULL, NULL), 1);
	}
	WRITE_ONCE(stop, true);
	for (i = 0; i < 2; i++)
		JOIN_OR_FAIL(&c[i].thread, 5000);
	ck_assert_uint_gt(c[0].refs + c[1].refs, 0);
	ck_assert_uint_eq(compat_warn_count(), w);
}
END_TEST

/*
 * Bug 3: upstream's own selftest kept the provider pointer in
 * inode->i_private after revoke.  Here a "file" holds a consumer
 * reference from open to release: after the provider is revoked and its
 * resource freed, reads report the resource gone, and the slot is empty.
 */
struct file {
	struct revocable_provider *ref;
};

static int file_open(struct revocable_provider __rcu **slot, struct file *f)
{
	f->ref = revocable_provider_get_rcu(slot);
	return f->ref ? 0 : -ENODEV;
}

static const char *file_read(struct file *f)
{
	const char *ret;
	const char *res;

	REVOCABLE_TRY_ACCESS_WITH(f->ref, res);
	ret = res ? res : "(gone)";
	return ret;
}

TEST(regressions, bug3_no_dangling_provider_after_revoke)
{
	char *res = strdup("hello");
	struct revocable_provider __rcu *slot = revocable_provider_alloc(res);
	struct file f;

	ck_assert_int_eq(file_open(&slot, &f), 0);
	ck_assert_str_eq(file_read(&f), "hello");
	revocable_provider_revoke(&slot);
	ck_assert_ptr_null(slot);	/* the revoker's copy is gone */
	free(res);
	ck_assert_str_eq(file_read(&f), "(gone)");
	revocable_provider_put(f.ref);	/* "close": the last reference */
	ck_assert_int_eq(file_open(&slot, &f), -ENODEV);
	ck_assert_ptr_null(f.ref);
}
END_TEST

/*
 * Bug 4: rcu_replace_pointer() is a load and a store; two revokers could
 * both see the provider and both drop the owner's reference.  Two threads
 * race revocable_revoke_begin() on a freshly published slot, round after
 * round, each after a varying short spin so that their relative timing
 * sweeps across the window: exactly one may win each round.
 */
struct bug4_racer {
	struct revocable_provider __rcu **slot;
	atomic_ulong *go, *done;
	unsigned long rounds;
	struct revocable_provider *won;
	struct test_thread thread;
};

static void bug4_spin(unsigned long r)
{
	for (unsigned long i = (r * 2654435761UL) % 64; i; i--)
		barrier();
}

static void *bug4_fn(void *arg)
{
	struct bug4_racer *r = arg;

	for (unsigned long i = 1; i <= r->rounds; i++) {
		for (unsigned int n = 0; atomic_load(r->go) != i; n++)
			if (n > 1000 || test_slow())
				sched_yield();
		bug4_spin(i);
		r->won = revocable_revoke_begin(r->slot);
		atomic_store(r->done, i);
	}
	return NULL;
}

TEST(regressions, bug4_concurrent_revokers_single_winner)
{
	struct revocable_domain *dom = revocable_domain_alloc("bug4");
	struct revocable_provider __rcu *slot = NULL;
	struct revocable_provider *mine;
	atomic_ulong go = 0, done = 0;
	const unsigned long rounds = test_slow() ? 300 : 10000;
	unsigned long w = compat_warn_count(), i, doubles = 0;
	struct bug4_racer r = { .slot = &slot, .go = &go, .done = &done,
				.rounds = rounds };

	/* Plain synchronize_srcu() per round: this test is about the slot. */
	revocable_domain_set_slow(dom, 0, NULL, NULL);
	test_thread_start(&r.thread, bug4_fn, &r);
	for (i = 1; i <= rounds; i++) {
		rcu_assign_pointer(slot, revocable_provider_alloc_in(dom, (void *)1));
		atomic_store(&go, i);
		bug4_spin(i + 7);
		mine = revocable_revoke_begin(&slot);
		for (unsigned int n = 0; atomic_load(&done) != i; n++)
			if (n > 1000 || test_slow())
				sched_yield();
		if (mine && r.won)
			doubles++;
		ck_assert(mine || r.won);
		/* Finish once, whoever won, so a double win cannot double-put. */
		ck_assert_int_eq(revocable_revoke_wait(mine ? mine : r.won), 0);
	}
	JOIN_OR_FAIL(&r.thread, 10000);
	ck_assert_msg(doubles == 0, "%lu rounds had two winning revokers", doubles);
	ck_assert_uint_eq(compat_warn_count(), w);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/*
 * Hung tasks: a reader sleeps inside an access waiting for the device.
 * Two-phase revoke fails new accesses, wakes the reader, then waits; the
 * whole removal finishes promptly.
 */
struct sleeper {
	struct revocable_provider *ref;
	struct completion inside;
	struct completion *device_event;	/* "I/O completes" */
	int result;
	struct test_thread thread;
};

static void *sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	struct revocable acc;

	if (!revocable_access(s->ref, &acc)) {
		s->result = -ENODEV;
	} else {
		complete(&s->inside);
		wait_for_completion(s->device_event);	/* sleeps in access */
		s->result = -EIO;
	}
	revocable_withdraw_access(&acc);
	return NULL;
}

TEST(regressions, hung_task_avoided_by_two_phase_revoke)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable_provider *begun;
	struct completion device_event;
	struct sleeper s;
	struct revocable acc;
	unsigned long t0;

	init_completion(&device_event);
	s = (struct sleeper){ .ref = revocable_provider_get_rcu(&rp),
			      .device_event = &device_event };
	init_completion(&s.inside);
	test_thread_start(&s.thread, sleeper_fn, &s);
	WAIT_OR_FAIL(&s.inside, 5000);

	t0 = test_now_ms();
	begun = revocable_revoke_begin(&rp);
	ck_assert_ptr_nonnull(begun);
	ck_assert_ptr_null(revocable_access(s.ref, &acc));
	revocable_withdraw_access(&acc);
	complete_all(&device_event);	/* the driver fails pending I/O */
	ck_assert_int_eq(revocable_revoke_wait(begun), 0);
	ck_assert_uint_lt(test_now_ms() - t0, test_bound_ms(2000));
	JOIN_OR_FAIL(&s.thread, 5000);
	ck_assert_int_eq(s.result, -EIO);
	revocable_provider_put(s.ref);
}
END_TEST

/*
 * The gpiolib regression: upstream moved a reference count on every
 * access.  Accesses through the upstream-compatible macro here leave the
 * provider's memory (and so its count) untouched.
 */
TEST(regressions, perf_regression_macro_moves_no_refcount)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	unsigned char before[48];
	void *res;
	int i;

	memcpy(before, rp, sizeof(before));
	for (i = 0; i < 100; i++) {
		REVOCABLE_TRY_ACCESS_SCOPED(rp, res)
			ck_assert_ptr_nonnull(res);
	}
	ck_assert_mem_eq(before, rp, sizeof(before));
	revocable_provider_revoke(&rp);
}
END_TEST
