// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Threads that come and go, cancellation and fork(): what a daemon does.
 *
 * - A thread that exits inside an access (return from its start routine,
 *   pthread_exit(), cancellation) has its accesses released, with a WARN
 *   naming it; revokes complete; handles it owned can be used by others.
 * - fork() after the library's service threads started, with other threads
 *   inside accesses, and the threads a child then creates: revokes of every
 *   kind and barriers work in the child, in a fork of the child, and in the
 *   parent, which is untouched.
 * - The slow-revoke report names the threads that are inside accesses.
 *
 * This file is built twice: plain (C's default, no -fexceptions: the scope
 * macros' cleanup does not run when a thread is cancelled, the exit
 * handler releases the access with a WARN) and with -fexceptions
 * (test_threads_unwind: cancellation unwinds through the cleanup, silently).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/printk.h>
#include <linux/srcu.h>

#include "testutil.h"

#ifdef __EXCEPTIONS
#define CANCEL_WARNS 0		/* the cleanup ran during unwinding */
#else
#define CANCEL_WARNS 1		/* the exit handler released the access */
#endif

/* ----- helpers ----------------------------------------------------------- */

static void free_res(void *arg)
{
	test_res_free(arg);
}

/*
 * GCC 12's AddressSanitizer runtime does not take its allocator's locks
 * around fork(), and a thread allocates inside that runtime while it
 * starts.  A fork() while a service thread the library just created is
 * still starting can so leave an allocator lock taken in the child, which
 * then hangs in its first allocation of that size (seen: the child's new
 * SRCU worker blocked in __asan::AsanThread::Init).  That is the
 * runtime's hang, not the library's, so in that build only, a test forks
 * once the service threads have run: the default domain's SRCU worker
 * and liburcu's call_rcu thread.  Plain builds keep the race with a
 * thread that is still starting.
 */
static void asan_settle_service_threads(void)
{
#ifdef __SANITIZE_ADDRESS__
	struct test_res *res = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc(res);

	ck_assert_int_eq(revocable_revoke_async(&rp, free_res, res), 1);
	revocable_domain_barrier(revocable_default_domain());
#endif
}

/* ----- thread exit ------------------------------------------------------- */

struct leaver {
	struct revocable_provider *ref;
	struct revocable *handle;	/* try_access through it, if set */
	int how;			/* 0 return, 1 pthread_exit */
	void *res;
};

static void *leave_inside_access(void *arg)
{
	struct leaver *l = arg;
	struct revocable acc;

	pthread_setname_np(pthread_self(), "leaver");
	if (l->handle)
		l->res = revocable_try_access(l->handle);
	else
		l->res = revocable_access(l->ref, &acc);
	if (l->how == 1)
		pthread_exit(NULL);
	return NULL;
}

static void exit_inside_access(int how)
{
	struct test_res *res = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc(res);
	struct leaver l = { .ref = rp, .how = how };
	unsigned long w;
	pthread_t t;

	test_log_capture();
	w = compat_warn_count();
	ck_assert_int_eq(pthread_create(&t, NULL, leave_inside_access, &l), 0);
	pthread_join(t, NULL);
	ck_assert_ptr_eq(l.res, res);
	ck_assert_uint_eq(compat_warn_count(), w + 1);
	ck_assert_msg(strstr(test_log_text(), "(leaver) exited inside 1 access(es)"),
		      "report: %s", test_log_text());
	/* Every later revoke of the domain completes too. */
	ck_assert_int_eq(test_revoke_bounded(&rp, 5000), 1);
	test_res_free(res);
	rp = revocable_provider_alloc((void *)1);
	ck_assert_int_eq(test_revoke_bounded(&rp, 5000), 1);
	test_log_end();
}

TEST_SUITE("threads");
TEST_GROUP(thread_exit, "exit", 30);
/* Threads in the child of a multi-threaded parent: not under TSan. */
TEST_GROUP_TAGGED(fork_mt, "fork", 60, "fork-mt");

TEST(thread_exit, return_inside_access_is_released)
{
	exit_inside_access(0);
}
END_TEST

TEST(thread_exit, pthread_exit_inside_access_is_released)
{
	exit_inside_access(1);
}
END_TEST

static void *take_over(void *arg)
{
	struct revocable *rev = arg;
	void *res = revocable_try_access(rev);

	if (res)
		revocable_withdraw_access(rev);
	return res;
}

