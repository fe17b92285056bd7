/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers shared by the Check suites: threads with a watchdog, WARN
 * counting, and a poisoned resource that knows whether it is live.
 */
#ifndef REVOCABLE_TESTUTIL_H
#define REVOCABLE_TESTUTIL_H

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/bug.h>
#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/srcu.h>
#include <revocable.h>

#include "clock.h"

/* A thread that fails the test if it does not finish in time. */
struct test_thread {
	pthread_t tid;
	void *(*fn)(void *arg);
	void *arg;
	struct completion exited;
};

void test_thread_start(struct test_thread *t, void *(*fn)(void *), void *arg);
/* Returns 1 when the thread ended within @ms and was joined, else 0. */
int test_thread_join(struct test_thread *t, unsigned int ms);
#define JOIN_OR_FAIL(t, ms)						\
	ck_assert_msg(test_thread_join((t), (ms)),			\
		      "thread did not finish within %u ms (hang)", (ms))

/* Wait on a completion, failing the test instead of hanging. */
#define WAIT_OR_FAIL(c, ms)						\
	ck_assert_msg(wait_for_completion_timeout((c), (ms)),		\
		      "timed out after %u ms waiting for " #c, (ms))

/* The last WARN named a line of lib/revocable.c, as "revocable.c:LINE". */
#define ASSERT_WARNED_IN_LIB()						\
	do {								\
		int __line = 0;						\
		ck_assert_msg(sscanf(compat_warn_last_site(),		\
				     "revocable.c:%d", &__line) == 1 &&	\
			      __line > 0,				\
			      "last WARN at \"%s\", not revocable.c:LINE",	\
			      compat_warn_last_site());			\
	} while (0)

/* Counts WARNs fired while evaluating a statement. */
#define WARNS(stmt)							\
	({								\
		unsigned long __w0 = compat_warn_count();		\
		stmt;							\
		compat_warn_count() - __w0;				\
	})

#define RES_MAGIC	0x5245564fcafe1234ULL
#define RES_POISON	0x6b6b6b6b6b6b6b6bULL

/* A heap resource that is checked on every use and poisoned when freed. */
struct test_res {
	uint64_t magic;
	uint64_t uses;
};

struct test_res *test_res_new(void);
void test_res_free(struct test_res *r);
#define RES_LIVE(r)	((r)->magic == RES_MAGIC)

/*
 * True under a slow runner (valgrind sets REVOCABLE_TEST_SLOW): stress
 * loops then run fewer rounds and yield while they spin.
 */
bool test_slow(void);
/* A time bound for "promptly": @ms, or ten times that under a slow runner. */
unsigned long test_bound_ms(unsigned long ms);

/*
 * Checked teardown of every test: let deferred frees and callbacks run, so
 * that leak checkers see only real leaks.
 */
void test_quiesce(void);

/*
 * Tests register themselves: a suite file names its suite once with
 * TEST_SUITE(), its groups with TEST_GROUP() (a Check test case: each test
 * bounded by @timeout_s seconds and followed by test_quiesce()), and writes
 * each test as TEST(group, name) { ... } END_TEST.  testutil.c's main()
 * runs them in the order of the file; TEST_ONLY=name runs only that test.
 * A test cannot be written and then left out of its suite.
 */
struct test_group {
	const char *name;
	unsigned int timeout_s;
	const char *tags;		/* Check's tags, or NULL */
};

struct test_entry {
	const struct test_group *group;
	const TTest *const *test;
};

#define TEST_SUITE(name)	const char test_suite_name[] = name

#define TEST_GROUP_TAGGED(var, name, timeout_s, tags)			\
	static const struct test_group var __attribute__((__unused__)) = \
		{ (name), (timeout_s), (tags) }

#define TEST_GROUP(var, name, timeout_s)				\
	TEST_GROUP_TAGGED(var, name, timeout_s, NULL)

#define TEST(group, fn)							\
	static const TTest *fn;						\
	static const struct test_entry fn##_entry			\
	__attribute__((__used__, __section__("test_entries"))) =	\
		{ &(group), &fn };					\
	START_TEST(fn)

extern const char test_suite_name[];

/*
 * A reader thread: enters an access through @ref, signals, and stays inside
 * for hold_ms (checking that its test_res stays live) or, with hold_ms 0,
 * until test_reader_stop().
 */
struct test_reader {
	struct revocable_provider *ref;
	unsigned int hold_ms;
	const char *name;
	struct completion inside, leave;
	struct test_res *res;		/* what the access returned */
	volatile bool withdrawn;
	volatile bool saw_live;		/* hold_ms mode: live all along */
	struct test_thread thread;
};

void test_reader_start(struct test_reader *r, struct revocable_provider *ref,
		       unsigned int hold_ms, const char *name);
void test_reader_stop(struct test_reader *r);

/* Two providers (of resources 1 and 2) and the batch of their slots. */
struct test_two {
	struct revocable_provider __rcu *rp[2];
	struct revocable_provider __rcu **slots[2];
};

void test_two_init(struct test_two *t);

/* A thread in synchronize_srcu(@ssp), started by test_syncer_start(). */
struct test_syncer {
	struct srcu_struct *ssp;
	struct test_thread thread;
};

void test_syncer_start(struct test_syncer *s, struct srcu_struct *ssp);

/* A thread that revokes a slot, or a batch of slots when @slots is set. */
struct test_revoker {
	struct revocable_provider __rcu **slot;
	struct revocable_provider __rcu **const *slots;
	unsigned int n;
	volatile int ret;		/* -1 until the revoke returned */
	struct test_thread thread;
};

void test_revoker_start(struct test_revoker *r);
/* revocable_revoke(@slot) on a thread; fails the test if it takes @ms. */
int test_revoke_bounded(struct revocable_provider __rcu **slot,
			unsigned int ms);

/*
 * A thread that sends @sig to @target in a loop until stopped, with a
 * short pause between two signals.  It runs with every signal blocked, so
 * a process-directed signal (an interval timer's SIGALRM) never runs its
 * handler on the storm thread.
 */
struct test_sig_storm {
	pthread_t target;
	int sig;
	volatile int stop;
	unsigned long sent;
	struct test_thread thread;
};

void test_sig_storm_start(struct test_sig_storm *st, pthread_t target,
			  int sig);
/* Stops the storm (failing the test if it hangs); returns signals sent. */
unsigned long test_sig_storm_stop(struct test_sig_storm *st);

int test_deny_membarrier(bool thread_only_ok);

/*
 * Capture what the library prints (WARNs, reports) from now on, in memory:
 * test_log_open() says whether it could, test_log_capture() fails the test
 * if not.  test_log_text() is all of it so far; test_log_end() stops.
 */
bool test_log_open(void);
void test_log_capture(void);
const char *test_log_text(void);
/* Whether @needle shows in the captured text within @ms (stretched). */
bool test_log_wait_for(const char *needle, unsigned int ms);
void test_log_end(void);

/*
 * A revoke in a new domain named @domain, with a 50 ms slow report, that
 * waits for a thread named "holder" inside an access for 400 ms.  Returns
 * the report (test_log_text(); test_log_end() stops the capture) and
 * whether the reader saw its resource live all along.
 */
const char *test_slow_report(const char *domain, bool *saw_live);
int test_child_result(pid_t pid, unsigned int ms);

/*
 * In a fork() child: fail by exit status, never by Check.  CHILD_STEP()
 * says what the child is doing, for its watchdog's and abort's report.
 */
extern const char *volatile test_child_step;
#define CHILD_STEP(s)	(test_child_step = (s))
#define CHILD_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "child %d: %s:%d: step \"%s\": %s\n", \
				(int)getpid(), __FILE__, __LINE__,	\
				test_child_step, #cond);		\
			_exit(1);					\
		}							\
	} while (0)
/* The exit status of a child whose watchdog fired. */
#define CHILD_HUNG	124

/*
 * Run @fn(@arg) in a fork() child with a watchdog of @ms (stretched as
 * test_bound_ms() does); its exit status, CHILD_HUNG, or -1 when it was
 * killed by a signal or had to be killed.
 */
int test_in_child(int (*fn)(void *arg), void *arg, unsigned int ms);

#endif
