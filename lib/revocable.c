// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Revocable resources.
 *
 * A provider publishes a resource through a small refcounted shell.
 * Consumers enter short accesses that are SRCU read-side sections of the
 * provider's domain; revoke clears the resource pointer, waits for the
 * domain's readers, and drops the owner's reference.
 *
 * Design rules, each answering a defect of the reverted upstream series:
 *
 * - Domains, not one srcu_struct per provider.  A provider costs one small
 *   allocation; the per-CPU (userspace: per-thread) SRCU state is shared by
 *   every provider of a domain.
 * - The SRCU read index lives in the access handle, which is owned by one
 *   context at a time.  A handle that is already inside an access refuses a
 *   second one instead of overwriting the index.
 * - The owner's slot is cleared with an atomic exchange, and the
 *   provider's revoke state (live, begun, revoking, revoked) changes by
 *   compare-and-exchange: whatever order and however many times revokes
 *   and waits come, through however many slots, exactly one drops the
 *   owner's reference.  The others warn and return an error.
 * - Consumer references are taken from the slot under rcu_read_lock(), and
 *   the shell is freed a grace period after its last reference, so taking a
 *   reference never races with the release.
 * - Accesses through a reference move no reference count.
 */
#define pr_fmt(fmt) "revocable: " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/container_of.h>
#include <linux/debug_locks.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/error-injection.h>
#include <linux/export.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/revocable.h>
#include <linux/revocable_srcu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>

/* Report a revoke that waits longer than this for readers, by default. */
#define REVOCABLE_SLOW_MS_DEFAULT	2000

/*
 * Userspace defines this: a thread that exited (or was not copied by
 * fork()) while it owned a handle had its read-side sections released, so
 * the handle is idle.  In the kernel a task that exits inside an access is
 * a bug lockdep reports, and its handle stays owned.
 */
#ifndef task_exited_owner
#define task_exited_owner(owner)	((void)(owner), false)
#endif

/* What rev->rp holds once revocable_deinit() ran. */
#define REVOCABLE_HANDLE_DEAD	((struct revocable_provider *)ERR_PTR(-ESTALE))

/*
 * A domain's memory is counted, not waited for: the owner holds one
 * reference until revocable_domain_free(), and each provider one until its
 * last reference is put.  Whoever drops the last one frees the domain: the
 * owner at once (a device's release, after its provider's), anyone else
 * through a work item.  Freeing a domain never waits for a grace period.
 */
struct revocable_domain {
	struct revocable_srcu *ssp;
	const char *name;
	atomic_long_t refs;
	/* Providers whose owner has not revoked them yet. */
	atomic_long_t live;
	unsigned int slow_ms;
	void (*slow_hook)(struct revocable_domain *dom, unsigned int waited_ms,
			  void *arg);
	void *slow_arg;
	/* Frees the domain in process context when a release ends it. */
	struct work_struct free_work;
	struct revocable_srcu srcu;
};

/*
 * A provider's revoke state.  LIVE until a revoke detaches it from its
 * slot; BEGUN after revocable_revoke_begin(), until its wait; REVOKING
 * while a revoke (or the wait) drains the readers and before it drops the
 * owner's reference; REVOKED once it drops it.  Only the caller that moves
 * the state on may drop that reference, and only from REVOKING.
 */
enum {
	REVOCABLE_LIVE,
	REVOCABLE_BEGUN,
	REVOCABLE_REVOKING,
	REVOCABLE_REVOKED,
};

struct revocable_provider {
	void __rcu *res;
	struct revocable_domain *dom;
	struct revocable_srcu *ssp;	/* dom->ssp */
	struct kref kref;
	atomic_t state;
	void (*done)(void *arg);
	void *done_arg;
	union {
		/* RCU's state once no slot holds the provider (detached) */
		unsigned long gp_state;
		/* async revoke's callback, then a deferred free */
		struct rcu_head rcu;
	};
};

/* One cache line, the memory target per provider (state fills a hole). */
static_assert(sizeof(struct revocable_provider) <= 64);

/* The inline accessors in the header read these members. */
static_assert(offsetof(struct revocable_provider, res) ==
	      offsetof(struct __revocable_provider_head, res));
