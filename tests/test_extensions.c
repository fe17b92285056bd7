// SPDX-License-Identifier: LGPL-2.1-or-later
/* The extensions of docs/design.md, "API contract", one behaviour per test. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/compiler.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "testutil.h"

TEST_SUITE("extensions");
TEST_GROUP(extensions, "extensions", 30);

TEST(extensions, domain_alloc_access_revoke_free)
{
	struct revocable_domain *dom = revocable_domain_alloc("d");
	struct revocable_provider __rcu *rp;
	void *res;

	ck_assert_ptr_nonnull(dom);
	rp = revocable_provider_alloc_in(dom, (void *)7);
	ck_assert_ptr_nonnull(rp);
	REVOCABLE_TRY_ACCESS_SCOPED(rp, res)
		ck_assert_ptr_eq(res, (void *)7);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/* A reader parked in domain A never delays a revoke in domain B. */
TEST(extensions, domain_revoke_ignores_other_domains_readers)
{
	struct revocable_domain *a = revocable_domain_alloc("a");
	struct revocable_provider __rcu *ra = revocable_provider_alloc_in(a, (void *)1);
	struct revocable_provider __rcu *rb = revocable_provider_alloc((void *)2);
	struct test_reader b;
	unsigned long t0;

	test_reader_start(&b, revocable_provider_get_rcu(&ra), 0, NULL);
	t0 = test_now_ms();
	ck_assert_int_eq(revocable_revoke(&rb), 1);
	ck_assert_uint_lt(test_now_ms() - t0, test_bound_ms(1000));
	test_reader_stop(&b);
	revocable_provider_put(b.ref);
	revocable_provider_revoke(&ra);
	ck_assert_int_eq(revocable_domain_free(a), 0);
}
END_TEST

/*
 * A provider that is still published keeps its domain: the free warns and
 * refuses.  Once it is revoked, a consumer's reference no longer does: the
 * free returns at once, without waiting, and the domain's memory lives
 * until the reference is put (ASan and valgrind see the access below).
 */
