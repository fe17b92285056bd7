/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Userspace stand-in for <linux/kref.h>, on liburcu's urcu_ref. */
#ifndef _COMPAT_LINUX_KREF_H
#define _COMPAT_LINUX_KREF_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <urcu/ref.h>

struct kref {
	struct urcu_ref ref;
};

static inline void kref_init(struct kref *kref)
{
	urcu_ref_init(&kref->ref);
}

static inline unsigned int kref_read(const struct kref *kref)
{
	return (unsigned int)uatomic_read(&kref->ref.refcount);
}

static inline void kref_get(struct kref *kref)
{
	/* Like refcount_t, getting from zero is a bug worth a warning. */
	WARN_ON_ONCE(!urcu_ref_get_unless_zero(&kref->ref));
}

static inline int __must_check kref_get_unless_zero(struct kref *kref)
{
	return urcu_ref_get_unless_zero(&kref->ref);
}

static inline int kref_put(struct kref *kref,
			   void (*release)(struct kref *kref))
{
	long left = uatomic_sub_return(&kref->ref.refcount, 1);

	if (left == 0) {
		release(kref);
		return 1;
	}
	/* Underflow: saturate at zero and warn, as refcount_t would. */
	if (WARN_ON_ONCE(left < 0))
		uatomic_set(&kref->ref.refcount, 0);
	return 0;
}

#endif