static_assert(offsetof(struct revocable_provider, dom) ==
	      offsetof(struct __revocable_provider_head, dom));
static_assert(offsetof(struct revocable_provider, ssp) ==
	      offsetof(struct __revocable_provider_head, ssp));
static_assert(offsetof(struct revocable_domain, ssp) ==
	      offsetof(struct __revocable_domain_head, ssp));

DEFINE_STATIC_REVOCABLE_SRCU(revocable_default_srcu);

static struct revocable_domain revocable_default = {
	.ssp = &revocable_default_srcu,
	.name = "default",
	.slow_ms = REVOCABLE_SLOW_MS_DEFAULT,
};

/*
 * Waiting here would deadlock or sleep where sleeping is not allowed: in a
 * callback the library runs (a done callback runs where grace periods end)
 * or in atomic context.  Callers warn, naming themselves, and finish in
 * the background where they can.
 */
static bool revocable_cannot_wait(const char *fn)
{
	return WARN_ONCE(in_interrupt() || irqs_disabled(),
			 "%s() from a callback or atomic context would deadlock\n",
			 fn);
}

/*
 * Whether the caller is inside an access of @dom, where waiting for the
 * domain's readers would wait for itself (I7).  Found by lockdep in the
 * kernel, by the thread's own counts in userspace.
 */
static bool revocable_inside_access(struct revocable_domain *dom)
{
	return IS_ENABLED(CONFIG_DEBUG_LOCK_ALLOC) && READ_ONCE(debug_locks) &&
	       revocable_srcu_read_lock_held(dom->ssp);
}

/*
 * Whether a grace period or a callback of @dom, started now, would wait
 * for the calling context although it is not inside an access: in
 * userspace, a signal handler that interrupted its own thread while that
 * held a lock of the domain's grace periods or callback queue.  Warns
 * naming @fn.  The kernel's counterpart, an interrupt, is
 * revocable_cannot_wait()'s.
 */
static bool revocable_would_deadlock(struct revocable_domain *dom,
				     const char *fn)
{
#ifdef revocable_srcu_would_deadlock
	return WARN_ONCE(revocable_srcu_would_deadlock(dom->ssp),
			 "%s() in domain %s from a signal handler that interrupted the library would deadlock\n",
			 fn, dom->name);
#else
	return false;
#endif
}

struct revocable_domain *revocable_default_domain(void)
{
	return &revocable_default;
}
EXPORT_SYMBOL_GPL(revocable_default_domain);

static void revocable_domain_destroy(struct revocable_domain *dom)
{
	/* With readers still inside, the domain's memory stays theirs. */
	if (revocable_srcu_cleanup(&dom->srcu))
		return;
	kfree(dom);
}

static void revocable_domain_free_work(struct work_struct *work)
{
	revocable_domain_destroy(container_of(work, struct revocable_domain,
					      free_work));
}

/*
 * Drop a reference to @dom.  The last one frees it: at once when the owner
 * drops it in process context, from a work item when a provider's release
 * does (that may come in any context, and tearing down the read side may
 * sleep).
 */
static void revocable_domain_put(struct revocable_domain *dom, bool can_sleep)
{
	if (!atomic_long_dec_and_test(&dom->refs))
		return;
	if (can_sleep)
		revocable_domain_destroy(dom);
	else
		queue_work(system_unbound_wq, &dom->free_work);
}

struct revocable_domain *revocable_domain_alloc(const char *name)
{
	struct revocable_domain *dom;

	dom = kzalloc_obj(*dom, GFP_KERNEL);
	if (!dom)
		return NULL;
	if (revocable_srcu_init(&dom->srcu)) {
		kfree(dom);
		return NULL;
	}
	atomic_long_set(&dom->refs, 1);
	INIT_WORK(&dom->free_work, revocable_domain_free_work);
	dom->ssp = &dom->srcu;
	dom->name = name ? name : "unnamed";
	dom->slow_ms = REVOCABLE_SLOW_MS_DEFAULT;
#ifdef revocable_srcu_set_name
	/* Userspace: the report of threads inside accesses names the domain. */
	revocable_srcu_set_name(&dom->srcu, dom->name);
#endif
	return dom;
}
EXPORT_SYMBOL_GPL(revocable_domain_alloc);
/*
 * The allocators change nothing before they can fail, so fail_function may
 * make them return their failure without running them.
 */