TEST(extensions, domain_free_refuses_while_providers_live)
{
	struct revocable_domain *dom = revocable_domain_alloc("busy");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct revocable_provider *ref;
	struct revocable acc;
	int ret = 0;

	ck_assert_uint_eq(WARNS(ret = revocable_domain_free(dom)), 1);
	ck_assert_int_eq(ret, -EBUSY);
	ref = revocable_provider_get_rcu(&rp);
	revocable_provider_revoke(&rp);
	ck_assert_uint_eq(WARNS(ret = revocable_domain_free(dom)), 0);
	ck_assert_int_eq(ret, 0);
	/* The reference still reaches the domain's read side. */
	ck_assert_ptr_null(revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
}
END_TEST

static int domain_id(struct revocable_domain *dom)
{
	return ((const struct __revocable_srcu *)
		((const struct __revocable_domain_head *)dom)->ssp)->id;
}

/*
 * The last reference, put after the owner freed the domain, frees it
 * later, without anyone waiting: its SRCU id comes back once the RCU
 * callback thread has run the deferred free (rcu_barrier() waits for
 * that here).  Freed in the owner's call when the provider is already
 * released: the id is free at once.
 */
TEST(extensions, domain_freed_by_last_release)
{
	struct revocable_domain *dom = revocable_domain_alloc("late");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	int id = domain_id(dom);

	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
	revocable_provider_put(ref);
	rcu_barrier();
	dom = revocable_domain_alloc("again");
	ck_assert_int_eq(domain_id(dom), id);

	rp = revocable_provider_alloc_in(dom, (void *)1);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
	dom = revocable_domain_alloc("third");
	ck_assert_int_eq(domain_id(dom), id);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/*
 * Domain ids have no cap (there used to be 64): many more domains than
 * that live at once, each usable, and freed ids are handed out again.
 */
TEST(extensions, domain_ids_have_no_cap_and_are_reused)
{
	enum { N = 300 };
	struct revocable_domain **doms = calloc(N, sizeof(*doms));
	struct revocable_provider __rcu *rp;
	struct revocable acc;
	int i, id;

	ck_assert_ptr_nonnull(doms);
	for (i = 0; i < N; i++) {
		doms[i] = revocable_domain_alloc("many");
		ck_assert_ptr_nonnull(doms[i]);
	}
	rp = revocable_provider_alloc_in(doms[N - 1], (void *)1);
	ck_assert_ptr_eq(revocable_access(rp, &acc), (void *)1);
	revocable_withdraw_access(&acc);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	id = ((const struct __revocable_srcu *)
	      ((const struct __revocable_domain_head *)doms[N / 2])->ssp)->id;
	ck_assert_int_eq(revocable_domain_free(doms[N / 2]), 0);
	doms[N / 2] = revocable_domain_alloc("again");
	ck_assert_ptr_nonnull(doms[N / 2]);
	ck_assert_int_eq(((const struct __revocable_srcu *)
			  ((const struct __revocable_domain_head *)
			   doms[N / 2])->ssp)->id, id);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(revocable_domain_free(doms[i]), 0);
	free(doms);
}
END_TEST

TEST(extensions, get_rcu_counts_and_put_releases)
{
	struct revocable_domain *dom = revocable_domain_alloc("refs");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct revocable_provider *a, *b;

	a = revocable_provider_get_rcu(&rp);
	b = revocable_provider_get(a);
	ck_assert_ptr_eq(a, b);
	revocable_provider_revoke(&rp);
	/* Each reference pins the shell, and the shell its domain. */
	ck_assert_int_eq(revocable_domain_free(dom), 0);
	revocable_provider_put(a);
	ck_assert_ptr_null(revocable_access_unchecked(b));
	revocable_provider_put(b);
}
END_TEST

TEST(extensions, get_rcu_on_empty_slot_is_null)
{
	struct revocable_provider __rcu *rp = NULL;

	ck_assert_ptr_null(revocable_provider_get_rcu(&rp));
	ck_assert_ptr_null(revocable_provider_get(NULL));
	revocable_provider_put(NULL);
}
END_TEST

TEST(extensions, revoke_reports_who_revoked)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);

	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_int_eq(revocable_revoke(&rp), 0);
}
END_TEST

struct async_done {
	struct completion done;
	int calls;
};

static void async_cb(void *arg)
{
	struct async_done *d = arg;

	d->calls++;
	complete(&d->done);
}

TEST(extensions, async_revoke_calls_back_after_readers)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct async_done d = { .calls = 0 };
	struct revocable acc;
	struct test_reader b;

	init_completion(&d.done);
	test_reader_start(&b, revocable_provider_get_rcu(&rp), 0, NULL);
	ck_assert_int_eq(revocable_revoke_async(&rp, async_cb, &d), 1);
	ck_assert_ptr_null(rp);
	ck_assert_ptr_null(revocable_access(b.ref, &acc));
	revocable_withdraw_access(&acc);
	/* Not while the reader is inside. */
	ck_assert(!wait_for_completion_timeout(&d.done, 100));
	test_reader_stop(&b);
	WAIT_OR_FAIL(&d.done, 5000);
	ck_assert_int_eq(d.calls, 1);
	revocable_provider_put(b.ref);
}
END_TEST

TEST(extensions, async_revoke_of_empty_slot_does_not_call_back)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct async_done d = { .calls = 0 };

	init_completion(&d.done);
	revocable_provider_revoke(&rp);
	ck_assert_int_eq(revocable_revoke_async(&rp, async_cb, &d), 0);
	ck_assert(!wait_for_completion_timeout(&d.done, 50));
	ck_assert_int_eq(d.calls, 0);
}
END_TEST

