// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A daemon's hostile days (issue 21): what a long-running service does to
 * the library that our other suites never do.
 *
 * - Accesses in a signal handler that interrupted an access of the same
 *   domain: no count may be lost, and later revokes complete.
 * - Revokes and async revokes from a handler that interrupted the library
 *   while it waits or queues: an error (-EDEADLK), never a deadlock.
 * - A seccomp filter that denies membarrier(), installed after the library
 *   used it: revokes and accesses go on, no abort.
 * - No thread can be created for the library's workers (an interposed
 *   pthread_create() that fails, and a real RLIMIT_NPROC): every call
 *   completes or returns an error, no abort, no hang.
 * - No pthread key left before the first access: the access is refused
 *   (or works), with no abort.
 * - 100,000 live domains; errno on failure; create and free cheap.
 * - domain_barrier() and domain_free() inside an access of the domain they
 *   would wait for, with an async revoke pending: -EDEADLK (the barrier
 *   returns with a warning), not a hang.
 * - The slow-revoke report names the domain, and says so when its counts
 *   do not add up.
 *
 * Every wait is bounded: a regression fails a test instead of hanging the
 * suite.  Tests that change process-wide state (seccomp, rlimits, uids,
 * pthread keys, armed thread creation) run in a fork() child of the test.
 *
 * This file is built twice: plain (test_hostile) and with _LGPL_SOURCE
 * (test_hostile_inline), where the accesses of the tests in the "inline"
 * test case run the inline fast path of <revocable.h>.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/membarrier.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <runtime/thread.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "testutil.h"

#if defined(_LGPL_SOURCE) && !defined(__REVOCABLE_INLINE)
#error "_LGPL_SOURCE must select the inline accessors"
#endif

/* ----- helpers ----------------------------------------------------------- */

#define CHILD_OK(fn, arg, ms)						\
	ck_assert_msg(test_in_child(fn, arg, ms) == 0,			\
		      "the child running " #fn " failed (see its stderr)")

/*
 * pthread_create() as the library and liburcu see it: forwarded to the
 * real one, unless a test has armed the failure.  The tests' own threads
 * are started with thread_bypass set.
 */
typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *,
				 void *(*)(void *), void *);
static pthread_create_fn real_pthread_create;
static int threads_fail;
static __thread int thread_bypass;
static unsigned long threads_refused;

int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	pthread_create_fn real = __atomic_load_n(&real_pthread_create,
						 __ATOMIC_RELAXED);

	if (!real) {
		real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
		if (!real)
			abort();
		__atomic_store_n(&real_pthread_create, real, __ATOMIC_RELAXED);
	}
	if (__atomic_load_n(&threads_fail, __ATOMIC_RELAXED) && !thread_bypass) {
		__atomic_add_fetch(&threads_refused, 1, __ATOMIC_RELAXED);
		return EAGAIN;
	}
	return real(t, attr, fn, arg);
}

static __maybe_unused void *idle_thread(void *arg)
{
	return arg;
}

/* A thread of the test itself, which an armed pthread_create() lets by. */
static int own_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int ret;

	thread_bypass = 1;
	ret = pthread_create(t, NULL, fn, arg);
	thread_bypass = 0;
	return ret;
}

/*
 * A reader for fork() children (no Check there): enters an access through
 * @ref (inline in test_hostile_inline), says so, and stays inside until
 * told to leave, checking its resource all along.
 */
struct child_reader {
	struct revocable_provider *ref;
	struct test_res *res;
	volatile int inside;
	volatile int leave;
	volatile int bad;
	pthread_t tid;
};

static void *child_reader_fn(void *arg)
{
	struct child_reader *r = arg;
	struct revocable acc;
	struct test_res *res;

	res = revocable_access(r->ref, &acc);
	r->res = res;
	__atomic_store_n(&r->inside, 1, __ATOMIC_RELEASE);
	while (!READ_ONCE(r->leave)) {
		if (res && !RES_LIVE(res))
			r->bad = 1;
		usleep(1000);
	}
	revocable_withdraw_access(&acc);
	return NULL;
}

static int child_reader_start(struct child_reader *r,
			      struct revocable_provider *ref)
{
	memset(r, 0, sizeof(*r));
	r->ref = ref;
	if (own_thread(&r->tid, child_reader_fn, r))
		return -1;
	while (!__atomic_load_n(&r->inside, __ATOMIC_ACQUIRE))
		usleep(1000);
	return 0;
}

static void child_reader_stop(struct child_reader *r)
{
	WRITE_ONCE(r->leave, 1);
	pthread_join(r->tid, NULL);
}

/* A revoke on another thread, for fork() children. */
struct child_revoker {
	struct revocable_provider __rcu **slot;
	volatile int ret;
	volatile int finished;
	pthread_t tid;
};