ALLOW_ERROR_INJECTION(revocable_domain_alloc, NULL);

int revocable_domain_barrier(struct revocable_domain *dom)
{
	if (WARN_ON_ONCE(!dom))
		return -EINVAL;
	if (revocable_cannot_wait(__func__))
		return -EDEADLK;
	/* Pending callbacks would wait for the caller's own access. */
	if (WARN_ONCE(revocable_inside_access(dom),
		      "%s() inside an access of domain %s would deadlock\n",
		      __func__, dom->name) ||
	    revocable_would_deadlock(dom, __func__))
		return -EDEADLK;
	/*
	 * Async revokes run their done callbacks.  The shells they release
	 * are freed by RCU callbacks that no longer touch the domain, which
	 * nobody needs to wait for (userspace runs them, where it is cheap).
	 */
	revocable_srcu_barrier(dom->ssp);
#ifdef revocable_flush_released
	revocable_flush_released();
#endif
	return 0;
}
EXPORT_SYMBOL_GPL(revocable_domain_barrier);

int revocable_domain_free(struct revocable_domain *dom)
{
	long left;
	int ret;

	if (!dom)
		return 0;
	if (WARN_ON_ONCE(dom == &revocable_default))
		return -EINVAL;
	if (revocable_cannot_wait(__func__))
		return -EDEADLK;
	ret = revocable_domain_barrier(dom);
	if (ret)
		return ret;
	left = atomic_long_read(&dom->live);
	if (WARN_ONCE(left, "domain %s freed with %ld providers not revoked\n",
		      dom->name, left))
		return -EBUSY;
	/* Providers still referenced keep it until their release. */
	revocable_domain_put(dom, true);
	return 0;
}
EXPORT_SYMBOL_GPL(revocable_domain_free);

int revocable_domain_set_slow(struct revocable_domain *dom,
			      unsigned int threshold_ms,
			      void (*hook)(struct revocable_domain *dom,
					   unsigned int waited_ms, void *arg),
			      void *arg)
{
	if (WARN_ON_ONCE(!dom))
		return -EINVAL;
	WRITE_ONCE(dom->slow_arg, arg);
	WRITE_ONCE(dom->slow_hook, hook);
	WRITE_ONCE(dom->slow_ms, threshold_ms);
	return 0;
}
EXPORT_SYMBOL_GPL(revocable_domain_set_slow);

/* ----- provider lifetime ------------------------------------------------- */

static void revocable_provider_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct revocable_provider, rcu));
}

/*
 * The last reference is gone: nothing enters an access through the shell
 * again, so its hold on the domain goes now.  revocable_provider_get_rcu()
 * may still be looking at the shell's count (and at nothing else of it)
 * if it read the owner's slot before the revoke emptied it: the shell is
 * freed once a grace period of RCU has passed since then.  A revoke that
 * waited for the readers waited for one, so a release after it frees at once.
 *
 * Unless the owner's reference is still owed (the provider is not
 * revoked): then a consumer put one reference too many.  Freeing would
 * leave the owner's slot, or a begun revoke, pointing at freed memory, so
 * the count goes back to the owner's one reference and the extra put is
 * reported instead.
 */
static void revocable_provider_release(struct kref *kref)
{
	struct revocable_provider *rp =
		container_of(kref, struct revocable_provider, kref);
	struct revocable_domain *dom = rp->dom;

	if (WARN_ONCE(atomic_read(&rp->state) != REVOCABLE_REVOKED,
		      "revocable_provider_put() of the owner's reference of a provider that is not revoked (domain %s)\n",
		      dom->name)) {
		kref_init(&rp->kref);
		return;
	}
	if (poll_state_synchronize_rcu(rp->gp_state))
		kfree(rp);
	else
		call_rcu(&rp->rcu, revocable_provider_free_rcu);
	if (dom != &revocable_default)
		revocable_domain_put(dom, false);
}