/* A handle owned by a thread that exited is idle for everyone else. */
TEST(thread_exit, handle_of_an_exited_thread_is_idle)
{
	struct test_res *res = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc(res);
	struct revocable *rev = malloc(sizeof(*rev));
	struct leaver l = { .how = 1 };
	unsigned long w;
	pthread_t t;
	void *got;

	ck_assert_int_eq(revocable_init(rp, rev), 0);
	l.handle = rev;
	w = compat_warn_count();
	ck_assert_int_eq(pthread_create(&t, NULL, leave_inside_access, &l), 0);
	pthread_join(t, NULL);
	ck_assert_ptr_eq(l.res, res);
	ck_assert_uint_eq(compat_warn_count(), w + 1);

	/* Another thread, then this one: no WARN, the resource. */
	ck_assert_int_eq(pthread_create(&t, NULL, take_over, rev), 0);
	pthread_join(t, &got);
	ck_assert_ptr_eq(got, res);
	ck_assert_ptr_eq(revocable_try_access(rev), res);
	revocable_withdraw_access(rev);
	ck_assert_uint_eq(compat_warn_count(), w + 1);

	/* And deinit after an owner died inside it works without a WARN. */
	ck_assert_int_eq(pthread_create(&t, NULL, leave_inside_access, &l), 0);
	pthread_join(t, NULL);
	w = compat_warn_count();
	revocable_deinit(rev);
	ck_assert_uint_eq(compat_warn_count(), w);
	ck_assert_int_eq(test_revoke_bounded(&rp, 5000), 1);
	free(rev);
	test_res_free(res);
}
END_TEST

/* Threads that come and go, some leaving accesses open, in a loop. */
static void *churn_one(void *arg)
{
	struct revocable_provider *ref = arg;
	struct revocable acc;
	unsigned long i;

	for (i = 0; i < 50; i++) {
		revocable_access(ref, &acc);
		revocable_withdraw_access(&acc);
	}
	if ((uintptr_t)pthread_self() & 64)
		revocable_access(ref, &acc);	/* leave one open */
	return NULL;
}

TEST(thread_exit, thread_churn_with_open_accesses)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	pthread_t t[8];
	int round, i;

	for (round = 0; round < 20; round++) {
		rp = revocable_provider_alloc((void *)1);
		ref = revocable_provider_get_rcu(&rp);
		for (i = 0; i < 8; i++)
			ck_assert_int_eq(pthread_create(&t[i], NULL, churn_one, ref), 0);
		for (i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		ck_assert_int_eq(test_revoke_bounded(&rp, 5000), 1);
		revocable_provider_put(ref);
	}
}
END_TEST

/* ----- cancellation ------------------------------------------------------ */

struct blocker {
	struct revocable_provider *ref;
	struct revocable *handle;
	int form;			/* 0 SCOPED, 1 WITH, 2 handle */
	int fd;
	struct completion inside;
};

/* Inside an access to @res: tells the test, then blocks in read(). */
static void inside_then_read(struct blocker *b, const void *res)
{
	char c;
	ssize_t n;

	if (!res)
		return;
	complete(&b->inside);
	n = read(b->fd, &c, 1);		/* the test cancels the thread here */
	(void)n;
}

static void *block_in_read(void *arg)
{
	struct blocker *b = arg;
	struct test_res *res;

	switch (b->form) {
	case 0:
		REVOCABLE_TRY_ACCESS_SCOPED(b->ref, res)
			inside_then_read(b, res);
		break;
	case 1: {
		REVOCABLE_TRY_ACCESS_WITH(b->ref, res);
		inside_then_read(b, res);
		break;
	}
	default:
		inside_then_read(b, revocable_try_access(b->handle));
		revocable_withdraw_access(b->handle);
		break;
	}
	return NULL;
}

static void cancel_inside_access(int form)
{
	struct test_res *res = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc(res);
	struct revocable rev;
	struct blocker b = { .ref = rp, .form = form };
	unsigned long w;
	int fds[2];
	void *ret;
	pthread_t t;

	ck_assert_int_eq(pipe(fds), 0);
	b.fd = fds[0];
	init_completion(&b.inside);
	if (form == 2) {
		ck_assert_int_eq(revocable_init(rp, &rev), 0);
		b.handle = &rev;
	}
	w = compat_warn_count();
	ck_assert_int_eq(pthread_create(&t, NULL, block_in_read, &b), 0);
	WAIT_OR_FAIL(&b.inside, 5000);
	test_sleep_ms(10);		/* into read() */
	ck_assert_int_eq(pthread_cancel(t), 0);
	pthread_join(t, &ret);
	ck_assert_ptr_eq(ret, PTHREAD_CANCELED);
	/* The handle pattern has no cleanup: the exit handler releases. */
	ck_assert_uint_eq(compat_warn_count(),
			  w + (form == 2 ? 1 : CANCEL_WARNS));
	if (form == 2) {
		ck_assert_ptr_eq(revocable_try_access(&rev), res);
		revocable_withdraw_access(&rev);
		revocable_deinit(&rev);
	}
	ck_assert_int_eq(test_revoke_bounded(&rp, 5000), 1);
	test_res_free(res);
	close(fds[0]);
	close(fds[1]);
}

