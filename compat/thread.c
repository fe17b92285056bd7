// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Thread registration and fork() for the compat layer.
 *
 * A thread's block is allocated and registered the first time the thread
 * enters a read-side section (or asks for "current"), and unregistered and
 * freed by a pthread key destructor when the thread exits: on return from
 * its start routine, pthread_exit() or cancellation alike.
 *
 * A thread that exits inside SRCU read-side sections can never end them.
 * The kernel's answer is a lockdep report; ours is a WARN naming the thread
 * and the number of sections, after which its counts leave the sums with
 * the block: the sections are released, and grace periods that waited for
 * them complete.  Nothing the thread did can still be running.
 *
 * fork() copies only the calling thread.  The handlers registered here
 * bring every lock the child needs across in a known state (or make it
 * anew), drop the blocks of the threads that were not copied (with their
 * read-side sections), requeue SRCU callbacks whose worker is gone, and
 * run liburcu-bp's own fork hooks for its registry and call_rcu threads.
 * Service threads are started again on demand in the child.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/bug.h>
#include <linux/compat_annotate.h>
#include <linux/srcu.h>

#include "compat_internal.h"

/* The calling thread's block: see <revocable/reader.h>. */
__thread struct __revocable_reader *__revocable_self
	__attribute__((__tls_model__("initial-exec")));

struct compat_thread *compat_threads;
bool compat_has_membarrier;

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static unsigned long next_token = 1;

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

long compat_sections_held(const struct compat_thread *t, int id)
{
	const struct __revocable_slot *c = compat_thread_slot(t, id);

	if (!c)
		return 0;
	return (long)(READ_ONCE(c->lock[0]) + READ_ONCE(c->lock[1]) -
		      READ_ONCE(c->unlock[0]) - READ_ONCE(c->unlock[1]));
}

static long sections_held_all(const struct compat_thread *t)
{
	long held = 0;
	unsigned int id;

	for (id = 0; id < t->nr_slots; id++)
		held += compat_sections_held(t, (int)id);
	return held;
}

/*
 * Up to which id @t's inline locks count: all its slots, or none when it
 * needs fences, which __revocable_read_lock_slow() issues.
 */
static void thread_set_inline(struct compat_thread *t)
{
	t->reader.nr_inline = t->reader.fence ? 0 : t->nr_slots;
}

/* Called once @t is out of the registry, or is a copy nobody else sees. */
static void thread_free(struct compat_thread *t)
{
	if (t->reader.slot != t->first_slots)
		free(t->reader.slot);
	free(t);
}

/* The thread's name as the kernel has it now (it may have been renamed). */
void compat_thread_name(const struct compat_thread *t, char *buf, size_t len)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", t->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	if (n <= 0) {
		snprintf(buf, len, "%s", t->name[0] ? t->name : "?");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Called with the registry lock held. */
static void registry_unlink(struct compat_thread *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		compat_threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
}

static void compat_thread_exit(void *arg)
{
	struct compat_thread *t = arg;
	char name[16];
	long held;

	/*
	 * The grace-period side reads the sums under the registry lock, so
	 * the block leaves them at once, balanced or not: the sections it
	 * still had open are released here.
	 */
	compat_registry_lock();
	held = sections_held_all(t);
	registry_unlink(t);
	compat_registry_unlock();

	if (held) {
		if (pthread_getname_np(pthread_self(), name, sizeof(name)))
			snprintf(name, sizeof(name), "%s", t->name);
		WARN(1, "thread %d (%s) exited inside %ld access(es); released\n",
		     t->tid, name, held);
	}
	__revocable_self = NULL;
	thread_free(t);
}

void compat_rcu_head_on_stack(void *head, bool on)
{
	struct compat_thread *t = compat_thread_self();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t->on_stack); i++) {
		if (t->on_stack[i] == (on ? NULL : head)) {
			t->on_stack[i] = on ? head : NULL;
			return;
		}
	}
	WARN_ONCE(1, "%s rcu_head %p on the stack: %s\n",
		  on ? "init of" : "destroy of", head,
		  on ? "too many at once" : "not recorded");
}

bool compat_token_exited(unsigned long token)
{
	const struct compat_thread *t;
	bool found = false;

	compat_registry_lock();
	compat_for_each_thread(t) {
		if (t->reader.token == token) {
			found = true;
			break;
		}
	}
	compat_registry_unlock();
	return !found;
}

static void compat_make_exit_key(void)
{
	if (pthread_key_create(&exit_key, compat_thread_exit)) {
		fprintf(stderr, "revocable: no thread-specific key left\n");
		abort();
	}
	compat_hb_before(&exit_key_once);	/* helgrind: pthread_once() */
}

struct __revocable_reader *__revocable_register(void)
{
	struct compat_thread *t;
	char name[16];

	pthread_once(&exit_key_once, compat_make_exit_key);
	compat_hb_after(&exit_key_once);
	if (pthread_getname_np(pthread_self(), name, sizeof(name)))
		name[0] = '\0';

