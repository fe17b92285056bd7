/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The userspace SRCU reader of librevocable.  Private: programs include
 * <revocable.h>, which includes this file; the kernel has SRCU of its own
 * and never sees it.
 *
 * This is the one definition of how a thread enters and leaves a read-side
 * section.  The library's <linux/srcu.h> (compat/) builds srcu_read_lock()
 * and srcu_read_unlock() from it, and <revocable.h> builds its inline
 * accessors from it when the program defines _LGPL_SOURCE (liburcu's
 * convention), so a program built that way runs the library's own read
 * side, inline.
 *
 * The per-thread block.  Each thread that reads gets a block of its own,
 * allocated by the library on the thread's first read and reached through
 * one initial-exec thread-local pointer; the library frees it when the
 * thread exits.  The block points to an array of slots, one per domain id,
 * each holding the thread's lock and unlock counts under both read indices.
 * Only the owner thread adds to its counts, each time in one instruction
 * and without a LOCK prefix (see __revocable_count_own()); a grace period
 * only loads them, from every thread, under the library's registry lock
 * (runtime/srcu.c).
 *
 * How many slots a thread has is not known to inline code.  The block
 * says up to which domain id the inline lock may count (@nr_inline); a
 * read lock on a domain past it calls the library
 * (__revocable_read_lock_slow()), which moves the thread to a longer array
 * that the library made for it when the domain was created (a read lock
 * never allocates), and counts the lock there.  Only the owner moves to
 * another array, and the old one stays with the counts made in it until
 * the thread exits: a grace period sums a thread's counts over all its
 * arrays, so a count made through a pointer loaded just before the move
 * (by code a signal handler interrupted) is still seen.  Arrays never
 * shrink while their thread lives, so an unlock, which follows its lock
 * in the same thread, needs no bound test.  The number of domains is
 * therefore a limit of the library's id allocator only (it has none).
 *
 * A process without membarrier() needs a real fence in every lock and
 * unlock.  Its threads get a limit of 0, so that all their locks go out of
 * line, where the fence is; the inline lock then tests one bound, not two
 * conditions, and only the unlock tests @fence.  A process that loses
 * membarrier() while it runs (a seccomp filter installed after start-up)
 * is switched to fences by the library, which stores @fence and
 * @nr_inline of every thread's block: inline code loads them atomically.
 * In fence mode counts are atomic additions: threads the library could
 * not register share one block (runtime/thread.c).
 *
 * Signals.  The read side is async-signal-safe: a signal handler may
 * enter and leave accesses (revocable_access(), revocable_try_access(),
 * revocable_withdraw_access(), the scope macros; srcu_read_lock() and
 * srcu_read_unlock() in the library) of any domain, also one whose access
 * it interrupted on the same thread.  Each count is added to in one
 * instruction the handler cannot interrupt (__revocable_count_own()); a
 * thread's first access registers it with every signal blocked and
 * without malloc(); moving to a longer slot array allocates nothing.  The
 * misuse paths that warn (a handle shared, nested or withdrawn twice)
 * print, which is not async-signal-safe.  Revokes, barriers and domain
 * calls are not async-signal-safe: from a handler that interrupted the
 * library where it holds a lock they would wait for, they return -EDEADLK
 * with a warning (compat_srcu_would_deadlock()); elsewhere they may run
 * but allocate and take locks a handler may have interrupted.
 *
 * Inline ABI (symbol version LIBREVOCABLE_INLINE_2 of librevocable.so.1):
 * struct __revocable_reader, struct __revocable_slot, the first members of
 * a domain's SRCU state (struct __revocable_srcu), and the three symbols
 * declared here.  Any change to them renames the version node, so that a
 * program built against the old layout fails to load instead of counting
 * in the wrong place.
 */
#ifndef __REVOCABLE_READER_H
#define __REVOCABLE_READER_H

#include "annotate.h"	/* race detectors: see there */

