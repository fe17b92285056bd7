// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The allocation-failure sweep (issue 21), after SQLite's OOM tests: a
 * workload that touches every call of the library is run once for each
 * N = 1, 2, ..., each time in a fresh fork() child in which the Nth
 * allocation (malloc, calloc, realloc, posix_memalign, aligned_alloc,
 * memalign), thread creation or pthread key creation made by anyone (the
 * library, liburcu, libc on their behalf, the workload) fails, until a run
 * completes without reaching its Nth call: N - 1 is then the number of
 * injection points.  Every run must exit 0: the workload accepts every
 * error a call returns and cleans up, and fails only on a wrong result,
 * while an abort, another signal or a hang (the run's watchdog) fails the
 * sweep.  Under valgrind (meson test --setup=valgrind) each child is
 * checked for leaks when it exits, and a leak fails its run.  With
 * --persistent every call from the Nth on fails (SQLite's persistent
 * mode: memory that stays short), and the same holds.
 *
 *	failnth			the sweep (a meson test, suite "failnth")
 *	failnth --persistent	the sweep in persistent mode (failnth-persistent)
 *	failnth --nth N		one run that fails call N, in this process
 *	failnth --max-failures K  stop after K failing runs (default 20)
 *
 * The interposers below replace the allocator's entry points for the whole
 * process (the library is linked in statically; liburcu and libc reach
 * them through the dynamic symbols this executable exports) and forward to
 * the real ones, found with dlsym(RTLD_NEXT), so that valgrind's
 * replacements stay in charge.  While dlsym() itself allocates, a static
 * arena serves it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/printk.h>
#include <revocable.h>

#include "clock.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* ----- the injector ------------------------------------------------------ */

enum inject_kind {
	INJ_MALLOC,
	INJ_CALLOC,
	INJ_REALLOC,
	INJ_MEMALIGN,		/* posix_memalign, aligned_alloc, memalign */
	INJ_THREAD,		/* pthread_create */
	INJ_KEY,		/* pthread_key_create */
	INJ_NR
};

static const char *const inject_name[INJ_NR] = {
	"malloc", "calloc", "realloc", "memalign", "pthread_create",
	"pthread_key_create",
};

#define MAX_FRAMES	24

/* Shared with the driver, which reads it after the run's child ended. */
struct inject_state {
	int armed;			/* count and fail calls */
	unsigned long nth;		/* the call to fail */
	int persistent;			/* and every call after it */
	unsigned long calls;		/* calls counted while armed */
	unsigned long failed;		/* calls failed */
	int injected;			/* kind + 1 of the Nth call */
	int nframes;
	void *frames[MAX_FRAMES];
	const char *step;		/* what the workload was doing */
	const char *step_at_injection;
};

static struct inject_state *inj;
static __thread int in_injector;

struct real_fns {
	void *(*malloc)(size_t size);
	void *(*calloc)(size_t n, size_t size);
	void *(*realloc)(void *p, size_t size);
	void (*free)(void *p);
	int (*posix_memalign)(void **p, size_t align, size_t size);
	void *(*aligned_alloc)(size_t align, size_t size);
	void *(*memalign)(size_t align, size_t size);
	int (*pthread_create)(pthread_t *t, const pthread_attr_t *attr,
			      void *(*fn)(void *), void *arg);
	int (*pthread_key_create)(pthread_key_t *key, void (*dtor)(void *));
};

static struct real_fns real;
static int resolving;

/* What dlsym() allocates while the real functions are looked up. */
static char arena[64 * 1024] __attribute__((__aligned__(64)));
static size_t arena_used;

struct arena_hdr {
	size_t size;
	size_t pad;
};

static void *arena_alloc(size_t size)
{
	struct arena_hdr *h;
	size_t need = (sizeof(*h) + size + 15) & ~(size_t)15;

	if (need > sizeof(arena) - arena_used)
		return NULL;
	h = (struct arena_hdr *)(arena + arena_used);
	arena_used += need;
	h->size = size;
	return h + 1;
}

static bool in_arena(const void *p)
{
	return (const char *)p >= arena && (const char *)p < arena + sizeof(arena);
}

#define RESOLVE(name)	(*(void **)&real.name = dlsym(RTLD_NEXT, #name))

static void resolve(void)
{
	if (real.malloc || resolving)
		return;
	resolving = 1;
	RESOLVE(free);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	RESOLVE(pthread_create);
	RESOLVE(pthread_key_create);
	RESOLVE(malloc);
	resolving = 0;
	if (!real.malloc || !real.free || !real.calloc || !real.realloc ||
	    !real.posix_memalign || !real.aligned_alloc || !real.memalign ||
	    !real.pthread_create || !real.pthread_key_create) {
		static const char msg[] = "failnth: cannot find the real allocator\n";

		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			_exit(99);
		_exit(99);
	}
}

/* Whether this call is the one to fail. */
static bool inject_fail(enum inject_kind kind)
{
	struct inject_state *s = inj;
	unsigned long n;

	if (!s || in_injector || !__atomic_load_n(&s->armed, __ATOMIC_RELAXED))
		return false;
	n = __atomic_add_fetch(&s->calls, 1, __ATOMIC_SEQ_CST);
	if (n < s->nth || (n > s->nth && !s->persistent))
		return false;
	__atomic_add_fetch(&s->failed, 1, __ATOMIC_RELAXED);
	if (n > s->nth)
		return true;
	in_injector = 1;
	s->injected = kind + 1;
	s->step_at_injection = s->step;
	s->nframes = backtrace(s->frames, MAX_FRAMES);
	in_injector = 0;
	return true;
}

/* inject_fail() for an allocator that reports failure by errno. */
static bool inject_enomem(enum inject_kind kind)
{
	if (!inject_fail(kind))
		return false;
	errno = ENOMEM;
	return true;
}

/* The real function @fn, looked up at its first call. */
#define REAL(fn)	(real.fn ? real.fn : (resolve(), real.fn))

void *malloc(size_t size)
{
	if (!real.malloc) {
		if (resolving)
			return arena_alloc(size);
		resolve();
	}
	return inject_enomem(INJ_MALLOC) ? NULL : real.malloc(size);
}

void *calloc(size_t n, size_t size)
{
	void *p;

	if (!real.calloc) {
		if (resolving) {
			if (size && n > SIZE_MAX / size)
				return NULL;
			p = arena_alloc(n * size);
			if (p)
				memset(p, 0, n * size);
			return p;
		}
		resolve();
	}
	return inject_enomem(INJ_CALLOC) ? NULL : real.calloc(n, size);
}

void free(void *p)
{
	if (!p || in_arena(p))
		return;
	REAL(free)(p);
}

void *realloc(void *p, size_t size)
{
	void *q;

	if (p && in_arena(p)) {
		/* Off the arena, on the real heap. */
		size_t old = ((struct arena_hdr *)p - 1)->size;

		q = malloc(size);
		if (q)
			memcpy(q, p, old < size ? old : size);
		return q;
	}
	if (!real.realloc) {
		if (resolving)
			return p ? NULL : arena_alloc(size);
		resolve();
	}
	/* A realloc to 0 frees; it is no allocation that can fail. */
	if ((!p || size) && inject_enomem(INJ_REALLOC))
		return NULL;
	return real.realloc(p, size);
}

int posix_memalign(void **pp, size_t align, size_t size)
{
	if (inject_fail(INJ_MEMALIGN))
		return ENOMEM;
	return REAL(posix_memalign)(pp, align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	if (inject_enomem(INJ_MEMALIGN))
		return NULL;
	return REAL(aligned_alloc)(align, size);
}

void *memalign(size_t align, size_t size)
{
	if (inject_enomem(INJ_MEMALIGN))
		return NULL;
	return REAL(memalign)(align, size);
}

int pthread_create(pthread_t *t, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	if (inject_fail(INJ_THREAD))
		return EAGAIN;
	return REAL(pthread_create)(t, attr, fn, arg);
}

int pthread_key_create(pthread_key_t *key, void (*dtor)(void *))
{
	if (inject_fail(INJ_KEY))
		return EAGAIN;
	return REAL(pthread_key_create)(key, dtor);
}

/* ----- the workload ------------------------------------------------------ */

/*
 * The workload fails (exit status 2) only on a result the contract does
 * not allow, whatever failed underneath; every error return is accepted
 * and the workload goes on, and in the end cleans up what it made.
 */
#define WL_FAILED	2
#define WL_HUNG		124

#define STEP(s)	(inj->step = (s))

#define WL_CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "failnth: N=%lu: step \"%s\": "	\
				"%s:%d: %s\n", inj->nth, inj->step,	\
				__FILE__, __LINE__, #cond);		\
			_exit(WL_FAILED);				\
		}							\
	} while (0)