static void *child_revoker_fn(void *arg)
{
	struct child_revoker *r = arg;

	r->ret = revocable_revoke(r->slot);
	__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int child_revoker_start(struct child_revoker *r,
			       struct revocable_provider __rcu **slot)
{
	memset(r, 0, sizeof(*r));
	r->slot = slot;
	return own_thread(&r->tid, child_revoker_fn, r);
}

/* Whether the revoke finished within @ms. */
static bool child_revoker_wait(struct child_revoker *r, unsigned int ms)
{
	unsigned long end = test_now_ms() + ms;

	while (!__atomic_load_n(&r->finished, __ATOMIC_ACQUIRE)) {
		if (test_now_ms() > end)
			return false;
		usleep(1000);
	}
	pthread_join(r->tid, NULL);
	return true;
}

static int done_count;

static void count_done(void *arg)
{
	__atomic_add_fetch(arg ? (int *)arg : &done_count, 1, __ATOMIC_SEQ_CST);
}

static int done_read(int *c)
{
	return __atomic_load_n(c, __ATOMIC_SEQ_CST);
}

/*
 * Every kind of revoke and access in the calling process, with a reader
 * on another thread where a revoke must wait for it.  Used after the
 * environment was made hostile (seccomp).  0 when all of it worked.
 */
static int revoke_every_way(const char *tag)
{
	struct revocable_provider __rcu *rp[4];
	struct revocable_provider __rcu **slots[3] = { &rp[1], &rp[2], &rp[3] };
	struct revocable_provider *ref, *begun;
	struct revocable_domain *dom;
	struct child_revoker rv;
	struct child_reader rd;
	struct test_res *res[4];
	struct revocable acc;
	int i, done = 0, round;

	(void)tag;
	for (round = 0; round < 3; round++) {
		/* A revoke waits for a reader that entered before it. */
		CHILD_STEP("revoke waits for a reader");
		res[0] = test_res_new();
		rp[0] = revocable_provider_alloc(res[0]);
		CHILD_CHECK(rp[0]);
		ref = revocable_provider_get_rcu(&rp[0]);
		CHILD_CHECK(ref);
		CHILD_CHECK(child_reader_start(&rd, ref) == 0);
		CHILD_CHECK(rd.res == res[0]);
		CHILD_CHECK(child_revoker_start(&rv, &rp[0]) == 0);
		usleep(50000);
		CHILD_CHECK(!READ_ONCE(rv.finished));
		CHILD_CHECK(revocable_access(ref, &acc) == NULL);
		revocable_withdraw_access(&acc);
		child_reader_stop(&rd);
		CHILD_CHECK(!rd.bad);
		CHILD_CHECK(child_revoker_wait(&rv, test_bound_ms(10000)));
		CHILD_CHECK(rv.ret == 1);
		test_res_free(res[0]);
		revocable_provider_put(ref);

		/* async, then the barrier */
		CHILD_STEP("async revoke and barrier");
		res[0] = test_res_new();
		rp[0] = revocable_provider_alloc(res[0]);
		CHILD_CHECK(rp[0]);
		CHILD_CHECK(revocable_revoke_async(&rp[0], count_done, &done) == 1);
		revocable_domain_barrier(revocable_default_domain());
		CHILD_CHECK(done_read(&done) == round + 1);
		test_res_free(res[0]);

		/* batch, over two domains */
		CHILD_STEP("batch revoke");
		dom = revocable_domain_alloc(tag);
		CHILD_CHECK(dom);
		for (i = 1; i < 4; i++) {
			res[i] = test_res_new();
			rp[i] = i == 2 ? revocable_provider_alloc_in(dom, res[i]) :
					 revocable_provider_alloc(res[i]);
			CHILD_CHECK(rp[i]);
		}
		CHILD_CHECK(revocable_revoke_batch(slots, 3) == 3);
		for (i = 1; i < 4; i++)
			test_res_free(res[i]);

		/* two-phase, in the domain of its own */
		CHILD_STEP("two-phase revoke");
		rp[0] = revocable_provider_alloc_in(dom, (void *)1);
		CHILD_CHECK(rp[0]);
		begun = revocable_revoke_begin(&rp[0]);
		CHILD_CHECK(begun);
		CHILD_CHECK(revocable_revoke_wait(begun) == 0);
		CHILD_STEP("domain free");
		CHILD_CHECK(revocable_domain_free(dom) == 0);
	}
	revocable_domain_barrier(revocable_default_domain());
	return 0;
}

/* ----- signals: accesses in a handler ------------------------------------ */

/*
 * The main thread loops in accesses of one domain while another thread
 * storms it with SIGUSR1 (and an interval timer with SIGALRM); the handler
 * makes accesses of the same domain, through revocable_access() and
 * through an initialised handle (try_access/withdraw).  A handler that
 * lands between the load and the store of the interrupted access's counter
 * update loses its own update or the interrupted one: that index never
 * balances again and every later revoke in the domain hangs.  The library
 * may count correctly or refuse the handler's access (NULL, with a
 * warning); either way the revoke after the storm must complete.
 */
static struct revocable_provider __rcu *sig_slot;	/* for the handler */
static struct revocable sig_handle;
static struct test_res *sig_res;
static volatile int sig_armed;
static unsigned long sig_hits, sig_got, sig_refused, sig_bad;

static void sig_access_handler(int sig)
{
	int saved_errno = errno;
	struct test_res *r;
	struct revocable acc;

	if (!sig_armed)
		return;
	if (sig_hits++ & 1) {
		r = revocable_access(sig_slot, &acc);
		if (r && (r != sig_res || !RES_LIVE(r)))
			sig_bad++;
		revocable_withdraw_access(&acc);
	} else {
		r = revocable_try_access(&sig_handle);
		if (r && (r != sig_res || !RES_LIVE(r)))
			sig_bad++;
		revocable_withdraw_access(&sig_handle);
	}
	if (r)
		sig_got++;
	else
		sig_refused++;
	errno = saved_errno;
}

static void set_handler(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	/* One handler at a time: the two signals mask each other. */
	sigaddset(&sa.sa_mask, SIGUSR1);
	sigaddset(&sa.sa_mask, SIGALRM);
	ck_assert_int_eq(sigaction(sig, &sa, NULL), 0);
}

static void set_timer_us(long us)
{
	struct itimerval it = {
		.it_interval = { 0, us },
		.it_value = { 0, us },
	};

	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
}

TEST_SUITE("hostile");
/*
 * The inline variant runs the tests whose accesses the inline path makes:
 * signals, the sandbox and the first access without a key.
 */
TEST_GROUP(inline_path, "inline", 120);
TEST_GROUP(library, "library", 120);

TEST(inline_path, access_in_signal_handler_inside_access_loses_no_count)
{
	struct revocable_domain *dom = revocable_domain_alloc("signals");
	struct test_res *res = test_res_new();
	struct revocable_provider __rcu *rp;
	struct revocable handle;
	unsigned long start, now, loops = 0, bad = 0;
	struct test_res *r;
	struct test_sig_storm storm;
	int ret;

	ck_assert_ptr_nonnull(dom);
	rp = revocable_provider_alloc_in(dom, res);
	sig_res = test_res_new();
	sig_slot = revocable_provider_alloc_in(dom, sig_res);
	ck_assert_ptr_nonnull(rp);
	ck_assert_ptr_nonnull(sig_slot);
	ck_assert_int_eq(revocable_init(sig_slot, &sig_handle), 0);
	ck_assert_int_eq(revocable_init(rp, &handle), 0);
	/* Both forms once before the storm: threads and blocks are set up. */
	sig_armed = 1;
	sig_access_handler(0);
	sig_access_handler(0);

	set_handler(SIGUSR1, sig_access_handler);
	set_handler(SIGALRM, sig_access_handler);
	test_sig_storm_start(&storm, pthread_self(), SIGUSR1);
	set_timer_us(50);
	/* 2 s, or up to 10 s until 1000 signals were handled (valgrind). */
	start = test_now_ms();
	while ((now = test_now_ms()) < start + 2000 ||
	       (sig_hits < 1000 && now < start + 10000)) {
		for (int i = 0; i < 3000; i++, loops++) {
			struct revocable acc;

			switch (i % 3) {
			case 0:
				r = revocable_access(rp, &acc);
				bad += r != res || !RES_LIVE(r);
				revocable_withdraw_access(&acc);
				break;
			case 1:
				r = revocable_try_access(&handle);
				bad += r != res || !RES_LIVE(r);
				revocable_withdraw_access(&handle);
				break;
			default:
				REVOCABLE_TRY_ACCESS_SCOPED(rp, r) {
					bad += r != res || !RES_LIVE(r);
				}
				break;
			}
		}
	}
	set_timer_us(0);
	test_sig_storm_stop(&storm);
	sig_armed = 0;

	fprintf(stderr, "signals: %lu accesses, %lu signals sent, %lu handled "
		"(%lu got the resource, %lu refused)\n", loops, storm.sent,
		sig_hits, sig_got, sig_refused);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(sig_bad, 0);
	ck_assert_uint_gt(sig_hits, 10);

	/* No count was lost: revokes in the domain complete. */
	revocable_deinit(&handle);
	revocable_deinit(&sig_handle);
	ret = test_revoke_bounded(&rp, test_bound_ms(10000));
	ck_assert_int_eq(ret, 1);
	ck_assert_int_eq(test_revoke_bounded(&sig_slot, test_bound_ms(10000)), 1);
	rp = revocable_provider_alloc_in(dom, (void *)1);
	ck_assert_int_eq(test_revoke_bounded(&rp, test_bound_ms(10000)), 1);
	test_res_free(res);
	test_res_free(sig_res);
	revocable_domain_barrier(dom);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/* ----- seccomp: membarrier() denied after start-up ----------------------- */

static int membarrier_denied_child(void *arg)
{
	struct revocable_provider __rcu *rp;
	struct revocable_provider *ref;
	struct child_reader rd;
	struct revocable acc;
	struct test_res *res;

	(void)arg;
	/* The library starts up and revokes with membarrier(). */
	CHILD_STEP("revoke before the filter");
	res = test_res_new();
	rp = revocable_provider_alloc(res);
	CHILD_CHECK(revocable_access(rp, &acc) == res);
	revocable_withdraw_access(&acc);
	CHILD_CHECK(revocable_revoke(&rp) == 1);
	test_res_free(res);
	if (!compat_has_membarrier)
		fprintf(stderr, "note: no private expedited membarrier() on this "
			"kernel: only the fence path is exercised\n");

	/* A reader is inside when the sandbox goes up. */
	res = test_res_new();
	rp = revocable_provider_alloc(res);
	ref = revocable_provider_get_rcu(&rp);
	CHILD_CHECK(child_reader_start(&rd, ref) == 0);

	CHILD_STEP("install the filter");
	CHILD_CHECK(test_deny_membarrier(true) == 0);
	errno = 0;
	CHILD_CHECK(syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) == -1);
	CHILD_CHECK(errno == EPERM);

	CHILD_STEP("first revoke after the filter, reader inside");
	{
		struct child_revoker rv;

		CHILD_CHECK(child_revoker_start(&rv, &rp) == 0);
		usleep(50000);
		CHILD_CHECK(!READ_ONCE(rv.finished));
		child_reader_stop(&rd);
		CHILD_CHECK(!rd.bad && rd.res == res);
		CHILD_CHECK(child_revoker_wait(&rv, test_bound_ms(10000)));
		CHILD_CHECK(rv.ret == 1);
	}
	test_res_free(res);
	revocable_provider_put(ref);
	return revoke_every_way("sandboxed");
}

TEST(inline_path, membarrier_denied_after_start_keeps_working)
{
	CHILD_OK(membarrier_denied_child, NULL, 30000);
}
END_TEST

/* ----- no pthread key left ----------------------------------------------- */

static void *access_in_thread(void *arg)
{
	struct revocable_provider *rp = arg;
	struct revocable acc;
	void *got;

	got = revocable_access(rp, &acc);
	revocable_withdraw_access(&acc);
	return got;
}

static int no_key_child(void *arg)
{
	struct revocable_provider __rcu *rp;
	struct revocable rev;
	struct revocable acc;
	struct test_res *res;
	unsigned long w;
	pthread_key_t key;
	unsigned int keys = 0;
	pthread_t t;
	void *got;

	(void)arg;
	CHILD_STEP("exhaust the keys");
	while (pthread_key_create(&key, NULL) == 0)
		keys++;
	CHILD_CHECK(keys > 0);

	CHILD_STEP("first access without a key");
	res = test_res_new();
	rp = revocable_provider_alloc(res);
	CHILD_CHECK(rp);
	w = compat_warn_count();
	got = revocable_access(rp, &acc);
	/* Refused, with a warning; or the library needed no new key. */
	CHILD_CHECK(got == res || (!got && compat_warn_count() > w));
	revocable_withdraw_access(&acc);

	CHILD_STEP("handle access without a key");
	CHILD_CHECK(revocable_init(rp, &rev) == 0);
	got = revocable_try_access(&rev);
	CHILD_CHECK(got == res || !got);
	revocable_withdraw_access(&rev);
	revocable_deinit(&rev);

	CHILD_STEP("first access of a new thread without a key");
	CHILD_CHECK(own_thread(&t, access_in_thread, rp) == 0);
	pthread_join(t, &got);
	CHILD_CHECK(got == res || !got);

	CHILD_STEP("revoke without a key");
	CHILD_CHECK(revocable_revoke(&rp) == 1);
	test_res_free(res);
	revocable_domain_barrier(revocable_default_domain());
	return 0;
}

TEST(inline_path, first_access_without_a_pthread_key)
{
	CHILD_OK(no_key_child, NULL, 30000);
}
END_TEST

#ifndef _LGPL_SOURCE
/* Out of line only: what inline accessors do not change. */

/* ----- signals: revokes in a handler ------------------------------------- */

/*
 * Thread A is inside revocable_revoke(), waiting in the domain's grace
 * period for reader B.  A signal interrupts A, and its handler revokes
 * another provider of the same domain (each kind of revoke, the wait of a
 * begun one), or waits for the domain's callbacks or frees it: each must
 * get -EDEADLK (with a warning), not wait for the grace period A itself is
 * running.
 */
enum gp_op { GP_REVOKE, GP_ASYNC, GP_WAIT, GP_BATCH, GP_BARRIER, GP_FREE };

struct gp_scene {
	struct revocable_domain *dom;
	struct revocable_provider __rcu *held;	/* B is inside it */
	struct revocable_provider __rcu *victim;	/* the handler's */
	enum gp_op op;				/* what the handler calls */
	struct revocable_provider *begun;	/* GP_WAIT: the victim, begun */
	struct test_revoker a;
	int handler_ret;
	int handler_done;
	unsigned long handler_warns;
	int victim_done;
};

static struct gp_scene *gp_scene;

static void revoke_in_handler(int sig)
{
	struct gp_scene *sc = gp_scene;
	struct revocable_provider __rcu **slots[1];
	unsigned long w = compat_warn_count();
	int saved_errno = errno;

	if (!sc || !pthread_equal(pthread_self(), sc->a.thread.tid))
		return;
	slots[0] = &sc->victim;

	switch (sc->op) {
	case GP_REVOKE:
		sc->handler_ret = revocable_revoke(&sc->victim);
		break;
	case GP_ASYNC:
		sc->handler_ret = revocable_revoke_async(&sc->victim, count_done,
							 &sc->victim_done);
		break;
	case GP_WAIT:
		sc->handler_ret = revocable_revoke_wait(sc->begun);
		break;
	case GP_BATCH:
		sc->handler_ret = revocable_revoke_batch(slots, 1);
		break;
	case GP_BARRIER:
		sc->handler_ret = revocable_domain_barrier(sc->dom);
		break;
	case GP_FREE:
		sc->handler_ret = revocable_domain_free(sc->dom);
		break;
	}
	sc->handler_warns = compat_warn_count() - w;
	__atomic_store_n(&sc->handler_done, 1, __ATOMIC_RELEASE);
	errno = saved_errno;
}

static void revoke_from_handler_during_grace_period(enum gp_op op)
{
	static const char *const names[] = {
		"revocable_revoke", "revocable_revoke_async",
		"revocable_revoke_wait", "revocable_revoke_batch",
		"revocable_domain_barrier", "revocable_domain_free",
	};
	struct gp_scene sc = { .op = op };
	struct test_res *held_res = test_res_new();
	struct test_res *victim_res = test_res_new();
	struct revocable_provider *ref;
	struct test_reader b;
	struct revocable acc;
	unsigned long end;

	sc.dom = revocable_domain_alloc("gp-signal");
	ck_assert_ptr_nonnull(sc.dom);
	sc.held = revocable_provider_alloc_in(sc.dom, held_res);
	sc.victim = revocable_provider_alloc_in(sc.dom, victim_res);
	ref = revocable_provider_get_rcu(&sc.held);
	if (op == GP_WAIT)
		sc.begun = revocable_revoke_begin(&sc.victim);
	test_reader_start(&b, ref, 0, "reader-b");

	gp_scene = &sc;
	set_handler(SIGUSR1, revoke_in_handler);
	sc.a.slot = &sc.held;
	test_revoker_start(&sc.a);
	/* A has cleared the slot and waits in the grace period for B. */
	end = test_now_ms() + test_bound_ms(5000);
	while (rcu_access_pointer(sc.held) && test_now_ms() < end)
		test_sleep_ms(1);
	ck_assert_ptr_null(rcu_access_pointer(sc.held));
	test_sleep_ms(100);
	ck_assert_int_eq(READ_ONCE(sc.a.ret), -1);

	ck_assert_int_eq(pthread_kill(sc.a.thread.tid, SIGUSR1), 0);
	end = test_now_ms() + test_bound_ms(5000);
	while (!__atomic_load_n(&sc.handler_done, __ATOMIC_ACQUIRE) &&
	       test_now_ms() < end)
		test_sleep_ms(1);
	ck_assert_msg(__atomic_load_n(&sc.handler_done, __ATOMIC_ACQUIRE),
		      "%s() in a signal handler that interrupted "
		      "a grace period of its domain deadlocked", names[op]);
	ck_assert_int_eq(sc.handler_ret, -EDEADLK);
	ck_assert_uint_ge(sc.handler_warns, 1);

	/* A's revoke still waits for B, and ends when B leaves. */
	ck_assert_int_eq(READ_ONCE(sc.a.ret), -1);
	test_reader_stop(&b);
	JOIN_OR_FAIL(&sc.a.thread, (unsigned int)test_bound_ms(5000));
	ck_assert_int_eq(sc.a.ret, 1);
	gp_scene = NULL;
	signal(SIGUSR1, SIG_IGN);

	/*
	 * The refused revoke either left the provider in its slot (revoke
	 * it now) or revoked it for new accesses and finishes in the
	 * background.
	 */
	if (sc.begun)
		ck_assert_int_eq(revocable_revoke_wait(sc.begun), 0);
	if (rcu_access_pointer(sc.victim))
		ck_assert_int_eq(test_revoke_bounded(&sc.victim, test_bound_ms(5000)), 1);
	ck_assert_ptr_null(revocable_access(sc.victim, &acc));
	revocable_withdraw_access(&acc);
	revocable_provider_put(ref);
	revocable_domain_barrier(sc.dom);
	ck_assert_int_le(sc.victim_done, 1);
	ck_assert_int_eq(revocable_domain_free(sc.dom), 0);
	test_res_free(held_res);
	test_res_free(victim_res);
}

TEST(library, revoke_in_signal_handler_during_grace_period_is_refused)
{
	revoke_from_handler_during_grace_period(GP_REVOKE);
}
END_TEST

TEST(library, revoke_async_in_signal_handler_during_grace_period_is_refused)
{
	revoke_from_handler_during_grace_period(GP_ASYNC);
}
END_TEST

TEST(library, revoke_wait_in_signal_handler_during_grace_period_is_refused)
{
	revoke_from_handler_during_grace_period(GP_WAIT);
}
END_TEST

TEST(library, batch_in_signal_handler_during_grace_period_is_refused)
{
	revoke_from_handler_during_grace_period(GP_BATCH);
}
END_TEST

TEST(library, barrier_in_signal_handler_during_grace_period_is_refused)
{
	revoke_from_handler_during_grace_period(GP_BARRIER);
}
END_TEST

TEST(library, domain_free_in_signal_handler_during_grace_period_is_refused)
{
	revoke_from_handler_during_grace_period(GP_FREE);
}
END_TEST

/*
 * Thread A queues async revokes in a loop (the domain's callback lock is
 * taken and released each time) while signals rain on it; the handler
 * queues async revokes of its own in the same domain.  Each call returns,
 * 1 or an error: the handler never waits for a lock A holds.
 */
#define ASYNC_POOL	32768

struct async_storm {
	struct revocable_domain *dom;
	struct revocable_provider __rcu *pool[ASYNC_POOL];
	unsigned int next;
	unsigned int queued, refused;
	int done;			/* done callbacks that ran */
	int a_queued;
	volatile int stop;
	struct test_thread a;
};

static struct async_storm *async_storm;

static void revoke_async_in_handler(int sig)
{
	struct async_storm *st = async_storm;
	int saved_errno = errno, ret;

	if (!st || !pthread_equal(pthread_self(), st->a.tid) ||
	    st->next >= ASYNC_POOL)
		return;
	/* The test thread watches how far the handler got. */
	__atomic_store_n(&st->next, st->next + 1, __ATOMIC_RELAXED);
	ret = revocable_revoke_async(&st->pool[st->next - 1], count_done,
				     &st->done);
	if (ret == 1)
		st->queued++;
	else
		st->refused++;
	errno = saved_errno;
}

static void *async_revoker_loop(void *arg)
{
	struct async_storm *st = arg;
	struct revocable_provider __rcu *rp;
	unsigned int i;

	for (i = 0; !READ_ONCE(st->stop); i++) {
		rp = revocable_provider_alloc_in(st->dom, (void *)1);
		if (!rp)
			continue;
		if (revocable_revoke_async(&rp, count_done, &st->done) == 1)
			st->a_queued++;
		if (!(i % 256))
			revocable_domain_barrier(st->dom);
	}
	return NULL;
}

TEST(library, revoke_async_in_signal_handler_never_deadlocks)
{
	struct async_storm *st = calloc(1, sizeof(*st));
	struct test_sig_storm storm;
	unsigned long end;
	unsigned int i;

	ck_assert_ptr_nonnull(st);
	st->dom = revocable_domain_alloc("async-signal");
	ck_assert_ptr_nonnull(st->dom);
	for (i = 0; i < ASYNC_POOL; i++) {
		st->pool[i] = revocable_provider_alloc_in(st->dom, (void *)1);
		ck_assert_ptr_nonnull(st->pool[i]);
	}
	async_storm = st;
	set_handler(SIGUSR1, revoke_async_in_handler);
	test_thread_start(&st->a, async_revoker_loop, st);
	test_sig_storm_start(&storm, st->a.tid, SIGUSR1);
	end = test_now_ms() + 3000;
	while (__atomic_load_n(&st->next, __ATOMIC_RELAXED) < ASYNC_POOL &&
	       test_now_ms() < end)
		test_sleep_ms(10);
	test_sig_storm_stop(&storm);
	WRITE_ONCE(st->stop, 1);
	ck_assert_msg(test_thread_join(&st->a, test_bound_ms(10000)),
		      "a thread that took a signal while queueing an async "
		      "revoke hung (its handler queued one too: %u before)",
		      st->queued + st->refused);
	async_storm = NULL;
	signal(SIGUSR1, SIG_IGN);
	fprintf(stderr, "async storm: %lu signals, handler queued %u, refused %u; "
		"thread queued %d\n", storm.sent, st->queued, st->refused,
		st->a_queued);
	ck_assert_uint_gt(st->queued + st->refused, 0);

	/* Whatever the handler left in its slots is revoked now. */
	for (i = 0; i < ASYNC_POOL; i++)
		if (rcu_access_pointer(st->pool[i]))
			ck_assert_int_eq(revocable_revoke(&st->pool[i]), 1);
	revocable_domain_barrier(st->dom);
	ck_assert_int_eq(done_read(&st->done), (int)st->queued + st->a_queued);
	ck_assert_int_eq(revocable_domain_free(st->dom), 0);
	free(st);
}
END_TEST

/* ----- no threads for the library's workers ------------------------------ */

/*
 * What a library without workers must still do: an async revoke completes
 * (its done callback runs) or is refused with an error; a revoke inside an
 * access answers -EDEADLK; plain, batched and two-phase revokes, barriers
 * and domain_free() work.  Never an abort, never a hang.
 */
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;

/* A done callback that takes a lock its revoker may hold. */
static void locked_done(void *arg)
{
	pthread_mutex_lock(&done_lock);
	count_done(arg);
	pthread_mutex_unlock(&done_lock);
}

static int without_worker_threads(void)
{
	struct revocable_provider __rcu *rp[3];
	struct revocable_provider __rcu **slots[2] = { &rp[1], &rp[2] };
	struct revocable_provider *ref, *begun;
	struct revocable_domain *dom;
	struct revocable acc;
	unsigned long end;
	int done = 0, want = 0, ret, i;

	CHILD_STEP("domain alloc");
	dom = revocable_domain_alloc("no-threads");
	CHILD_CHECK(dom);

	for (i = 0; i < 2; i++) {
		/* The default domain, then one of our own: no worker either way. */
		struct revocable_domain *d = i ? dom : revocable_default_domain();

		CHILD_STEP("revoke_async without a worker");
		rp[0] = revocable_provider_alloc_in(d, (void *)1);
		CHILD_CHECK(rp[0]);
		ret = revocable_revoke_async(&rp[0], count_done, &done);
		CHILD_CHECK(ret == 1 || ret < 0);
		if (ret == 1) {
			want++;
		} else if (rcu_access_pointer(rp[0])) {
			CHILD_STEP("revoke after a refused revoke_async");
			CHILD_CHECK(revocable_revoke(&rp[0]) == 1);
		}
		CHILD_STEP("barrier after revoke_async");
		end = test_now_ms() + test_bound_ms(5000);
		do
			revocable_domain_barrier(d);
		while (done_read(&done) < want && test_now_ms() < end);
		CHILD_CHECK(done_read(&done) == want);
	}

	/*
	 * The caller holds a lock that its done callback takes: the callback
	 * must wait for a barrier, not run in the caller (issue 32).
	 */
	CHILD_STEP("revoke_async under a lock its callback takes");
	rp[0] = revocable_provider_alloc_in(dom, (void *)1);
	CHILD_CHECK(rp[0]);
	pthread_mutex_lock(&done_lock);
	ret = revocable_revoke_async(&rp[0], locked_done, &done);
	pthread_mutex_unlock(&done_lock);
	CHILD_CHECK(ret == 1);
	want++;
	revocable_domain_barrier(dom);
	CHILD_CHECK(done_read(&done) == want);

	CHILD_STEP("revoke inside an access without a worker");
	rp[0] = revocable_provider_alloc_in(dom, (void *)2);
	CHILD_CHECK(rp[0]);
	ref = rp[0];
	CHILD_CHECK(revocable_access(ref, &acc) == (void *)2);
	CHILD_CHECK(revocable_revoke(&rp[0]) == -EDEADLK);
	CHILD_CHECK(revocable_access_unchecked(ref) == NULL);
	revocable_withdraw_access(&acc);
	CHILD_STEP("barrier after the refused revoke");
	revocable_domain_barrier(dom);

	CHILD_STEP("plain revoke with a consumer reference");
	rp[0] = revocable_provider_alloc((void *)3);
	CHILD_CHECK(rp[0]);
	ref = revocable_provider_get_rcu(&rp[0]);
	CHILD_CHECK(ref);
	CHILD_CHECK(revocable_access(ref, &acc) == (void *)3);
	revocable_withdraw_access(&acc);
	CHILD_CHECK(revocable_revoke(&rp[0]) == 1);
	revocable_provider_put(ref);

	CHILD_STEP("batch revoke");
	rp[1] = revocable_provider_alloc((void *)4);
	rp[2] = revocable_provider_alloc_in(dom, (void *)5);
	CHILD_CHECK(rp[1] && rp[2]);
	CHILD_CHECK(revocable_revoke_batch(slots, 2) == 2);

	CHILD_STEP("two-phase revoke");
	rp[0] = revocable_provider_alloc_in(dom, (void *)6);
	begun = revocable_revoke_begin(&rp[0]);
	CHILD_CHECK(begun);
	CHILD_CHECK(revocable_revoke_wait(begun) == 0);

	CHILD_STEP("barriers and domain free");
	revocable_domain_barrier(revocable_default_domain());
	end = test_now_ms() + test_bound_ms(5000);
	while ((ret = revocable_domain_free(dom)) == -EBUSY &&
	       test_now_ms() < end)
		test_sleep_ms(10);
	CHILD_CHECK(ret == 0);
	return 0;
}

static int pthread_create_fails_child(void *arg)
{
	pthread_t t;

	(void)arg;
	__atomic_store_n(&threads_fail, 1, __ATOMIC_SEQ_CST);
	CHILD_CHECK(pthread_create(&t, NULL, idle_thread, NULL) == EAGAIN);
	CHILD_CHECK(without_worker_threads() == 0);
	fprintf(stderr, "no threads (interposed): %lu thread creations refused\n",
		__atomic_load_n(&threads_refused, __ATOMIC_RELAXED));
	return 0;
}

TEST(library, library_without_threads_interposed)
{
	CHILD_OK(pthread_create_fails_child, NULL, 30000);
}
END_TEST

/* Tasks (threads) whose real uid is @uid, as RLIMIT_NPROC counts them. */
static long tasks_of_uid(uid_t uid)
{
	char path[300], line[256];
	struct dirent *de;
	long n = 0, threads;
	unsigned int ruid;
	bool mine;
	DIR *d = opendir("/proc");
	FILE *f;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		mine = false;
		threads = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Uid: %u", &ruid) == 1)
				mine = ruid == uid;
			else if (sscanf(line, "Threads: %ld", &threads) == 1)
				break;
		}
		fclose(f);
		if (mine)
			n += threads;
	}
	closedir(d);
	return n;
}