TEST(extensions, batch_revoke_counts_and_clears)
{
	enum { N = 100 };
	struct revocable_domain *dom = revocable_domain_alloc("batch");
	struct revocable_provider __rcu *rp[N];
	struct revocable_provider __rcu **slots[N];
	int i;

	for (i = 0; i < N; i++) {
		rp[i] = i % 2 ? revocable_provider_alloc_in(dom, (void *)1) :
				revocable_provider_alloc((void *)2);
		slots[i] = &rp[i];
	}
	revocable_provider_revoke(&rp[3]);
	revocable_provider_revoke(&rp[4]);
	ck_assert_int_eq(revocable_revoke_batch(slots, N), N - 2);
	for (i = 0; i < N; i++)
		ck_assert_ptr_null(rp[i]);
	ck_assert_int_eq(revocable_revoke_batch(slots, N), 0);
	ck_assert_int_eq(revocable_revoke_batch(NULL, 0), 0);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

TEST(extensions, batch_revoke_one_grace_period_per_domain)
{
	enum { N = 1000 };
	struct revocable_domain *dom = revocable_domain_alloc("gp");
	struct revocable_provider __rcu **rp = calloc(N, sizeof(*rp));
	struct revocable_provider __rcu ***slots = calloc(N, sizeof(*slots));
	unsigned long gp0;
	int i;

	for (i = 0; i < N; i++) {
		rp[i] = i % 3 ? revocable_provider_alloc_in(dom, (void *)1) :
				revocable_provider_alloc((void *)2);
		slots[i] = &rp[i];
	}
	gp0 = compat_srcu_gp_count();
	ck_assert_int_eq(revocable_revoke_batch(slots, N), N);
	ck_assert_uint_eq(compat_srcu_gp_count() - gp0, 2);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
	free(rp);
	free(slots);
}
END_TEST

TEST(extensions, batch_revoke_waits_for_readers)
{
	struct test_two two;
	struct test_revoker r = { .slots = two.slots, .n = 2, .ret = -1 };
	struct test_reader b;

	test_two_init(&two);
	test_reader_start(&b, revocable_provider_get_rcu(&two.rp[1]), 0, NULL);
	test_revoker_start(&r);
	ck_assert(!test_thread_join(&r.thread, 100));
	test_reader_stop(&b);
	JOIN_OR_FAIL(&r.thread, 5000);
	ck_assert_int_eq(r.ret, 2);
	revocable_provider_put(b.ref);
}
END_TEST

TEST(extensions, two_phase_begin_fails_new_accesses_wait_drains)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable_provider *begun;
	struct revocable acc;

	begun = revocable_revoke_begin(&rp);
	ck_assert_ptr_nonnull(begun);
	ck_assert_ptr_null(rp);
	ck_assert_ptr_null(revocable_access(ref, &acc));
	revocable_withdraw_access(&acc);
	ck_assert_ptr_null(revocable_revoke_begin(&rp));
	ck_assert_int_eq(revocable_revoke_wait(begun), 0);
	revocable_provider_put(ref);
}
END_TEST

TEST(extensions, two_phase_wait_without_begin_is_refused)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	int ret = 0;

	ck_assert_uint_eq(WARNS(ret = revocable_revoke_wait(ref)), 1);
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_uint_eq(WARNS(ret = revocable_revoke_wait(NULL)), 1);
	ck_assert_int_eq(ret, -EINVAL);
	revocable_provider_put(ref);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
}
END_TEST

struct slow_log {
	unsigned int calls;
	unsigned int last_ms;
	struct revocable_domain *dom;
};

static void slow_hook(struct revocable_domain *dom, unsigned int waited_ms,
		      void *arg)
{
	struct slow_log *log = arg;

	/* The test thread polls these while the revoker waits. */
	WRITE_ONCE(log->dom, dom);
	WRITE_ONCE(log->calls, log->calls + 1);
	WRITE_ONCE(log->last_ms, waited_ms);
}