#define NSLOTS	8

static int res[NSLOTS];		/* the resources: &res[i] */

struct wl {
	struct revocable_domain *dom;	/* NULL if it could not be had */
	struct revocable_domain *d;	/* dom, or the default domain */
	struct revocable_provider __rcu *rp[NSLOTS];
	struct revocable_provider __rcu *cascade;	/* revoked from a callback */
	int done;			/* done callbacks run */
	int want;			/* async revokes that returned 1 */
	int hooks;			/* slow-revoke reports */
};

static bool slow(void)
{
	return getenv("REVOCABLE_TEST_SLOW") != NULL;
}

static void done_cb(void *arg)
{
	struct wl *w = arg;

	__atomic_add_fetch(&w->done, 1, __ATOMIC_SEQ_CST);
}

/* A done callback that revokes further, as a device takes its children. */
static void cascade_cb(void *arg)
{
	struct wl *w = arg;

	if (revocable_revoke_async(&w->cascade, done_cb, w) == 1)
		__atomic_add_fetch(&w->want, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&w->done, 1, __ATOMIC_SEQ_CST);
}

static void slow_hook(struct revocable_domain *dom, unsigned int waited_ms,
		      void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

/* An access of slot @i gives its resource, or NULL (refused). */
static void *expect_res(void *got, int i)
{
	WL_CHECK(!got || got == &res[i]);
	return got;
}

/* Every form of access on the provider of slot @i, if it is there. */
static void access_every_way(struct wl *w, int i)
{
	struct revocable_provider *rp = w->rp[i];
	struct revocable acc, h;
	int *r;

	if (!rp)
		return;
	expect_res(revocable_access(rp, &acc), i);
	revocable_withdraw_access(&acc);
	WL_CHECK(revocable_access_unchecked(rp) == &res[i]);
	WL_CHECK(revocable_init(rp, &h) == 0);
	expect_res(revocable_try_access(&h), i);
	revocable_withdraw_access(&h);
	revocable_deinit(&h);
	{
		REVOCABLE_TRY_ACCESS_WITH(rp, r);
		expect_res(r, i);
	}
	REVOCABLE_TRY_ACCESS_SCOPED(rp, r) {
		expect_res(r, i);
	}
}

struct reader {
	struct revocable_provider *ref;
	int slot;
	unsigned int hold_ms;
	int exit_inside;		/* leave without withdrawing */
	volatile int inside;
	volatile int leaving;		/* about to withdraw */
	void *got;
	pthread_t tid;
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	struct revocable acc;

	r->got = revocable_access(r->ref, &acc);
	__atomic_store_n(&r->inside, 1, __ATOMIC_RELEASE);
	if (r->hold_ms)
		test_sleep_ms(r->hold_ms);
	if (r->exit_inside)
		return NULL;	/* the library releases it, with a warning */
	__atomic_store_n(&r->leaving, 1, __ATOMIC_RELEASE);
	revocable_withdraw_access(&acc);
	return NULL;
}

/* Start a reader thread; false if no thread could be had. */
static bool reader_start(struct reader *r, struct revocable_provider *ref,
			 int slot, unsigned int hold_ms, int exit_inside)
{
	memset(r, 0, sizeof(*r));
	r->ref = ref;
	r->slot = slot;
	r->hold_ms = hold_ms;
	r->exit_inside = exit_inside;
	if (pthread_create(&r->tid, NULL, reader_fn, r))
		return false;
	while (!__atomic_load_n(&r->inside, __ATOMIC_ACQUIRE))
		test_sleep_ms(1);
	return true;
}

static void reader_join(struct reader *r)
{
	pthread_join(r->tid, NULL);
	expect_res(r->got, r->slot);
}

static void alloc_slot(struct wl *w, int i, bool in_dom)
{
	w->rp[i] = in_dom ? revocable_provider_alloc_in(w->d, &res[i]) :
			    revocable_provider_alloc(&res[i]);
}

/* Revoke slot @i if it still holds a provider; it must empty it. */
static void revoke_left(struct wl *w, int i)
{
	int ret;

	if (!w->rp[i])
		return;
	ret = revocable_revoke(&w->rp[i]);
	WL_CHECK(ret == 1 || ret < 0);
	WL_CHECK(!w->rp[i]);
}

static void async(struct wl *w, struct revocable_provider __rcu **slot,
		  void (*cb)(void *arg))
{
	bool had = *slot != NULL;
	int ret = revocable_revoke_async(slot, cb, w);

	WL_CHECK(ret == (had ? 1 : 0) || ret < 0);
	if (ret == 1)
		__atomic_add_fetch(&w->want, 1, __ATOMIC_SEQ_CST);
}

static void workload(void)
{
	struct revocable_provider __rcu **batch[3];
	struct revocable_provider *ref, *ref2, *begun;
	struct revocable_provider __rcu *extra;
	struct reader rd[4];
	struct revocable acc;
	unsigned long end;
	bool started;
	struct wl w;
	int i, n, ret;
	void *got;

	memset(&w, 0, sizeof(w));

	STEP("domain alloc");
	errno = 0;
	w.dom = revocable_domain_alloc("failnth");
	WL_CHECK(w.dom || errno);
	w.d = w.dom ? w.dom : revocable_default_domain();
	STEP("set_slow");
	WL_CHECK(revocable_domain_set_slow(w.d, 10, slow_hook, &w.hooks) == 0);

	STEP("provider alloc");
	for (i = 0; i < NSLOTS; i++)
		alloc_slot(&w, i, i & 1);
	w.cascade = revocable_provider_alloc_in(w.d, &res[0]);

	STEP("references");
	ref = revocable_provider_get_rcu(&w.rp[1]);
	WL_CHECK(!ref == !w.rp[1]);
	WL_CHECK(revocable_provider_get(ref) == ref);
	revocable_provider_put(ref);

	STEP("accesses");
	for (i = 0; i < NSLOTS; i++)
		access_every_way(&w, i);

	STEP("threads that come and go");
	for (i = 0; i < 3; i++) {
		struct revocable_provider *r = w.rp[i & 1 ? 1 : 2];

		/* The last one exits inside its access. */
		if (reader_start(&rd[i], r, i & 1 ? 1 : 2, 0, i == 2))
			reader_join(&rd[i]);
	}

	STEP("revoke waits for a reader");
	started = ref && reader_start(&rd[3], ref, 1, 30, 0);
	ret = revocable_revoke(&w.rp[1]);
	WL_CHECK(ret == (ref ? 1 : 0) || ret < 0);
	if (started) {
		/* A revoke that returned 1 waited for the reader. */
		WL_CHECK(ret != 1 || !rd[3].got ||
			 __atomic_load_n(&rd[3].leaving, __ATOMIC_ACQUIRE));
		reader_join(&rd[3]);
	}
	if (ref) {
		/* The reference outlives the revoke: accesses get NULL. */
		WL_CHECK(revocable_access(ref, &acc) == NULL);
		revocable_withdraw_access(&acc);
	}
	revocable_provider_put(ref);

	STEP("the default slow report");
	/* It lists the threads inside, in the default domain this time. */
	WL_CHECK(revocable_domain_set_slow(revocable_default_domain(), 10,
					   NULL, NULL) == 0);
	extra = revocable_provider_alloc(&res[2]);
	ref = revocable_provider_get_rcu(&extra);
	started = ref && reader_start(&rd[3], ref, 2, 30, 0);
	ret = revocable_revoke(&extra);
	WL_CHECK(ret == (ref ? 1 : 0) || ret < 0);
	if (started) {
		WL_CHECK(ret != 1 || !rd[3].got ||
			 __atomic_load_n(&rd[3].leaving, __ATOMIC_ACQUIRE));
		reader_join(&rd[3]);
	}
	revocable_provider_put(ref);

	STEP("revoke inside an access");
	if (w.rp[3]) {
		got = expect_res(revocable_access(w.rp[3], &acc), 3);
		ret = revocable_revoke(&w.rp[3]);
		WL_CHECK(got ? ret == -EDEADLK : ret == 1 || ret < 0);
		revocable_withdraw_access(&acc);
	}

	STEP("revoke_wait inside an access");
	begun = revocable_revoke_begin(&w.rp[5]);
	if (begun && w.rp[7]) {
		got = expect_res(revocable_access(w.rp[7], &acc), 7);
		ret = revocable_revoke_wait(begun);
		WL_CHECK(got ? ret == -EDEADLK : ret == 0 || ret < 0);
		revocable_withdraw_access(&acc);
		if (ret)
			WL_CHECK(revocable_revoke_wait(begun) == 0);
	} else if (begun) {
		WL_CHECK(revocable_revoke_wait(begun) == 0);
	}

	STEP("revoke without a result");
	revocable_provider_revoke(&w.rp[6]);
	WL_CHECK(!w.rp[6]);
	alloc_slot(&w, 6, false);

	STEP("async revoke and a cascade");
	async(&w, &w.rp[6], done_cb);
	async(&w, &w.rp[0], cascade_cb);

	STEP("batch revoke");
	ref2 = revocable_provider_get_rcu(&w.rp[7]);
	batch[0] = &w.rp[2];
	batch[1] = &w.rp[4];
	batch[2] = &w.rp[7];
	for (i = n = 0; i < 3; i++)
		n += *batch[i] != NULL;
	ret = revocable_revoke_batch(batch, 3);
	WL_CHECK(ret == n || ret < 0);

	STEP("barriers");
	revocable_domain_barrier(w.d);
	revocable_domain_barrier(revocable_default_domain());

	/*
	 * Refused while a provider of the domain is still published; once
	 * none is, the free succeeds at once, and the providers that are
	 * still referenced or queued keep the domain's memory until they go.
	 */
	STEP("domain free while referenced");
	if (w.dom && ref2) {
		ret = revocable_domain_free(w.dom);
		WL_CHECK(ret == 0 || ret == -EBUSY);
		if (!ret) {
			w.dom = NULL;
			w.d = revocable_default_domain();
		}
	}
	revocable_provider_put(ref2);

	STEP("clean up");
	for (i = 0; i < NSLOTS; i++)
		revoke_left(&w, i);
	/* The cascade's callback may be revoking it right now. */
	ret = revocable_revoke(&w.cascade);
	WL_CHECK(ret == 0 || ret == 1 || ret < 0);
	/* Every async revoke that was accepted calls back. */
	end = test_now_ms() + (slow() ? 30000 : 5000);
	do {
		revocable_domain_barrier(w.d);
		revocable_domain_barrier(revocable_default_domain());
	} while (__atomic_load_n(&w.done, __ATOMIC_SEQ_CST) <
		 __atomic_load_n(&w.want, __ATOMIC_SEQ_CST) && test_now_ms() < end);
	WL_CHECK(w.done == w.want);
	if (w.dom) {
		STEP("domain free");
		end = test_now_ms() + (slow() ? 30000 : 5000);
		while ((ret = revocable_domain_free(w.dom)) && test_now_ms() < end)
			test_sleep_ms(1);
		WL_CHECK(ret == 0);
	}
}

/* ----- the driver -------------------------------------------------------- */

static void on_watchdog(int sig)
{
	static const char msg[] = "failnth: the run hung; step: ";
	const char *step = inj->step ? inj->step : "?";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0 ||
	    write(STDERR_FILENO, step, strlen(step)) < 0 ||
	    write(STDERR_FILENO, "\n", 1) < 0)
		_exit(WL_HUNG);
	_exit(WL_HUNG);
}