struct revocable_provider __rcu *
revocable_provider_alloc_in(struct revocable_domain *dom, void *res)
{
	struct revocable_provider *rp;

	if (WARN_ON_ONCE(!dom || !res))
		return NULL;
	rp = kzalloc_obj(*rp, GFP_KERNEL);
	if (!rp)
		return NULL;
	RCU_INIT_POINTER(rp->res, res);
	rp->dom = dom;
	rp->ssp = dom->ssp;
	kref_init(&rp->kref);
	atomic_set(&rp->state, REVOCABLE_LIVE);
	atomic_long_inc(&dom->live);
	if (dom != &revocable_default)
		atomic_long_inc(&dom->refs);
	return RCU_INITIALIZER(rp);
}
EXPORT_SYMBOL_GPL(revocable_provider_alloc_in);
ALLOW_ERROR_INJECTION(revocable_provider_alloc_in, NULL);

struct revocable_provider __rcu *revocable_provider_alloc(void *res)
{
	return revocable_provider_alloc_in(&revocable_default, res);
}
EXPORT_SYMBOL_GPL(revocable_provider_alloc);
ALLOW_ERROR_INJECTION(revocable_provider_alloc, NULL);

int revocable_provider_publish(struct revocable_provider __rcu **rpp,
			       struct revocable_provider __rcu *rp)
{
	if (WARN_ON_ONCE(!rpp || !rp))
		return -EINVAL;
	/* A store over a provider would lose its owner's reference. */
	if (WARN_ONCE(cmpxchg_release(rpp, NULL, rp),
		      "publish in a slot that holds a provider already\n"))
		return -EBUSY;
	return 0;
}
EXPORT_SYMBOL_GPL(revocable_provider_publish);

struct revocable_provider *
revocable_provider_get_rcu(struct revocable_provider __rcu *const *rpp)
{
	struct revocable_provider *rp;

	if (WARN_ON_ONCE(!rpp))
		return NULL;
	rcu_read_lock();
	rp = rcu_dereference(*rpp);
	if (rp && !kref_get_unless_zero(&rp->kref))
		rp = NULL;
	rcu_read_unlock();
	return rp;
}
EXPORT_SYMBOL_GPL(revocable_provider_get_rcu);

struct revocable_provider *revocable_provider_get(struct revocable_provider *rp)
{
	if (rp)
		kref_get(&rp->kref);
	return rp;
}
EXPORT_SYMBOL_GPL(revocable_provider_get);

void revocable_provider_put(struct revocable_provider *rp)
{
	if (rp)
		kref_put(&rp->kref, revocable_provider_release);
}
EXPORT_SYMBOL_GPL(revocable_provider_put);

/* ----- revoke ------------------------------------------------------------ */

static void revocable_report_slow(struct revocable_domain *dom,
				  unsigned int waited_ms, bool first)
{
	void (*hook)(struct revocable_domain *dom, unsigned int waited_ms,
		     void *arg) = READ_ONCE(dom->slow_hook);

	if (hook) {
		hook(dom, waited_ms, READ_ONCE(dom->slow_arg));
		return;
	}
	pr_warn("revoke in domain %s has waited %u ms for readers\n",
		dom->name, waited_ms);
	if (first)
		debug_show_all_locks();
}

struct revocable_slow_ctx {
	struct revocable_domain *dom;
	bool first;
};

static void revocable_slow_cb(void *arg, unsigned int waited_ms)
{
	struct revocable_slow_ctx *ctx = arg;

	revocable_report_slow(ctx->dom, waited_ms, ctx->first);
	ctx->first = false;
}

/*
 * Wait until every access of @dom that began before the call has ended.
 * With the slow-revoke report on, the read side's synchronous grace period
 * reports while it lasts (the kernel's revocable_srcu and userspace's SRCU
 * both have one): the wait runs in this context and costs what a grace
 * period costs.
 */
static void revocable_wait_readers(struct revocable_domain *dom)
{
	struct revocable_slow_ctx ctx = { .dom = dom, .first = true };

	might_sleep();
	/* slow_ms 0: the report is off, and the wait reports nothing. */
	revocable_srcu_synchronize_report(dom->ssp, READ_ONCE(dom->slow_ms),
					  revocable_slow_cb, &ctx);
}

