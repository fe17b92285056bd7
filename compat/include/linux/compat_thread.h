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
#ifndef _COMPAT_LINUX_COMPAT_THREAD_H
#define _COMPAT_LINUX_COMPAT_THREAD_H

#include <linux/compiler.h>
#include <linux/container_of.h>
#include <revocable/reader.h>

/*
 * Domain ids the library hands out for now (init_srcu_struct()).  Not part
 * of any ABI: a thread's slot array starts shorter and grows on demand
 * (<revocable/reader.h>), so lifting this limit is the id allocator's
 * business alone.
 */
#define COMPAT_SRCU_MAX_DOMAINS 64
/* Slots a thread's block starts with, kept in the block itself. */
#define COMPAT_SRCU_FIRST_SLOTS 8

struct compat_thread {
	/* What the inline read side sees; first, so the two convert. */
	struct __revocable_reader reader;
	/* The first slots, next to the reader's header (one cache line). */
	struct __revocable_slot first_slots[COMPAT_SRCU_FIRST_SLOTS];
	/* Length of reader.slot; changed by the owner, under the registry lock. */
	unsigned int nr_slots;
	/* Nonzero while the thread runs a callback of the library. */
	unsigned int in_callback;
	/*
	 * Callback heads on this thread's stack (init_rcu_head_on_stack()):
	 * if a fork() child does not get the thread, it does not get that
	 * stack either, and the callbacks are dropped with the block.
	 */
	void *on_stack[4];
	struct compat_thread *next;
	struct compat_thread *prev;
	int tid;
	char name[16];
};

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
 * @t's counts in domain slot @id, or NULL when its array does not reach
 * that far (it never entered the domain).  For another thread's block,
 * only under the registry lock: the owner may replace its array at any
 * time otherwise.
 */
static __always_inline const struct __revocable_slot *
compat_thread_slot(const struct compat_thread *t, int id)
{
	if ((unsigned int)id >= t->nr_slots)
		return NULL;
	return &t->reader.slot[id];
}

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