/* One run: arm, run the workload, disarm.  In the calling process. */
static int run_once(unsigned long nth, int persistent, unsigned int timeout_s)
{
	signal(SIGALRM, on_watchdog);
	alarm(timeout_s);
	inj->nth = nth;
	inj->persistent = persistent;
	inj->calls = 0;
	inj->failed = 0;
	inj->injected = 0;
	inj->step = "start";
	__atomic_store_n(&inj->armed, 1, __ATOMIC_SEQ_CST);
	workload();
	__atomic_store_n(&inj->armed, 0, __ATOMIC_SEQ_CST);
	alarm(0);
	return 0;
}

enum outcome { RUN_OK, RUN_FAILED, RUN_SIGNAL, RUN_HUNG, RUN_EXIT };

static const char *describe(int status, enum outcome *o, char *buf, size_t len)
{
	if (WIFSIGNALED(status)) {
		*o = RUN_SIGNAL;
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	} else if (WEXITSTATUS(status) == 0) {
		*o = RUN_OK;
		snprintf(buf, len, "ok");
	} else if (WEXITSTATUS(status) == WL_FAILED) {
		*o = RUN_FAILED;
		snprintf(buf, len, "wrong result");
	} else if (WEXITSTATUS(status) == WL_HUNG) {
		*o = RUN_HUNG;
		snprintf(buf, len, "hung");
	} else {
		*o = RUN_EXIT;
		snprintf(buf, len, "exit status %d%s", WEXITSTATUS(status),
			 WEXITSTATUS(status) == 1 ?
			 " (valgrind found errors or leaks)" : "");
	}
	return buf;
}

