// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Thread registration, signals and fork() for the compat layer.
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
 * Signals.  A signal handler may make accesses (<revocable/reader.h>), so
 * nothing a read lock does may be cut in two by one: a thread registers
 * with every signal blocked, its block comes from an arena of mmap()ed
 * memory rather than malloc(), and a read lock past the thread's slots
 * takes an array the domain allocator made for it beforehand, with every
 * signal blocked, allocating nothing.  A thread that cannot be registered
 * at all (no memory, no pthread key) is not refused: it shares one block,
 * compat_shared_thread, in fence mode, whose counts are atomic additions
 * (slower, and its sections are not released if it exits inside one).
 * The library's own locks are taken with compat_lock(), which records
 * them in the holder's block, so that a handler that interrupted the
 * library can tell that a wait would be on itself
 * (srcu.c's compat_srcu_would_deadlock()).
 *
 * membarrier() lost.  A seccomp filter installed after start-up can make
 * membarrier() fail.  The first grace period that sees it fail switches
 * the process to fences for good and runs a heavy barrier that needs no
 * membarrier() in its place: see compat_mb_lost().
 *
 * fork() copies only the calling thread.  The handlers registered here,
 * with the steps the layers above register (compat_fork_register()),
 * bring every lock the child needs across in a known state (or make it
 * anew), drop the blocks of the threads that were not copied (with their
 * read-side sections), requeue SRCU callbacks whose worker is gone, and
 * run liburcu-bp's own fork hooks for its registry and call_rcu threads.
 * Service threads are started again on demand in the child.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/bug.h>
#include <runtime/annotate.h>
#include <linux/printk.h>
#include <linux/srcu.h>

#include "runtime.h"

/* The calling thread's block: see <revocable/reader.h>. */
__thread struct __revocable_reader *__revocable_self
	__attribute__((__tls_model__("initial-exec")));

struct compat_thread *compat_threads;
bool compat_has_membarrier;
struct compat_thread compat_shared_thread;

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
/* How the registry lock's holder took it (compat_lock()). */
static struct compat_held registry_held;
static pthread_key_t exit_key;
static bool exit_key_ok;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static unsigned long next_token = 1;

/* ----- the library's locks, as a signal handler sees them ---------------- */

/* Every signal but glibc's own (sigfillset()), made once at load time. */
static sigset_t sig_all;

static void signals_block(sigset_t *old)
{
	pthread_sigmask(SIG_BLOCK, &sig_all, old);
}

static void signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/*
 * Take @m, one of the library's locks, so that a signal handler of this
 * thread that calls the library while it is held can tell (compat_holds()).
 * A registered thread records @m in its block: the count first, then the
 * entry, so that a handler between the two sees an empty entry (cleared
 * when it was last given back) and pushes its own above it; the handler
 * gives its own back before the interrupted code goes on.  A thread with
 * no block of its own (or whose record is full) blocks every signal
 * instead, until compat_unlock(): no handler then runs while it holds @m.
 */
void compat_lock(pthread_mutex_t *m, struct compat_held *h)
{
	struct compat_thread *t = compat_thread_peek();
	unsigned int n;

	if (t && t != &compat_shared_thread &&
	    (n = t->nr_held) < COMPAT_HELD_MAX) {
		WRITE_ONCE(t->nr_held, n + 1);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		WRITE_ONCE(t->held[n], (const void *)m);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		h->t = t;
	} else {
		signals_block(&h->old);
		h->t = NULL;
	}
	pthread_mutex_lock(m);
}

/* Give back a lock taken with compat_lock(), the last one taken first. */
void compat_unlock(pthread_mutex_t *m, struct compat_held *h)
{
	struct compat_thread *t = h->t;
	unsigned int n;

	pthread_mutex_unlock(m);
	if (!t) {
		signals_restore(&h->old);
		return;
	}
	n = t->nr_held - 1;
	WRITE_ONCE(t->held[n], NULL);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	WRITE_ONCE(t->nr_held, n);
}

bool compat_holds(const void *lock)
{
	const struct compat_thread *t = compat_thread_peek();
	unsigned int i, n;

	if (!t || t == &compat_shared_thread)
		return false;
	n = READ_ONCE(t->nr_held);
	for (i = 0; i < n && i < COMPAT_HELD_MAX; i++)
		if (READ_ONCE(t->held[i]) == lock)
			return true;
	return false;
}

void compat_registry_lock(void)
{
	struct compat_held h;

	compat_lock(&registry_mutex, &h);
	registry_held = h;
}

void compat_registry_unlock(void)
{
	struct compat_held h = registry_held;

	compat_unlock(&registry_mutex, &h);
}

bool compat_registry_held(void)
{
	return compat_holds(&registry_mutex);
}

/*
 * Registration and exit take the registry lock with every signal blocked
 * (the caller blocked them): the thread has no block to record it in.
 */
static void registry_lock_raw(void)
{
	pthread_mutex_lock(&registry_mutex);
	registry_held = (struct compat_held){ .t = NULL };
}

static void registry_unlock_raw(void)
{
	pthread_mutex_unlock(&registry_mutex);
}

/* ----- memory that a signal handler may allocate -------------------------- */

/*
 * Thread blocks come from chunks of mmap()ed memory, one cache line apart
 * at least (I6: no thread stores next to another's counts), and go back to
 * a free list when their thread exits; chunks are never unmapped.  Slot
 * arrays are mappings of their own.  Neither is malloc(), which a signal
 * handler must not call.  The arena is guarded by the registry lock.
 */
#define ARENA_CHUNK	(64 * 1024)
#define BLOCK_SIZE	((sizeof(struct compat_thread) + 63) & ~(size_t)63)

static struct compat_thread *arena_free;
static char *arena_next, *arena_end;

static void *map_zeroed(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * A zeroed block; registry lock held (one taker at a time, so the free
 * list, which exiting threads push to without the lock, has no ABA
 * problem).  NULL when no memory is left.
 */
static struct compat_thread *block_alloc(void)
{
	struct compat_thread *t = __atomic_load_n(&arena_free,
						  __ATOMIC_ACQUIRE);

	while (t && !__atomic_compare_exchange_n(&arena_free, &t,
						 t->free_next, true,
						 __ATOMIC_ACQUIRE,
						 __ATOMIC_ACQUIRE))
		;
	if (t) {
		memset(t, 0, sizeof(*t));
		return t;
	}
	if (!arena_next || (size_t)(arena_end - arena_next) < BLOCK_SIZE) {
		arena_next = map_zeroed(ARENA_CHUNK);
		if (!arena_next)
			return NULL;
		arena_end = arena_next + ARENA_CHUNK;
	}
	t = (struct compat_thread *)arena_next;
	arena_next += BLOCK_SIZE;
	return t;
}

/* Any time: a push onto the free list. */
static void block_free(struct compat_thread *t)
{
	struct compat_thread *head = __atomic_load_n(&arena_free,
						     __ATOMIC_RELAXED);

	do {
		t->free_next = head;
	} while (!__atomic_compare_exchange_n(&arena_free, &head, t, true,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

/* A zeroed slot array of at least @nr slots (the whole last page used). */
static struct compat_slots *slots_map(unsigned int nr)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = offsetof(struct compat_slots, slot) +
		     (size_t)nr * sizeof(struct __revocable_slot);
	struct compat_slots *a;

	len = (len + page - 1) & ~(page - 1);
	a = map_zeroed(len);
	if (!a)
		return NULL;
	a->map_len = len;
	a->nr = (unsigned int)((len - offsetof(struct compat_slots, slot)) /
			       sizeof(struct __revocable_slot));
	compat_race_by_design(a->slot, a->nr * sizeof(*a->slot));
	return a;
}

static void slots_unmap(struct compat_slots *a)
{
	if (a)
		munmap(a, a->map_len);
}

/*
 * Spare arrays of threads that exited without taking theirs: still zero
 * (nobody writes a spare before its thread takes it), so the next thread
 * to register gets one without a system call, which thread churn in a
 * process with many domains would otherwise pay twice per thread.  Registry
 * lock; at most SPARE_POOL_MAX kept.
 */
#define SPARE_POOL_MAX	64

static struct compat_slots *spare_pool;	/* chained through ->older */
static unsigned int spare_pool_len;

/* A zeroed array of at least @nr slots, pooled or new; registry lock held. */
static struct compat_slots *spare_get(unsigned int nr)
{
	struct compat_slots *a;

	while ((a = spare_pool)) {
		spare_pool = a->older;
		spare_pool_len--;
		a->older = NULL;
		if (a->nr >= nr)
			return a;
		slots_unmap(a);		/* too short since the limit grew */
	}
	return slots_map(nr);
}

/* Keep an array nobody wrote to for the next thread; registry lock held. */
static void spare_put(struct compat_slots *a)
{
	if (!a)
		return;
	if (spare_pool_len >= SPARE_POOL_MAX) {
		slots_unmap(a);
		return;
	}
	a->older = spare_pool;
	spare_pool = a;
	spare_pool_len++;
}

/*
 * How many slots @t has or has been given: what the domain allocator
 * must make sure of before it hands out an id (compat_slots_reserve()).
 */
static unsigned int thread_reach(const struct compat_thread *t)
{
	const struct compat_slots *spare = __atomic_load_n(&t->spare,
							   __ATOMIC_ACQUIRE);
	unsigned int n = READ_ONCE(t->nr_slots);

	return spare && spare->nr > n ? spare->nr : n;
}

/*
 * Every registered thread gets slots for ids below @nr: a spare array, for
 * the thread to take the first time it enters a domain past its slots.
 * The shared block, which has no owner, is lengthened here at once (its
 * threads' read locks are all out of line).  Registry lock held; -ENOMEM
 * if an array cannot be had, and then the caller hands out no id that
 * needs it (the spares made so far are kept for later).
 */
/* The @nr of the largest compat_slots_reserve() that succeeded. */
static unsigned int compat_slots_limit = COMPAT_SRCU_FIRST_SLOTS;

int compat_slots_reserve(unsigned int nr)
{
	struct compat_thread *t, *sh = &compat_shared_thread;
	struct compat_slots *a, *old;

	compat_for_each_thread(t) {
		if (thread_reach(t) >= nr)
			continue;
		a = slots_map(nr);
		if (!a)
			return -ENOMEM;
		if (t == sh) {
			a->older = sh->arrays;
			__atomic_store_n(&sh->arrays, a, __ATOMIC_RELEASE);
			__atomic_store_n(&sh->reader.slot, a->slot,
					 __ATOMIC_RELEASE);
			WRITE_ONCE(sh->nr_slots, a->nr);
			continue;
		}
		/* The owner takes a spare with an exchange too. */
		old = __atomic_exchange_n(&t->spare, a, __ATOMIC_ACQ_REL);
		slots_unmap(old);
	}
	if (nr > compat_slots_limit)
		compat_slots_limit = nr;
	return 0;
}

/* ----- the counts ---------------------------------------------------------- */

bool compat_thread_count(const struct compat_thread *t, int id,
			 unsigned long lock[2], unsigned long unlock[2])
{
	const struct compat_slots *head, *a;
	const struct __revocable_slot *c;
	bool found = false;
	int pass, i;

	lock[0] = lock[1] = unlock[0] = unlock[1] = 0;
	if (id < 0)
		return false;
	/* One list for both passes: see runtime/srcu.c. */
	head = __atomic_load_n(&t->arrays, __ATOMIC_ACQUIRE);
	for (pass = 0; pass < 2; pass++) {
		unsigned long *sum = pass ? lock : unlock;

		for (a = head; ; a = a->older) {
			if (a) {
				if ((unsigned int)id >= a->nr)
					break;	/* older ones are shorter */
				c = &a->slot[id];
			} else {
				if (id >= COMPAT_SRCU_FIRST_SLOTS)
					break;
				c = &t->first_slots[id];
			}
			found = true;
			for (i = 0; i < 2; i++)
				sum[i] += __atomic_load_n(pass ? &c->lock[i] :
							  &c->unlock[i],
							  __ATOMIC_ACQUIRE);
			if (!a)
				break;
		}
	}
	return found;
}

long compat_sections_held(const struct compat_thread *t, int id)
{
	unsigned long lock[2], unlock[2];

	if (!compat_thread_count(t, id, lock, unlock))
		return 0;
	return (long)(lock[0] + lock[1] - unlock[0] - unlock[1]);
}

/* All of @t's open sections, over all its arrays. */
static long sections_held_all(const struct compat_thread *t)
{
	const struct compat_slots *a;
	const struct __revocable_slot *s = t->first_slots;
	unsigned int i, nr = COMPAT_SRCU_FIRST_SLOTS;
	long held = 0;

	for (a = t->arrays; ; a = a->older) {
		for (i = 0; i < nr; i++)
			held += (long)(s[i].lock[0] + s[i].lock[1] -
				       s[i].unlock[0] - s[i].unlock[1]);
		if (!a)
			break;
		s = a->slot;
		nr = a->nr;
	}
	return held;
}

/*
 * Up to which id @t's inline locks count: all its slots, or none when it
 * needs fences, which __revocable_read_lock_slow() issues.  The owner
 * calls this; compat_mb_lost() may set @fence meanwhile from another
 * thread and then clears @nr_inline.  The fence between the owner's store
 * and its second look at @fence makes one of them see the other, so the
 * limit ends at 0 either way.
 */
static void thread_set_inline(struct compat_thread *t)
{
	WRITE_ONCE(t->reader.nr_inline,
		   READ_ONCE(t->reader.fence) ? 0 : t->nr_slots);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (READ_ONCE(t->reader.fence))
		WRITE_ONCE(t->reader.nr_inline, 0);
}

/* Called once @t is out of the registry, or is a copy nobody else sees. */
static void thread_free(struct compat_thread *t)
{
	struct compat_slots *a, *older;

	for (a = t->arrays; a; a = older) {
		older = a->older;
		slots_unmap(a);
	}
	slots_unmap(t->spare);
	block_free(t);
}

/* The thread's name as the kernel has it now (it may have been renamed). */
void compat_thread_name(const struct compat_thread *t, char *buf, size_t len)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	if (t == &compat_shared_thread) {
		snprintf(buf, len, "%s", t->name);
		return;
	}
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
static void registry_link(struct compat_thread *t)
{
	t->prev = NULL;
	t->next = compat_threads;
	if (compat_threads)
		compat_threads->prev = t;
	compat_threads = t;
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
	 * still had open are released here.  No handler of this thread may
	 * count in the block once it is out, hence the signals blocked.
	 * The old mask is kept in the block rather than on a stack that a
	 * cancelled thread may have left poisoned for ASan.
	 */
	signals_block(&t->exit_mask);
	registry_lock_raw();
	held = sections_held_all(t);
	registry_unlink(t);
	/* Out of the registry: the domain allocator no longer hands it one. */
	spare_put(t->spare);
	t->spare = NULL;
	registry_unlock_raw();

	if (held) {
		if (pthread_getname_np(pthread_self(), name, sizeof(name)))
			snprintf(name, sizeof(name), "%s", t->name);
		WARN(1, "thread %d (%s) exited inside %ld access(es); released\n",
		     t->tid, name, held);
	}
	__revocable_self = NULL;
	signals_restore(&t->exit_mask);
	/* From here a handler that makes an access registers anew. */
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

	/*
	 * A signal handler that interrupted this thread in the registry
	 * cannot look: the owner is taken to be alive (the access is
	 * refused as shared, with a warning).
	 */
	if (compat_registry_held())
		return false;
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
	exit_key_ok = !pthread_key_create(&exit_key, compat_thread_exit);
	compat_hb_before(&exit_key_once);	/* helgrind: pthread_once() */
}

/*
 * Register the calling thread: allocate its block (and a spare array when
 * domain ids reach past its first slots), link it, and arrange for its
 * exit.  Every signal is blocked meanwhile, so that a handler never sees
 * half a registration; one that came earlier, between the caller's test
 * and the blocking, may have registered the thread already.  A thread
 * that cannot be registered shares compat_shared_thread, with a warning:
 * its accesses work, in fence mode.
 */
struct __revocable_reader *__revocable_register(void)
{
	struct compat_thread *t = NULL;
	struct compat_slots *spare = NULL;
	struct __revocable_reader *r;
	const char *why = NULL;
	char name[16];
	sigset_t old;
	int tid;

	signals_block(&old);
	r = __revocable_self;
	if (r) {
		signals_restore(&old);
		return r;
	}
	pthread_once(&exit_key_once, compat_make_exit_key);
	compat_hb_after(&exit_key_once);
	if (pthread_getname_np(pthread_self(), name, sizeof(name)))
		name[0] = '\0';
	tid = (int)syscall(SYS_gettid);

	/*
	 * Allocated and linked under the registry lock, which fork()'s
	 * prepare handler takes: a child never inherits a block that is
	 * allocated but not yet in the registry (it could not free it).
	 */
	registry_lock_raw();
	if (!exit_key_ok)
		why = "no thread-specific key left";
	else if (!(t = block_alloc()))
		why = "no memory for its block";
	else if (compat_slots_limit > COMPAT_SRCU_FIRST_SLOTS &&
		 !(spare = spare_get(compat_slots_limit)))
		why = "no memory for its slots";
	if (why) {
		if (t)
			block_free(t);
		t = NULL;
	} else {
		t->reader.slot = t->first_slots;
		t->nr_slots = COMPAT_SRCU_FIRST_SLOTS;
		t->spare = spare;
		t->reader.token = __atomic_fetch_add(&next_token, 1,
						     __ATOMIC_RELAXED);
		t->reader.fence = !compat_has_membarrier || compat_race_detector();
		compat_race_by_design(t->first_slots, sizeof(t->first_slots));
		thread_set_inline(t);
		t->tid = tid;
		memcpy(t->name, name, sizeof(t->name));
		registry_link(t);
	}
	registry_unlock_raw();

	if (t && pthread_setspecific(exit_key, t)) {
		registry_lock_raw();
		registry_unlink(t);
		thread_free(t);
		registry_unlock_raw();
		t = NULL;
		why = "cannot arrange for its exit";
	}
	r = t ? &t->reader : &compat_shared_thread.reader;
	__revocable_self = r;
	signals_restore(&old);
	WARN(why, "thread %d cannot be registered (%s): it shares a block with other such threads (slower; accesses it leaves open when it exits are never released)\n",
	     tid, why);
	return r;
}

/*
 * The read lock of a domain past the calling thread's inline limit: its
 * slot lies past the end of the thread's array, or the thread needs
 * fences.  A short array is first replaced by the spare that the domain
 * allocator made for the thread (compat_slots_reserve()); the old one
 * stays, with its counts, on the thread's list.  Only the owner replaces
 * its array, with every signal blocked, so that a handler of its own
 * finds either array complete; grace periods follow the list without the
 * owner's help.  The owner itself reads its pointer and limit without a
 * lock; nobody else writes them (but for @nr_inline: thread_set_inline()).
 */
static void thread_take_spare(struct compat_thread *t, int id)
{
	struct compat_slots *a;
	sigset_t old;

	signals_block(&old);
	while ((unsigned int)id >= t->nr_slots) {
		a = __atomic_exchange_n(&t->spare, NULL, __ATOMIC_ACQ_REL);
		if (!a) {
			/* compat_slots_reserve() comes before any id. */
			fprintf(stderr, "revocable: no SRCU slot for domain id %d\n",
				id);
			abort();
		}
		if (a->nr <= t->nr_slots) {
			slots_unmap(a);
			continue;
		}
		a->older = t->arrays;
		__atomic_store_n(&t->arrays, a, __ATOMIC_RELEASE);
		__atomic_store_n(&t->reader.slot, a->slot, __ATOMIC_RELAXED);
		WRITE_ONCE(t->nr_slots, a->nr);
		thread_set_inline(t);
	}
	signals_restore(&old);
}

int __revocable_read_lock_slow(struct __revocable_reader *r,
			       const struct __revocable_srcu *s)
{
	struct compat_thread *t = compat_thread_of(r);
	int id = s->id, idx;

	if (id < 0) {
		fprintf(stderr, "revocable: read lock on an SRCU domain that is not set up\n");
		abort();
	}
	if (t != &compat_shared_thread && (unsigned int)id >= t->nr_slots)
		thread_take_spare(t, id);
	idx = __revocable_reader_count(r, s);
	__revocable_reader_barrier(r);
	return idx;
}

/* ----- membarrier() lost ------------------------------------------------- */

static long sys_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/*
 * Serialises the switch to fences; taken inside a grace period (gp_lock),
 * before the registry lock.  mb_fenced: every reader is in fence mode and
 * the switch's heavy barrier is done; from then on a grace period's
 * barriers are plain fences.
 */
static pthread_mutex_t mb_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool mb_fenced;
static int mb_signal;			/* the heavy barrier's signal; 0: none */
static unsigned long mb_seq;		/* heavy barriers so far */
static bool mb_proc_warned, mb_blind_warned;

static unsigned long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (unsigned long)((now.tv_sec - start->tv_sec) * 1000 +
			       (now.tv_nsec - start->tv_nsec) / 1000000);
}

bool compat_mb_lock_held(void)
{
	return compat_holds(&mb_mutex);
}

/*
 * The threads a heavy barrier waits for, by TID: an open-addressing table
 * in memory of its own, which the handler below searches for its thread.
 * A barrier fills it under mb_mutex; it is never freed (a late handler
 * may still look), only replaced by a longer one.
 */
struct mb_task {
	int tid;
	int wait;			/* MB_WAIT, MB_SIGNALLED, MB_DONE */
	unsigned long ack;		/* the barrier the handler answered */
	unsigned long switches;		/* context switches when signalled */
};

enum { MB_WAIT, MB_SIGNALLED, MB_DONE };

struct mb_table {
	unsigned int cap;		/* a power of two */
	struct mb_task e[];
};

static struct mb_table *mb_table;

static struct mb_task *mb_find(struct mb_table *tbl, int tid)
{
	unsigned int i, h = (unsigned int)tid * 2654435761u, cap = tbl->cap;

	for (i = 0; i < cap; i++) {
		struct mb_task *e = &tbl->e[(h + i) & (cap - 1)];
		int v = __atomic_load_n(&e->tid, __ATOMIC_ACQUIRE);

		if (v == tid)
			return e;
		if (!v)
			return NULL;
	}
	return NULL;
}

/*
 * The heavy barrier's handler: a full fence on the thread it interrupts,
 * then the acknowledgement in the thread's entry.  Async-signal-safe:
 * gettid() and loads and stores of memory that is never freed.
 */
static void mb_handler(int sig)
{
	struct mb_table *tbl = __atomic_load_n(&mb_table, __ATOMIC_ACQUIRE);
	unsigned long seq = __atomic_load_n(&mb_seq, __ATOMIC_ACQUIRE);
	int saved = errno;
	struct mb_task *e;

	(void)sig;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (tbl) {
		e = mb_find(tbl, (int)syscall(SYS_gettid));
		if (e)
			__atomic_store_n(&e->ack, seq, __ATOMIC_RELEASE);
	}
	errno = saved;
}

/*
 * The heavy barrier's signal: the highest real-time signal that nobody
 * handles (its disposition is still the default, which would kill the
 * process, so no part of the program sends it), installed with SA_RESTART
 * so that interrupted system calls resume where they can.  Chosen when
 * membarrier() is lost, not before, so that a process that keeps it
 * never has a handler of ours.  A program that later installs a handler
 * of its own for it costs the barrier only time (see mb_covered()).
 */
static int mb_pick_signal(void)
{
	struct sigaction sa, old;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mb_handler;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (sig = SIGRTMAX; sig >= SIGRTMIN; sig--) {
		if (sigaction(sig, NULL, &old) ||
		    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		if (!sigaction(sig, &sa, NULL))
			return sig;
	}
	return 0;
}

/* /proc/self/task/@tid/@name into @buf, NUL-terminated; false if unread. */
bool compat_task_file(int tid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * /proc/self/task/@tid/stat's state letter, and the thread's context
 * switches so far from its status file; false when they cannot be read
 * (no /proc in the sandbox, or the thread is gone).
 */
static bool mb_task_state(int tid, char *state, unsigned long *switches)
{
	char buf[1024];
	unsigned long v;
	const char *p;

	if (!compat_task_file(tid, "stat", buf, sizeof(buf)))
		return false;
	p = strrchr(buf, ')');		/* the name may hold anything */
	if (!p || p[1] != ' ' || !p[2])
		return false;
	*state = p[2];

	if (!compat_task_file(tid, "status", buf, sizeof(buf)))
		return false;
	*switches = 0;
	for (p = buf; (p = strstr(p, "ctxt_switches:")); p++)
		if (sscanf(p, "ctxt_switches: %lu", &v) == 1)
			*switches += v;
	return true;
}

/*
 * Whether the thread of @e has executed a full barrier since the heavy
 * barrier @seq began (with its stores made before):
 *
 * - its handler acknowledged @seq (it fenced after the signal arrived,
 *   which was after our stores);
 * - or it is not running now, by /proc (sleeping, stopped, exiting): it
 *   left user mode through the kernel, whose entry and context switch
 *   order its accesses before, and it can only return through a context
 *   switch, a full barrier, after which it sees our stores;
 * - or it has been switched out since it was signalled (the same);
 * - or it is gone.
 *
 * Only a thread that may be running is signalled, so that sleeping ones
 * (the library's service threads, which block every signal, threads in
 * sigwait()) are left alone.  A thread that does none of these within
 * 100 ms (it blocks the signal, or a program took the signal over, and it
 * runs without a break; or /proc cannot be read) is taken as covered,
 * with a warning: every CPU takes interrupts, each a serialising event on
 * our architectures, many times in that span, unless it is an isolated
 * nohz_full CPU running that very thread.  That last case is the one this
 * cannot prove; it is said.
 */
static bool mb_covered(struct mb_task *e, unsigned long seq,
		       unsigned long waited_ms)
{
	unsigned long switches = 0;
	bool proc;
	char state;

	if (e->wait == MB_DONE)
		return true;
	if (__atomic_load_n(&e->ack, __ATOMIC_ACQUIRE) == seq)
		goto done;
	proc = mb_task_state(e->tid, &state, &switches);
	if (proc && (state != 'R' ||
		     (e->wait == MB_SIGNALLED && switches != e->switches)))
		goto done;
	if (e->wait == MB_WAIT) {
		e->wait = MB_SIGNALLED;
		e->switches = switches;
		if (mb_signal &&
		    syscall(SYS_tgkill, getpid(), e->tid, mb_signal) &&
		    errno == ESRCH)
			goto done;
		return false;
	}
	if (waited_ms < 100)
		return false;
	if (!mb_blind_warned) {
		mb_blind_warned = true;
		pr_warn("revocable: thread %d neither answered the barrier that replaces membarrier() nor left its CPU; going on after 100 ms\n",
			e->tid);
	}
done:
	e->wait = MB_DONE;
	return true;
}

/* Add @tid to the table being filled (room was made for it). */
static void mb_table_add(struct mb_table *tbl, int tid)
{
	unsigned int i, h = (unsigned int)tid * 2654435761u, cap = tbl->cap;
	struct mb_task *e;

	for (i = 0; i < cap; i++) {
		e = &tbl->e[(h + i) & (cap - 1)];
		if (e->tid == tid)
			return;
		if (!e->tid) {
			e->wait = MB_WAIT;
			e->ack = 0;
			__atomic_store_n(&e->tid, tid, __ATOMIC_RELEASE);
			return;
		}
	}
}

/*
 * The threads to cover: every task of the process, from /proc/self/task
 * (membarrier() covers them all: liburcu-bp's readers too), or, when it
 * cannot be read, every registered thread.  Returns how many were put in
 * the table, which is made at least twice that long; -1 without memory.
 */
static int mb_table_fill(void)
{
	unsigned int n = 0, cap, want;
	const struct compat_thread *t;
	struct mb_table *tbl;
	struct dirent *d;
	DIR *dir;
	int tid, self = (int)syscall(SYS_gettid);

	dir = opendir("/proc/self/task");
	if (dir) {
		while ((d = readdir(dir)))
			n++;
		rewinddir(dir);
	} else {
		compat_for_each_thread(t)
			n++;
		if (!mb_proc_warned) {
			mb_proc_warned = true;
			pr_warn("revocable: no /proc/self/task: the barrier that replaces membarrier() covers the library's registered threads only\n");
		}
	}
	for (want = 64; want < 2 * n + 16; want *= 2)
		;
	if (!mb_table || want > mb_table->cap) {
		tbl = map_zeroed(sizeof(*tbl) + want * sizeof(tbl->e[0]));
		if (!tbl) {
			if (dir)
				closedir(dir);
			return -1;
		}
		tbl->cap = want;
		/* The old table stays mapped: a late handler may read it. */
		__atomic_store_n(&mb_table, tbl, __ATOMIC_RELEASE);
	}
	tbl = mb_table;
	cap = tbl->cap;
	for (n = 0; n < cap; n++)
		__atomic_store_n(&tbl->e[n].tid, 0, __ATOMIC_RELAXED);
	n = 0;
	if (dir) {
		while ((d = readdir(dir)) && n < cap / 2) {
			tid = atoi(d->d_name);
			if (tid > 0 && tid != self) {
				mb_table_add(tbl, tid);
				n++;
			}
		}
		closedir(dir);
	} else {
		compat_for_each_thread(t) {
			if (t->tid > 0 && t->tid != self && n < cap / 2) {
				mb_table_add(tbl, t->tid);
				n++;
			}
		}
	}
	return (int)n;
}

/*
 * A full barrier on every thread of the process but the caller, without
 * membarrier(), as liburcu-signal does it: a signal to each thread that
 * may be running, whose handler fences and acknowledges (mb_covered() has
 * the other ways a thread is covered).  The registry lock is held: a
 * thread that registers later is in fence mode.  The caller's own barrier
 * is its fence.  false when there was no memory for the table of threads
 * (the caller waits and tries again).
 */
static bool mb_heavy_barrier(void)
{
	struct timespec ts = { 0, 1000000 }, start;
	unsigned long seq, waited = 0;
	struct mb_table *tbl;
	unsigned int i;
	bool all;

	if (mb_table_fill() < 0)
		return false;
	tbl = mb_table;
	seq = __atomic_add_fetch(&mb_seq, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		all = true;
		for (i = 0; i < tbl->cap; i++)
			if (tbl->e[i].tid)
				all &= mb_covered(&tbl->e[i], seq, waited);
		if (all)
			break;
		nanosleep(&ts, NULL);
		waited = ms_since(&start);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return true;
}

/*
 * membarrier() failed (@err) on the way into or out of a grace period, or
 * another thread is switching: make every reader of the process fence
 * from now on, and stand in for the failed membarrier() with a heavy
 * barrier.
 *
 * Why the readers that have not seen the switch yet are covered.  A
 * reader that passed its inline test before the switch counts and reads
 * without a fence.  The switch first stores, for every registered thread,
 * @fence = 1 and @nr_inline = 0 (and registration, under the same lock,
 * gives new threads fence mode), then runs the heavy barrier: each thread
 * executes a full barrier after those stores are visible.  (RCU's readers,
 * liburcu-bp's, fence from load time on: see rcu.c.)  So for each thread
 * there is a point P, its barrier:
 *
 * - everything it did before P (counts, section reads) is complete and
 *   visible before the barrier returns: a lock counted before P is seen
 *   by every later scan (the barrier is the membarrier() (1) of
 *   runtime/srcu.c that failed), and a section that ended before P is
 *   ordered before the caller's free (the membarrier() (2) that failed);
 * - everything it does after P sees @fence = 1 and @nr_inline = 0: its
 *   locks go out of line and fence, and its unlocks fence, exactly as in
 *   a process that never had membarrier(), where plain fences on the
 *   grace-period side suffice.  A section that began before P and ends
 *   after it has its lock seen (first case) and its unlock fenced.
 *
 * thread_set_inline() keeps an owner that is lengthening its array from
 * setting @nr_inline back.  A grace period that began with membarrier()
 * and finds it gone at its end waits here for the switch, and is covered
 * by its barrier in turn.  The switch happens once; its signal handler
 * stays installed.
 */
static void compat_mb_lost(int err)
{
	struct compat_held h;
	struct compat_thread *t;

	compat_lock(&mb_mutex, &h);
	if (__atomic_load_n(&mb_fenced, __ATOMIC_ACQUIRE))
		goto out;
	compat_registry_lock();
	WRITE_ONCE(compat_has_membarrier, false);
	compat_for_each_thread(t) {
		WRITE_ONCE(t->reader.fence, 1);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		WRITE_ONCE(t->reader.nr_inline, 0);
	}
	if (!mb_signal)
		mb_signal = mb_pick_signal();
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	while (!mb_heavy_barrier()) {
		/* No memory for the table of threads: it comes back. */
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
	}
	compat_registry_unlock();
	__atomic_store_n(&mb_fenced, true, __ATOMIC_RELEASE);
	if (mb_signal)
		pr_warn("revocable: membarrier() failed (%s): readers use fences from now on (heavy barrier signal %d)\n",
			strerror(err), mb_signal);
	else
		pr_warn("revocable: membarrier() failed (%s): readers use fences from now on; no real-time signal is free for the heavy barrier, so it tells running threads apart by /proc and waits up to 100 ms for each\n",
			strerror(err));
out:
	compat_unlock(&mb_mutex, &h);
}

void compat_mb_all_threads(void)
{
	int err;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&mb_fenced, __ATOMIC_ACQUIRE)) {
		/* Not yet, or no longer, registered: another thread switches. */
		if (!READ_ONCE(compat_has_membarrier))
			compat_mb_lost(ENOSYS);
		else if (sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)) {
			err = errno;
			compat_mb_lost(err);
		}
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* ----- service threads ------------------------------------------------ */

unsigned long compat_thread_fail_countdown;

/*
 * Start one of the library's service threads (the callback workers) with
 * every signal blocked: a program's signal handler then never runs on it,
 * and never interrupts it while it holds one of the library's locks.
 * compat_thread_fail_countdown makes the Nth start from now fail as
 * pthread_create() does without resources.  Returns 0 or an errno value.
 */
int compat_service_thread(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	unsigned long left = __atomic_load_n(&compat_thread_fail_countdown,
					     __ATOMIC_RELAXED);
	sigset_t all, old;
	int err;

	if (left && __atomic_sub_fetch(&compat_thread_fail_countdown, 1,
				       __ATOMIC_RELAXED) == 0)
		return EAGAIN;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* ----- fork --------------------------------------------------------------- */

/*
 * The layers above (srcu.c, rcu.c) register their steps here; the
 * registry runs them around its own in rank order, so it need not know
 * them.  Lock order, here as everywhere: SRCU callbacks (not running),
 * liburcu's, the membarrier switch, the registry, then each domain's
 * callback lock.  None of these is held for long: a grace period in
 * progress holds only its domain's gp_lock, which is not taken here (the
 * child makes it anew).  Signals stay blocked from prepare to the parent's
 * or child's handler, so that no handler of the forking thread finds the
 * library's locks taken by it.
 */
#define FORK_OPS_MAX 4
static const struct compat_fork_ops *fork_ops[FORK_OPS_MAX];
static unsigned int fork_nr_ops;

/* The forking thread's signal mask, blocked from prepare to parent/child. */
static sigset_t fork_saved_mask;

/* Called from constructors, before the program can fork. */
void compat_fork_register(const struct compat_fork_ops *ops)
{
	unsigned int i;

	if (WARN_ON_ONCE(fork_nr_ops == FORK_OPS_MAX))
		return;
	for (i = fork_nr_ops; i && fork_ops[i - 1]->rank > ops->rank; i--)
		fork_ops[i] = fork_ops[i - 1];
	fork_ops[i] = ops;
	fork_nr_ops++;
}

/* Run step @step of every registered layer, in rank order or reversed. */
#define fork_steps(step)						\
	do {								\
		for (unsigned int __i = 0; __i < fork_nr_ops; __i++)	\
			if (fork_ops[__i]->step)			\
				fork_ops[__i]->step();			\
	} while (0)
#define fork_steps_reverse(step)					\
	do {								\
		for (unsigned int __i = fork_nr_ops; __i--; )		\
			if (fork_ops[__i]->step)			\
				fork_ops[__i]->step();			\
	} while (0)

static void compat_fork_prepare(void)
{
	sigset_t old;

	signals_block(&old);
	fork_steps(prepare);
	pthread_mutex_lock(&mb_mutex);
	registry_lock_raw();
	fork_saved_mask = old;
	fork_steps(prepare_locked);
}

static void compat_fork_parent(void)
{
	sigset_t old = fork_saved_mask;

	fork_steps_reverse(parent_locked);
	registry_unlock_raw();
	pthread_mutex_unlock(&mb_mutex);
	fork_steps_reverse(parent);
	signals_restore(&old);
}

/* The layers' part of a dropped thread: the callback heads on its stack. */
static void fork_forget(const struct compat_thread *t)
{
	const struct compat_fork_ops *ops;
	unsigned int i, j;

	for (j = 0; j < ARRAY_SIZE(t->on_stack); j++) {
		if (!t->on_stack[j])
			continue;
		for (i = 0; i < fork_nr_ops; i++) {
			ops = fork_ops[i];
			if (ops->forget)
				ops->forget(t->on_stack[j]);
		}
	}
}

/*
 * Only this thread was copied.  The others' blocks go, and with them their
 * read-side sections: nothing of theirs runs here.  Their tokens are then
 * dead, so handles they owned can be taken over (revocable_try_access()).
 * The shared block stays (sections other threads held in it cannot be
 * told apart, and stay counted).
 */
static void compat_fork_child(void)
{
	struct compat_thread *t, *next, *self = compat_thread_peek();
	sigset_t old = fork_saved_mask;

	for (t = compat_threads; t; t = next) {
		next = t->next;
		if (t == self || t == &compat_shared_thread)
			continue;
		fork_forget(t);
		registry_unlink(t);
		thread_free(t);
	}
	if (self && self != &compat_shared_thread)
		self->tid = (int)syscall(SYS_gettid);
	/* Registration normally comes along with the mm; make sure. */
	if (compat_has_membarrier &&
	    sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		compat_has_membarrier = false;
		if (self && self != &compat_shared_thread) {
			self->reader.fence = 1;
			thread_set_inline(self);
		}
	}
	/* One thread: no other reader for a barrier to reach. */
	if (!compat_has_membarrier)
		mb_fenced = true;
	/* Taken by the prepare handler, in this thread. */
	registry_unlock_raw();
	pthread_mutex_unlock(&mb_mutex);
	fork_steps(child);
	signals_restore(&old);
}

/* Runs before any constructor that could start a reader. */
static void __attribute__((__constructor__(101))) compat_thread_init(void)
{
	struct compat_thread *sh = &compat_shared_thread;
	long cmds = sys_membarrier(MEMBARRIER_CMD_QUERY);

	sigfillset(&sig_all);
	/* Only fork() is then unsafe: the library goes on without it. */
	if (pthread_atfork(compat_fork_prepare, compat_fork_parent,
			   compat_fork_child))
		fprintf(stderr, "revocable: cannot register fork handlers: a fork() child may find the library's locks taken\n");
	/* Now, while keys are left: a first access needs no new one. */
	pthread_once(&exit_key_once, compat_make_exit_key);

	sh->reader.slot = sh->first_slots;
	sh->nr_slots = COMPAT_SRCU_FIRST_SLOTS;
	sh->reader.fence = 1;
	sh->reader.nr_inline = 0;
	sh->reader.token = __atomic_fetch_add(&next_token, 1, __ATOMIC_RELAXED);
	snprintf(sh->name, sizeof(sh->name), "(shared)");
	compat_race_by_design(sh->first_slots, sizeof(sh->first_slots));
	registry_link(sh);

	if (cmds >= 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    !sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		compat_has_membarrier = true;
	mb_fenced = !compat_has_membarrier;
}