/*
 * The revoker that emptied a slot moves the provider out of LIVE, to
 * @state (BEGUN or REVOKING); from then on new accesses get NULL.  A
 * provider that left LIVE already was in another slot as well, which its
 * revoke emptied: this revoke did nothing, says so and returns false.
 */
static bool revocable_withdraw_resource(struct revocable_provider *rp,
					int state)
{
	if (WARN_ONCE(atomic_cmpxchg(&rp->state, REVOCABLE_LIVE, state) !=
		      REVOCABLE_LIVE,
		      "revoke of a provider that a revoke through another slot took already (domain %s)\n",
		      rp->dom->name))
		return false;
	RCU_INIT_POINTER(rp->res, NULL);
	atomic_long_dec(&rp->dom->live);
	/* After the slot's fully ordered xchg() or cmpxchg(). */
	rp->gp_state = get_state_synchronize_rcu();
	return true;
}

/* The owner's reference goes; only from REVOKING, by its taker. */
static void revocable_drop_owner_ref(struct revocable_provider *rp)
{
	atomic_set(&rp->state, REVOCABLE_REVOKED);
	kref_put(&rp->kref, revocable_provider_release);
}

/*
 * Clear the owner's slot; the caller that gets the provider revokes it.
 * Returns the provider, moved to @state, NULL when the slot was already
 * empty (or held a provider revoked through another slot), or
 * ERR_PTR(-EINVAL) (with a warning) for a NULL slot pointer.
 */
static struct revocable_provider *
revocable_detach(struct revocable_provider __rcu **rpp, int state)
{
	struct revocable_provider *rp;

	if (WARN_ON_ONCE(!rpp))
		return ERR_PTR(-EINVAL);
	rp = unrcu_pointer(xchg(rpp, NULL));
	if (rp && !revocable_withdraw_resource(rp, state))
		rp = NULL;
	return rp;
}

/*
 * revocable_detach() for a revoke that will wait for the provider's domain
 * or queue on it.  In userspace, from a signal handler that interrupted the
 * library inside that domain's grace period or callback queue
 * (revocable_would_deadlock()), nothing is done and ERR_PTR(-EDEADLK) is
 * returned: the domain is looked up under RCU, which keeps the shell
 * alive, and the slot is cleared only if it still holds the provider that
 * was checked.
 */
static struct revocable_provider *
revocable_detach_checked(struct revocable_provider __rcu **rpp,
			 const char *fn)
{
#ifdef revocable_srcu_would_deadlock
	struct revocable_provider *rp;

	if (WARN_ON_ONCE(!rpp))
		return ERR_PTR(-EINVAL);
	rcu_read_lock();
	do {
		rp = rcu_dereference(*rpp);
		if (rp && revocable_would_deadlock(rp->dom, fn)) {
			rcu_read_unlock();
			return ERR_PTR(-EDEADLK);
		}
	} while (rp && cmpxchg(rpp, rp, NULL) != rp);
	rcu_read_unlock();
	if (rp && !revocable_withdraw_resource(rp, REVOCABLE_REVOKING))
		rp = NULL;
	return rp;
#else
	return revocable_detach(rpp, REVOCABLE_REVOKING);
#endif
}

/* SRCU callback: readers of a revoked provider have drained. */
static void revocable_finish(struct rcu_head *head)
{
	struct revocable_provider *rp =
		container_of(head, struct revocable_provider, rcu);

	if (rp->done)
		rp->done(rp->done_arg);
	/* ->rcu is free again; a release from here on defers the free. */
	rp->gp_state = get_state_synchronize_rcu();
	revocable_drop_owner_ref(rp);
}

static void revocable_finish_later(struct revocable_provider *rp,
				   void (*done)(void *arg), void *arg)
{
	rp->done = done;
	rp->done_arg = arg;
	revocable_srcu_call(rp->dom->ssp, &rp->rcu, revocable_finish);
}

