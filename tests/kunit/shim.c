// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The KUnit shim's runner (<kunit/test.h>): runs the suites that
 * kunit_test_suite() placed in the kunit_test_suites section and prints
 * KTAP as the kernel does, one subtest per suite.
 *
 * Each case runs in a thread of its own, as each runs in a kthread of its
 * own in the kernel; a failed assertion ends that thread.  Then suite->exit
 * and the case's resources run in another thread.  Two things are the
 * runner's own: a case that runs longer than the timeout is reported and
 * left running, and the kthreads a case started are joined when it ends
 * (a program that exits must not leave threads behind); one that has not
 * ended by then fails the case.  Under a slow runner (REVOCABLE_TEST_SLOW
 * in the environment, as valgrind's test setup sets it) both bounds are
 * ten times longer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/printk.h>

/* How long a case may run, and its kthreads take to end after it. */
#define KUNIT_CASE_TIMEOUT_S	60
#define KUNIT_KTHREAD_GRACE_MS	5000

/* Placed by the linker around the section; weak: there may be no suite. */
extern struct kunit_suite *__start_kunit_test_suites[] __weak;
extern struct kunit_suite *__stop_kunit_test_suites[] __weak;

static unsigned int kunit_slow_factor(void)
{
	return getenv("REVOCABLE_TEST_SLOW") ? 10 : 1;
}

/* ----- output ------------------------------------------------------------ */

struct kunit_buf {
	char text[4096];
	size_t len;
};

static void __printf(2, 0) kunit_buf_vadd(struct kunit_buf *b,
					  const char *fmt, va_list ap)
{
	int n;

	if (b->len >= sizeof(b->text) - 1)
		return;
	n = vsnprintf(b->text + b->len, sizeof(b->text) - b->len, fmt, ap);
	if (n > 0)
		b->len += (size_t)n;
	if (b->len > sizeof(b->text) - 1)
		b->len = sizeof(b->text) - 1;
}

static void __printf(2, 3) kunit_buf_add(struct kunit_buf *b,
					 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kunit_buf_vadd(b, fmt, ap);
	va_end(ap);
}

/* Prints @b in one piece, ending its last line. */
static void kunit_buf_print(struct kunit_buf *b)
{
	flockfile(stdout);
	fputs(b->text, stdout);
	if (!b->len || b->text[b->len - 1] != '\n')
		putc('\n', stdout);
	funlockfile(stdout);
	fflush(stdout);
}

void kunit_log_line(const char *fmt, ...)
{
	struct kunit_buf b = { .len = 0 };
	va_list ap;

	va_start(ap, fmt);
	kunit_buf_vadd(&b, fmt, ap);
	va_end(ap);
	kunit_buf_print(&b);
}

/* ----- failed checks ----------------------------------------------------- */

/* The path the kernel would print: none of the build's leading "../". */
static const char *kunit_path(const char *file)
{
	while (!strncmp(file, "../", 3) || !strncmp(file, "./", 2))
		file += file[1] == '/' ? 2 : 3;
	return file;
}

static void kunit_report_start(struct kunit_buf *b, struct kunit *test,
			       enum kunit_assert_type type, const char *file,
			       int line)
{
	kunit_set_failure(test);
	kunit_buf_add(b, "    # %s: %s FAILED at %s:%d\n", test->name,
		      type == KUNIT_ASSERTION ? "ASSERTION" : "EXPECTATION",
		      kunit_path(file), line);
}

static void __printf(2, 0) kunit_report_end(struct kunit_buf *b,
					    const char *fmt, va_list ap)
{
	if (fmt) {
		kunit_buf_add(b, "    ");
		kunit_buf_vadd(b, fmt, ap);
	}
	kunit_buf_print(b);
}

/* In a function whose arguments end with @fmt, ...: the message, printed. */
#define KUNIT_REPORT_END(b, fmt)					\
	do {								\
		va_list ap;						\
									\
		va_start(ap, fmt);					\
		kunit_report_end(b, fmt, ap);				\
		va_end(ap);						\
	} while (0)

void __kunit_fail_msg(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *fmt, ...)
{
	struct kunit_buf b = { .len = 0 };

	kunit_report_start(&b, test, type, file, line);
	KUNIT_REPORT_END(&b, fmt);
}

void __kunit_fail_bool(struct kunit *test, enum kunit_assert_type type,
		       const char *file, int line, const char *expr,
		       bool expected, const char *fmt, ...)
{
	struct kunit_buf b = { .len = 0 };

	kunit_report_start(&b, test, type, file, line);
	kunit_buf_add(&b, "    Expected %s to be %s, but is %s\n", expr,
		      expected ? "true" : "false",
		      expected ? "false" : "true");
	KUNIT_REPORT_END(&b, fmt);
}

/* "Expected @left @op @right, but" and the value of each side. */
static void kunit_report_sides(struct kunit_buf *b, const char *left,
			       const char *op, const char *right,
			       const char *lval, const char *rval)
{
	kunit_buf_add(b, "    Expected %s %s %s, but\n", left, op, right);
	kunit_buf_add(b, "        %s == %s\n", left, lval);
	kunit_buf_add(b, "        %s == %s\n", right, rval);
}

void __kunit_fail_int(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left,
		      const char *op, const char *right, long long lval,
		      long long rval, const char *fmt, ...)
{
	struct kunit_buf b = { .len = 0 };
	char l[48], r[48];

	snprintf(l, sizeof(l), "%lld (0x%llx)", lval, (unsigned long long)lval);
	snprintf(r, sizeof(r), "%lld (0x%llx)", rval, (unsigned long long)rval);
	kunit_report_start(&b, test, type, file, line);
	kunit_report_sides(&b, left, op, right, l, r);
	KUNIT_REPORT_END(&b, fmt);
}

void __kunit_fail_ptr(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left,
		      const char *op, const char *right, const void *lval,
		      const void *rval, const char *fmt, ...)
{
	struct kunit_buf b = { .len = 0 };
	char l[24], r[24];

	snprintf(l, sizeof(l), "%016lx", (unsigned long)lval);
	snprintf(r, sizeof(r), "%016lx", (unsigned long)rval);
	kunit_report_start(&b, test, type, file, line);
	kunit_report_sides(&b, left, op, right, l, r);
	KUNIT_REPORT_END(&b, fmt);
}

void __kunit_fail_not_err_or_null(struct kunit *test,
				  enum kunit_assert_type type,
				  const char *file, int line, const char *expr,
				  const void *val, const char *fmt, ...)
{
	struct kunit_buf b = { .len = 0 };

	kunit_report_start(&b, test, type, file, line);
	if (val)
		kunit_buf_add(&b, "    Expected %s is not error, but is: %ld\n",
			      expr, PTR_ERR(val));
	else
		kunit_buf_add(&b, "    Expected %s is not null, but is\n",
			      expr);
	KUNIT_REPORT_END(&b, fmt);
}

void __kunit_fail_str(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left,
		      const char *op, const char *right, const char *lval,
		      const char *rval, const char *fmt, ...)
{
	struct kunit_buf b = { .len = 0 };

	kunit_report_start(&b, test, type, file, line);
	kunit_buf_add(&b, "    Expected %s %s %s, but\n", left, op, right);
	kunit_buf_add(&b, "        %s == \"%s\"\n        %s == \"%s\"\n",
		      left, lval, right, rval);
	KUNIT_REPORT_END(&b, fmt);
}

void __kunit_fail_mem(struct kunit *test, enum kunit_assert_type type,
		      const char *file, int line, const char *left,
		      const char *op, const char *right, size_t size,
		      const char *fmt, ...)
{
	struct kunit_buf b = { .len = 0 };

	kunit_report_start(&b, test, type, file, line);
	kunit_buf_add(&b, "    Expected %s %s %s over %zu bytes, but not\n",
		      left, op, right, size);
	KUNIT_REPORT_END(&b, fmt);
}

void __kunit_abort(struct kunit *test)
{
	pthread_exit(NULL);
}

/* ----- resources --------------------------------------------------------- */

int kunit_add_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	return compat_actions_add(&test->actions, action, ctx);
}

