// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RCU for the compat layer: read-side sections and grace periods are
 * liburcu's bp ("bulletproof") flavour, callbacks are ours.
 *
 * liburcu-bp registers threads itself on first use, keeps its reader
 * registry out of thread-local storage (which glibc hands to the next
 * thread a fork() child creates), and has fork hooks for that registry,
 * which thread.c's fork handlers call.  Only the library uses these
 * read-side sections, briefly; the access fast path is SRCU.  This file
 * sees liburcu's headers and, of the compat linux/ ones, only those that
 * define no kernel type, so the two namespaces never meet.
 */
/*
 * The read side is a call into liburcu-bp, not its inline version: that
 * one accesses the reader records through a type declared 128-byte
 * aligned that liburcu's arena does not align (UBSan reports it), and
 * TSan cannot pair the inlined accesses with the uninstrumented library.
 * Only revocable_provider_get_rcu() takes an RCU read lock; the access
 * fast path is SRCU.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <runtime/annotate.h>
#include <runtime/tsan.h>
#include <urcu/urcu-bp.h>

#include <linux/bug.h>

#include "runtime.h"

/*
 * ThreadSanitizer cannot see inside liburcu, so it would take every
 * callback and every access after synchronize_rcu() for a race with the
 * read-side sections before it.  Each read-side unlock therefore releases
 * this token, and the end of each grace period or barrier acquires it.
 * That is slightly more order than RCU gives (a reader that began after
 * the grace period started is ordered too), so a race against such a
 * reader could be missed; the orders it does state are exactly RCU's
 * guarantees.  The callback queue below is plain atomics and pthreads,
 * which TSan follows by itself.
 */
static char compat_rcu_tsan_token __maybe_unused;

void compat_rcu_read_lock(void)
{
	urcu_bp_read_lock();
}

void compat_rcu_read_unlock(void)
{
	compat_tsan_release(&compat_rcu_tsan_token);
	urcu_bp_read_unlock();
}

void compat_synchronize_rcu(void)
{
	urcu_bp_synchronize_rcu();
	compat_tsan_acquire(&compat_rcu_tsan_token);
}

/*
 * liburcu-bp's grace periods use membarrier() when the kernel has it, and
 * abort the process when the call fails later: a seccomp filter that a
 * service installs after start-up does that.  So we switch liburcu-bp to
 * full fences on both sides (its flag is read by its readers at each
 * lock, by its grace periods at each barrier), at load time.  Its readers
 * are ours alone, revocable_provider_get_rcu()'s few instructions, so a
 * fence there costs little; the access fast path is SRCU.
 *
 * Readers that began before the switch, if any (a program that used
 * liburcu-bp itself before loading us), ordered their lock with a compiler
 * barrier only.  One membarrier() after the switch orders each of them as
 * a full barrier would: a grace period that starts after it sees their
 * lock and waits for them, and any reader that locks after it reads the
 * flag cleared and fences itself.  (If the call fails, membarrier() is
 * denied already, and liburcu-bp could not have ended a grace period for
 * those readers either.)
 */
extern int urcu_bp_has_sys_membarrier;