#define NOBODY	65534

/*
 * A real RLIMIT_NPROC, not an interposer: root is exempt from the limit,
 * so the child becomes nobody, with a limit of the tasks nobody already
 * has; then no clone() can succeed.
 */
static int rlimit_nproc_child(void *arg)
{
	struct rlimit rl;
	uid_t uid = geteuid() ? geteuid() : NOBODY;
	long n;
	pthread_t t;

	(void)arg;
	CHILD_STEP("set RLIMIT_NPROC");
	n = tasks_of_uid(uid);
	CHILD_CHECK(n >= 0);
	rl.rlim_cur = rl.rlim_max = (rlim_t)n;
	CHILD_CHECK(setrlimit(RLIMIT_NPROC, &rl) == 0);
	if (!geteuid()) {
		CHILD_CHECK(setgroups(0, NULL) == 0);
		CHILD_CHECK(setgid(NOBODY) == 0);
		CHILD_CHECK(setuid(NOBODY) == 0);
	}
	/*
	 * The limit bites: no thread can be created now.  (Should tasks of
	 * nobody have ended meanwhile, a limit of 0 makes sure.)
	 */
	if (own_thread(&t, idle_thread, NULL) != EAGAIN) {
		pthread_join(t, NULL);
		rl.rlim_cur = rl.rlim_max = 0;
		CHILD_CHECK(setrlimit(RLIMIT_NPROC, &rl) == 0);
		CHILD_CHECK(own_thread(&t, idle_thread, NULL) == EAGAIN);
	}
	CHILD_CHECK(without_worker_threads() == 0);
	return 0;
}

