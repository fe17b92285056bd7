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

/*
 * @hold(@h) enters an access of @h->rp and stays inside until told to
 * leave; a peer's revoke of *@rpp meanwhile must wait for it, and return 1
 * once it has left.  @r goes dead only then.
 */
static void peer_revoke_waits_for(void *(*hold)(void *), struct holder *h,
				  struct revocable_provider __rcu **rpp,
				  struct res *r)
{
	struct revoker rv = { .rpp = rpp };
	pthread_t a, b;

	pthread_create(&a, NULL, hold, h);
	while (!__atomic_load_n(&h->inside, __ATOMIC_SEQ_CST))
		sleep_ms(1);
	pthread_create(&b, NULL, revoke_by_peer, &rv);
	sleep_ms(100);
	ck_assert_int_eq(__atomic_load_n(&rv.done, __ATOMIC_SEQ_CST), 0);
	__atomic_store_n(&h->leave, 1, __ATOMIC_SEQ_CST);
	pthread_join(b, NULL);
	ck_assert_int_eq(rv.ret, 1);
	r->live = 0;
	pthread_join(a, NULL);
}

START_TEST(peer_revoke_waits_for_inline_reader)
{
	struct res r = { 1, 1 };
	struct revocable_provider __rcu *rp = revocable_provider_alloc(&r);
	struct holder h = { .rp = rp };

	peer_revoke_waits_for(hold_inline, &h, &rp, &r);
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

/* One access through the slot: a live resource or none. */
static void churn_access_once(struct churn *c)
{
	struct revocable_provider *rp;
	struct revocable rev;
	struct res *got;

	rp = revocable_provider_get_rcu((struct revocable_provider **)&c->rp);
	got = revocable_access(rp, &rev);
	if (got) {
		ck_assert_int_eq(__atomic_load_n(&got->live, __ATOMIC_RELAXED), 1);
		__atomic_add_fetch(&c->seen, 1, __ATOMIC_RELAXED);
	}
	revocable_withdraw_access(&rev);
	revocable_provider_put(rp);
}

static void *churn_reader(void *arg)
{
	struct churn *c = arg;

	while (!__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST))
		churn_access_once(c);
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

/*
 * A domain whose slot lies past the end of a thread's first slot array:
 * the inline read lock calls the library's slow path, which lengthens the
 * array.  Accesses there must count like any other, inline and out of
 * line alike.  The tests peek at private state (<revocable/reader.h>) to
 * find such a domain and to see the array grow.
 */
static int domain_slot(struct revocable_domain *dom)
{
	const struct __revocable_domain_head *h =
		(const struct __revocable_domain_head *)dom;

	return ((const struct __revocable_srcu *)h->ssp)->id;
}

static void *first_slots(void *arg)
{
	struct revocable_provider *rp = arg;
	struct revocable rev;
	unsigned int n;

	ck_assert_ptr_null(__revocable_self);
	ck_assert_ptr_nonnull(revocable_access(rp, &rev));
	revocable_withdraw_access(&rev);
	n = __revocable_self->nr_inline;
	return (void *)(unsigned long)n;
}

#define MAX_FAR 256

struct far {
	struct revocable_domain *doms[MAX_FAR];
	unsigned int n;		/* domains allocated; the last is far */
	int slot;		/* its slot */
};

/*
 * Allocate domains until one has a slot past the inline limit of a new
 * thread (its first array; 0 when readers need fences, and then every
 * lock goes out of line); false (all freed) when the library's limit
 * comes first.
 */
static bool far_domain(struct far *f)
{
	struct res r0 = { 0, 1 };
	struct revocable_provider __rcu *rp0 = revocable_provider_alloc(&r0);
	unsigned int first, i;
	pthread_t t;
	void *ret;

	pthread_create(&t, NULL, first_slots, rp0);
	pthread_join(t, &ret);
	ck_assert_int_eq(revocable_revoke(&rp0), 1);
	first = (unsigned int)(unsigned long)ret;
	for (f->n = 0; f->n < MAX_FAR; ) {
		f->doms[f->n] = revocable_domain_alloc("far");
		if (!f->doms[f->n])
			break;
		f->slot = domain_slot(f->doms[f->n++]);
		if ((unsigned int)f->slot >= first)
			return true;
	}
	for (i = 0; i < f->n; i++)
		ck_assert_int_eq(revocable_domain_free(f->doms[i]), 0);
	return false;
}

static void far_free(struct far *f)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		ck_assert_int_eq(revocable_domain_free(f->doms[i]), 0);
}

/* The calling thread's inline lock now reaches @slot (or never will). */
static bool grown(int slot)
{
	const struct __revocable_reader *r = __revocable_self;

	return r->nr_inline > (unsigned int)slot || r->fence;
}

struct far_holder {
	struct holder h;	/* first: hold_far() is given its address */
	int slot;
};