TEST(thread_exit, cancel_in_read_inside_scoped)
{
	cancel_inside_access(0);
}
END_TEST

TEST(thread_exit, cancel_in_read_inside_with)
{
	cancel_inside_access(1);
}
END_TEST

TEST(thread_exit, cancel_in_read_inside_handle_access)
{
	cancel_inside_access(2);
}
END_TEST

/* ----- fork -------------------------------------------------------------- */

static int async_done_count;

static void async_done(void *arg)
{
	__atomic_add_fetch(&async_done_count, 1, __ATOMIC_SEQ_CST);
	free_res(arg);
}

static void *touch_and_go(void *arg)
{
	struct revocable_provider *ref = arg;
	struct revocable acc;
	int i;

	for (i = 0; i < 100; i++) {
		struct test_res *r = revocable_access(ref, &acc);

		if (r && !RES_LIVE(r))
			abort();
		revocable_withdraw_access(&acc);
	}
	return NULL;
}

/*
 * Everything a process does with the library: threads that come and go,
 * every kind of revoke, a domain of its own, barriers.  Returns 0 if all
 * of it worked; bounded by the caller's watchdog.
 */
static int exercise(void *arg)
{
	struct revocable_provider __rcu *rp[4];
	struct revocable_provider __rcu **slots[3] = { &rp[1], &rp[2], &rp[3] };
	struct revocable_provider *ref, *begun;
	struct revocable_domain *dom;
	struct test_res *res, *owned[4];
	pthread_t t[4];
	int i, done0;

	(void)arg;
	for (i = 0; i < 4; i++) {
		rp[i] = revocable_provider_alloc(test_res_new());
		CHILD_CHECK(rp[i]);
	}
	ref = revocable_provider_get_rcu(&rp[0]);
	for (i = 0; i < 4; i++)
		CHILD_CHECK(!pthread_create(&t[i], NULL, touch_and_go, ref));
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);

	/* plain */
	res = revocable_access_unchecked(ref);
	CHILD_CHECK(revocable_revoke(&rp[0]) == 1);
	test_res_free(res);
	revocable_provider_put(ref);
	/* batch */
	for (i = 1; i < 4; i++)
		owned[i] = revocable_access_unchecked(unrcu_pointer(rp[i]));
	CHILD_CHECK(revocable_revoke_batch(slots, 3) == 3);
	for (i = 1; i < 4; i++)
		test_res_free(owned[i]);
	/* async + barrier */
	done0 = __atomic_load_n(&async_done_count, __ATOMIC_SEQ_CST);
	res = test_res_new();
	rp[0] = revocable_provider_alloc(res);
	CHILD_CHECK(revocable_revoke_async(&rp[0], async_done, res) == 1);
	revocable_domain_barrier(revocable_default_domain());
	CHILD_CHECK(__atomic_load_n(&async_done_count, __ATOMIC_SEQ_CST) == done0 + 1);
	/* two-phase, in a domain of its own */
	dom = revocable_domain_alloc("child");
	CHILD_CHECK(dom);
	rp[0] = revocable_provider_alloc_in(dom, (void *)1);
	begun = revocable_revoke_begin(&rp[0]);
	CHILD_CHECK(begun);
	CHILD_CHECK(revocable_revoke_wait(begun) == 0);
	CHILD_CHECK(revocable_domain_free(dom) == 0);
	revocable_domain_barrier(revocable_default_domain());
	return 0;
}

static int exercise_and_fork_again(void *arg)
{
	CHILD_CHECK(exercise(arg) == 0);
	/* A fork of a fork, after this child's own workers started. */
	CHILD_CHECK(test_in_child(exercise, NULL, 8000) == 0);
	return exercise(arg);
}

/*
 * The daemonize pattern: use the library (its service threads start),
 * then fork outside any access.
 */