TEST(library, library_without_threads_rlimit_nproc)
{
	CHILD_OK(rlimit_nproc_child, NULL, 30000);
}
END_TEST

/* ----- many domains ------------------------------------------------------ */

struct many {
	unsigned int n;			/* to create */
	unsigned int made;		/* created */
	int err;			/* errno at the first NULL */
	int free_ret;			/* first nonzero domain_free() */
	unsigned long alloc_ms, free_ms;
	struct revocable_domain **doms;
	struct test_thread thread;
};

static void *many_domains(void *arg)
{
	struct many *m = arg;
	struct revocable_provider __rcu *rp;
	struct revocable acc;
	unsigned long t0 = test_now_ms();
	unsigned int i;
	int ret;

	for (i = 0; i < m->n; i++) {
		errno = 0;
		m->doms[i] = revocable_domain_alloc("many");
		if (!m->doms[i]) {
			m->err = errno;
			break;
		}
		m->made++;
	}
	m->alloc_ms = test_now_ms() - t0;
	/* The newest, the oldest and one in the middle are usable. */
	for (i = 0; m->made && i < 3; i++) {
		struct revocable_domain *d =
			m->doms[i == 0 ? m->made - 1 : i == 1 ? 0 : m->made / 2];

		rp = revocable_provider_alloc_in(d, (void *)1);
		if (!rp || revocable_access(rp, &acc) != (void *)1) {
			m->free_ret = -ENODATA;
			return NULL;
		}
		revocable_withdraw_access(&acc);
		if (revocable_revoke(&rp) != 1) {
			m->free_ret = -ENODATA;
			return NULL;
		}
	}
	t0 = test_now_ms();
	for (i = 0; i < m->made; i++) {
		ret = revocable_domain_free(m->doms[i]);
		if (ret && !m->free_ret)
			m->free_ret = ret;
	}
	m->free_ms = test_now_ms() - t0;
	return NULL;
}

