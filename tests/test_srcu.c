// SPDX-License-Identifier: LGPL-2.1-or-later
/* The compat layer's userspace SRCU and shims, tested directly. */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/debug_locks.h>
#include <linux/kref.h>
#include <linux/printk.h>
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

TEST_SUITE("compat-srcu");
TEST_GROUP(srcu, "srcu", 20);

TEST(srcu, read_lock_returns_index_that_flips_per_grace_period)
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

TEST(srcu, synchronize_waits_for_sleeping_reader)
{
	struct reader r;
	struct test_syncer s;

	reader_start(&r, &srcu_a);
	test_syncer_start(&s, &srcu_a);
	ck_assert(!test_thread_join(&s.thread, 150));
	complete(&r.leave);
	JOIN_OR_FAIL(&r.thread, 5000);
	JOIN_OR_FAIL(&s.thread, 5000);
}
END_TEST

TEST(srcu, synchronize_ignores_readers_of_other_domains)
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
TEST(srcu, section_left_open_by_an_exiting_thread_is_released)
{
	struct test_syncer s;
	unsigned long warns = compat_warn_count();
	pthread_t t;
	int idx;

	pthread_create(&t, NULL, lock_and_exit, &idx);
	pthread_join(t, NULL);
	ck_assert_uint_eq(compat_warn_count(), warns + 1);
	ck_assert_msg(!strncmp(compat_warn_last_site(), "thread.c:", 9),
		      "WARN at %s", compat_warn_last_site());
	test_syncer_start(&s, &srcu_a);
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

TEST(srcu, call_srcu_runs_after_readers_in_order)
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

TEST(srcu, read_lock_held_is_per_thread)
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

/* Reader id @id stayed reserved: a new domain gets another one. */
static void assert_id_kept(int id)
{
	struct srcu_struct s;

	ck_assert_int_eq(init_srcu_struct(&s), 0);
	ck_assert_int_ne(s.reader.id, id);
	cleanup_srcu_struct(&s);
}

TEST(srcu, cleanup_with_reader_inside_warns_and_keeps_slot)
{
	struct srcu_struct s;
	int idx, slot;

	ck_assert_int_eq(init_srcu_struct(&s), 0);
	slot = s.reader.id;
	idx = srcu_read_lock(&s);
	ck_assert_uint_eq(WARNS(cleanup_srcu_struct(&s)), 1);
	srcu_read_unlock(&(struct srcu_struct){ .reader.id = slot }, idx);
	assert_id_kept(slot);
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

TEST(srcu, kref_shim_counts_and_warns_on_underflow)
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

TEST(srcu, completion_timeout_reports_zero_then_remaining)
{
	struct completion c;

	init_completion(&c);
	ck_assert_uint_eq(wait_for_completion_timeout(&c, 20), 0);
	complete(&c);
	ck_assert_uint_gt(wait_for_completion_timeout(&c, 1000), 0);
	ck_assert(!completion_done(&c));
}
END_TEST

/* ----- signals (issue 21) ------------------------------------------------ */

/*
 * A thread's own counts in @ssp, balanced per read index: what a count lost
 * to a signal handler would break for good.
 */
static bool own_counts_balance(const struct srcu_struct *ssp)
{
	const struct compat_thread *t = compat_thread_peek();
	unsigned long lock[2], unlock[2];

	if (!t || !compat_thread_count(t, ssp->reader.id, lock, unlock))
		return true;
	return lock[0] == unlock[0] && lock[1] == unlock[1];
}

static struct srcu_struct *sig_ssp, *sig_far;
static volatile unsigned long sig_handled;

/* Enters and leaves @sig_ssp, and a domain past the thread's first slots. */
static void sig_reader_handler(int sig)
{
	int idx;

	(void)sig;
	idx = srcu_read_lock(sig_ssp);
	srcu_read_unlock(sig_ssp, idx);
	if (sig_far) {
		idx = srcu_read_lock(sig_far);
		srcu_read_unlock(sig_far, idx);
	}
	sig_handled++;
}

static void sig_storm_start(struct test_sig_storm *st)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_reader_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	test_sig_storm_start(st, pthread_self(), SIGUSR2);
}

static unsigned long sig_storm_stop(struct test_sig_storm *st)
{
	unsigned long sent = test_sig_storm_stop(st);

	signal(SIGUSR2, SIG_IGN);
	return sent;
}

/*
 * The interrupted thread counts in @ssp in a loop while a handler counts
 * in the same domain: with a load, an add and a store per count, a handler
 * between them loses an update and the index never balances again.
 */
TEST(srcu, counts_survive_handlers_that_count_in_the_same_domain)
{
	struct test_syncer s;
	struct test_sig_storm st;
	unsigned long end, cap, sent, loops = 0;
	int idx;

	sig_ssp = &srcu_a;
	sig_far = NULL;
	sig_handled = 0;
	idx = srcu_read_lock(&srcu_a);
	srcu_read_unlock(&srcu_a, idx);
	sig_storm_start(&st);
	end = test_now_ms() + (test_slow() ? 500 : 1500);
	/* A loaded machine or valgrind delivers slowly: go on for 10 s at most. */
	cap = test_now_ms() + 10000;
	while (test_now_ms() < end ||
	       (READ_ONCE(sig_handled) <= 10 && test_now_ms() < cap)) {
		for (int i = 0; i < 1000; i++, loops++) {
			idx = srcu_read_lock(&srcu_a);
			srcu_read_unlock(&srcu_a, idx);
		}
	}
	sent = sig_storm_stop(&st);
	ck_assert_msg(sig_handled > 10, "%lu signals handled of %lu sent",
		      sig_handled, sent);
	ck_assert_msg(own_counts_balance(&srcu_a),
		      "a count was lost (%lu loops, %lu handled)", loops,
		      sig_handled);
	test_syncer_start(&s, &srcu_a);
	JOIN_OR_FAIL(&s.thread, (unsigned int)test_bound_ms(5000));
}
END_TEST

static volatile int first_access_result = -1;

static void *first_access_in_handler_fn(void *arg)
{
	struct sigaction sa;
	sigset_t set;

	(void)arg;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_reader_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (compat_thread_peek()) {
		first_access_result = 1;	/* registered before the signal */
		return NULL;
	}
	raise(SIGUSR2);
	first_access_result = compat_thread_peek() &&
			      compat_thread_peek() != &compat_shared_thread &&
			      own_counts_balance(sig_far) ? 0 : 2;
	return NULL;
}

/*
 * A thread's first access, and its first access past its first slots,
 * made in a signal handler: the registration and the move to a longer
 * array happen there, allocating nothing.
 */
TEST(srcu, first_access_and_longer_slots_in_a_handler)
{
	enum { N = 64 };
	struct srcu_struct *many = calloc(N, sizeof(*many));
	struct test_syncer s;
	struct test_thread t;
	int i;

	ck_assert_ptr_nonnull(many);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(init_srcu_struct(&many[i]), 0);
	ck_assert_int_ge(many[N - 1].reader.id, COMPAT_SRCU_FIRST_SLOTS);
	sig_ssp = &srcu_a;
	sig_far = &many[N - 1];
	first_access_result = -1;
	test_thread_start(&t, first_access_in_handler_fn, NULL);
	JOIN_OR_FAIL(&t, 5000);
	ck_assert_int_eq(first_access_result, 0);
	test_syncer_start(&s, sig_far);
	JOIN_OR_FAIL(&s.thread, 5000);
	signal(SIGUSR2, SIG_IGN);
	for (i = 0; i < N; i++)
		cleanup_srcu_struct(&many[i]);
	free(many);
}
END_TEST

/*
 * A handler that interrupted a grace period of a domain, which holds the
 * domain's grace-period lock: a wait on that domain would be on itself.
 */
static struct srcu_struct *gp_victim;
static int gp_would, gp_asked;

static void gp_handler(int sig)
{
	(void)sig;
	__atomic_store_n(&gp_would, compat_srcu_would_deadlock(gp_victim),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&gp_asked, 1, __ATOMIC_RELEASE);
}

TEST(srcu, handler_in_a_grace_period_would_deadlock)
{
	struct test_syncer s;
	struct sigaction sa;
	struct reader r;

	ck_assert(!compat_srcu_would_deadlock(&srcu_a));
	gp_victim = &srcu_a;
	__atomic_store_n(&gp_asked, 0, __ATOMIC_RELAXED);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = gp_handler;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR2, &sa, NULL), 0);
	reader_start(&r, &srcu_a);
	test_syncer_start(&s, &srcu_a);
	ck_assert(!test_thread_join(&s.thread, 100));
	ck_assert_int_eq(pthread_kill(s.thread.tid, SIGUSR2), 0);
	for (int i = 0; i < 5000 && !__atomic_load_n(&gp_asked, __ATOMIC_ACQUIRE); i++)
		test_sleep_ms(1);
	ck_assert(__atomic_load_n(&gp_asked, __ATOMIC_ACQUIRE));
	ck_assert_msg(__atomic_load_n(&gp_would, __ATOMIC_RELAXED),
		      "the handler does not know it is inside a grace period of its domain");
	complete(&r.leave);
	JOIN_OR_FAIL(&r.thread, 5000);
	JOIN_OR_FAIL(&s.thread, 5000);
	signal(SIGUSR2, SIG_IGN);
	ck_assert(!compat_srcu_would_deadlock(&srcu_a));
}
END_TEST

