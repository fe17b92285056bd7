/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/kref.h>. */
#ifndef _COMPAT_LINUX_KREF_H
#define _COMPAT_LINUX_KREF_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <runtime/annotate.h>

/* An int, as the kernel's refcount_t: a provider fits in 64 bytes. */
struct kref {
	int refcount;
};

static inline void kref_init(struct kref *kref)
{
	__atomic_store_n(&kref->refcount, 1, __ATOMIC_RELAXED);
}

static inline unsigned int kref_read(const struct kref *kref)
{
	return (unsigned int)__atomic_load_n(&kref->refcount, __ATOMIC_RELAXED);
}

static inline int __must_check kref_get_unless_zero(struct kref *kref)
{
	int old = __atomic_load_n(&kref->refcount, __ATOMIC_RELAXED);

	do {
		if (old <= 0)
			return 0;
	} while (!__atomic_compare_exchange_n(&kref->refcount, &old, old + 1,
					      true, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return 1;
}

static inline void kref_get(struct kref *kref)
{
	/* Like refcount_t, getting from zero is a bug worth a warning. */
	WARN_ON_ONCE(!kref_get_unless_zero(kref));
}

/*
 * As refcount_dec_and_test(): what each holder did before its put happens
 * before the release, which race detectors are told (<runtime/annotate.h>).
 */
static inline int kref_put(struct kref *kref,
			   void (*release)(struct kref *kref))
{
	int left;

	compat_hb_before(kref);
	left = __atomic_sub_fetch(&kref->refcount, 1, __ATOMIC_SEQ_CST);
	if (left == 0) {
		compat_hb_after(kref);
		release(kref);
		return 1;
	}
	/* Underflow: saturate at zero and warn, as refcount_t would. */
	if (WARN_ON_ONCE(left < 0))
		__atomic_store_n(&kref->refcount, 0, __ATOMIC_RELAXED);
	return 0;
}

#endif
