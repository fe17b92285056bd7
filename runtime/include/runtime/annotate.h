/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Race detectors, the compat layer's side of <revocable/annotate.h> (no
 * kernel counterpart: KCSAN knows the kernel's primitives itself).  See
 * docs/design.md, "Race detectors".
 */
#ifndef _RUNTIME_ANNOTATE_H
#define _RUNTIME_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <revocable/annotate.h>

/*
 * ThreadSanitizer's annotations, declared weak: the library, built without
 * TSan, calls them only when an instrumented program brought the runtime.
 */
void __tsan_acquire(void *addr) __attribute__((__weak__));
void __tsan_release(void *addr) __attribute__((__weak__));

/* Where a happens-before edge begins and where it ends, on @addr. */
#define compat_hb_before(addr)	__compat_hb(BEFORE, __tsan_release, addr)
#define compat_hb_after(addr)	__compat_hb(AFTER, __tsan_acquire, addr)

/* Tells valgrind's and ThreadSanitizer's race detectors, when present. */
#define __compat_hb(vg_kind, tsan_fn, addr)				\
	do {								\
		__revocable_vg_hb(__REVOCABLE_VG_HB_##vg_kind, (addr));	\
		if (tsan_fn)						\
			tsan_fn(__revocable_addr(addr));		\
	} while (0)

/*
 * A grace period saw the sections of reader @t under an index end, the
 * last of them by the unlock count at @ctr: the edge from a slow-path
 * unlock (on the block, __revocable_slow_barrier()) and, for an inline
 * reader built with TSan, from its release of the count.
 */
#define compat_hb_after_reader(t, ctr)					\
	do {								\
		compat_hb_after(t);					\
		if (__tsan_acquire)					\
			__tsan_acquire(__revocable_addr(ctr));		\
	} while (0)

/*
 * RCU_INIT_POINTER() of the pointer at @pp: readers load it at any time
 * (helgrind and DRD, which take atomics for plain accesses, leave it
 * alone), and a reader that sees the value stored, the resource or NULL,
 * is ordered after what the storing thread did before (TSan: the acquire
 * of an inline reader's load pairs with this release).
 */
#define compat_rcu_pointer_store(pp)					\
	do {								\
		compat_race_by_design((pp), sizeof(*(pp)));		\
		compat_hb_before(pp);					\
	} while (0)

/*
 * At file scope, after the definition of @var, a library variable that
 * threads read and write without a lock by design (flags and futex words
 * of lock-free code): compat_race_by_design() of it, from the start.
 */
#define COMPAT_RACE_BY_DESIGN(var)					\
	static void __attribute__((__constructor__))			\
	compat_race_by_design_##var(void)				\
	{								\
		compat_race_by_design(&(var), sizeof(var));		\
	}

/*
 * Whether the process runs under helgrind or DRD, or has a TSan runtime
 * that this library is not built with.  Its threads then read through the
 * slow path, where the annotations are (<revocable/reader.h>).
 */
bool compat_race_detector(void);

/*
 * Tell helgrind and DRD that [@p, @p + @len), library memory written and
 * read without a lock by design (reader counts, read indices, resource
 * pointers), is not theirs to check, until it is freed.  TSan does not
 * check the library's own accesses unless it is built with it, and then
 * its atomics say the same.
 */
void compat_race_by_design(const void *p, size_t len);

#endif
