/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private interfaces shared by the runtime's sources (runtime/). */
#ifndef _RUNTIME_RUNTIME_H
#define _RUNTIME_RUNTIME_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <runtime/thread.h>

struct srcu_struct;

/* The registry of live thread blocks. */
extern struct compat_thread *compat_threads;

/*
 * Give every registered thread slots for ids below @nr (registry lock
 * held); 0 or -ENOMEM.
 */
int compat_slots_reserve(unsigned int nr);

/*
 * The library's locks, taken so that a signal handler of the holder that
 * calls the library can tell (thread.c): a registered thread records the
 * lock in its block, any other blocks every signal while it holds it.
 * Given back in the reverse order.
 */
struct compat_held {
	struct compat_thread *t;	/* recorded here; NULL: signals blocked */
	sigset_t old;
};
void compat_lock(pthread_mutex_t *m, struct compat_held *h);
void compat_unlock(pthread_mutex_t *m, struct compat_held *h);
/* Whether the calling thread holds @lock, taken with compat_lock(). */
bool compat_holds(const void *lock);

/* Whether the calling thread holds none of the library's locks: cheap. */
static inline bool compat_holds_none(void)
{
	const struct compat_thread *t = compat_thread_peek();

	return !t || !READ_ONCE(t->nr_held);
}

void compat_registry_lock(void);
void compat_registry_unlock(void);
/* Whether the calling thread holds the registry lock / the membarrier switch. */
bool compat_registry_held(void);
bool compat_mb_lock_held(void);

/* Read-side sections of domain slot @id that thread @t has open. */
long compat_sections_held(const struct compat_thread *t, int id);
/* @t's name as the kernel has it now. */
void compat_thread_name(const struct compat_thread *t, char *buf, size_t len);
bool compat_task_file(int tid, const char *name, char *buf, size_t size);

/*
 * Start a service thread of the library, every signal blocked in it;
 * 0 or an errno value (compat_thread_fail_countdown injects EAGAIN).
 */
int compat_service_thread(pthread_t *thread, void *(*fn)(void *), void *arg);

/* A full barrier on behalf of every running thread of the process. */
void compat_mb_all_threads(void);

/* RCU over liburcu-bp (rcu.c), declared here for both namespaces. */
struct rcu_head;
void compat_rcu_read_lock(void);
void compat_rcu_read_unlock(void);
void compat_synchronize_rcu(void);
void compat_call_rcu(struct rcu_head *head,
		     void (*func)(struct rcu_head *head));
void compat_rcu_barrier(void);

/*
 * A layer's fork() steps, run by thread.c's handlers around its own:
 * prepare in rank order before the registry is taken, prepare_locked with
 * it held; parent_locked and parent in the reverse order, before and after
 * the registry is given back; in the child, forget for each callback head
 * a dropped thread had on its stack, then child in rank order.  Any step
 * may be NULL.  Registered from a constructor.
 */
struct compat_fork_ops {
	int rank;
	void (*prepare)(void);
	void (*prepare_locked)(void);
	void (*parent_locked)(void);
	void (*parent)(void);
	void (*forget)(void *head);
	void (*child)(void);
};
void compat_fork_register(const struct compat_fork_ops *ops);

/*
 * Defines @name's fork steps (the members, as initialisers) and registers
 * them from a constructor.
 */
#define COMPAT_FORK_OPS(name, ...)					\
	static const struct compat_fork_ops name;			\
	static void __attribute__((__constructor__)) name##_register(void) \
	{								\
		compat_fork_register(&name);				\
	}								\
	static const struct compat_fork_ops name = { __VA_ARGS__ }
/* The ranks: SRCU's callbacks stop before liburcu's locks are taken. */
#define COMPAT_FORK_RANK_SRCU	0
#define COMPAT_FORK_RANK_RCU	1

#define compat_for_each_thread(t)					\
	for ((t) = compat_threads; (t); (t) = (t)->next)

#endif