/* ----- domain ids (issue 21) --------------------------------------------- */

/*
 * No cap: many more domains than the 64 there used to be, ids handed out
 * again once free, creation and teardown without a wait.
 */
TEST(srcu, domain_ids_are_unbounded_and_reused)
{
	unsigned int n = test_slow() ? 2000 : 20000, i;
	struct srcu_struct *d = calloc(n, sizeof(*d));
	unsigned long t0, ms;
	int top = 0, idx;

	ck_assert_ptr_nonnull(d);
	t0 = test_now_ms();
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(init_srcu_struct(&d[i]), 0);
		if (d[i].reader.id > top)
			top = d[i].reader.id;
	}
	/* The newest works, from this thread and past its slots. */
	idx = srcu_read_lock(&d[n - 1]);
	ck_assert(srcu_read_lock_held(&d[n - 1]));
	srcu_read_unlock(&d[n - 1], idx);
	synchronize_srcu(&d[n - 1]);
	for (i = 0; i < n; i++)
		cleanup_srcu_struct(&d[i]);
	ms = test_now_ms() - t0;
	ck_assert_msg(ms < test_bound_ms(5000), "%u domains took %lu ms", n, ms);
	/* Ids come back: the next domain gets one already handed out. */
	ck_assert_int_eq(init_srcu_struct(&d[0]), 0);
	ck_assert_int_le(d[0].reader.id, top);
	cleanup_srcu_struct(&d[0]);
	free(d);
}
END_TEST