static void *hold_far(void *arg)
{
	struct far_holder *f = arg;
	struct holder *h = &f->h;
	struct revocable rev;
	struct res *got;

	got = revocable_access(h->rp, &rev);		/* slow path */
	ck_assert_ptr_nonnull(got);
	ck_assert(grown(f->slot));
	__atomic_store_n(&h->inside, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&h->leave, __ATOMIC_SEQ_CST))
		sleep_ms(1);
	ck_assert_int_eq(got->live, 1);
	revocable_withdraw_access(&rev);
	/* Grown, the fast path: revoked by now, for the scope macros too. */
	ck_assert_ptr_null(revocable_access(h->rp, &rev));
	revocable_withdraw_access(&rev);
	REVOCABLE_TRY_ACCESS_SCOPED(h->rp, got)
		ck_assert_ptr_null(got);
	return NULL;
}

START_TEST(inline_access_past_the_first_slots)
{
	struct res r = { 6, 1 }, r0 = { 0, 1 };
	struct revocable_provider __rcu *rp0 = revocable_provider_alloc(&r0);
	struct revocable_provider __rcu *rp;
	struct far_holder h = { 0 };
	struct revocable rev, far;
	struct far f;

	if (!far_domain(&f)) {
		/* The library's domain limit is below the first array. */
		ck_assert_int_eq(revocable_revoke(&rp0), 1);
		return;
	}
	h.slot = f.slot;
	rp = revocable_provider_alloc_in(f.doms[f.n - 1], &r);
	h.h.rp = revocable_provider_get(rp);	/* outlives the revoke */

	/* An inline reader on the slow path holds off an out-of-line revoke. */
	peer_revoke_waits_for(hold_far, &h.h, &rp, &r);
	revocable_provider_put(h.h.rp);

	/*
	 * The other way round in this thread: the library's read lock grows
	 * the array inside an access of the default domain, which the
	 * inline withdraw then ends in the new array.
	 */
	r.live = 1;
	rp = revocable_provider_alloc_in(f.doms[f.n - 1], &r);
	ck_assert_ptr_eq(revocable_access(rp0, &rev), &r0);	/* inline */
	ck_assert_ptr_eq(peer_access(rp, &far), &r);		/* grows */
	ck_assert(grown(f.slot));
	revocable_withdraw_access(&far);			/* inline */
	revocable_withdraw_access(&rev);			/* inline */
	ck_assert_int_eq(peer_revoke(&rp), 1);
	ck_assert_int_eq(revocable_revoke(&rp0), 1);
	far_free(&f);
}
END_TEST

/*
 * New threads take the slow path on their first access while grace
 * periods of the same domain read every thread's array (the race
 * detectors watch the array being replaced under them).
 */
static void *far_reader_once(void *arg)
{
	churn_access_once(arg);
	return NULL;
}

struct far_churn {
	struct churn c;
	struct revocable_domain *dom;
	struct res *r;
};

static void *far_revoker(void *arg)
{
	struct far_churn *fc = arg;
	struct revocable_provider __rcu *old;
	struct res *next;

	while (!__atomic_load_n(&fc->c.stop, __ATOMIC_SEQ_CST)) {
		next = calloc(1, sizeof(*next));
		next->live = 1;
		old = fc->c.rp;
		__atomic_store_n(&fc->c.rp,
				 revocable_provider_alloc_in(fc->dom, next),
				 __ATOMIC_RELEASE);
		ck_assert_int_eq(peer_revoke(&old), 1);
		__atomic_store_n(&fc->r->live, 0, __ATOMIC_RELAXED);
		free(fc->r);
		fc->r = next;
	}
	return NULL;
}

START_TEST(first_accesses_past_the_first_slots_under_revokes)
{
	struct far_churn fc = { { 0 } };
	pthread_t rv, t[2];
	struct far f;
	int i, j;

	if (!far_domain(&f))
		return;
	fc.dom = f.doms[f.n - 1];
	fc.r = calloc(1, sizeof(*fc.r));
	fc.r->live = 1;
	fc.c.rp = revocable_provider_alloc_in(fc.dom, fc.r);
	pthread_create(&rv, NULL, far_revoker, &fc);
	for (i = 0; i < 100; i++) {
		for (j = 0; j < 2; j++)
			pthread_create(&t[j], NULL, far_reader_once, &fc.c);
		for (j = 0; j < 2; j++)
			pthread_join(t[j], NULL);
	}
	__atomic_store_n(&fc.c.stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(rv, NULL);
	ck_assert_uint_gt(fc.c.seen, 0);
	ck_assert_int_eq(revocable_revoke((struct revocable_provider **)&fc.c.rp), 1);
	free(fc.r);
	far_free(&f);
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
	tcase_add_test(tc, inline_access_past_the_first_slots);
	tcase_add_test(tc, first_accesses_past_the_first_slots_under_revokes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