TEST(extensions, slow_revoke_hook_reports_while_waiting)
{
	struct revocable_domain *dom = revocable_domain_alloc("slow");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct test_revoker r = { .slot = &rp, .ret = -1 };
	struct slow_log log = { 0 };
	struct test_reader b;

	ck_assert_int_eq(revocable_domain_set_slow(dom, 30, slow_hook, &log), 0);
	test_reader_start(&b, revocable_provider_get_rcu(&rp), 0, NULL);
	test_revoker_start(&r);
	/* Hold the reader until the hook has fired twice (or 5 s pass). */
	for (int i = 0; i < 500 && READ_ONCE(log.calls) < 2; i++)
		test_sleep_ms(10);
	test_reader_stop(&b);
	JOIN_OR_FAIL(&r.thread, 5000);
	ck_assert_int_eq(r.ret, 1);
	ck_assert_uint_ge(log.calls, 2);
	ck_assert_uint_ge(log.last_ms, 60);
	ck_assert_ptr_eq(log.dom, dom);
	revocable_provider_put(b.ref);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/* The default report names the domain and the thread inside it. */
TEST(extensions, slow_revoke_default_report_names_reader_thread)
{
	struct revocable_domain *dom = revocable_domain_alloc("slowdom");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct test_revoker r = { .slot = &rp, .ret = -1 };
	struct test_reader b;

	revocable_domain_set_slow(dom, 30, NULL, NULL);
	test_reader_start(&b, revocable_provider_get_rcu(&rp), 0, "stuckreader");
	test_log_capture();
	test_revoker_start(&r);
	/* Hold the reader until the report is out (or 5 s pass). */
	test_log_wait_for("stuckreader", 5000);
	ck_assert_msg(READ_ONCE(r.ret) == -1, "revoke returned with a reader inside");
	test_reader_stop(&b);
	JOIN_OR_FAIL(&r.thread, 5000);
	ck_assert_int_eq(r.ret, 1);
	ck_assert_ptr_nonnull(strstr(test_log_text(), "slowdom"));
	ck_assert_ptr_nonnull(strstr(test_log_text(), "stuckreader"));
	test_log_end();
	revocable_provider_put(b.ref);
	revocable_domain_free(dom);
}
END_TEST

TEST(extensions, unchecked_access_returns_resource_until_revoked)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)9);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);

	ck_assert_ptr_eq(revocable_access_unchecked(ref), (void *)9);
	revocable_provider_revoke(&rp);
	ck_assert_ptr_null(revocable_access_unchecked(ref));
	revocable_provider_put(ref);
}
END_TEST

TEST(extensions, access_through_null_provider_is_null)
{
	struct revocable acc;
	unsigned long w = compat_warn_count();

	ck_assert_ptr_null(revocable_access(NULL, &acc));
	revocable_withdraw_access(&acc);
	ck_assert_uint_eq(compat_warn_count(), w);
}
END_TEST

/* Threads that never registered, and that exit, are handled for them. */
static void *short_lived(void *arg)
{
	struct revocable_provider *ref = arg;
	void *res;

	REVOCABLE_TRY_ACCESS_WITH(ref, res);
	return res;
}

TEST(extensions, threads_need_no_registration)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	pthread_t t;
	void *ret;
	int i;

	for (i = 0; i < 50; i++) {
		ck_assert_int_eq(pthread_create(&t, NULL, short_lived, ref), 0);
		pthread_join(t, &ret);
		ck_assert_ptr_eq(ret, (void *)1);
	}
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	revocable_provider_put(ref);
}
END_TEST

/* ----- waits inside an access, missing workers, cheap domains ----------- */