int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *action,
			      void *ctx)
{
	int ret = kunit_add_action(test, action, ctx);

	if (ret)
		action(ctx);
	return ret;
}

void kunit_remove_action(struct kunit *test, kunit_action_t *action,
			 void *ctx)
{
	compat_actions_take(&test->actions, action, ctx);
}

void kunit_release_action(struct kunit *test, kunit_action_t *action,
			  void *ctx)
{
	if (compat_actions_take(&test->actions, action, ctx))
		action(ctx);
}

static void kunit_kfree_action(void *ptr)
{
	kfree(ptr);
}

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp)
{
	void *p = kmalloc_array(n, size, gfp);

	if (p && kunit_add_action_or_reset(test, kunit_kfree_action, p))
		return NULL;
	return p;
}

void kunit_kfree(struct kunit *test, const void *ptr)
{
	if (ptr)
		kunit_release_action(test, kunit_kfree_action, (void *)ptr);
}

/* ----- running ----------------------------------------------------------- */

struct kunit_run {
	struct kunit_suite *suite;
	struct kunit_case *test_case;
	struct kunit test;
};

static void *kunit_try_run_case(void *arg)
{
	struct kunit_run *run = arg;
	struct kunit *test = &run->test;
	int err;

	if (run->suite->init) {
		err = run->suite->init(test);
		if (err) {
			kunit_err(test, "failed to initialize: %d", err);
			kunit_set_failure(test);
			return NULL;
		}
	}
	run->test_case->run_case(test);
	return NULL;
}