/*
 * A daemon that gives each of its devices a domain.  The figure is
 * 100,000 live domains; under valgrind (REVOCABLE_TEST_SLOW) 1,000.
 */
TEST(library, hundred_thousand_live_domains)
{
	struct many m = { .n = test_slow() ? 1000 : 100000 };

	m.doms = calloc(m.n, sizeof(*m.doms));
	ck_assert_ptr_nonnull(m.doms);
	test_thread_start(&m.thread, many_domains, &m);
	ck_assert_msg(test_thread_join(&m.thread, test_bound_ms(60000)),
		      "%u domains not created and freed within %lu ms",
		      m.n, test_bound_ms(60000));
	fprintf(stderr, "domains: %u of %u created in %lu ms, freed in %lu ms\n",
		m.made, m.n, m.alloc_ms, m.free_ms);
	ck_assert_msg(m.made == m.n,
		      "revocable_domain_alloc() returned NULL for domain %u "
		      "(errno %d%s)", m.made + 1, m.err,
		      m.err ? "" : ": not set");
	ck_assert_int_eq(m.free_ret, 0);
	free(m.doms);
}
END_TEST

/*
 * Creating and freeing a domain costs microseconds, not a grace period,
 * also once the library's deferred frees are running (the first provider
 * released starts them).
 */
