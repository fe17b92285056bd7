// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The inline fast path (_LGPL_SOURCE) against the shared library, as a
 * daemon links it, and its interoperation with code built without it
 * (inline_peer.c) on the same providers and handles in one process.
 */
#define _GNU_SOURCE
#define _LGPL_SOURCE
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <revocable.h>

#include "inline_peer.h"

#ifndef __REVOCABLE_INLINE
#error "_LGPL_SOURCE must select the inline accessors"
#endif

struct res {
	int value;
	int live;		/* cleared once the revoke has returned */
};

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

START_TEST(inline_access_then_peer_withdraw_and_back)
{
	struct res r = { 7, 1 };
	struct revocable_provider __rcu *rp = revocable_provider_alloc(&r);
	struct revocable rev;
	struct res *got;

	got = revocable_access(rp, &rev);		/* inline */
	ck_assert_ptr_eq(got, &r);
	peer_withdraw(&rev);				/* out of line */
	got = peer_access(rp, &rev);			/* out of line */
	ck_assert_ptr_eq(got, &r);
	revocable_withdraw_access(&rev);		/* inline */

	ck_assert_int_eq(revocable_init(rp, &rev), 0);
	ck_assert_ptr_eq(revocable_try_access(&rev), &r);
	peer_withdraw(&rev);
	ck_assert_ptr_eq(peer_try_access(&rev), &r);
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);

	ck_assert_int_eq(peer_with(rp), 7);
	ck_assert_int_eq(peer_revoke(&rp), 1);
	ck_assert_ptr_null(revocable_access(rp, &rev));	/* NULL provider */
	revocable_withdraw_access(&rev);
}
END_TEST

struct holder {
	struct revocable_provider *rp;
	int inside, leave;
};

static void *hold_inline(void *arg)
{
	struct holder *h = arg;
	struct res *got;

	REVOCABLE_TRY_ACCESS_SCOPED(h->rp, got) {
		ck_assert_ptr_nonnull(got);
		__atomic_store_n(&h->inside, 1, __ATOMIC_SEQ_CST);
		while (!__atomic_load_n(&h->leave, __ATOMIC_SEQ_CST))
			sleep_ms(1);
		ck_assert_int_eq(got->live, 1);
	}
	return NULL;
}

struct revoker {
	struct revocable_provider __rcu **rpp;
	int done, ret;
};