TEST(fork_mt, fork_after_workers_started)
{
	struct revocable_provider __rcu *a = revocable_provider_alloc((void *)1);
	struct revocable_provider __rcu *b = revocable_provider_alloc((void *)2);

	ck_assert_int_eq(revocable_revoke(&a), 1);	/* starts the worker */
	asan_settle_service_threads();
	ck_assert_int_eq(test_in_child(exercise_and_fork_again, NULL, 15000), 0);
	/* The parent is untouched. */
	ck_assert_int_eq(test_revoke_bounded(&b, 5000), 1);
	ck_assert_int_eq(exercise(NULL), 0);
}
END_TEST

struct fork_scene {
	struct revocable_domain *mine_dom;
	struct revocable_provider __rcu *held;	/* a thread is inside it */
	struct revocable_provider __rcu *mine;	/* this thread is inside it */
	struct revocable mine_acc;
	struct revocable_provider __rcu *hslot;	/* the handle's provider */
	struct revocable *handle;		/* owned by a parent thread */
	struct test_res *handle_res;
	struct completion handle_inside, handle_leave;
	struct test_reader reader;
};

static void *hold_handle(void *arg)
{
	struct fork_scene *sc = arg;

	pthread_setname_np(pthread_self(), "handler");
	if (revocable_try_access(sc->handle) != sc->handle_res)
		abort();
	complete(&sc->handle_inside);
	wait_for_completion(&sc->handle_leave);
	revocable_withdraw_access(sc->handle);
	return NULL;
}

static int child_of_scene(void *arg)
{
	struct fork_scene *sc = arg;
	unsigned long w = compat_warn_count();
	pthread_t t[8];
	int i;

	/* The reader was not copied: its access is gone, the revoke ends. */
	CHILD_CHECK(revocable_revoke(&sc->held) == 1);
	/* So is its ownership of the handle. */
	CHILD_CHECK(revocable_try_access(sc->handle) == sc->handle_res);
	revocable_withdraw_access(sc->handle);
	CHILD_CHECK(compat_warn_count() == w);
	/*
	 * Threads created now reuse the dead threads' stacks and TLS: the
	 * registry must not care.
	 */
	for (i = 0; i < 8; i++) {
		struct revocable_provider *ref =
			revocable_provider_get_rcu(&sc->mine);

		CHILD_CHECK(!pthread_create(&t[i], NULL, touch_and_go, ref));
		pthread_join(t[i], NULL);
		revocable_provider_put(ref);
	}
	/* This thread's own access came along and is still open... */
	CHILD_CHECK(revocable_revoke(&sc->mine) == -EDEADLK);
	CHILD_CHECK(compat_warn_count() == w + 1);
	/* ...until it is withdrawn; then the revoke ends in the background. */
	revocable_withdraw_access(&sc->mine_acc);
	revocable_domain_barrier(sc->mine_dom);
	CHILD_CHECK(revocable_domain_free(sc->mine_dom) == 0);
	return exercise(NULL);
}

TEST(fork_mt, fork_while_another_thread_is_inside)
{
	struct fork_scene sc = { 0 };
	struct revocable_provider *ref;
	struct test_revoker rv = { .slot = &sc.held };
	struct test_res *held_res = test_res_new();
	struct test_res *mine_res = test_res_new();
	pthread_t t;

	sc.held = revocable_provider_alloc(held_res);
	sc.mine_dom = revocable_domain_alloc("mine");
	sc.mine = revocable_provider_alloc_in(sc.mine_dom, mine_res);
	sc.handle_res = test_res_new();
	sc.hslot = revocable_provider_alloc(sc.handle_res);
	sc.handle = malloc(sizeof(*sc.handle));
	ck_assert_int_eq(revocable_init(sc.hslot, sc.handle), 0);
	init_completion(&sc.handle_inside);
	init_completion(&sc.handle_leave);

	ref = revocable_provider_get_rcu(&sc.held);
	test_reader_start(&sc.reader, ref, 0, "holder");
	ck_assert_int_eq(pthread_create(&t, NULL, hold_handle, &sc), 0);
	WAIT_OR_FAIL(&sc.handle_inside, 5000);
	revocable_access(unrcu_pointer(sc.mine), &sc.mine_acc);

	ck_assert_int_eq(test_in_child(child_of_scene, &sc, 15000), 0);

	/* Parent: the handle is still its thread's... */
	ck_assert_uint_eq(WARNS(ck_assert_ptr_null(revocable_try_access(sc.handle))), 1);
	complete(&sc.handle_leave);
	pthread_join(t, NULL);
	revocable_deinit(sc.handle);
	free(sc.handle);

	/* ...and the reader is still inside, so a revoke waits for it. */
	revocable_withdraw_access(&sc.mine_acc);
	test_revoker_start(&rv);
	test_sleep_ms(50);
	ck_assert_int_eq(READ_ONCE(rv.ret), -1);
	test_reader_stop(&sc.reader);
	JOIN_OR_FAIL(&rv.thread, 5000);
	ck_assert_int_eq(rv.ret, 1);
	revocable_provider_put(ref);
	test_res_free(held_res);
	ck_assert_int_eq(revocable_revoke(&sc.hslot), 1);
	test_res_free(sc.handle_res);
	ck_assert_int_eq(revocable_revoke(&sc.mine), 1);
	ck_assert_int_eq(revocable_domain_free(sc.mine_dom), 0);
	test_res_free(mine_res);
	ck_assert_int_eq(exercise(NULL), 0);
}
END_TEST