static void *kunit_try_run_cleanup(void *arg)
{
	struct kunit_run *run = arg;

	if (run->suite->exit)
		run->suite->exit(&run->test);
	compat_actions_run(&run->test.actions);
	return NULL;
}

/* Runs @fn(@arg) in a thread of its own; -ETIMEDOUT leaves it running. */
static int kunit_try_catch(void *(*fn)(void *), void *arg,
			   unsigned int timeout_s)
{
	struct timespec deadline;
	pthread_t thread;
	int err;

	err = pthread_create(&thread, NULL, fn, arg);
	if (err)
		return -err;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_s;
	err = pthread_timedjoin_np(thread, NULL, &deadline);
	if (err == ETIMEDOUT) {
		pthread_detach(thread);
		return -ETIMEDOUT;
	}
	return -err;
}

static void kunit_run_case(struct kunit_suite *suite,
			   struct kunit_case *test_case, unsigned int number)
{
	unsigned int slow = kunit_slow_factor(), stuck;
	struct kunit_run *run = calloc(1, sizeof(*run));
	struct kunit *test;
	int err;

	if (!run) {
		kunit_log_line("    not ok %u %s # out of memory", number,
			       test_case->name);
		test_case->status = KUNIT_FAILURE;
		return;
	}
	run->suite = suite;
	run->test_case = test_case;
	test = &run->test;
	test->name = test_case->name;
	test->status = KUNIT_SUCCESS;
	compat_actions_init(&test->actions);

	err = kunit_try_catch(kunit_try_run_case, run,
			      KUNIT_CASE_TIMEOUT_S * slow);
	if (err == -ETIMEDOUT)
		kunit_err(test, "timed out after %u s",
			  KUNIT_CASE_TIMEOUT_S * slow);
	else if (err)
		kunit_err(test, "could not start: %s", strerror(-err));
	if (err)
		kunit_set_failure(test);
	stuck = compat_kthread_reap(KUNIT_KTHREAD_GRACE_MS * slow);
	if (stuck) {
		kunit_err(test, "%u kthread(s) still running %u ms after the case",
			  stuck, KUNIT_KTHREAD_GRACE_MS * slow);
		kunit_set_failure(test);
	}
	/* A case still running keeps what it uses: nothing is released. */
	if (err != -ETIMEDOUT &&
	    kunit_try_catch(kunit_try_run_cleanup, run,
			    KUNIT_CASE_TIMEOUT_S * slow)) {
		kunit_err(test, "cleanup did not complete");
		kunit_set_failure(test);
	}

	test_case->status = READ_ONCE(test->status);
	if (test_case->status == KUNIT_SKIPPED)
		kunit_log_line("    ok %u %s # SKIP %s", number, test_case->name,
			       test->status_comment);
	else
		kunit_log_line("    %s %u %s",
			       test_case->status == KUNIT_FAILURE ?
			       "not ok" : "ok", number, test_case->name);
	if (err != -ETIMEDOUT) {
		pthread_mutex_destroy(&test->actions.lock);
		free(run);
	}
}

