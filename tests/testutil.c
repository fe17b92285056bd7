// SPDX-License-Identifier: LGPL-2.1-or-later
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

#include <linux/printk.h>

#include "testutil.h"

static void *test_thread_trampoline(void *arg)
{
	struct test_thread *t = arg;
	void *ret = t->fn(t->arg);

	complete_all(&t->exited);
	return ret;
}

void test_thread_start(struct test_thread *t, void *(*fn)(void *), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	init_completion(&t->exited);
	ck_assert_int_eq(pthread_create(&t->tid, NULL, test_thread_trampoline, t), 0);
}

int test_thread_join(struct test_thread *t, unsigned int ms)
{
	if (!wait_for_completion_timeout(&t->exited, ms))
		return 0;
	pthread_join(t->tid, NULL);
	return 1;
}

static void *test_reader_fn(void *arg)
{
	struct test_reader *r = arg;
	struct revocable acc;
	unsigned long end;

	if (r->name)
		pthread_setname_np(pthread_self(), r->name);
	r->res = revocable_access(r->ref, &acc);
	complete(&r->inside);
	if (r->hold_ms) {
		end = test_now_ms() + r->hold_ms;
		r->saw_live = true;
		while (test_now_ms() < end) {
			if (!r->res || !RES_LIVE(r->res))
				r->saw_live = false;
			test_sleep_ms(1);
		}
	} else {
		wait_for_completion(&r->leave);
	}
	r->withdrawn = true;
	revocable_withdraw_access(&acc);
	return NULL;
}

void test_reader_start(struct test_reader *r, struct revocable_provider *ref,
		       unsigned int hold_ms, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->ref = ref;
	r->hold_ms = hold_ms;
	r->name = name;
	init_completion(&r->inside);
	init_completion(&r->leave);
	test_thread_start(&r->thread, test_reader_fn, r);
	WAIT_OR_FAIL(&r->inside, 5000);
}

void test_reader_stop(struct test_reader *r)
{
	complete(&r->leave);
	JOIN_OR_FAIL(&r->thread, 5000);
}

static void *test_revoker_fn(void *arg)
{
	struct test_revoker *r = arg;

	r->ret = r->slots ? revocable_revoke_batch(r->slots, r->n) :
			    revocable_revoke(r->slot);
	return NULL;
}

void test_two_init(struct test_two *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		t->rp[i] = revocable_provider_alloc((void *)(uintptr_t)(i + 1));
		t->slots[i] = &t->rp[i];
	}
}

static void *test_syncer_fn(void *arg)
{
	synchronize_srcu(((struct test_syncer *)arg)->ssp);
	return NULL;
}

void test_syncer_start(struct test_syncer *s, struct srcu_struct *ssp)
{
	s->ssp = ssp;
	test_thread_start(&s->thread, test_syncer_fn, s);
}

void test_revoker_start(struct test_revoker *r)
{
	r->ret = -1;
	test_thread_start(&r->thread, test_revoker_fn, r);
}

int test_revoke_bounded(struct revocable_provider __rcu **slot,
			unsigned int ms)
{
	struct test_revoker r = { .slot = slot };

	test_revoker_start(&r);
	JOIN_OR_FAIL(&r.thread, ms);
	return r.ret;
}

struct test_res *test_res_new(void)
{
	struct test_res *r = malloc(sizeof(*r));

	ck_assert_ptr_nonnull(r);
	r->magic = RES_MAGIC;
	r->uses = 0;
	return r;
}

void test_res_free(struct test_res *r)
{
	memset(r, 0x6b, sizeof(*r));
	free(r);
}

bool test_slow(void)
{
	return getenv("REVOCABLE_TEST_SLOW") != NULL;
}

unsigned long test_bound_ms(unsigned long ms)
{
	return test_slow() ? 10 * ms : ms;
}

void test_quiesce(void)
{
	revocable_domain_barrier(revocable_default_domain());
}

/* The linker collects the TEST() entries of the suite file here. */
extern const struct test_entry __start_test_entries[];
extern const struct test_entry __stop_test_entries[];

static int test_entry_cmp(const void *a, const void *b)
{
	const TTest *ta = *(*(const struct test_entry *const *)a)->test;
	const TTest *tb = *(*(const struct test_entry *const *)b)->test;

	return (ta->line > tb->line) - (ta->line < tb->line);
}