/* fork() while a revoke waits for a reader, and while async revokes wait. */
static int child_after_busy_fork(void *arg)
{
	struct revocable_provider __rcu **slot = arg;

	revocable_domain_barrier(revocable_default_domain());
	CHILD_CHECK(__atomic_load_n(&async_done_count, __ATOMIC_SEQ_CST) >= 8);
	CHILD_CHECK(revocable_revoke(slot) == 0);	/* begun in the parent */
	return exercise(NULL);
}

TEST(fork_mt, fork_while_revokes_wait)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct revocable_provider __rcu *as[8];
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct test_revoker rv = { .slot = &rp };
	struct test_reader reader;
	struct test_res *res;
	int i;

	asan_settle_service_threads();
	async_done_count = 0;
	test_reader_start(&reader, ref, 0, "holder");
	test_revoker_start(&rv);
	for (i = 0; i < 8; i++) {
		res = test_res_new();
		as[i] = revocable_provider_alloc(res);
		revocable_revoke_async(&as[i], async_done, res);
	}
	while (rcu_access_pointer(rp))
		test_sleep_ms(1);
	/* The async revokes' batch waits behind the reader, in the worker. */
	ck_assert_int_eq(test_in_child(child_after_busy_fork, &rp, 15000), 0);
	ck_assert_int_eq(READ_ONCE(rv.ret), -1);
	test_reader_stop(&reader);
	JOIN_OR_FAIL(&rv.thread, 5000);
	ck_assert_int_eq(rv.ret, 1);
	revocable_provider_put(ref);
	revocable_domain_barrier(revocable_default_domain());
	ck_assert_int_eq(async_done_count, 8);
}
END_TEST

/*
 * fork() from a done callback (to spawn a helper, say): the callback is
 * inside the fork gate itself, so the handlers must not wait for it.  In
 * the child the callback returns and its thread goes on as the domain's
 * worker, while another thread uses the library in every way.
 */
struct forker {
	pid_t pid;
	struct completion forked;
};

static void *child_exercise_then_exit(void *arg)
{
	_exit(exercise(arg));
	return NULL;
}

static void fork_in_done(void *arg)
{
	struct forker *f = arg;
	pthread_t t;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		alarm((unsigned int)(test_bound_ms(8000) / 1000 + 2));
		if (pthread_create(&t, NULL, child_exercise_then_exit, NULL))
			_exit(3);
		return;	/* back to the worker's loop, in the child */
	}
	f->pid = pid;
	complete(&f->forked);
}

TEST(fork_mt, fork_from_done_callback)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	struct forker f;

	init_completion(&f.forked);
	f.pid = -1;
	ck_assert_int_eq(revocable_revoke_async(&rp, fork_in_done, &f), 1);
	WAIT_OR_FAIL(&f.forked, 5000);
	ck_assert_int_gt(f.pid, 0);
	ck_assert_int_eq(test_child_result(f.pid, 8000), 0);
	/* And the parent goes on as before. */
	ck_assert_int_eq(exercise(NULL), 0);
}
END_TEST

/* ----- the slow-revoke report -------------------------------------------- */

TEST(thread_exit, slow_report_names_threads_inside)
{
	bool live;
	const char *text = test_slow_report("reported", &live);

	ck_assert_msg(strstr(text, "has waited"), "%s", text);
	ck_assert_msg(strstr(text, "(holder): 1 access(es) in SRCU "),
		      "report: %s", text);
	ck_assert(live);
	test_log_end();
}
END_TEST
