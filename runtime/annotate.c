// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Race detectors: which one the process runs under, the memory they are
 * told to leave alone, and the edge of a slow-path unlock.  See
 * <runtime/annotate.h> and <revocable/annotate.h>.
 */
#include <runtime/annotate.h>
#include <runtime/tsan.h>

#ifdef __REVOCABLE_VALGRIND
#include <valgrind/drd.h>
#include <valgrind/helgrind.h>
#endif

/* -1 until first asked. */
static int race_detector = -1;

bool compat_race_detector(void)
{
	int on = __atomic_load_n(&race_detector, __ATOMIC_RELAXED);

	if (on >= 0)
		return on;
	on = 0;
#ifdef __REVOCABLE_VALGRIND
	/*
	 * Each answers its default outside its own tool (memcheck and the
	 * others keep the fast path): helgrind's -2 comes back as 32 bits.
	 */
	if (RUNNING_ON_VALGRIND &&
	    ((int)VALGRIND_HG_GET_ABITS(&on, NULL, 1) != -2 ||
	     DRD_GET_DRD_THREADID != 0))
		on = 1;
#endif
#ifndef COMPAT_TSAN
	/* Built with TSan, the library's own atomics inform it. */
	if (__tsan_acquire && __tsan_release)
		on = 1;
#endif
	__atomic_store_n(&race_detector, on, __ATOMIC_RELAXED);
	return on;
}

void compat_race_by_design(const void *p, size_t len)
{
#ifdef __REVOCABLE_VALGRIND
	VALGRIND_HG_DISABLE_CHECKING(__revocable_addr(p), len);
	VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__DRD_START_SUPPRESSION,
					p, len, 0, 0, 0);
#else
	(void)p;
	(void)len;
#endif
}

/* The edge of a slow-path unlock: see __revocable_slow_barrier(). */
__attribute__((__visibility__("hidden"), __used__))
void __revocable_hb_slow(const void *r)
{
	compat_hb_before(r);
}

#if defined(__x86_64__) && !defined(__REVOCABLE_SANITIZED)
/*
 * __revocable_hb_slow() for __revocable_slow_hb(), which pushed the block
 * and skipped the red zone: every general register the call may change is
 * kept (the caller says the vector ones and the flags are lost), and the
 * stack is aligned for it.
 */
__asm__("	.pushsection .text\n"
	"	.p2align 4\n"
	"	.globl	__revocable_hb_thunk\n"
	"	.hidden	__revocable_hb_thunk\n"
	"	.type	__revocable_hb_thunk, @function\n"
	"__revocable_hb_thunk:\n"
	"	.cfi_startproc\n"
	"	push	%rbp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.cfi_rel_offset %rbp, 0\n"
	"	mov	%rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	push	%rax\n"
	"	push	%rcx\n"
	"	push	%rdx\n"
	"	push	%rsi\n"
	"	push	%rdi\n"
	"	push	%r8\n"
	"	push	%r9\n"
	"	push	%r10\n"
	"	push	%r11\n"
	"	mov	16(%rbp), %rdi\n"
	"	and	$-16, %rsp\n"
	"	call	__revocable_hb_slow\n"
	"	lea	-72(%rbp), %rsp\n"
	"	pop	%r11\n"
	"	pop	%r10\n"
	"	pop	%r9\n"
	"	pop	%r8\n"
	"	pop	%rdi\n"
	"	pop	%rsi\n"
	"	pop	%rdx\n"
	"	pop	%rcx\n"
	"	pop	%rax\n"
	"	pop	%rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	.cfi_restore %rbp\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	__revocable_hb_thunk, .-__revocable_hb_thunk\n"
	"	.popsection\n");
#endif