int revocable_revoke(struct revocable_provider __rcu **rpp)
{
	struct revocable_provider *rp = revocable_detach_checked(rpp, __func__);

	if (IS_ERR_OR_NULL(rp))
		return PTR_ERR_OR_ZERO(rp);
	if (revocable_cannot_wait(__func__) ||
	    WARN_ONCE(revocable_inside_access(rp->dom),
		      "revoke inside an access of domain %s would deadlock\n",
		      rp->dom->name)) {
		revocable_finish_later(rp, NULL, NULL);
		return -EDEADLK;
	}
	revocable_wait_readers(rp->dom);
	revocable_drop_owner_ref(rp);
	return 1;
}
EXPORT_SYMBOL_GPL(revocable_revoke);

void revocable_provider_revoke(struct revocable_provider __rcu **rpp)
{
	revocable_revoke(rpp);
}
EXPORT_SYMBOL_GPL(revocable_provider_revoke);

int revocable_revoke_async(struct revocable_provider __rcu **rpp,
			   void (*done)(void *arg), void *arg)
{
	struct revocable_provider *rp = revocable_detach_checked(rpp, __func__);

	if (IS_ERR_OR_NULL(rp))
		return PTR_ERR_OR_ZERO(rp);
	revocable_finish_later(rp, done, arg);
	return 1;
}
EXPORT_SYMBOL_GPL(revocable_revoke_async);

/*
 * Whether revocable_would_deadlock() would refuse the domain of a provider
 * in one of @rpps' slots; it warns, this does not.
 */
static bool
revocable_batch_would_deadlock(struct revocable_provider __rcu **const rpps[],
			       unsigned int n)
{
#ifdef revocable_srcu_would_deadlock
	struct revocable_provider *rp;
	bool ret = false;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < n && !ret; i++) {
		rp = rpps[i] ? rcu_dereference(*rpps[i]) : NULL;
		ret = rp && revocable_srcu_would_deadlock(rp->dom->ssp);
	}
	rcu_read_unlock();
	return ret;
#else
	return false;
#endif
}

int revocable_revoke_batch(struct revocable_provider __rcu **const rpps[],
			   unsigned int n)
{
	struct revocable_provider **rps, *rp;
	struct revocable_domain **doms;
	unsigned int i, j, cnt = 0, ndoms = 0;
	bool deadlock = false;
	int ret;

	if (!n)
		return 0;
	if (WARN_ON_ONCE(!rpps))
		return -EINVAL;
	if (revocable_cannot_wait(__func__)) {
		for (i = 0; i < n; i++)
			revocable_revoke_async(rpps[i], NULL, NULL);
		return -EDEADLK;
	}
	/*
	 * From a signal handler that interrupted the library in one of the
	 * domains, nothing is allocated: one by one, the revokes refuse what
	 * would deadlock.
	 */
	rps = revocable_batch_would_deadlock(rpps, n) ? NULL :
	      kmalloc_array(2 * (size_t)n, sizeof(*rps), GFP_KERNEL);
	if (!rps) {
		/* Correct, only slower: one wait per provider. */
		for (i = 0; i < n; i++) {
			ret = revocable_revoke(rpps[i]);
			if (ret == -EDEADLK)
				deadlock = true;
			cnt += ret > 0;
		}
		return deadlock ? -EDEADLK : (int)cnt;
	}
	doms = (struct revocable_domain **)(rps + n);

	for (i = 0; i < n; i++) {
		rp = revocable_detach_checked(rpps[i], __func__);
		/* A domain it must not wait for: left in its slot. */
		if (PTR_ERR(rp) == -EDEADLK)
			deadlock = true;
		if (IS_ERR_OR_NULL(rp))
			continue;
		rps[cnt++] = rp;
		for (j = 0; j < ndoms && doms[j] != rp->dom; j++)
			;
		if (j == ndoms)
			doms[ndoms++] = rp->dom;
	}

	/* A domain we are inside of is marked by clearing its entry. */
	for (j = 0; j < ndoms; j++) {
		if (WARN_ONCE(revocable_inside_access(doms[j]),
			      "batch revoke inside an access of domain %s\n",
			      doms[j]->name)) {
			doms[j] = NULL;
			deadlock = true;
			continue;
		}
		revocable_wait_readers(doms[j]);
	}

	for (i = 0; i < cnt; i++) {
		rp = rps[i];
		for (j = 0; deadlock && j < ndoms && doms[j] != rp->dom; j++)
			;
		if (deadlock && j == ndoms)
			revocable_finish_later(rp, NULL, NULL);
		else
			revocable_drop_owner_ref(rp);
	}
	kfree(rps);
	return deadlock ? -EDEADLK : (int)cnt;
}
EXPORT_SYMBOL_GPL(revocable_revoke_batch);