/* Counts that do not add up keep their id from being handed out again. */
TEST(srcu, cleanup_with_skewed_counts_warns_and_keeps_id)
{
	struct srcu_struct s;
	int idx, id;

	ck_assert_int_eq(init_srcu_struct(&s), 0);
	id = s.reader.id;
	idx = srcu_read_lock(&s);
	srcu_read_unlock(&s, idx ^ 1);		/* the wrong index */
	ck_assert_uint_eq(WARNS(cleanup_srcu_struct(&s)), 1);
	assert_id_kept(id);
}
END_TEST

/* ----- the report (issue 21) --------------------------------------------- */

/*
 * The list of readers names each domain by the name it was given, and
 * says when a thread's counts in a domain do not add up.
 */
TEST(srcu, report_names_domains_and_counts_that_do_not_add_up)
{
	struct srcu_struct s;
	struct reader r;
	int idx;

	ck_assert_int_eq(init_srcu_struct(&s), 0);
	compat_srcu_set_name(&s, "named-domain");
	reader_start(&r, &s);
	test_log_capture();
	debug_show_all_locks();
	ck_assert_msg(strstr(test_log_text(), "1 access(es) in SRCU named-domain"),
		      "%s", test_log_text());
	ck_assert_msg(!strstr(test_log_text(), "add up"), "%s", test_log_text());
	complete(&r.leave);
	JOIN_OR_FAIL(&r.thread, 5000);

	idx = srcu_read_lock(&s);
	srcu_read_unlock(&s, idx ^ 1);
	debug_show_all_locks();
	ck_assert_msg(strstr(test_log_text(), "counts in SRCU named-domain do not add up"),
		      "%s", test_log_text());
	test_log_end();
	ck_assert(!own_counts_balance(&s));
	/* The id is not handed out again. */
	ck_assert_uint_eq(WARNS(cleanup_srcu_struct(&s)), 1);
}
END_TEST

/* ----- membarrier() lost (issue 21) -------------------------------------- */

struct busy_reader {
	int stop;
	unsigned long loops;
	struct __revocable_reader *self;
	struct test_thread thread;
};

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* Counts in srcu_b without a break: inline until the switch. */
static void *busy_reader_fn(void *arg)
{
	struct busy_reader *b = arg;
	int idx;

	idx = srcu_read_lock(&srcu_b);
	srcu_read_unlock(&srcu_b, idx);
	STORE(b->self, __revocable_self);
	while (!LOAD(b->stop)) {
		idx = srcu_read_lock(&srcu_b);
		srcu_read_unlock(&srcu_b, idx);
		STORE(b->loops, b->loops + 1);
	}
	return NULL;
}

/*
 * In a child: a reader sleeps inside srcu_a and another counts in srcu_b
 * without a break, when a seccomp filter takes membarrier() away.  The
 * next grace period switches every thread to fences, waits for the
 * sleeper all the same, and later grace periods work; nothing aborts.
 */