#ifdef __cplusplus
extern "C" {
#endif

/* One thread's counts in one domain. */
struct __revocable_slot {
	unsigned long lock[2];		/* per read index */
	unsigned long unlock[2];
};

/* The start of a thread's block; the library keeps more after it. */
struct __revocable_reader {
	struct __revocable_slot *slot;	/* indexed by domain id */
	unsigned int nr_inline;		/* ids the inline lock may count */
	unsigned int fence;		/* readers need a fence: no membarrier() */
	unsigned long token;		/* the thread's "current" */
};

/* The start of a domain's SRCU state (struct srcu_struct). */
struct __revocable_srcu {
	unsigned long idx;		/* bit 0: the index new readers use */
	int id;				/* the domain's slot; < 0 when torn down */
};

/* The calling thread's block, NULL until its first read. */
extern __thread struct __revocable_reader *__revocable_self
	__attribute__((__tls_model__("initial-exec")));

/* Allocate and register the calling thread's block. */
struct __revocable_reader *__revocable_register(void)
	__attribute__((__cold__));

/* __revocable_reader_lock() for an @s past @r's inline limit. */
int __revocable_read_lock_slow(struct __revocable_reader *r,
			       const struct __revocable_srcu *s)
	__attribute__((__cold__));

#if defined(__SANITIZE_THREAD__)
#define __REVOCABLE_TSAN		1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define __REVOCABLE_TSAN		1
#endif
#endif

#define __revocable_reader_inline	static inline __attribute__((__always_inline__))

__revocable_reader_inline struct __revocable_reader *__revocable_me(void)
{
	struct __revocable_reader *r = __revocable_self;

	if (__builtin_expect(!r, 0))
		r = __revocable_register();
	return r;
}

/*
 * Add one to a count of the calling thread's own in one instruction, so
 * that a signal handler of the thread, which may enter and leave sections
 * of the same domain, runs wholly before or wholly after it and no update
 * is lost: x86's add to memory, without a LOCK prefix (only this thread
 * writes the count: I6 holds); elsewhere an atomic addition, which is one
 * instruction where the ISA has one (arm64's LSE stadd) and otherwise a
 * load-linked/store-conditional loop that a signal restarts.  @release:
 * an unlock's count.  On a weakly ordered machine it is a release, so
 * that a grace period that sees an unlock (it loads unlocks first, with
 * acquire) sees the lock before it as well; x86 makes stores visible in
 * order.  TSan builds use an atomic addition it understands; the grace
 * period acquires what the unlock's releases.
 */
__revocable_reader_inline void
__revocable_count_own(unsigned long *c, int release)
{
#if defined(__REVOCABLE_TSAN)
	(void)release;
	__atomic_fetch_add(c, 1, __ATOMIC_RELEASE);
#elif defined(__x86_64__)
	/* Both assembler dialects (-masm=intel); the callers fence anyway. */
	(void)release;
	__asm__ __volatile__("{incq (%0)|inc qword ptr [%0]}"
			     : : "r" (c) : "memory", "cc");
#elif defined(__i386__)
	(void)release;
	__asm__ __volatile__("{incl (%0)|inc dword ptr [%0]}"
			     : : "r" (c) : "memory", "cc");
#else
	if (release)
		__atomic_fetch_add(c, 1, __ATOMIC_RELEASE);
	else
		__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
#endif
}

/*
 * Add one to a count that other threads may add to as well: the counts of
 * the block that the threads the library could not register share.  All
 * blocks in fence mode count this way, so the inline unlock needs no
 * third case.
 */
__revocable_reader_inline void __revocable_count_shared(unsigned long *c)
{
#if defined(__REVOCABLE_TSAN)
	__atomic_fetch_add(c, 1, __ATOMIC_RELEASE);
#else
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
#endif
}

/*
 * A grace period's membarrier() runs the readers' full barriers for them,
 * so a compiler barrier is all a reader needs; without membarrier() the
 * library sets @fence and readers issue a real one.  @fence can be set by
 * another thread at any time (membarrier() lost: see runtime/thread.c),
 * hence the atomic load; it costs a plain one.
 */
__revocable_reader_inline int
__revocable_reader_fenced(const struct __revocable_reader *r)
{
	return __builtin_expect(__atomic_load_n(&r->fence, __ATOMIC_RELAXED),
				0);
}

__revocable_reader_inline void
__revocable_reader_barrier(const struct __revocable_reader *r)
{
	if (!__revocable_reader_fenced(r))
		__asm__ __volatile__("" : : : "memory");
	else
		__revocable_slow_barrier(r);	/* see annotate.h */
}

/*
 * Count a lock of @s in @r's slot, which must exist: one load of the read
 * index, one addition to the thread's own counter (shared in fence mode).
 * The caller then orders the section after it.
 */
__revocable_reader_inline int
__revocable_reader_count(struct __revocable_reader *r,
			 const struct __revocable_srcu *s)
{
	struct __revocable_slot *slot =
		__atomic_load_n(&r->slot, __ATOMIC_RELAXED);
	unsigned long *c = slot[s->id].lock;
	int idx = (int)(__atomic_load_n(&s->idx, __ATOMIC_RELAXED) & 1);

	if (!__revocable_reader_fenced(r))
		__revocable_count_own(&c[idx], 0);
	else
		__revocable_count_shared(&c[idx]);
	return idx;
}

/*
 * Enter a read-side section of @s for the calling thread @r.  Returns the
 * index to give to __revocable_reader_unlock().
 */
__revocable_reader_inline int
__revocable_reader_lock(struct __revocable_reader *r,
			const struct __revocable_srcu *s)
{
	int idx;

	/* A torn-down domain's negative id goes out of line too. */
	if (__builtin_expect((unsigned int)s->id >=
			     __atomic_load_n(&r->nr_inline, __ATOMIC_RELAXED), 0))
		return __revocable_read_lock_slow(r, s);
	/* Within the limit there is no fence to count for. */
	idx = (int)(__atomic_load_n(&s->idx, __ATOMIC_RELAXED) & 1);
	__revocable_count_own(&r->slot[s->id].lock[idx], 0);
	/* Within the limit, membarrier() does the rest (see above). */
	__asm__ __volatile__("" : : : "memory");
	return idx;
}

/* Leave a section entered by this thread under read index @idx. */
__revocable_reader_inline void
__revocable_reader_unlock(struct __revocable_reader *r,
			  const struct __revocable_srcu *s, int idx)
{
	struct __revocable_slot *slot =
		__atomic_load_n(&r->slot, __ATOMIC_RELAXED);
	unsigned long *c = &slot[s->id].unlock[idx & 1];

	if (!__revocable_reader_fenced(r)) {
		__asm__ __volatile__("" : : : "memory");
		__revocable_count_own(c, 1);
	} else {
		__revocable_slow_barrier(r);	/* see annotate.h */
		__revocable_count_shared(c);
	}
}

/*
 * What the inline accessors of <revocable.h> are written against, for
 * programs that define _LGPL_SOURCE.  A context is the thread's block; a
 * handle records its token as owner.
 */
#ifdef _LGPL_SOURCE
#define __REVOCABLE_INLINE		1
#define __revocable_unlikely(x)		__builtin_expect(!!(x), 0)
#define __revocable_bad(p)						\
	((unsigned long)(p) - 1 >= (unsigned long)-4096)
#define __revocable_load(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define __revocable_store(x, v)		__atomic_store_n(&(x), v, __ATOMIC_RELAXED)
#define __revocable_ctx()		((void *)__revocable_me())
#define __revocable_ctx_owner(c)					\
	((void *)((const struct __revocable_reader *)(c))->token)
#define __revocable_read_lock(c, ssp)					\
	__revocable_reader_lock((struct __revocable_reader *)(c),	\
				(const struct __revocable_srcu *)(ssp))
#define __revocable_read_unlock(c, ssp, idx)				\
	__revocable_reader_unlock((struct __revocable_reader *)(c),	\
				  (const struct __revocable_srcu *)(ssp), idx)
#define __revocable_res(h, ssp)						\
	((void)(ssp), __atomic_load_n(&(h)->res, __ATOMIC_CONSUME))
/* As in the kernel: the unlock's read of rev->idx, then the release. */
#define __revocable_release_owner(rev)					\
	__atomic_store_n(&(rev)->owner, (void *)0, __ATOMIC_RELEASE)
#define __revocable_inline		inline
#endif

#ifdef __cplusplus
}
#endif

#endif /* __REVOCABLE_READER_H */