struct revocable_provider *
revocable_revoke_begin(struct revocable_provider __rcu **rpp)
{
	struct revocable_provider *rp = revocable_detach(rpp, REVOCABLE_BEGUN);

	return IS_ERR(rp) ? NULL : rp;
}
EXPORT_SYMBOL_GPL(revocable_revoke_begin);

int revocable_revoke_wait(struct revocable_provider *rp)
{
	int state;

	if (WARN_ON_ONCE(IS_ERR_OR_NULL(rp)))
		return -EINVAL;
	state = atomic_read(&rp->state);
	if (WARN_ONCE(state != REVOCABLE_BEGUN,
		      "revoke wait on a provider %s (domain %s)\n",
		      state == REVOCABLE_LIVE ? "whose revoke did not begin" :
		      "whose revoke was finished or is being finished",
		      rp->dom->name))
		return -EINVAL;
	if (revocable_cannot_wait(__func__)) {
		if (atomic_cmpxchg(&rp->state, REVOCABLE_BEGUN,
				   REVOCABLE_REVOKING) != REVOCABLE_BEGUN)
			return -EINVAL;
		revocable_finish_later(rp, NULL, NULL);
		return -EDEADLK;
	}
	/* Refused here, the wait may be called again, where it can wait. */
	if (WARN_ONCE(revocable_inside_access(rp->dom),
		      "revoke wait inside an access of domain %s would deadlock\n",
		      rp->dom->name) ||
	    revocable_would_deadlock(rp->dom, __func__))
		return -EDEADLK;
	/* Two waits racing: one takes the owner's reference. */
	if (WARN_ONCE(atomic_cmpxchg(&rp->state, REVOCABLE_BEGUN,
				     REVOCABLE_REVOKING) != REVOCABLE_BEGUN,
		      "revoke wait on a provider whose revoke another wait finishes (domain %s)\n",
		      rp->dom->name))
		return -EINVAL;
	revocable_wait_readers(rp->dom);
	revocable_drop_owner_ref(rp);
	return 0;
}
EXPORT_SYMBOL_GPL(revocable_revoke_wait);

/* ----- access ------------------------------------------------------------ */

static void revocable_handle_reset(struct revocable *rev,
				   struct revocable_provider *rp)
{
	rev->rp = rp;
	rev->ssp = rp ? rp->dom->ssp : NULL;
	rev->owner = NULL;
	rev->idx = -1;
	rev->refused = 0;
	rev->counted = false;
}

void *__revocable_access(struct revocable_provider *rp, struct revocable *rev)
{
	if (WARN_ON_ONCE(!rev))
		return NULL;
	revocable_handle_reset(rev, rp);
	if (!rp)
		return NULL;
	rev->owner = current;
	rev->idx = revocable_srcu_read_lock(rev->ssp);
	return revocable_srcu_dereference(rp->res, rev->ssp);
}
EXPORT_SYMBOL_GPL(__revocable_access);

void *revocable_access_unchecked(struct revocable_provider *rp)
{
	if (WARN_ON_ONCE(!rp))
		return NULL;
	return rcu_dereference_protected(rp->res, 1);
}
EXPORT_SYMBOL_GPL(revocable_access_unchecked);

int revocable_init(struct revocable_provider __rcu *rp_in,
		   struct revocable *rev)
{
	struct revocable_provider *rp = unrcu_pointer(rp_in);

