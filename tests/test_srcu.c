// SPDX-License-Identifier: LGPL-2.1-or-later
/* The compat layer's userspace SRCU and shims, tested directly. */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include <linux/kref.h>
#include <linux/srcu.h>

#include "testutil.h"

DEFINE_STATIC_SRCU(srcu_a);
DEFINE_STATIC_SRCU(srcu_b);

struct reader {
	struct srcu_struct *ssp;
	struct completion inside, leave;
	int idx;
	struct test_thread thread;
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;

	r->idx = srcu_read_lock(r->ssp);
	complete(&r->inside);
	wait_for_completion(&r->leave);
	srcu_read_unlock(r->ssp, r->idx);
	return NULL;
}

static void reader_start(struct reader *r, struct srcu_struct *ssp)
{
	r->ssp = ssp;
	init_completion(&r->inside);
	init_completion(&r->leave);
	test_thread_start(&r->thread, reader_fn, r);
	WAIT_OR_FAIL(&r->inside, 5000);
}

struct syncer {
	struct srcu_struct *ssp;
	struct test_thread thread;
};

static void *sync_fn(void *arg)
{
	synchronize_srcu(((struct syncer *)arg)->ssp);
	return NULL;
}

START_TEST(read_lock_returns_index_that_flips_per_grace_period)
{
	int a, b;

	a = srcu_read_lock(&srcu_a);
	srcu_read_unlock(&srcu_a, a);
	synchronize_srcu(&srcu_a);
	b = srcu_read_lock(&srcu_a);
	srcu_read_unlock(&srcu_a, b);
	ck_assert(a == 0 || a == 1);
	ck_assert_int_eq(b, !a);
}
END_TEST

START_TEST(synchronize_waits_for_sleeping_reader)
{
	struct reader r;
	struct syncer s = { .ssp = &srcu_a };

	reader_start(&r, &srcu_a);
	test_thread_start(&s.thread, sync_fn, &s);
	ck_assert(!test_thread_join(&s.thread, 150));
	complete(&r.leave);
	JOIN_OR_FAIL(&r.thread, 5000);
	JOIN_OR_FAIL(&s.thread, 5000);
}
END_TEST

START_TEST(synchronize_ignores_readers_of_other_domains)
{
	struct reader r;
	unsigned long t0;

	reader_start(&r, &srcu_b);
	t0 = test_now_ms();
	synchronize_srcu(&srcu_a);
	ck_assert_uint_lt(test_now_ms() - t0, test_bound_ms(1000));
	complete(&r.leave);
	JOIN_OR_FAIL(&r.thread, 5000);
}
END_TEST

static void *lock_and_exit(void *arg)
{
	pthread_setname_np(pthread_self(), "leaver");
	*(int *)arg = srcu_read_lock(&srcu_a);
	return NULL;
}

/*
 * A section left open by a thread that exits is released with it, with a
 * WARN naming the thread; grace periods do not wait for it.
 */
START_TEST(section_left_open_by_an_exiting_thread_is_released)
{
	struct syncer s = { .ssp = &srcu_a };
	unsigned long warns = compat_warn_count();
	pthread_t t;
	int idx;

	pthread_create(&t, NULL, lock_and_exit, &idx);
	pthread_join(t, NULL);
	ck_assert_uint_eq(compat_warn_count(), warns + 1);
	ck_assert_msg(!strncmp(compat_warn_last_site(), "thread.c:", 9),
		      "WARN at %s", compat_warn_last_site());
	test_thread_start(&s.thread, sync_fn, &s);
	JOIN_OR_FAIL(&s.thread, 5000);
	ck_assert(!srcu_read_lock_held(&srcu_a));
}
END_TEST

struct cb_rec {
	struct rcu_head head;
	struct completion done;
	int order;
};

static int cb_seq;

static void cb_fn(struct rcu_head *head)
{
	struct cb_rec *c = container_of(head, struct cb_rec, head);

	c->order = ++cb_seq;
	complete(&c->done);
}

