// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The reverted upstream design, rebuilt for comparison: a whole SRCU domain per provider, and REVOCABLE_TRY_ACCESS_WITH
 * taking and dropping a provider reference around every access.  The
 * functions are out of line, as they were exported from the kernel.
 */
#include <linux/errno.h>
#include <linux/kref.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "upstream.h"

struct up_provider {
	struct srcu_struct srcu;
	void __rcu *res;
	struct kref kref;
	struct rcu_head rcu;
};

struct up_rev {
	struct up_provider *rp;
	int idx;
};

static void up_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct up_provider, rcu));
}

static void up_release(struct kref *kref)
{
	struct up_provider *rp = container_of(kref, struct up_provider, kref);

	cleanup_srcu_struct(&rp->srcu);
	call_rcu(&rp->rcu, up_free_rcu);
}

struct up_provider *up_provider_alloc(void *res)
{
	struct up_provider *rp = kzalloc(sizeof(*rp), GFP_KERNEL);

	if (!rp || init_srcu_struct(&rp->srcu)) {
		kfree(rp);
		return NULL;
	}
	RCU_INIT_POINTER(rp->res, res);
	kref_init(&rp->kref);
	return rp;
}

void up_provider_revoke(struct up_provider **rpp)
{
	struct up_provider *rp = *rpp;

	*rpp = NULL;
	rcu_assign_pointer(rp->res, NULL);
	synchronize_srcu(&rp->srcu);
	kref_put(&rp->kref, up_release);
}

static noinline int up_init(struct up_provider *rp, struct up_rev *rev)
{
	rcu_read_lock();
	if (!kref_get_unless_zero(&rp->kref)) {
		rcu_read_unlock();
		return -ENODEV;
	}
	rcu_read_unlock();
	rev->rp = rp;
	return 0;
}

static noinline void up_deinit(struct up_rev *rev)
{
	kref_put(&rev->rp->kref, up_release);
}

static noinline void *up_try_access(struct up_rev *rev)
{
	rev->idx = srcu_read_lock(&rev->rp->srcu);
	return srcu_dereference(rev->rp->res, &rev->rp->srcu);
}

static noinline void up_withdraw(struct up_rev *rev)
{
	srcu_read_unlock(&rev->rp->srcu, rev->idx);
}

u64 up_with_macro_loop(struct up_provider *rp, unsigned long n)
{
	u64 sum = 0;

	while (n--) {
		struct up_rev rev = { .rp = NULL, .idx = -1 };
		int *res = up_init(rp, &rev) ? NULL : up_try_access(&rev);

		sum += res ? *res : 0;
		if (rev.idx != -1)
			up_withdraw(&rev);
		if (rev.rp)
			up_deinit(&rev);
	}
	return sum;
}

unsigned long up_provider_bytes(void)
{
	/* A malloc chunk: the request rounded up to 16, plus its header. */
	return ((sizeof(struct up_provider) + 8 + 15) & ~15UL);
}