static void *revoke_by_peer(void *arg)
{
	struct revoker *rv = arg;

	rv->ret = peer_revoke(rv->rpp);
	__atomic_store_n(&rv->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

START_TEST(peer_revoke_waits_for_inline_reader)
{
	struct res r = { 1, 1 };
	struct revocable_provider __rcu *rp = revocable_provider_alloc(&r);
	struct holder h = { .rp = rp };
	struct revoker rv = { .rpp = &rp };
	pthread_t a, b;

	pthread_create(&a, NULL, hold_inline, &h);
	while (!__atomic_load_n(&h.inside, __ATOMIC_SEQ_CST))
		sleep_ms(1);
	pthread_create(&b, NULL, revoke_by_peer, &rv);
	sleep_ms(100);
	ck_assert_int_eq(__atomic_load_n(&rv.done, __ATOMIC_SEQ_CST), 0);
	__atomic_store_n(&h.leave, 1, __ATOMIC_SEQ_CST);
	pthread_join(b, NULL);
	ck_assert_int_eq(rv.ret, 1);
	r.live = 0;
	pthread_join(a, NULL);
}
END_TEST

START_TEST(nested_inline_try_access_is_refused)
{
	struct res r = { 3, 1 };
	struct revocable_provider __rcu *rp = revocable_provider_alloc(&r);
	struct revocable rev;

	ck_assert_int_eq(revocable_init(rp, &rev), 0);
	ck_assert_ptr_eq(revocable_try_access(&rev), &r);
	/* The handle is busy: out of line, refused with a warning. */
	ck_assert_ptr_null(revocable_try_access(&rev));
	revocable_withdraw_access(&rev);	/* the refused one */
	revocable_withdraw_access(&rev);	/* the real one */
	revocable_deinit(&rev);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
}
END_TEST

static void *exit_inside_inline(void *arg)
{
	struct revocable rev;

	ck_assert_ptr_nonnull(revocable_access(arg, &rev));
	return NULL;		/* exits inside the access */
}

START_TEST(thread_exit_inside_inline_access_is_released)
{
	struct res r = { 4, 1 };
	struct revocable_provider __rcu *rp = revocable_provider_alloc(&r);
	pthread_t t;

	pthread_create(&t, NULL, exit_inside_inline, rp);
	pthread_join(t, NULL);
	alarm(20);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
	alarm(0);
}
END_TEST

/* Readers inline, revokes out of line, in a loop: no resource seen dead. */
struct churn {
	struct revocable_provider __rcu *rp;
	int stop;
	unsigned long seen;
};

static void *churn_reader(void *arg)
{
	struct churn *c = arg;
	struct revocable rev;
	struct res *got;

	while (!__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST)) {
		struct revocable_provider *rp = revocable_provider_get_rcu(
			(struct revocable_provider **)&c->rp);

		got = revocable_access(rp, &rev);
		if (got) {
			ck_assert_int_eq(__atomic_load_n(&got->live, __ATOMIC_RELAXED), 1);
			__atomic_add_fetch(&c->seen, 1, __ATOMIC_RELAXED);
		}
		revocable_withdraw_access(&rev);
		revocable_provider_put(rp);
	}
	return NULL;
}

START_TEST(inline_readers_against_peer_revokes)
{
	struct churn c = { 0 };
	struct res *r;
	pthread_t t[2];
	int i;

	r = calloc(1, sizeof(*r));
	r->live = 1;
	__atomic_store_n(&c.rp, revocable_provider_alloc(r), __ATOMIC_RELEASE);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, churn_reader, &c);
	for (i = 0; i < 300; i++) {
		struct revocable_provider __rcu *old = c.rp;
		struct res *next = calloc(1, sizeof(*next));

		next->live = 1;
		/* Published as rcu_assign_pointer() would. */
		__atomic_store_n(&c.rp, revocable_provider_alloc(next),
				 __ATOMIC_RELEASE);
		ck_assert_int_eq(peer_revoke(&old), 1);
		__atomic_store_n(&r->live, 0, __ATOMIC_RELAXED);
		free(r);
		r = next;
	}
	__atomic_store_n(&c.stop, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ck_assert_int_eq(revocable_revoke((struct revocable_provider **)&c.rp), 1);
	free(r);
}
END_TEST

START_TEST(inline_access_in_a_fork_child)
{
	struct res r = { 5, 1 };
	struct revocable_provider __rcu *rp = revocable_provider_alloc(&r);
	struct revocable rev;
	int status;
	pid_t pid;

	ck_assert_ptr_eq(revocable_access(rp, &rev), &r);
	revocable_withdraw_access(&rev);
	pid = fork();
	if (pid == 0) {
		alarm(20);
		if (revocable_access(rp, &rev) != &r)
			_exit(1);
		revocable_withdraw_access(&rev);
		_exit(revocable_revoke(&rp) == 1 ? 0 : 2);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(revocable_revoke(&rp), 1);
}
END_TEST

/* Deferred frees done before the test's process exits (leak checks). */
static void quiesce(void)
{
	revocable_domain_barrier(revocable_default_domain());
}

int main(void)
{
	Suite *s = suite_create("inline");
	TCase *tc = tcase_create("interop");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, quiesce);
	tcase_add_test(tc, inline_access_then_peer_withdraw_and_back);
	tcase_add_test(tc, peer_revoke_waits_for_inline_reader);
	tcase_add_test(tc, nested_inline_try_access_is_refused);
	tcase_add_test(tc, thread_exit_inside_inline_access_is_released);
	tcase_add_test(tc, inline_readers_against_peer_revokes);
	tcase_add_test(tc, inline_access_in_a_fork_child);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