	/*
	 * Allocated and linked under the registry lock, which fork()'s
	 * prepare handler takes: a child never inherits a block that is
	 * allocated but not yet in the registry (it could not free it).
	 */
	compat_registry_lock();
	t = calloc(1, sizeof(*t));
	if (!t) {
		fprintf(stderr, "revocable: no memory for a thread block\n");
		abort();
	}
	t->reader.slot = t->first_slots;
	t->nr_slots = COMPAT_SRCU_FIRST_SLOTS;
	t->reader.token = __atomic_fetch_add(&next_token, 1, __ATOMIC_RELAXED);
	t->reader.fence = !compat_has_membarrier || compat_race_detector();
	compat_race_by_design(t->first_slots, sizeof(t->first_slots));
	thread_set_inline(t);
	t->tid = (int)syscall(SYS_gettid);
	memcpy(t->name, name, sizeof(t->name));
	t->prev = NULL;
	t->next = compat_threads;
	if (compat_threads)
		compat_threads->prev = t;
	compat_threads = t;
	compat_registry_unlock();

	if (pthread_setspecific(exit_key, t)) {
		fprintf(stderr, "revocable: cannot register the thread's exit\n");
		abort();
	}
	__revocable_self = &t->reader;
	return &t->reader;
}

/*
 * The read lock of a domain past the calling thread's inline limit: its
 * slot lies past the end of the thread's array, or the thread needs
 * fences.  A short array is lengthened (at least doubled) first.  Only the
 * owner replaces its array, and it does so under the registry lock, under
 * which grace periods read other threads' arrays: they see the old array
 * or the new one, with the same counts.  The owner itself reads its
 * pointer and limit without the lock; no one else writes them.  The
 * allocation is made under the lock as well, for the same reason as a
 * block's: a fork() child must not inherit it half done.
 */
int __revocable_read_lock_slow(struct __revocable_reader *r,
			       const struct __revocable_srcu *s)
{
	struct compat_thread *t = compat_thread_of(r);
	struct __revocable_slot *old = r->slot, *slot;
	unsigned int n = t->nr_slots;
	int id = s->id, idx;

	if (id < 0) {
		fprintf(stderr, "revocable: read lock on an SRCU domain that is not set up\n");
		abort();
	}
	if ((unsigned int)id >= n) {
		while (n <= (unsigned int)id)
			n *= 2;
		compat_registry_lock();
		slot = calloc(n, sizeof(*slot));
		if (!slot) {
			fprintf(stderr, "revocable: no memory for %u SRCU slots\n", n);
			abort();
		}
		compat_race_by_design(slot, n * sizeof(*slot));
		memcpy(slot, old, t->nr_slots * sizeof(*slot));
		r->slot = slot;
		t->nr_slots = n;
		thread_set_inline(t);
		if (old != t->first_slots)
			free(old);
		compat_registry_unlock();
	}
	idx = __revocable_reader_count(r, s);
	__revocable_reader_barrier(r);
	return idx;
}

/* ----- fork -------------------------------------------------------------- */

/*
 * Lock order, here as everywhere: SRCU callbacks (not running), liburcu's,
 * the registry, then each domain's callback lock.  None of these is held
 * for long: a grace period in progress holds only its domain's gp_lock,
 * which is not taken here (the child makes it anew).
 */
static void compat_fork_prepare(void)
{
	compat_srcu_fork_prepare_callbacks();
	compat_rcu_fork_prepare();
	compat_registry_lock();
	compat_srcu_fork_prepare_locks();
}

static void compat_fork_parent(void)
{
	compat_srcu_fork_parent();
	compat_registry_unlock();
	compat_rcu_fork_parent();
	compat_srcu_fork_parent_callbacks();
}

/*
 * Only this thread was copied.  The others' blocks go, and with them their
 * read-side sections: nothing of theirs runs here.  Their tokens are then
 * dead, so handles they owned can be taken over (revocable_try_access()).
 */
static void compat_fork_child(void)
{
	struct compat_thread *t, *next, *self = compat_thread_peek();
	unsigned int i;

	for (t = compat_threads; t; t = next) {
		next = t->next;
		if (t == self)
			continue;
		for (i = 0; i < ARRAY_SIZE(t->on_stack); i++)
			if (t->on_stack[i])
				compat_srcu_fork_forget(t->on_stack[i]);
		registry_unlink(t);
		thread_free(t);
	}
	if (self)
		self->tid = (int)syscall(SYS_gettid);
	/* Taken by the prepare handler, in this thread. */
	pthread_mutex_unlock(&registry_mutex);
	/* Registration normally comes along with the mm; make sure. */
	if (compat_has_membarrier &&
	    sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		compat_has_membarrier = false;
		if (self) {
			self->reader.fence = 1;
			thread_set_inline(self);
		}
	}
	compat_srcu_fork_child();
	compat_rcu_fork_child();
}

/* Runs before any constructor that could start a reader. */
static void __attribute__((__constructor__(101))) compat_thread_init(void)
{
	long cmds = sys_membarrier(MEMBARRIER_CMD_QUERY);

	if (pthread_atfork(compat_fork_prepare, compat_fork_parent,
			   compat_fork_child)) {
		fprintf(stderr, "revocable: cannot register fork handlers\n");
		abort();
	}
	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return;
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		return;
	compat_has_membarrier = true;
}