/*
 * Whether "@suite.@test_case" matches @glob, "SUITE_GLOB[.CASE_GLOB]" as
 * the kernel's kunit.filter_glob; a NULL @test_case asks about any case.
 */
static bool kunit_match(const char *glob, const struct kunit_suite *suite,
			const struct kunit_case *test_case)
{
	const char *dot;
	char suite_glob[256];

	if (!glob)
		return true;
	dot = strchr(glob, '.');
	snprintf(suite_glob, sizeof(suite_glob), "%.*s",
		 dot ? (int)(dot - glob) : (int)strlen(glob), glob);
	if (fnmatch(suite_glob, suite->name, 0))
		return false;
	return !dot || !test_case || !fnmatch(dot + 1, test_case->name, 0);
}

struct kunit_stats {
	unsigned long passed, failed, skipped, total;
};

static void kunit_count(struct kunit_stats *s, enum kunit_status status)
{
	if (status == KUNIT_SUCCESS)
		s->passed++;
	else if (status == KUNIT_FAILURE)
		s->failed++;
	else
		s->skipped++;
	s->total++;
}

/* Returns the suite's status, as kunit_suite_has_succeeded() does. */
static enum kunit_status kunit_run_suite(struct kunit_suite *suite,
					 const char *glob)
{
	enum kunit_status status = KUNIT_SKIPPED;
	struct kunit_stats stats = { 0 };
	struct kunit_case *tc;
	unsigned int n = 0, i = 0;

	for (tc = suite->test_cases; tc->run_case; tc++)
		n += kunit_match(glob, suite, tc);

	suite->status_comment[0] = '\0';
	if (suite->suite_init) {
		suite->suite_init_err = suite->suite_init(suite);
		if (suite->suite_init_err) {
			kunit_log_line("    # %s: failed to initialize (%d)",
				       suite->name, suite->suite_init_err);
			return KUNIT_FAILURE;
		}
	}

	kunit_log_line("    KTAP version 1");
	kunit_log_line("    # Subtest: %s", suite->name);
	kunit_log_line("    1..%u", n);
	for (tc = suite->test_cases; tc->run_case; tc++) {
		if (!kunit_match(glob, suite, tc))
			continue;
		kunit_run_case(suite, tc, ++i);
		kunit_count(&stats, tc->status);
		if (tc->status == KUNIT_FAILURE)
			status = KUNIT_FAILURE;
		else if (tc->status == KUNIT_SUCCESS && status != KUNIT_FAILURE)
			status = KUNIT_SUCCESS;
	}
	if (suite->suite_exit)
		suite->suite_exit(suite);

	kunit_log_line("# %s: pass:%lu fail:%lu skip:%lu total:%lu",
		       suite->name, stats.passed, stats.failed, stats.skipped,
		       stats.total);
	kunit_log_line("# Totals: pass:%lu fail:%lu skip:%lu total:%lu",
		       stats.passed, stats.failed, stats.skipped, stats.total);
	return status;
}

int kunit_run_all_tests(const char *glob)
{
	struct kunit_suite **s;
	enum kunit_status status;
	unsigned int n = 0, i = 0;
	int ret = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Warnings and pr_*() go where the results go, in order. */
	if (!compat_log)
		compat_log = stdout;

	for (s = __start_kunit_test_suites; s < __stop_kunit_test_suites; s++)
		n += kunit_match(glob, *s, NULL);
	kunit_log_line("KTAP version 1");
	kunit_log_line("1..%u", n);
	for (s = __start_kunit_test_suites; s < __stop_kunit_test_suites; s++) {
		if (!kunit_match(glob, *s, NULL))
			continue;
		status = kunit_run_suite(*s, glob);
		if (status == KUNIT_FAILURE)
			ret = 1;
		if (status == KUNIT_SKIPPED)
			kunit_log_line("ok %u %s # SKIP %s", ++i, (*s)->name,
				       (*s)->status_comment);
		else
			kunit_log_line("%s %u %s", status == KUNIT_FAILURE ?
				       "not ok" : "ok", ++i, (*s)->name);
	}
	return ret;
}