	if (WARN_ON_ONCE(!rev))
		return -EINVAL;
	if (rp && !kref_get_unless_zero(&rp->kref))
		rp = NULL;
	/* On failure the handle is inert: it refers to no provider. */
	revocable_handle_reset(rev, rp);
	rev->counted = !!rp;
	return rp ? 0 : -ENODEV;
}
EXPORT_SYMBOL_GPL(revocable_init);

/*
 * Make the calling context the owner of an idle handle.  With
 * CONFIG_REVOCABLE_DEBUG the claim is a compare-and-exchange, so that even
 * two contexts racing on a shared handle cannot both enter; otherwise it
 * is a plain load and store that catches nesting and every sharing that is
 * not an exact race, at no cost to the fast path.
 */
static bool revocable_claim(struct revocable *rev)
{
	void *me = current;
	void *old;

	if (IS_ENABLED(CONFIG_REVOCABLE_DEBUG)) {
		old = cmpxchg(&rev->owner, NULL, me);
	} else {
		old = READ_ONCE(rev->owner);
		if (!old)
			WRITE_ONCE(rev->owner, me);
	}
	if (likely(!old))
		return true;
	if (old != me && task_exited_owner(old) &&
	    try_cmpxchg(&rev->owner, &old, me)) {
		/* Its owner is gone, and its access with it. */
		rev->refused = 0;
		return true;
	}
	if (old == me)
		rev->refused++;
	WARN_ONCE(1, "handle %p is already inside an access (%s)\n", rev,
		  old == me ? "nested" : "shared between contexts");
	return false;
}

void *__revocable_try_access(struct revocable *rev)
{
	struct revocable_provider *rp;

	if (WARN_ON_ONCE(!rev))
		return NULL;
	rp = rev->rp;
	if (IS_ERR_OR_NULL(rp)) {
		WARN_ONCE(IS_ERR(rp), "access through a deinitialised handle\n");
		return NULL;
	}
	if (unlikely(!revocable_claim(rev)))
		return NULL;
	rev->idx = revocable_srcu_read_lock(rev->ssp);
	return revocable_srcu_dereference(rp->res, rev->ssp);
}
EXPORT_SYMBOL_GPL(__revocable_try_access);

void __revocable_withdraw_access(struct revocable *rev)
{
	void *owner;

	if (WARN_ON_ONCE(!rev))
		return;
	if (IS_ERR_OR_NULL(rev->rp)) {
		WARN_ONCE(IS_ERR(rev->rp),
			  "withdraw through a deinitialised handle\n");
		return;
	}
	owner = READ_ONCE(rev->owner);
	if (unlikely(owner != current)) {
		WARN_ONCE(1, "withdraw %s\n", owner ?
			       "from a context that does not own the access" :
			       "without an access");
		return;
	}
	if (unlikely(rev->refused)) {
		rev->refused--;
		return;
	}
	revocable_srcu_read_unlock(rev->ssp, rev->idx);
	/*
	 * Release the handle: the next context to claim it writes rev->idx,
	 * and our read of it above must not be reordered after the store
	 * that allows that (an unlock's ordering is not enough: userspace
	 * SRCU has only a compiler barrier there).
	 */
	smp_store_release(&rev->owner, NULL);
}
EXPORT_SYMBOL_GPL(__revocable_withdraw_access);

void revocable_deinit(struct revocable *rev)
{
	void *owner;

	if (WARN_ON_ONCE(!rev))
		return;
	if (WARN_ONCE(IS_ERR(rev->rp), "deinit of a deinitialised handle\n"))
		return;
	owner = READ_ONCE(rev->owner);
	if (owner && owner != current && task_exited_owner(owner)) {
		/* Its owner is gone, and its access with it. */
		owner = NULL;
		WRITE_ONCE(rev->owner, NULL);
	}
	if (owner) {
		WARN_ONCE(1, "deinit of a handle inside an access\n");
		if (owner != current)
			return;
		rev->refused = 0;
		__revocable_withdraw_access(rev);
	}
	if (rev->counted)
		kref_put(&rev->rp->kref, revocable_provider_release);
	rev->counted = false;
	rev->rp = REVOCABLE_HANDLE_DEAD;
}
EXPORT_SYMBOL_GPL(revocable_deinit);