/* The Check test case of @g, created at its first test. */
static TCase *test_tcase(Suite *s, const struct test_group *g,
			 const struct test_group **groups, TCase **tcases,
			 size_t *ngroups)
{
	TCase *tc;
	size_t i;

	for (i = 0; i < *ngroups; i++)
		if (groups[i] == g)
			return tcases[i];
	tc = tcase_create(g->name);
	tcase_add_checked_fixture(tc, NULL, test_quiesce);
	tcase_set_timeout(tc, g->timeout_s);
	if (g->tags)
		tcase_set_tags(tc, g->tags);
	suite_add_tcase(s, tc);
	groups[*ngroups] = g;
	tcases[(*ngroups)++] = tc;
	return tc;
}

/*
 * The suite's tests in the order of its file, or only the one TEST_ONLY
 * names; *@nadded tells how many.
 */
static Suite *test_suite(const char *only, size_t *nadded)
{
	size_t n = __stop_test_entries - __start_test_entries, ngroups = 0, i;
	const struct test_entry **order = calloc(n, sizeof(*order));
	const struct test_group **groups = calloc(n, sizeof(*groups));
	TCase **tcases = calloc(n, sizeof(*tcases));
	Suite *s = suite_create(test_suite_name);
	size_t added = 0;

	if (!order || !groups || !tcases) {
		perror("test_suite");
		exit(EXIT_FAILURE);
	}
	for (i = 0; i < n; i++)
		order[i] = &__start_test_entries[i];
	qsort(order, n, sizeof(*order), test_entry_cmp);
	for (i = 0; i < n; i++) {
		const TTest *t = *order[i]->test;

		if (only && strcmp(only, t->name))
			continue;
		tcase_add_test(test_tcase(s, order[i]->group, groups, tcases,
					  &ngroups), t);
		added++;
	}
	free(order);
	free(groups);
	free(tcases);
	*nadded = added;
	return s;
}

int main(void)
{
	const char *only = getenv("TEST_ONLY");
	size_t added;
	SRunner *sr = srunner_create(test_suite(only, &added));
	int failed;

	if (!added) {
		fprintf(stderr, "%s: no test %s\n", test_suite_name,
			only ? only : "registered");
		srunner_free(sr);
		return EXIT_FAILURE;
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#if defined(__x86_64__)
#define SECCOMP_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define SECCOMP_ARCH	AUDIT_ARCH_I386
#endif

/*
 * From now on membarrier() fails with EPERM in every thread of the process
 * (seccomp with TSYNC).  Where seccomp() is missing (valgrind), with
 * @thread_only_ok the filter goes on this thread and the threads it creates
 * from now on; without, -ENOSYS.  Returns 0 or a negative errno.
 */
static void *sig_storm_fn(void *arg)
{
	struct test_sig_storm *st = arg;

	while (!READ_ONCE(st->stop)) {
		if (pthread_kill(st->target, st->sig))
			break;
		st->sent++;
		/* Let the target run a little between two signals. */
		for (volatile int i = 0; i < 200; i++)
			;
	}
	return NULL;
}

/*
 * Every signal is blocked before the thread is created, not by the thread
 * itself: one delivered in between would run its handler on the new
 * thread (TSan once reported that race on a handle the handler used).
 */
void test_sig_storm_start(struct test_sig_storm *st, pthread_t target,
			  int sig)
{
	sigset_t all, old;

	memset(st, 0, sizeof(*st));
	st->target = target;
	st->sig = sig;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	test_thread_start(&st->thread, sig_storm_fn, st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

unsigned long test_sig_storm_stop(struct test_sig_storm *st)
{
	WRITE_ONCE(st->stop, 1);
	JOIN_OR_FAIL(&st->thread, 5000);
	return st->sent;
}

int test_deny_membarrier(bool thread_only_ok)
{
	struct sock_filter code[] = {
#ifdef SECCOMP_ARCH
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#endif
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = (unsigned short)ARRAY_SIZE(code),
		.filter = code,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	/* TSYNC: the library's service threads are sandboxed too. */
	if (!syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_TSYNC, &prog))
		return 0;
	if (errno != ENOSYS || !thread_only_ok)
		return -errno;
	/*
	 * valgrind knows no seccomp(): the filter then covers this thread
	 * and the threads it creates from now on, where the revokes run.
	 */
	fprintf(stderr, "note: no seccomp() (valgrind?): the filter covers "
		"this thread and its new threads only\n");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0))
		return -errno;
	return 0;
}

/*
 * Wait for the child @pid at most @ms (scaled by test_bound_ms()); kill it
 * past that.  Returns its exit status, or -1 when it hung or died of a
 * signal (said on stderr).
 */
int test_child_result(pid_t pid, unsigned int ms)
{
	unsigned long end = test_now_ms() + test_bound_ms(ms);
	int status = 0;
	pid_t got;

	while ((got = waitpid(pid, &status, WNOHANG)) == 0) {
		if (test_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fprintf(stderr, "child %d hung (killed)\n", (int)pid);
			return -1;
		}
		test_sleep_ms(5);
	}
	ck_assert_int_eq(got, pid);
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "child %d killed by signal %d (%s)\n", (int)pid,
			WTERMSIG(status), strsignal(WTERMSIG(status)));
		return -1;
	}
	return WEXITSTATUS(status);
}

