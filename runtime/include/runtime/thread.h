/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-thread state of the compat layer (no kernel counterpart).
 *
 * Each thread that uses the library gets one block, allocated on the heap
 * and registered on its first read-side section; a thread-specific-data
 * destructor unregisters and frees it when the thread exits, so users never
 * call a registration function.  The only thread-local variable is the
 * pointer to the block, __revocable_self.  The block starts with the
 * reader of <revocable/reader.h>, which holds the thread's SRCU counters
 * (lock and unlock counts per domain slot and read index) and defines the
 * read side; the rest is the compat layer's own.  Only the owning thread
 * stores to the counters; grace-period code only loads them.
 *
 * Read-side sections belong to the thread that began them (as lockdep
 * requires in the kernel).  A thread that exits with sections still open is
 * reported and its sections are released; a fork() child keeps only the
 * forking thread (see thread.c).
 */
#ifndef _RUNTIME_THREAD_H
#define _RUNTIME_THREAD_H

#include <signal.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <revocable/reader.h>

/* Slots a thread's block starts with, kept in the block itself. */
#define COMPAT_SRCU_FIRST_SLOTS 8

/*
 * A slot array of a thread past its first slots (thread.c): mapped with
 * mmap(), which a signal handler may call, zero-filled, and kept until
 * the thread exits.  An array that is replaced by a longer one stays on
 * the thread's list of arrays with the counts made in it: the thread's
 * count of a domain is the sum over its arrays (compat_thread_count()).
 */
struct compat_slots {
	struct compat_slots *older;	/* the array this one replaced */
	unsigned int nr;		/* slots in slot[] */
	size_t map_len;			/* bytes mapped, this header included */
	struct __revocable_slot slot[];
};

/*
 * Library locks a thread may hold while one of its signal handlers runs
 * and calls the library: see compat_lock().
 */
#define COMPAT_HELD_MAX 4

struct compat_thread {
	/* What the inline read side sees; first, so the two convert. */
	struct __revocable_reader reader;
	/* The first slots, next to the reader's header (one cache line). */
	struct __revocable_slot first_slots[COMPAT_SRCU_FIRST_SLOTS];
	/* Length of reader.slot; changed by the owner only. */
	unsigned int nr_slots;
	/* Nonzero while the thread runs a callback of the library. */
	unsigned int in_callback;
	/* Arrays past first_slots, newest first (the current one heads it). */
	struct compat_slots *arrays;
	/*
	 * A longer array made for the thread by the domain allocator, for
	 * the owner to take when it enters a domain past its slots: a
	 * thread never allocates in a read lock.
	 */
	struct compat_slots *spare;
	/*
	 * The library's locks this thread holds, and how many: a signal
	 * handler of the thread that calls a waiting function finds here
	 * that it would wait for itself (compat_lock()).
	 */
	const void *held[COMPAT_HELD_MAX];
	unsigned int nr_held;
	/*
	 * Callback heads on this thread's stack (init_rcu_head_on_stack()):
	 * if a fork() child does not get the thread, it does not get that
	 * stack either, and the callbacks are dropped with the block.
	 */
	void *on_stack[4];
	struct compat_thread *next;
	struct compat_thread *prev;
	/* Free blocks of the arena are chained through this (thread.c). */
	struct compat_thread *free_next;
	/* The signal mask to restore when its exit is done (thread.c). */
	sigset_t exit_mask;
	int tid;
	char name[16];
};

/*
 * The block that threads the library cannot register share (no memory,
 * no thread-specific key): always in fence mode, counted with atomic
 * additions, never freed; its arrays cover every domain id.
 */
extern struct compat_thread compat_shared_thread;

static __always_inline struct compat_thread *
compat_thread_of(struct __revocable_reader *r)
{
	return container_of(r, struct compat_thread, reader);
}

/* The calling thread's block, registered on first use. */
static __always_inline struct compat_thread *compat_thread_self(void)
{
	return compat_thread_of(__revocable_me());
}

/* The calling thread's block, or NULL if it has none yet. */
static __always_inline struct compat_thread *compat_thread_peek(void)
{
	struct __revocable_reader *r = __revocable_self;

	return r ? compat_thread_of(r) : NULL;
}

/*
 * @t's lock and unlock counts in domain slot @id, summed over its arrays
 * (unlocks first, then locks, so that an unlock seen has its lock seen
 * too); false when no array reaches @id (the thread never entered the
 * domain).  For another thread's block, only under the registry lock,
 * which keeps the block from being freed.
 */
bool compat_thread_count(const struct compat_thread *t, int id,
			 unsigned long lock[2], unsigned long unlock[2]);

/* Record or forget a callback head on the calling thread's stack. */
void compat_rcu_head_on_stack(void *head, bool on);

/* Whether no live thread of this process has @token as its "current". */
bool compat_token_exited(unsigned long token);

/*
 * With membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) the grace-period side
 * issues the full barriers for the readers, and the read side needs only a
 * compiler barrier.  Without it, readers fall back to a real fence.
 */
extern bool compat_has_membarrier;

#endif