START_TEST(call_srcu_runs_after_readers_in_order)
{
	struct cb_rec c[2];
	struct reader r;

	init_completion(&c[0].done);
	init_completion(&c[1].done);
	reader_start(&r, &srcu_a);
	call_srcu(&srcu_a, &c[0].head, cb_fn);
	call_srcu(&srcu_a, &c[1].head, cb_fn);
	ck_assert(!wait_for_completion_timeout(&c[0].done, 100));
	complete(&r.leave);
	JOIN_OR_FAIL(&r.thread, 5000);
	srcu_barrier(&srcu_a);
	ck_assert(completion_done(&c[0].done));
	ck_assert(completion_done(&c[1].done));
	ck_assert_int_lt(c[0].order, c[1].order);
}
END_TEST

START_TEST(read_lock_held_is_per_thread)
{
	struct reader r;
	int idx;

	ck_assert(!srcu_read_lock_held(&srcu_a));
	idx = srcu_read_lock(&srcu_a);
	ck_assert(srcu_read_lock_held(&srcu_a));
	ck_assert(!srcu_read_lock_held(&srcu_b));
	srcu_read_unlock(&srcu_a, idx);
	ck_assert(!srcu_read_lock_held(&srcu_a));
	reader_start(&r, &srcu_a);
	ck_assert(!srcu_read_lock_held(&srcu_a));
	complete(&r.leave);
	JOIN_OR_FAIL(&r.thread, 5000);
}
END_TEST

START_TEST(cleanup_with_reader_inside_warns_and_keeps_slot)
{
	struct srcu_struct s;
	int idx, slot;

	ck_assert_int_eq(init_srcu_struct(&s), 0);
	slot = s.reader.id;
	idx = srcu_read_lock(&s);
	ck_assert_uint_eq(WARNS(cleanup_srcu_struct(&s)), 1);
	srcu_read_unlock(&(struct srcu_struct){ .reader.id = slot }, idx);
	/* The slot stayed reserved: a new domain gets another one. */
	ck_assert_int_eq(init_srcu_struct(&s), 0);
	ck_assert_int_ne(s.reader.id, slot);
	cleanup_srcu_struct(&s);
}
END_TEST

struct kobj {
	struct kref kref;
	int released;
};

static void kobj_release(struct kref *kref)
{
	container_of(kref, struct kobj, kref)->released++;
}

START_TEST(kref_shim_counts_and_warns_on_underflow)
{
	struct kobj o = { .released = 0 };

	kref_init(&o.kref);
	kref_get(&o.kref);
	ck_assert_uint_eq(kref_read(&o.kref), 2);
	ck_assert_int_eq(kref_put(&o.kref, kobj_release), 0);
	ck_assert_int_eq(kref_put(&o.kref, kobj_release), 1);
	ck_assert_int_eq(o.released, 1);
	ck_assert(!kref_get_unless_zero(&o.kref));
	ck_assert_uint_eq(WARNS(kref_put(&o.kref, kobj_release)), 1);
	ck_assert_int_eq(o.released, 1);
}
END_TEST

START_TEST(completion_timeout_reports_zero_then_remaining)
{
	struct completion c;

	init_completion(&c);
	ck_assert_uint_eq(wait_for_completion_timeout(&c, 20), 0);
	complete(&c);
	ck_assert_uint_gt(wait_for_completion_timeout(&c, 1000), 0);
	ck_assert(!completion_done(&c));
}
END_TEST

Suite *test_suite(void)
{
	Suite *s = suite_create("compat-srcu");
	TCase *tc = tcase_create("srcu");

	tcase_add_checked_fixture(tc, NULL, test_quiesce);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, read_lock_returns_index_that_flips_per_grace_period);
	tcase_add_test(tc, synchronize_waits_for_sleeping_reader);
	tcase_add_test(tc, synchronize_ignores_readers_of_other_domains);
	tcase_add_test(tc, section_left_open_by_an_exiting_thread_is_released);
	tcase_add_test(tc, call_srcu_runs_after_readers_in_order);
	tcase_add_test(tc, read_lock_held_is_per_thread);
	tcase_add_test(tc, cleanup_with_reader_inside_warns_and_keeps_slot);
	tcase_add_test(tc, kref_shim_counts_and_warns_on_underflow);
	tcase_add_test(tc, completion_timeout_reports_zero_then_remaining);
	suite_add_tcase(s, tc);
	return s;
}