static int membarrier_lost_child(void *arg)
{
	struct busy_reader b = { 0 };
	struct test_syncer s;
	struct reader r;
	unsigned long loops;
	int i, err;

	reader_start(&r, &srcu_a);
	test_thread_start(&b.thread, busy_reader_fn, &b);
	while (!LOAD(b.loops))
		test_sleep_ms(1);
	err = test_deny_membarrier(false);
	if (err == -EINVAL || err == -ENOSYS) {
		/* No seccomp here (valgrind): nothing to take away. */
		STORE(b.stop, 1);
		complete(&r.leave);
		CHILD_CHECK(test_thread_join(&r.thread, 5000));
		CHILD_CHECK(test_thread_join(&b.thread, 5000));
		return 77;
	}
	CHILD_CHECK(err == 0);
	test_syncer_start(&s, &srcu_a);
	CHILD_CHECK(!test_thread_join(&s.thread, 100));
	complete(&r.leave);
	CHILD_CHECK(test_thread_join(&r.thread, 5000));
	CHILD_CHECK(test_thread_join(&s.thread, (unsigned int)test_bound_ms(10000)));
	CHILD_CHECK(!compat_has_membarrier);
	/* The busy reader was switched, and goes on counting, fenced. */
	CHILD_CHECK(LOAD(b.self->fence) && !LOAD(b.self->nr_inline));
	loops = LOAD(b.loops);
	synchronize_srcu(&srcu_b);
	synchronize_srcu(&srcu_a);
	for (i = 0; i < 5000 && LOAD(b.loops) == loops; i++)
		test_sleep_ms(1);
	CHILD_CHECK(LOAD(b.loops) > loops);
	synchronize_srcu(&srcu_b);
	STORE(b.stop, 1);
	CHILD_CHECK(test_thread_join(&b.thread, 5000));
	synchronize_srcu(&srcu_b);
	return 0;
}

TEST(srcu, membarrier_lost_at_run_time_switches_to_fences)
{
	int ret;

	if (!compat_has_membarrier)
		fprintf(stderr, "note: no membarrier() here: only the fence path runs\n");
	ret = test_in_child(membarrier_lost_child, NULL, 20000);
	if (ret == 77) {
		fprintf(stderr, "note: no seccomp here: membarrier() not taken away\n");
		return;
	}
	ck_assert_msg(ret == 0, "child status %d (see its stderr)", ret);
}
END_TEST

/* ----- a thread the library cannot register (issue 21) ------------------- */

static int unregistrable_pipe[2];
static volatile int late_reader_result = -1;

static void *late_reader_fn(void *arg)
{
	struct srcu_struct *ssp = arg;
	char c;
	int idx;

	if (read(unregistrable_pipe[0], &c, 1) != 1) {
		late_reader_result = 1;
		return NULL;
	}
	idx = srcu_read_lock(ssp);	/* the thread's first access */
	late_reader_result =
		__revocable_self == &compat_shared_thread.reader ? 0 : 2;
	if (read(unregistrable_pipe[0], &c, 1) != 1)
		late_reader_result = 3;
	srcu_read_unlock(ssp, idx);
	return NULL;
}

/*
 * In a child: no memory can be mapped when a thread makes its first
 * access (RLIMIT_AS), with enough domains that it needs slots past its
 * first ones.  It is not refused: it shares the fallback block, with a
 * warning, and grace periods wait for it.
 */
static int unregistrable_child(void)
{
	enum { N = 40 };
	static struct srcu_struct many[N];
	struct test_syncer s;
	unsigned long w = compat_warn_count();
	struct test_thread t;
	struct rlimit rl, old;
	int i;

	for (i = 0; i < N; i++)
		CHILD_CHECK(init_srcu_struct(&many[i]) == 0);
	CHILD_CHECK(pipe(unregistrable_pipe) == 0);
	test_thread_start(&t, late_reader_fn, &many[N - 1]);
	CHILD_CHECK(getrlimit(RLIMIT_AS, &old) == 0);
	rl = old;
	rl.rlim_cur = 0;		/* no new mapping from now on */
	CHILD_CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
	CHILD_CHECK(write(unregistrable_pipe[1], "x", 1) == 1);
	for (i = 0; i < 5000 && compat_warn_count() == w; i++)
		usleep(1000);
	CHILD_CHECK(setrlimit(RLIMIT_AS, &old) == 0);
	CHILD_CHECK(compat_warn_count() > w);
	test_syncer_start(&s, &many[N - 1]);
	CHILD_CHECK(!test_thread_join(&s.thread, 100));
	CHILD_CHECK(write(unregistrable_pipe[1], "x", 1) == 1);
	CHILD_CHECK(test_thread_join(&t, 5000));
	CHILD_CHECK(late_reader_result == 0);
	CHILD_CHECK(test_thread_join(&s.thread, 5000));
	return 0;
}

TEST(srcu, thread_that_cannot_register_shares_a_block)
{
	int status;
	pid_t pid;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return;		/* their runtimes map memory all the time */
#endif
	if (test_slow())
		return;		/* valgrind manages the address space itself */
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		alarm(20);
		_exit(unregistrable_child());
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "child status %#x", status);
}
END_TEST
