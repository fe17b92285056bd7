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
 * Only the owner thread stores to its counts, with plain stores; a grace
 * period only loads them, from every thread, under the library's registry
 * lock (compat/srcu.c).
 *
 * How many slots a thread has is not known to inline code.  The block
 * says up to which domain id the inline lock may count (@nr_inline); a
 * read lock on a domain past it calls the library
 * (__revocable_read_lock_slow()), which lengthens the array if it is too
 * short and counts the lock there.  Only the owner ever replaces its
 * array: it allocates the new one and, under the registry lock, copies its
 * counts over and publishes the new pointer and limit, then frees the old
 * array.  Grace periods, which read other threads' arrays only under that
 * lock, see one array or the other with the same counts; the owner's own
 * lock-free reads of the pointer and limit race with no writer.  Arrays
 * never shrink while their thread lives, so an unlock, which follows its
 * lock in the same thread, needs no bound test.  The number of domains is
 * therefore a limit of the library's id allocator only, free to change
 * without touching the layouts below.
 *
 * A process without membarrier() needs a real fence in every lock and
 * unlock.  Its threads get a limit of 0, so that all their locks go out of
 * line, where the fence is; the inline lock then tests one bound, not two
 * conditions, and only the unlock tests @fence.
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
 * A grace period's membarrier() runs the readers' full barriers for them,
 * so a compiler barrier is all a reader needs; without membarrier() the
 * library sets @fence and readers issue a real one.
 */
__revocable_reader_inline void
__revocable_reader_barrier(const struct __revocable_reader *r)
{
	if (__builtin_expect(!r->fence, 1))
		__asm__ __volatile__("" : : : "memory");
	else
		__revocable_slow_barrier(r);	/* see annotate.h */
}

/*
 * Count a lock of @s in @r's slot, which must exist: one load of the read
 * index, one store to the thread's own counter.  The caller then orders
 * the section after it.
 */
__revocable_reader_inline int
__revocable_reader_count(struct __revocable_reader *r,
			 const struct __revocable_srcu *s)
{
	unsigned long *c = r->slot[s->id].lock;
	int idx = (int)(__atomic_load_n(&s->idx, __ATOMIC_RELAXED) & 1);

	__atomic_store_n(&c[idx], c[idx] + 1, __ATOMIC_RELAXED);
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
	if (__builtin_expect((unsigned int)s->id >= r->nr_inline, 0))
		return __revocable_read_lock_slow(r, s);
	idx = __revocable_reader_count(r, s);
	/* Within the limit, membarrier() does the rest (see above). */
	__asm__ __volatile__("" : : : "memory");
	return idx;
}

/* Leave a section entered by this thread under read index @idx. */
__revocable_reader_inline void
__revocable_reader_unlock(struct __revocable_reader *r,
			  const struct __revocable_srcu *s, int idx)
{
	unsigned long *c = &r->slot[s->id].unlock[idx & 1];

	__revocable_reader_barrier(r);
#ifdef __REVOCABLE_TSAN
	/* TSan knows no membarrier(): the grace period acquires this. */
	__atomic_store_n(c, *c + 1, __ATOMIC_RELEASE);
#else
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
#endif
}

/*
 * What the inline accessors of <revocable.h> are written against (the
 * kernel's versions are there), for programs that define _LGPL_SOURCE.
 * A context is the thread's block; a handle records its token as owner.
 */
#if defined(_LGPL_SOURCE) && !defined(__REVOCABLE_CORE)
#define __REVOCABLE_INLINE		1
#define __REVOCABLE_DEBUG		0
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