/*
 * Wait for the run's child.  Its own watchdog reports a hang first; this
 * one, after @timeout_s, is the backstop for a child that cannot even run
 * its signal handler.
 */
static pid_t wait_run(pid_t pid, int *status, unsigned int timeout_s)
{
	unsigned long end = test_now_ms() + timeout_s * 1000UL;
	pid_t got;

	while ((got = waitpid(pid, status, WNOHANG)) == 0) {
		if (test_now_ms() > end) {
			kill(pid, SIGKILL);
			got = waitpid(pid, status, 0);
			fprintf(stderr, "failnth: killed a run that hung\n");
			*status = WL_HUNG << 8;
			return got;
		}
		test_sleep_ms(1);
	}
	return got;
}

/* The library's messages of the last run (its WARNs, its reports). */
static void print_log(FILE *log)
{
	char buf[4096];
	ssize_t n = pread(fileno(log), buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return;
	buf[n] = '\0';
	fprintf(stderr, "failnth: what the library printed:\n%s%s", buf,
		buf[n - 1] == '\n' ? "" : "\n");
}

static int sweep(int persistent, unsigned int max_failures)
{
	unsigned int timeout_s = slow() ? 30 : 10;
	unsigned long n, points = 0, failures = 0, by_kind[INJ_NR] = { 0 };
	unsigned long t0 = test_now_ms();
	enum outcome o;
	char what[128];
	int status;
	pid_t pid, got;
	FILE *log;

	/* What the library prints, per run, shown when the run fails. */
	log = tmpfile();
	if (!log) {
		perror("failnth: tmpfile");
		return 1;
	}
	setvbuf(log, NULL, _IONBF, 0);
	compat_log = log;
	for (n = 1;; n++) {
		memset(inj, 0, sizeof(*inj));
		fflush(NULL);
		rewind(log);
		if (ftruncate(fileno(log), 0)) {
			perror("failnth: ftruncate");
			return 1;
		}
		pid = fork();
		if (pid < 0) {
			perror("failnth: fork");
			return 1;
		}
		if (pid == 0)
			_exit(run_once(n, persistent, timeout_s));
		got = wait_run(pid, &status, 2 * timeout_s);
		if (got != pid) {
			perror("failnth: waitpid");
			return 1;
		}
		describe(status, &o, what, sizeof(what));
		if (!inj->injected) {
			if (o != RUN_OK) {
				fprintf(stderr, "failnth: the workload fails with no "
					"failure injected: %s\n", what);
				return 1;
			}
			break;
		}
		points++;
		by_kind[inj->injected - 1]++;
		if (o == RUN_OK)
			continue;
		failures++;
		fprintf(stderr, "failnth: N=%lu: %s failed%s in step \"%s\": "
			"%s (the run was in step \"%s\")\n", n,
			inject_name[inj->injected - 1],
			persistent ? ", and every call after it," : "",
			inj->step_at_injection ? inj->step_at_injection : "?",
			what, inj->step ? inj->step : "?");
		backtrace_symbols_fd(inj->frames, inj->nframes, STDERR_FILENO);
		print_log(log);
		if (failures >= max_failures) {
			fprintf(stderr, "failnth: stopping after %lu failing runs\n",
				failures);
			break;
		}
	}
	printf("failnth%s: %lu injection points (",
	       persistent ? " --persistent" : "", points);
	for (int k = 0; k < INJ_NR; k++)
		printf("%s%s %lu", k ? ", " : "", inject_name[k], by_kind[k]);
	printf(") in %lu ms; %lu failed\n", test_now_ms() - t0, failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int max_failures = 20;
	unsigned long nth = 0;
	int persistent = 0;
	void *frame;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--nth") && i + 1 < argc) {
			nth = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--persistent")) {
			persistent = 1;
		} else if (!strcmp(argv[i], "--max-failures") && i + 1 < argc) {
			max_failures = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: %s [--persistent] [--nth N] "
				"[--max-failures K]\n", argv[0]);
			return 2;
		}
	}
	resolve();
	/* backtrace() loads its unwinder on first use: not while armed. */
	backtrace(&frame, 1);
	inj = mmap(NULL, sizeof(*inj), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (inj == MAP_FAILED) {
		perror("failnth: mmap");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (nth) {
		run_once(nth, persistent, slow() ? 30 : 10);
		printf("failnth: N=%lu: %s\n", nth, inj->injected ?
		       inject_name[inj->injected - 1] : "not reached");
		if (inj->injected)
			backtrace_symbols_fd(inj->frames, inj->nframes,
					     STDOUT_FILENO);
		return 0;
	}
	return sweep(persistent, max_failures);
}
