/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-thread state of the compat layer (no kernel counterpart).
 *
 * Each thread that uses the library gets one block, allocated on the heap
 * and registered on its first read-side section; a thread-specific-data
 * destructor unregisters and frees it when the thread exits, so users never
 * call a registration function.  The only thread-local variable is the
 * pointer to the block.  The block holds the thread's SRCU counters: for
 * every domain slot, lock and unlock counts for both read indices.  Only
 * the owning thread stores to them; grace-period code only loads them.
 *
 * Read-side sections belong to the thread that began them (as lockdep
 * requires in the kernel).  A thread that exits with sections still open is
 * reported and its sections are released; a fork() child keeps only the
 * forking thread (see thread.c).
 */
#ifndef _COMPAT_LINUX_COMPAT_THREAD_H
#define _COMPAT_LINUX_COMPAT_THREAD_H

#include <linux/compiler.h>

/* Domain slots per thread; slot ids are handed out by init_srcu_struct(). */
#define COMPAT_SRCU_MAX_DOMAINS 64

struct compat_srcu_counts {
	unsigned long lock[2];
	unsigned long unlock[2];
};

struct compat_thread {
	struct compat_srcu_counts srcu[COMPAT_SRCU_MAX_DOMAINS];
	/* "current": never reused, so a dead thread's token stays dead. */
	unsigned long token;
	/* Readers need a real fence: this process has no membarrier(). */
	unsigned int fence;
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

/*
 * Exported under the names of the inline ABI of <revocable.h> (symbol
 * version LIBREVOCABLE_INLINE_1): programs built with _LGPL_SOURCE run
 * their read side against these.  thread.c asserts the layouts match.
 */
extern __thread struct compat_thread *compat_self __asm__("__revocable_self")
	__attribute__((__tls_model__("initial-exec")));

struct compat_thread *compat_thread_register(void)
	__asm__("__revocable_register") __cold;

static __always_inline struct compat_thread *compat_thread_self(void)
{
	struct compat_thread *t = compat_self;

	if (unlikely(!t))
		t = compat_thread_register();
	return t;
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

static __always_inline void compat_reader_barrier(const struct compat_thread *t)
{
	if (likely(!t->fence))
		barrier();
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

#endif