static void __attribute__((__constructor__)) compat_rcu_init(void)
{
	/* Runs liburcu-bp's initialisation now if its constructor has not. */
	urcu_bp_register_thread();
	if (!__atomic_load_n(&urcu_bp_has_sys_membarrier, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&urcu_bp_has_sys_membarrier, 0, __ATOMIC_SEQ_CST);
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* ----- callbacks -----------------------------------------------------------
 *
 * call_rcu() and rcu_barrier() are ours, not liburcu's: liburcu allocates
 * per-thread data on a thread's first call_rcu() and starts its thread on
 * first use, and aborts when either fails; its rcu_barrier() aborts when it
 * cannot allocate.  Here:
 *
 * - call_rcu() allocates nothing (the rcu_head is the caller's) and, once
 *   the worker runs, takes no lock: it pushes the head on a lock-free
 *   stack and wakes the worker through a futex.  It never waits, as in the
 *   kernel: its callers (the last revocable_provider_put()) may be inside a
 *   read-side section or hold locks.
 * - One worker thread, started by the first call_rcu() (in a fork() child,
 *   by the first one there), takes the whole stack, waits for a grace
 *   period of liburcu-bp and runs the callbacks, oldest first.  It holds
 *   rcu_run_lock while it does, so batches run one at a time, in order.
 * - If the worker cannot be started (pthread_create() fails: RLIMIT_NPROC,
 *   no memory), call_rcu() says so once and leaves the callback queued;
 *   each later call_rcu() tries again, and rcu_barrier(), whose callers
 *   may wait by contract, runs the queue itself.  Nothing aborts, and
 *   nothing waits on a thread that does not exist.
 * - rcu_barrier() counts: it waits until as many callbacks have run as had
 *   been queued when it began.  call_rcu() counts a callback before it
 *   pushes it, and batches run in push order, so a callback pushed later
 *   than one that is counted runs after it: when the count is reached,
 *   every callback whose call_rcu() returned before the barrier began has
 *   run.  Rather than wake the worker and sleep, rcu_barrier() runs what is
 *   queued itself when no batch is running: the callbacks are the
 *   library's own (freeing memory), which may run in any thread.
 *
 * The compat struct rcu_head (<linux/rcupdate.h>, which this file cannot
 * include next to liburcu's) starts with these two members.
 */
struct compat_cb {
	struct compat_cb *next;
	void (*func)(struct compat_cb *cb);
};

static struct compat_cb *rcu_cb_stack;	/* pushed, newest first */
static unsigned int rcu_cb_wake;	/* futex: set by a push, cleared by the worker */
COMPAT_RACE_BY_DESIGN(rcu_cb_wake)
static unsigned long rcu_cb_queued;	/* callbacks counted by call_rcu(), ever */
static unsigned long rcu_cb_done;	/* callbacks run, ever (rcu_cb_lock) */
static bool rcu_worker_running;
COMPAT_RACE_BY_DESIGN(rcu_worker_running)
static pthread_t rcu_worker;
/* Worker start, the count of callbacks run and its condition. */
static pthread_mutex_t rcu_cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rcu_cb_done_cond = PTHREAD_COND_INITIALIZER;
/* Held by whoever takes and runs a batch, the worker or rcu_barrier(). */
static pthread_mutex_t rcu_run_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t rcu_runner;		/* its holder, 0 when free */
COMPAT_RACE_BY_DESIGN(rcu_runner)

static long rcu_futex(unsigned int *word, int op, unsigned int val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static bool rcu_runner_is_me(void)
{
	pthread_t runner = __atomic_load_n(&rcu_runner, __ATOMIC_RELAXED);

	return runner && pthread_equal(runner, pthread_self());
}

/*
 * With rcu_run_lock held: take what is queued, wait for a grace period and
 * run it, oldest first.  Then, under rcu_cb_lock, count it, give up
 * rcu_run_lock and wake the barriers: a barrier that found the run lock
 * taken (with rcu_cb_lock held) cannot miss its release.
 */
static void rcu_run_batch_locked(void)
{
	struct compat_cb *list, *fifo = NULL, *next;
	unsigned long n = 0;

	__atomic_store_n(&rcu_runner, pthread_self(), __ATOMIC_RELAXED);
	list = __atomic_exchange_n(&rcu_cb_stack, NULL, __ATOMIC_ACQUIRE);
	compat_hb_after(&rcu_cb_stack);
	for (; list; list = next) {
		next = list->next;
		list->next = fifo;
		fifo = list;
	}
	if (fifo) {
		compat_synchronize_rcu();
		for (; fifo; fifo = next, n++) {
			next = fifo->next;
			fifo->func(fifo);
		}
	}
	pthread_mutex_lock(&rcu_cb_lock);
	rcu_cb_done += n;
	__atomic_store_n(&rcu_runner, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rcu_run_lock);
	pthread_cond_broadcast(&rcu_cb_done_cond);
	pthread_mutex_unlock(&rcu_cb_lock);
}

static void *rcu_cb_worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "revocable-rcu");
	for (;;) {
		/* A push after this store sees 0 and wakes us. */
		__atomic_store_n(&rcu_cb_wake, 0, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&rcu_cb_stack, __ATOMIC_SEQ_CST)) {
			rcu_futex(&rcu_cb_wake, FUTEX_WAIT_PRIVATE, 0);
			continue;
		}
		pthread_mutex_lock(&rcu_run_lock);
		rcu_run_batch_locked();
	}
	return NULL;
}

/*
 * Start the worker unless it runs: 0 when it runs (or another thread is
 * starting it), -1 when it cannot be started.  Only tried: the holder of
 * rcu_cb_lock may be the thread that a signal handler calling call_rcu()
 * interrupted, and the holder sees the queue anyway.
 */
static int rcu_worker_start(void)
{
	int ret = 0;

	if (__atomic_load_n(&rcu_worker_running, __ATOMIC_ACQUIRE) ||
	    pthread_mutex_trylock(&rcu_cb_lock))
		return 0;
	if (!rcu_worker_running) {
		if (compat_service_thread(&rcu_worker, rcu_cb_worker, NULL)) {
			ret = -1;
		} else {
			pthread_detach(rcu_worker);
			__atomic_store_n(&rcu_worker_running, true,
					 __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&rcu_cb_lock);
	return ret;
}

void compat_call_rcu(struct rcu_head *head,
		     void (*func)(struct rcu_head *head))
{
	struct compat_cb *cb = (struct compat_cb *)head, *old;

	cb->func = (void (*)(struct compat_cb *))func;
	/* Counted before it is pushed: see rcu_barrier(). */
	__atomic_add_fetch(&rcu_cb_queued, 1, __ATOMIC_SEQ_CST);
	old = __atomic_load_n(&rcu_cb_stack, __ATOMIC_RELAXED);
	do {
		cb->next = old;
		compat_hb_before(&rcu_cb_stack);	/* helgrind, DRD */
	} while (!__atomic_compare_exchange_n(&rcu_cb_stack, &old, cb, true,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	WARN_ONCE(rcu_worker_start(),
		  "call_rcu: cannot start the callback thread; callbacks wait for the next call_rcu() or rcu_barrier()\n");
	/* Also when a worker is only being started: it may miss the push. */
	if (!__atomic_exchange_n(&rcu_cb_wake, 1, __ATOMIC_SEQ_CST))
		rcu_futex(&rcu_cb_wake, FUTEX_WAKE_PRIVATE, 1);
}

void compat_rcu_barrier(void)
{
	unsigned long target = __atomic_load_n(&rcu_cb_queued, __ATOMIC_SEQ_CST);

	if (WARN_ONCE(rcu_runner_is_me(),
		      "rcu_barrier() from an RCU callback would wait for itself\n"))
		return;
	pthread_mutex_lock(&rcu_cb_lock);
	while ((long)(rcu_cb_done - target) < 0) {
		if (pthread_mutex_trylock(&rcu_run_lock)) {
			/* A batch runs: its end wakes us. */
			pthread_cond_wait(&rcu_cb_done_cond, &rcu_cb_lock);
			continue;
		}
		pthread_mutex_unlock(&rcu_cb_lock);
		if (!__atomic_load_n(&rcu_cb_stack, __ATOMIC_ACQUIRE))
			sched_yield();	/* counted, not pushed yet */
		rcu_run_batch_locked();
		pthread_mutex_lock(&rcu_cb_lock);
	}
	pthread_mutex_unlock(&rcu_cb_lock);
	compat_tsan_acquire(&compat_rcu_tsan_token);
}

/*
 * fork(): no batch may be half run in the child, and its locks must come
 * across free.  The prepare handler takes the run lock (waiting for the
 * batch that runs, a grace period and some frees) and then liburcu's own
 * locks, in liburcu's order.  A callback that forks already holds the run
 * lock; in the child its thread goes on as the runner it was.
 */
static void rcu_fork_prepare(void)
{
	if (!rcu_runner_is_me())
		pthread_mutex_lock(&rcu_run_lock);
	pthread_mutex_lock(&rcu_cb_lock);
	urcu_bp_before_fork();
}

static void rcu_fork_parent(void)
{
	urcu_bp_after_fork_parent();
	pthread_mutex_unlock(&rcu_cb_lock);
	if (!rcu_runner_is_me())
		pthread_mutex_unlock(&rcu_run_lock);
}

/*
 * The worker was not copied (unless this thread is it) and is started
 * again by the next call_rcu(); what was queued stays queued.  Barrier
 * waiters were other threads.
 */
static void rcu_fork_child(void)
{
	bool runner = rcu_runner_is_me();

	urcu_bp_after_fork_child();
	rcu_worker_running = rcu_worker_running && runner &&
			     pthread_equal(rcu_worker, pthread_self());
	if (!rcu_worker_running)
		rcu_cb_wake = 0;
	pthread_cond_init(&rcu_cb_done_cond, NULL);
	pthread_mutex_unlock(&rcu_cb_lock);
	if (!runner)
		pthread_mutex_unlock(&rcu_run_lock);
}

COMPAT_FORK_OPS(rcu_fork_ops,
		.rank = COMPAT_FORK_RANK_RCU,
		.prepare = rcu_fork_prepare,
		.parent = rcu_fork_parent,
		.child = rcu_fork_child);
