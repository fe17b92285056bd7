/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Happens-before annotations for race detectors.  Private: included by
 * <revocable/reader.h>; see docs/design.md, "Race detectors".
 *
 * helgrind, DRD and ThreadSanitizer see mutexes and threads, but not what
 * the read side orders through per-thread counters, membarrier() and
 * fences.  The library tells them at each of its happens-before edges
 * (runtime/include/runtime/annotate.h): where an edge begins (a
 * reader's unlock) and where it ends (the grace period that saw that
 * unlock).  For valgrind's tools an edge is helgrind's and DRD's
 * ANNOTATE_HAPPENS_BEFORE/AFTER client request (the two tools share its
 * number), a few no-op instructions outside valgrind; for TSan it is a
 * call of __tsan_release() or __tsan_acquire(), made by the library only
 * when the process has them.
 *
 * None of it is on the fast path: under helgrind, DRD or TSan the library
 * switches every thread's read side to the slow path that also serves
 * processes without membarrier(), whose unlock issues a fence, and there
 * __revocable_slow_barrier() begins the edge.  In a program's inline code
 * (_LGPL_SOURCE) that is the client request alone, compiled in where
 * <valgrind/valgrind.h> is installed (Debian: the valgrind package) and
 * NVALGRIND is not defined; built with TSan, that code needs no call (its
 * count is a release).  The number is spelled out, so that no program
 * gets the ANNOTATE_ macros of <valgrind/helgrind.h> from <revocable.h>.
 */
#ifndef __REVOCABLE_ANNOTATE_H
#define __REVOCABLE_ANNOTATE_H

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(NVALGRIND) && defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define __REVOCABLE_VALGRIND		1
#endif
#endif

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define __REVOCABLE_SANITIZED		1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define __REVOCABLE_SANITIZED		1
#endif
#endif

/* Any object pointer, const or not, as the address of an edge. */
#define __revocable_addr(p)	((void *)(__UINTPTR_TYPE__)(const void *)(p))

#ifdef __REVOCABLE_VALGRIND
/* _VG_USERREQ__HG_USERSO_SEND_PRE and _RECV_POST: stable numbers. */
#define __REVOCABLE_VG_HB_BEFORE	(VG_USERREQ_TOOL_BASE('H', 'G') + 256 + 33)
#define __REVOCABLE_VG_HB_AFTER		(VG_USERREQ_TOOL_BASE('H', 'G') + 256 + 34)
#define __revocable_vg_hb(req, addr)					\
	VALGRIND_DO_CLIENT_REQUEST_STMT(req, __revocable_addr(addr),	\
					0, 0, 0, 0)
#else
#define __revocable_vg_hb(req, addr)	do { (void)(addr); } while (0)
#endif

/*
 * A full fence.  GCC warns at __atomic_thread_fence() under TSan (-Wtsan:
 * fences are not modelled, and -Werror makes that fatal); the legacy
 * builtin is the same barrier without the warning.  What it orders is
 * stated to TSan by the annotations.
 */
#if defined(__SANITIZE_THREAD__)
#define __revocable_fence()		__sync_synchronize()
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define __revocable_fence()		__sync_synchronize()
#endif
#endif
#ifndef __revocable_fence
#define __revocable_fence()		__atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

#ifdef __REVOCABLE_LIBRARY
/*
 * The library's own read side (and its tests'): the edge for valgrind and
 * TSan alike, made by runtime/annotate.c.  On x86-64 it is called through a
 * thunk that keeps every general register, as the kernel calls
 * preempt_schedule_thunk, so that the functions the unlock is inlined in
 * (revocable_withdraw_access()) keep the registers of their fast path.
 */
void __revocable_hb_slow(const void *r);
#if defined(__x86_64__) && !defined(__REVOCABLE_SANITIZED)
#define __revocable_slow_hb(r)						\
	__asm__ __volatile__("lea -128(%%rsp), %%rsp\n\t"		\
			     "push %0\n\t"				\
			     "call __revocable_hb_thunk\n\t"		\
			     "lea 136(%%rsp), %%rsp"			\
			     : : "r" (__revocable_addr(r))		\
			     : "memory", "cc", "xmm0", "xmm1", "xmm2",	\
			       "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",	\
			       "xmm8", "xmm9", "xmm10", "xmm11",	\
			       "xmm12", "xmm13", "xmm14", "xmm15")
#else
#define __revocable_slow_hb(r)		__revocable_hb_slow(r)
#endif
#else
#define __revocable_slow_hb(r)						\
	__revocable_vg_hb(__REVOCABLE_VG_HB_BEFORE, (r))
#endif

/*
 * The barrier of the slow read side (<revocable/reader.h>): the fence, and
 * the start of the edge from the sections of the reader whose block is @r
 * to the grace period that sees them end.
 */
#define __revocable_slow_barrier(r)					\
	do {								\
		__revocable_fence();					\
		__revocable_slow_hb(r);					\
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* __REVOCABLE_ANNOTATE_H */