static void count_done(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

static int done_count(int *n)
{
	return __atomic_load_n(n, __ATOMIC_SEQ_CST);
}

/*
 * Inside an access of a domain, waiting for that domain's deferred work
 * would wait for the access itself once an async revoke is pending: the
 * barrier and domain_free() warn and return -EDEADLK at once (they used to
 * hang), pending or not, and the domain is intact.  Outside the access
 * both work, and the pending revoke completes.
 */
TEST(extensions, domain_waits_inside_access_are_refused)
{
	struct revocable_domain *dom = revocable_domain_alloc("waits");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct revocable_provider __rcu *other = revocable_provider_alloc_in(dom, (void *)2);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct revocable acc;
	int done = 0, ret = 0;

	ck_assert_ptr_eq(revocable_access(ref, &acc), (void *)1);
	ck_assert_uint_eq(WARNS(ret = revocable_domain_barrier(dom)), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_int_eq(ret, -EDEADLK);
	/* Now with an async revoke pending behind the access. */
	ck_assert_int_eq(revocable_revoke_async(&other, count_done, &done), 1);
	ck_assert_uint_eq(WARNS(ret = revocable_domain_barrier(dom)), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_int_eq(ret, -EDEADLK);
	ck_assert_uint_eq(WARNS(ret = revocable_domain_free(dom)), 1);
	ASSERT_WARNED_IN_LIB();
	ck_assert_int_eq(ret, -EDEADLK);
	ck_assert_int_eq(done_count(&done), 0);
	revocable_withdraw_access(&acc);

	ck_assert_int_eq(revocable_domain_barrier(dom), 0);
	ck_assert_int_eq(done_count(&done), 1);
	revocable_provider_put(ref);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/* No false positive: an access of another domain does not stop them. */
TEST(extensions, domain_waits_inside_other_domains_access_work)
{
	struct revocable_domain *dom = revocable_domain_alloc("free-me");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct revocable_provider __rcu *dflt = revocable_provider_alloc((void *)2);
	struct revocable acc;
	int done = 0;

	ck_assert_ptr_eq(revocable_access(dflt, &acc), (void *)2);
	ck_assert_int_eq(revocable_revoke_async(&rp, count_done, &done), 1);
	ck_assert_uint_eq(WARNS(ck_assert_int_eq(revocable_domain_barrier(dom), 0)), 0);
	ck_assert_int_eq(done_count(&done), 1);
	ck_assert_uint_eq(WARNS(ck_assert_int_eq(revocable_domain_free(dom), 0)), 0);
	revocable_withdraw_access(&acc);
	ck_assert_int_eq(revocable_revoke(&dflt), 1);
}
END_TEST

/*
 * A domain costs microseconds to create and free, also after a provider
 * was revoked in it (the free then waits for that provider's deferred
 * free only): 10 ms each before, when every free waited for liburcu's
 * call_rcu thread and rcu_barrier().
 */
TEST(extensions, domain_create_free_is_cheap)
{
	unsigned int i, n = test_slow() ? 200 : 2000;
	unsigned long t0 = test_now_ms(), ms;

	for (i = 0; i < n; i++) {
		struct revocable_domain *dom = revocable_domain_alloc("cheap");
		struct revocable_provider __rcu *rp;

		ck_assert_ptr_nonnull(dom);
		rp = revocable_provider_alloc_in(dom, (void *)1);
		ck_assert_ptr_nonnull(rp);
		if (i & 1)
			ck_assert_int_eq(revocable_revoke(&rp), 1);
		else
			ck_assert_int_eq(revocable_revoke_async(&rp, NULL, NULL), 1);
		ck_assert_int_eq(revocable_domain_free(dom), 0);
	}
	ms = test_now_ms() - t0;
	/*
	 * 2 ms each at most, where 10 ms was the norm: each free also runs
	 * the released shells' frees (userspace), a grace period of RCU,
	 * which TSan slows to about a millisecond.
	 */
	ck_assert_msg(ms < test_bound_ms(2 * n), "%u domains took %lu ms", n, ms);
}
END_TEST

/* Out of memory, a domain or provider is NULL with errno ENOMEM. */
TEST(extensions, allocation_failure_sets_errno)
{
	errno = 0;
	compat_alloc_fail_countdown = 1;
	ck_assert_ptr_null(revocable_domain_alloc("x"));
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	compat_alloc_fail_countdown = 1;
	ck_assert_ptr_null(revocable_provider_alloc((void *)1));
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

/*
 * No thread for the RCU callbacks (pthread_create() fails once): a deferred
 * free stays queued, with a warning instead of liburcu's abort, and
 * domain_free() runs it in the caller.  The next call_rcu() that can start
 * the worker does so.
 */
TEST(extensions, deferred_free_without_rcu_worker)
{
	struct revocable_domain *dom = revocable_domain_alloc("no-rcu-worker");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	unsigned long w;
	int ret = 0;

	compat_thread_fail_countdown = 1;
	w = WARNS(ck_assert_int_eq(revocable_revoke(&rp), 1));
	if (compat_thread_fail_countdown)
		/* The worker already ran in this process: nothing to show. */
		compat_thread_fail_countdown = 0;
	else
		ck_assert_uint_eq(w, 1);
	ck_assert_uint_eq(WARNS(ret = revocable_domain_free(dom)), 0);
	ck_assert_int_eq(ret, 0);
	rp = revocable_provider_alloc((void *)2);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	ck_assert_int_eq(revocable_domain_barrier(revocable_default_domain()), 0);
}
END_TEST

/*
 * No thread for a domain's SRCU callbacks: an async revoke leaves its
 * done callback queued (never runs it in the caller, which may hold a lock
 * the callback takes); the next barrier runs it (in its caller or a worker
 * it starts), as a callback: waits from it are still refused.  A revoke
 * inside an access returns -EDEADLK at once (it used to hang) and
 * completes at the next barrier.
 */
struct inline_done {
	int done;
	int wait_ret;
	struct revocable_domain *dom;
};

static void inline_done_cb(void *arg)
{
	struct inline_done *d = arg;

	d->wait_ret = revocable_domain_barrier(d->dom);
	__atomic_add_fetch(&d->done, 1, __ATOMIC_SEQ_CST);
}

TEST(extensions, async_revoke_without_srcu_worker)
{
	struct revocable_domain *dom = revocable_domain_alloc("no-srcu-worker");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct inline_done d = { .dom = dom };
	struct revocable_provider *ref;
	struct revocable acc;
	int ret = 0;

	compat_thread_fail_countdown = 1;
	/* The start failure warns; the callback waits for a barrier. */
	ck_assert_uint_eq(WARNS(ret = revocable_revoke_async(&rp, inline_done_cb, &d)), 1);
	ck_assert_int_eq(ret, 1);
	ck_assert_uint_eq(compat_thread_fail_countdown, 0);
	ck_assert_int_eq(done_count(&d.done), 0);
	/*
	 * Still no worker: the barrier runs the queue itself.  The start
	 * failure is said once already; the barrier called from done warns.
	 */
	compat_thread_fail_countdown = 1;
	ck_assert_uint_eq(WARNS(ret = revocable_domain_barrier(dom)), 1);
	ck_assert_uint_eq(compat_thread_fail_countdown, 0);
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(done_count(&d.done), 1);
	ck_assert_int_eq(d.wait_ret, -EDEADLK);

	rp = revocable_provider_alloc_in(dom, (void *)2);
	ref = revocable_provider_get_rcu(&rp);
	ck_assert_ptr_eq(revocable_access(ref, &acc), (void *)2);
	compat_thread_fail_countdown = 1;
	ck_assert_uint_eq(WARNS(ret = revocable_revoke(&rp)), 2);
	ck_assert_int_eq(ret, -EDEADLK);
	ck_assert_ptr_null(revocable_access_unchecked(ref));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
	compat_thread_fail_countdown = 1;
	ck_assert_int_eq(revocable_domain_barrier(dom), 0);
	ck_assert_uint_eq(compat_thread_fail_countdown, 0);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/*
 * A done callback queued while no worker thread could be started, and run
 * by the next barrier, cascades as on a worker: its own async revoke in
 * the domain is queued (1), not refused as if the caller were a signal
 * handler inside the domain's queue.
 */
struct cascade {
	struct revocable_provider __rcu *dep;
	int ret;
	int dep_done;
};

static void cascade_done(void *arg)
{
	struct cascade *c = arg;

	c->ret = revocable_revoke_async(&c->dep, count_done, &c->dep_done);
}

TEST(extensions, async_cascade_without_srcu_worker)
{
	struct revocable_domain *dom = revocable_domain_alloc("cascade");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct cascade c = { .ret = -1 };

	c.dep = revocable_provider_alloc_in(dom, (void *)2);
	compat_thread_fail_countdown = 1;
	ck_assert_int_eq(revocable_revoke_async(&rp, cascade_done, &c), 1);
	ck_assert_uint_eq(compat_thread_fail_countdown, 0);
	ck_assert_int_eq(c.ret, -1);
	compat_thread_fail_countdown = 1;
	ck_assert_int_eq(revocable_domain_barrier(dom), 0);
	ck_assert_int_eq(c.ret, 1);
	ck_assert_ptr_null(c.dep);
	/* The cascaded revoke was queued after the barrier began. */
	ck_assert_int_eq(revocable_domain_barrier(dom), 0);
	ck_assert_int_eq(done_count(&c.dep_done), 1);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/* Threads of this process whose name starts with @prefix. */
static int threads_named(const char *prefix)
{
	char path[300], comm[32];
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");
	FILE *f;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, prefix, strlen(prefix)))
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * A domain's SRCU worker leaves after a second without work, so that a
 * process with many domains keeps threads only for those in use; the next
 * async revoke starts another.
 */
TEST(extensions, idle_srcu_workers_leave)
{
	enum { N = 20 };
	struct revocable_domain *dom[N];
	struct revocable_provider __rcu *rp;
	int before = threads_named("srcu-cb-"), i, done = 0;
	unsigned long end;

	for (i = 0; i < N; i++) {
		dom[i] = revocable_domain_alloc("idle");
		ck_assert_ptr_nonnull(dom[i]);
		rp = revocable_provider_alloc_in(dom[i], (void *)1);
		ck_assert_int_eq(revocable_revoke_async(&rp, count_done, &done), 1);
		ck_assert_int_eq(revocable_domain_barrier(dom[i]), 0);
	}
	ck_assert_int_eq(done_count(&done), N);
	/* The last worker has just worked (earlier ones may have left). */
	ck_assert_int_gt(threads_named("srcu-cb-"), before);
	end = test_now_ms() + test_bound_ms(5000);
	while (threads_named("srcu-cb-") > before && test_now_ms() < end)
		test_sleep_ms(50);
	ck_assert_int_le(threads_named("srcu-cb-"), before);
	/* Work again: a new worker. */
	rp = revocable_provider_alloc_in(dom[0], (void *)1);
	ck_assert_int_eq(revocable_revoke_async(&rp, count_done, &done), 1);
	ck_assert_int_eq(revocable_domain_barrier(dom[0]), 0);
	ck_assert_int_eq(done_count(&done), N + 1);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(revocable_domain_free(dom[i]), 0);
}
END_TEST

/*
 * The slow-revoke report names the domain the stuck reader is in by the
 * name it was created with, in the list of threads too.
 */
TEST(extensions, slow_revoke_report_names_domain_of_reader)
{
	struct revocable_domain *dom = revocable_domain_alloc("gpiochip7");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct test_revoker r = { .slot = &rp, .ret = -1 };
	struct test_reader b;
	char buf[4096], *line;

	revocable_domain_set_slow(dom, 30, NULL, NULL);
	test_reader_start(&b, revocable_provider_get_rcu(&rp), 0, "gpioreader");
	test_log_capture();
	test_revoker_start(&r);
	test_log_wait_for("gpioreader", 5000);
	test_reader_stop(&b);
	JOIN_OR_FAIL(&r.thread, 5000);
	snprintf(buf, sizeof(buf), "%s", test_log_text());
	test_log_end();
	ck_assert_int_eq(r.ret, 1);
	line = strstr(buf, "gpioreader");
	ck_assert_msg(line, "no report: \"%s\"", buf);
	*strchrnul(line, '\n') = '\0';
	ck_assert_msg(strstr(line, "gpiochip7"), "\"%s\" does not name the domain", line);
	ck_assert_ptr_null(strstr(buf, "&dom->srcu"));
	revocable_provider_put(b.ref);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST
