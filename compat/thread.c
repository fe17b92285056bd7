// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Thread registration for the compat layer.
 *
 * A thread's block is registered the first time the thread enters a
 * read-side section (or asks for "current"), and unregistered by a
 * pthread key destructor when the thread exits.  On exit its SRCU counts
 * are folded into the graveyard block, so that a read-side section that a
 * dead thread began and another thread ended still balances.
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat_internal.h"

__thread struct compat_thread *compat_self
	__attribute__((__tls_model__("initial-exec")));
static __thread struct compat_thread compat_block;

struct compat_thread compat_graveyard;
struct compat_thread *compat_threads;
bool compat_has_membarrier;

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

void compat_registry_lock(void)
{
	pthread_mutex_lock(&registry_mutex);
}

void compat_registry_unlock(void)
{
	pthread_mutex_unlock(&registry_mutex);
}

static long sys_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/* Runs before any constructor that could start a reader. */
static void __attribute__((__constructor__(101))) compat_membarrier_init(void)
{
	long cmds = sys_membarrier(MEMBARRIER_CMD_QUERY);

	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return;
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		return;
	compat_has_membarrier = true;
}

void compat_mb_all_threads(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (compat_has_membarrier &&
	    sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
		/* Cannot happen once registered; never run without it. */
		fprintf(stderr, "revocable: membarrier failed, aborting\n");
		abort();
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void compat_thread_exit(void *arg)
{
	struct compat_thread *t = arg;
	int i, idx;

	compat_registry_lock();
	for (i = 0; i < COMPAT_SRCU_MAX_DOMAINS; i++) {
		for (idx = 0; idx < 2; idx++) {
			compat_graveyard.srcu[i].lock[idx] +=
				READ_ONCE(t->srcu[i].lock[idx]);
			compat_graveyard.srcu[i].unlock[idx] +=
				READ_ONCE(t->srcu[i].unlock[idx]);
		}
	}
	/*
	 * Counted now: should a later destructor of this thread use the
	 * library again, the block is registered afresh from zero.
	 */
	memset(t->srcu, 0, sizeof(t->srcu));
	if (t->prev)
		t->prev->next = t->next;
	else
		compat_threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	compat_registry_unlock();

	if (t->rcu_registered)
		compat_rcu_thread_exit();
	t->rcu_registered = false;
	compat_self = NULL;
}

static void compat_make_exit_key(void)
{
	if (pthread_key_create(&exit_key, compat_thread_exit)) {
		fprintf(stderr, "revocable: no thread-specific key left\n");
		abort();
	}
}

struct compat_thread *compat_thread_register(void)
{
	struct compat_thread *t = &compat_block;

	pthread_once(&exit_key_once, compat_make_exit_key);
	t->tid = (int)syscall(SYS_gettid);
	if (pthread_getname_np(pthread_self(), t->name, sizeof(t->name)))
		t->name[0] = '\0';

	compat_registry_lock();
	t->prev = NULL;
	t->next = compat_threads;
	if (compat_threads)
		compat_threads->prev = t;
	compat_threads = t;
	compat_registry_unlock();

	pthread_setspecific(exit_key, t);
	compat_self = t;
	return t;
}