TEST(library, domain_create_and_free_are_cheap)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc((void *)1);
	unsigned int n = test_slow() ? 100 : 1000, i;
	struct revocable_domain *dom;
	unsigned long t0, ms;

	ck_assert_int_eq(revocable_revoke(&rp), 1);
	revocable_domain_barrier(revocable_default_domain());
	t0 = test_now_ms();
	for (i = 0; i < n; i++) {
		dom = revocable_domain_alloc("cheap");
		ck_assert_ptr_nonnull(dom);
		ck_assert_int_eq(revocable_domain_free(dom), 0);
	}
	ms = test_now_ms() - t0;
	fprintf(stderr, "domains: %u create+free in %lu ms\n", n, ms);
	/* 1 ms each at most, on a loaded machine. */
	ck_assert_msg(ms <= test_bound_ms(n), "%u create+free took %lu ms",
		      n, ms);
}
END_TEST

/* When a domain cannot be had, errno says why. */
TEST(library, domain_alloc_failure_sets_errno)
{
	struct revocable_domain *dom;
	unsigned long k;

	for (k = 1; k < 64; k++) {
		compat_alloc_fail_countdown = k;
		errno = 0;
		dom = revocable_domain_alloc("nomem");
		if (!dom)
			ck_assert_msg(errno == ENOMEM,
				      "domain_alloc() failing at allocation %lu "
				      "returned NULL with errno %d", k, errno);
		else
			ck_assert_int_eq(revocable_domain_free(dom), 0);
		if (compat_alloc_fail_countdown) {
			/* The failure was not reached: all were tried. */
			compat_alloc_fail_countdown = 0;
			break;
		}
	}
	ck_assert_uint_gt(k, 1);
}
END_TEST

/* ----- waits inside an access -------------------------------------------- */

/*
 * Inside an access of a domain with an async revoke pending there (its
 * callback waits for that very access), domain_barrier() warns and returns
 * without waiting, and domain_free() warns and answers -EDEADLK; the
 * domain is intact and both work once the access ends.
 */
struct inside_wait {
	struct revocable_domain *dom;
	struct revocable_provider __rcu *held;
	struct revocable_provider __rcu *pending;
	int done;
	int async_ret, free_ret;
	int done_at_barrier;
	unsigned long barrier_warns, free_warns, barrier_ms;
	struct test_thread thread;
};

static void *wait_inside_access(void *arg)
{
	struct inside_wait *iw = arg;
	struct revocable acc;
	unsigned long w, t0;

	if (revocable_access(iw->held, &acc) != (void *)1)
		return NULL;
	iw->async_ret = revocable_revoke_async(&iw->pending, count_done,
					       &iw->done);
	w = compat_warn_count();
	t0 = test_now_ms();
	revocable_domain_barrier(iw->dom);
	iw->barrier_ms = test_now_ms() - t0;
	iw->barrier_warns = compat_warn_count() - w;
	iw->done_at_barrier = done_read(&iw->done);
	w = compat_warn_count();
	iw->free_ret = revocable_domain_free(iw->dom);
	iw->free_warns = compat_warn_count() - w;
	revocable_withdraw_access(&acc);
	return NULL;
}

TEST(library, domain_waits_inside_an_access_are_refused)
{
	struct inside_wait iw = { .free_ret = 1 };

	iw.dom = revocable_domain_alloc("waits-inside");
	ck_assert_ptr_nonnull(iw.dom);
	iw.held = revocable_provider_alloc_in(iw.dom, (void *)1);
	iw.pending = revocable_provider_alloc_in(iw.dom, (void *)2);
	test_thread_start(&iw.thread, wait_inside_access, &iw);
	ck_assert_msg(test_thread_join(&iw.thread, test_bound_ms(10000)),
		      "domain_barrier()/domain_free() inside an access of the "
		      "domain, with an async revoke pending, hung");
	ck_assert_int_eq(iw.async_ret, 1);
	ck_assert_int_eq(iw.done_at_barrier, 0);
	ck_assert_uint_ge(iw.barrier_warns, 1);
	ck_assert_uint_lt(iw.barrier_ms, test_bound_ms(2000));
	ck_assert_int_eq(iw.free_ret, -EDEADLK);
	ck_assert_uint_ge(iw.free_warns, 1);

	/* Outside the access both work, and the domain was left intact. */
	revocable_domain_barrier(iw.dom);
	ck_assert_int_eq(done_read(&iw.done), 1);
	ck_assert_int_eq(test_revoke_bounded(&iw.held, test_bound_ms(5000)), 1);
	revocable_domain_barrier(iw.dom);
	ck_assert_int_eq(revocable_domain_free(iw.dom), 0);
}
END_TEST

/* ----- the slow-revoke report -------------------------------------------- */

/* The lines of the log that contain @needle must all contain @name too. */
static bool lines_with_name(const char *log, const char *needle,
			    const char *name, unsigned int *seen)
{
	const char *p = log, *nl;
	char line[512];
	size_t len;

	*seen = 0;
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		len = (size_t)(nl - p + 1);
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		if (!strstr(line, needle))
			continue;
		(*seen)++;
		if (!strstr(line, name))
			return false;
	}
	return true;
}

/*
 * The list of threads inside the domain says which domain, by the name
 * given to revocable_domain_alloc(), not by the expression that
 * initialised its SRCU state.
 */
TEST(library, slow_report_names_the_domain)
{
	bool live;
	const char *text = test_slow_report("hostile-report", &live);
	unsigned int seen;

	ck_assert_msg(strstr(text, "hostile-report"), "report: %s", text);
	ck_assert_msg(lines_with_name(text, "(holder)", "hostile-report", &seen) &&
		      seen, "the thread list does not name the domain: %s", text);
	ck_assert_msg(!strstr(text, "&dom->srcu"), "report: %s", text);
	test_log_end();
}
END_TEST

/*
 * A thread leaves an access by siglongjmp() (a daemon's SIGSEGV recovery):
 * the access stays open, so a revoke of its domain waits; the report
 * names the thread, says what it does now and why an access can outlive
 * its frame; the revoke ends when the thread exits (issue 32).
 */
static sigjmp_buf jumper_env;
static struct revocable_provider *jumper_ref;
static int jumper_go, jumper_exit;

static void jumper_signal(int sig)
{
	(void)sig;
	siglongjmp(jumper_env, 1);
}

static void *jumper(void *arg)
{
	struct revocable acc;

	(void)arg;
	prctl(PR_SET_NAME, "jumper");
	if (!sigsetjmp(jumper_env, 1)) {
		if (!revocable_access(jumper_ref, &acc))
			return (void *)1;
		/* Leaves the access without its withdraw. */
		raise(SIGUSR1);
	}
	__atomic_store_n(&jumper_go, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&jumper_exit, __ATOMIC_SEQ_CST))
		usleep(1000);
	return NULL;
}

TEST(library, access_left_by_siglongjmp_is_reported_and_ends_at_exit)
{
	struct revocable_domain *dom = revocable_domain_alloc("hostile-jump");
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, (void *)1);
	struct sigaction sa = { .sa_handler = jumper_signal }, old;
	struct child_revoker rv;
	struct test_thread t;
	unsigned long end;

	ck_assert_int_eq(revocable_domain_set_slow(dom, 50, NULL, NULL), 0);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
	jumper_ref = revocable_provider_get_rcu(&rp);
	jumper_go = jumper_exit = 0;
	test_log_capture();
	test_thread_start(&t, jumper, NULL);
	end = test_now_ms() + test_bound_ms(5000);
	while (!__atomic_load_n(&jumper_go, __ATOMIC_SEQ_CST) && test_now_ms() < end)
		usleep(1000);
	ck_assert(jumper_go);

	ck_assert_int_eq(child_revoker_start(&rv, &rp), 0);
	end = test_now_ms() + test_bound_ms(5000);
	while (!(strstr(test_log_text(), "(jumper)") && strstr(test_log_text(), "siglongjmp")) &&
	       test_now_ms() < end)
		usleep(10000);
	ck_assert_msg(strstr(test_log_text(), "(jumper): 1 access(es) in SRCU hostile-jump, state "),
		      "report: %s", test_log_text());
	ck_assert_msg(strstr(test_log_text(), "siglongjmp"), "report: %s", test_log_text());
	ck_assert(!READ_ONCE(rv.finished));

	/* The thread's exit releases its sections: the revoke ends. */
	__atomic_store_n(&jumper_exit, 1, __ATOMIC_SEQ_CST);
	JOIN_OR_FAIL(&t, 5000);
	ck_assert(child_revoker_wait(&rv, test_bound_ms(5000)));
	ck_assert_int_eq(rv.ret, 1);
	test_log_end();
	sigaction(SIGUSR1, &old, NULL);
	revocable_provider_put(jumper_ref);
	revocable_domain_barrier(dom);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
}
END_TEST

/* Case-insensitive: whether the report says the counts are wrong. */
static bool says_counts_wrong(const char *log)
{
	static const char *const words[] = {
		"add up", "unbalanced", "imbalance", "inconsistent",
		"mismatch", "do not match", "lost",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strcasestr(log, words[i]))
			return true;
	return false;
}

/*
 * Counts that can never balance (here: an unlock under the wrong index,
 * which is what a lost update leaves behind too) hang the revoke for good;
 * the report must say so, naming the domain, rather than list a thread
 * that holds nothing, or nobody.  The revoke never ends, so this runs in
 * a child that exits with it still waiting.
 */
static int unbalanced_child(void *arg)
{
	struct revocable_domain *dom;
	struct revocable_provider __rcu *rp;
	struct srcu_struct *ssp;
	struct child_revoker rv;
	unsigned long end;
	const char *log;
	int idx;

	(void)arg;
	CHILD_STEP("unbalance a domain");
	dom = revocable_domain_alloc("hostile-skewed");
	CHILD_CHECK(dom);
	CHILD_CHECK(revocable_domain_set_slow(dom, 50, NULL, NULL) == 0);
	CHILD_CHECK(test_log_open());
	ssp = (struct srcu_struct *)((const struct __revocable_domain_head *)dom)->ssp;
	idx = srcu_read_lock(ssp);
	srcu_read_unlock(ssp, idx ^ 1);

	CHILD_STEP("revoke in the unbalanced domain");
	rp = revocable_provider_alloc_in(dom, (void *)1);
	CHILD_CHECK(child_revoker_start(&rv, &rp) == 0);
	end = test_now_ms() + test_bound_ms(5000);
	for (;;) {
		log = test_log_text();
		if (strstr(log, "hostile-skewed") && says_counts_wrong(log))
			break;
		if (test_now_ms() > end) {
			fprintf(stderr, "the report does not say that the counts "
				"of the domain do not add up:\n%s\n", log);
			return 1;
		}
		usleep(10000);
	}
	CHILD_CHECK(!READ_ONCE(rv.finished));
	return 0;
}

TEST(library, slow_report_says_when_counts_do_not_add_up)
{
	CHILD_OK(unbalanced_child, NULL, 20000);
}
END_TEST
#endif /* !_LGPL_SOURCE */