static char *log_buf;
static size_t log_len;

bool test_log_open(void)
{
	compat_log = open_memstream(&log_buf, &log_len);
	return compat_log != NULL;
}

void test_log_capture(void)
{
	ck_assert_msg(test_log_open(), "open_memstream: %s", strerror(errno));
}

/*
 * A copy, taken under the stream's lock: another thread may be writing a
 * report, and the stream's own buffer moves as it grows.  Valid until the
 * next call.
 */
const char *test_log_text(void)
{
	static char *copy;
	static size_t room;
	size_t n;

	if (!compat_log)
		return log_buf ? log_buf : "";
	flockfile(compat_log);
	fflush_unlocked(compat_log);
	n = log_buf ? strlen(log_buf) : 0;
	if (n + 1 > room) {
		char *bigger = realloc(copy, n + 1);

		if (!bigger) {
			funlockfile(compat_log);
			return "";
		}
		copy = bigger;
		room = n + 1;
	}
	memcpy(copy, log_buf ? log_buf : "", n + 1);
	funlockfile(compat_log);
	return copy;
}

bool test_log_wait_for(const char *needle, unsigned int ms)
{
	unsigned long end = test_now_ms() + test_bound_ms(ms);

	while (!strstr(test_log_text(), needle)) {
		if (test_now_ms() > end)
			return false;
		test_sleep_ms(10);
	}
	return true;
}

void test_log_end(void)
{
	FILE *f = compat_log;

	compat_log = NULL;
	if (f)
		fclose(f);
	free(log_buf);
	log_buf = NULL;
}

const char *volatile test_child_step = "start";

static void child_say(const char *what)
{
	const char *step = test_child_step;
	char buf[512];
	int n;

	n = snprintf(buf, sizeof(buf), "child %d: %s in step \"%s\"\n",
		     (int)getpid(), what, step);
	if (n > 0 && write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

static void child_watchdog(int sig)
{
	child_say("hung (watchdog)");
	_exit(CHILD_HUNG);
}

static void child_on_abort(int sig)
{
	child_say("aborted");
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
}

int test_in_child(int (*fn)(void *arg), void *arg, unsigned int ms)
{
	pid_t pid;
	int ret;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		test_child_step = "start";
		signal(SIGALRM, child_watchdog);
		signal(SIGABRT, child_on_abort);
		alarm((unsigned int)(test_bound_ms(ms) / 1000 + 1));
		_exit(fn(arg));
	}
	ret = test_child_result(pid, ms + 2000);
	if (ret == CHILD_HUNG)
		fprintf(stderr, "child %d hung\n", (int)pid);
	return ret;
}

const char *test_slow_report(const char *domain, bool *saw_live)
{
	struct revocable_domain *dom = revocable_domain_alloc(domain);
	struct test_res *res = test_res_new();
	struct revocable_provider __rcu *rp = revocable_provider_alloc_in(dom, res);
	struct revocable_provider *ref = revocable_provider_get_rcu(&rp);
	struct test_reader reader;

	ck_assert_int_eq(revocable_domain_set_slow(dom, 50, NULL, NULL), 0);
	test_log_capture();
	test_reader_start(&reader, ref, test_bound_ms(400), "holder");
	ck_assert_int_eq(test_revoke_bounded(&rp, test_bound_ms(5000)), 1);
	JOIN_OR_FAIL(&reader.thread, 5000);
	*saw_live = reader.saw_live;
	test_res_free(res);
	revocable_provider_put(ref);
	revocable_domain_barrier(dom);
	ck_assert_int_eq(revocable_domain_free(dom), 0);
	return test_log_text();
}
