/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Revocable resources: access to a resource that its provider may withdraw
 * at any time.  See Documentation/driver-api/driver-model/revocable.rst.
 */
#ifndef _LINUX_REVOCABLE_H
#define _LINUX_REVOCABLE_H

#include <linux/cleanup.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/revocable_srcu.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/current.h>

struct revocable_domain;
struct revocable_provider;

/**
 * DOC: Rules
 *
 * The rules every caller may rely on.  The Return: section of each
 * function says what it answers to each misuse.
 *
 * - Once a revoke returns 1 (revocable_revoke_wait() 0), no consumer holds
 *   the resource or can get it: the owner may free it.
 * - A resource an access returned stays valid until that access is
 *   withdrawn, even while a revoke waits.
 * - Revoke through the owner's slot.  The slot is cleared with an atomic
 *   exchange and the provider's revoke state changes by compare-and-exchange:
 *   of concurrent revokers exactly one revokes (it gets 1, the others 0 at
 *   once), a provider stored in two slots is revoked once (the second
 *   revoke warns), and of several waits on one begun provider one finishes
 *   it (the others warn and get -EINVAL).  The owner's reference is dropped
 *   exactly once.
 * - A put that would drop the owner's reference of a provider that is not
 *   revoked warns and frees nothing.
 * - A revoke, wait, batch, barrier or domain free that would wait for the
 *   access it is called from (same domain), or from a completion callback,
 *   warns and returns -EDEADLK instead of hanging; what it revoked
 *   completes in the background.  An access is recognised through lockdep
 *   (CONFIG_DEBUG_LOCK_ALLOC); without it, a revoke from inside an access
 *   of its own domain waits for itself.
 * - A handle set up by revocable_init() serves one access at a time.  A
 *   second revocable_try_access() through a handle that is inside one
 *   (shared between contexts, or nested) is refused with a warning; it
 *   never corrupts the domain or hangs a revoke.  Two contexts that race
 *   exactly on one handle are refused only with CONFIG_REVOCABLE_DEBUG.
 *   revocable_access() sets up the handle it is given: it must not be
 *   inside an access.
 * - revocable_init() and the access macros take a provider the caller keeps
 *   alive (the owner's slot under the owner's own locking, or a consumer
 *   reference).  To start from a slot that may be revoked concurrently,
 *   take a reference with revocable_provider_get_rcu().  Once consumers may
 *   read the slot, publish into it with revocable_provider_publish().
 * - The provider's memory outlives every reference and every access;
 *   taking a reference never races with its release.
 * - An access writes nothing shared and does no atomic read-modify-write
 *   (but for the claim of a handle with CONFIG_REVOCABLE_DEBUG);
 *   reference counts move only at get and put.
 * - An access ends at its withdraw.  One abandoned without it (a jump out
 *   of its scope) stays open, and revokes of its domain wait; the
 *   slow-revoke report names the context.
 * - Every bad call (NULL arguments, double deinit, withdraw without an
 *   access, use after deinit, a second wait, a put that would drop the
 *   owner's reference) has a documented result: a warning, and an error
 *   code where the call returns one; none crashes, hangs or frees under a
 *   live pointer.  Two misuses cannot be told from correct calls: a put
 *   too many that takes another consumer's reference, and any call on an
 *   object after its last reference is gone; KASAN finds the use after free
 *   that follows.
 */

/**
 * struct revocable - one access to a revocable resource
 * @rp: the provider, or NULL when there is nothing to access
 * @ssp: the SRCU domain the access is counted in
 * @owner: the context inside the access, NULL when idle
 * @idx: the SRCU read index of the access in progress
 * @refused: nested accesses that were refused and not yet withdrawn
 * @counted: the handle holds a reference on @rp (revocable_init())
 *
 * An access handle lives on the stack of the context that uses it, or is
 * owned by exactly one context at a time.  The fields are private.
 */
struct revocable {
	struct revocable_provider *rp;
	struct revocable_srcu *ssp;
	void *owner;
	int idx;
	unsigned short refused;
	bool counted;
};

/*
 * The first members of every provider and domain, which inline accessors
 * read.  Private.
 */
struct __revocable_domain_head {
	struct revocable_srcu *ssp;
};

struct __revocable_provider_head {
	void __rcu *res;
	const struct __revocable_domain_head *dom;
	/* The domain's read side: one load fewer for the scope forms. */
	struct revocable_srcu *ssp;
};

/* ----- domains ---------------------------------------------------------- */

/**
 * revocable_domain_alloc() - create a domain of its own for some providers
 * @name: a name for diagnostics; the string must outlive the domain
 *
 * Readers of providers in a domain only delay revokes of providers in the
 * same domain.  A subsystem whose accesses may sleep for long should have
 * its own domain, so that unrelated revokes never wait for it.
 *
 * Context: process context; may sleep.
 * Return: the new domain, or NULL when out of memory.
 */
struct revocable_domain *revocable_domain_alloc(const char *name);

/**
 * revocable_domain_free() - free a domain created by revocable_domain_alloc()
 * @dom: the domain; NULL is ignored
 *
 * Waits for the completion callbacks of the domain's pending asynchronous
 * revokes, as revocable_domain_barrier() does (when there are none, it does
 * not wait), then lets go of the domain.  Its memory goes with the last of
 * its providers: providers that consumers still reference, or whose
 * deferred free has not run yet, keep it until then, and nothing waits for
 * them.
 *
 * Context: process context; may sleep; not inside an access of @dom, not
 * from a completion callback.
 * Return: 0 when the caller's hold on the domain is gone; -EBUSY (with a
 * warning) when providers of the domain are still published (not revoked);
 * -EINVAL (with a warning) for the default domain; -EDEADLK (with a
 * warning) where revocable_domain_barrier() would return it.  On error the
 * domain is left intact.
 */
int revocable_domain_free(struct revocable_domain *dom);

/**
 * revocable_domain_barrier() - wait for a domain's deferred work
 * @dom: the domain
 *
 * Waits until the completion callbacks of asynchronous revokes queued so
 * far have run.  Call it before unloading code that such callbacks would
 * run.  When nothing is pending in @dom, it returns without waiting.  The
 * memory of released providers is freed by callbacks of the core, which
 * nobody needs to wait for.
 *
 * Context: process context; may sleep; not inside an access of @dom, not
 * from a completion callback.
 * Return: 0 once the work is done; -EDEADLK (with a warning), without
 * waiting, inside an access of @dom or from a completion callback, where
 * the wait could never end; -EINVAL (with a warning) for a NULL @dom.
 */
int revocable_domain_barrier(struct revocable_domain *dom);

/**
 * revocable_default_domain() - the domain revocable_provider_alloc() uses
 *
 * Context: any.
 * Return: the default domain; it is never freed.
 */
struct revocable_domain *revocable_default_domain(void);

/**
 * revocable_domain_set_slow() - configure the slow-revoke diagnostic
 * @dom: the domain
 * @threshold_ms: how long a revoke may wait for readers before it is
 *	reported, and then again after each further period; 0 disables the
 *	diagnostic (and lets revokes wait for a plain grace period)
 * @hook: called in the revoker's context with the time waited so far, or
 *	NULL for the default report: a warning naming the domain, and on the
 *	first report of a revoke the tasks that hold locks
 *	(debug_show_all_locks(), with lockdep)
 * @arg: passed to @hook
 *
 * Set this up before revokes run on the domain.
 *
 * Context: any.
 * Return: 0, or -EINVAL for a NULL domain.
 */
int revocable_domain_set_slow(struct revocable_domain *dom,
			      unsigned int threshold_ms,
			      void (*hook)(struct revocable_domain *dom,
					   unsigned int waited_ms, void *arg),
			      void *arg);

/* ----- providers --------------------------------------------------------- */

/**
 * revocable_provider_alloc() - publish a resource in the default domain
 * @res: the resource; must not be NULL
 *
 * The caller stores the result in a slot it owns (an ``__rcu`` pointer),
 * hands consumers references or the slot, and ends the provider with one
 * of the revoke functions on that slot.
 *
 * Example::
 *
 *	priv->rp = revocable_provider_alloc(&priv->hw);
 *	if (!priv->rp)
 *		return -ENOMEM;
 *	...
 *	revocable_provider_revoke(&priv->rp);	// readers drained
 *	free_hw(&priv->hw);
 *
 * Context: process context; may sleep.
 * Return: the provider, holding the owner's reference, or NULL when out
 * of memory or @res is NULL (with a warning).
 */
struct revocable_provider __rcu *revocable_provider_alloc(void *res);

/**
 * revocable_provider_alloc_in() - publish a resource in a given domain
 * @dom: the domain, which must outlive the provider
 * @res: the resource; must not be NULL
 *
 * Context: process context; may sleep.
 * Return: as revocable_provider_alloc(); NULL with a warning when @dom or
 * @res is NULL.
 */
struct revocable_provider __rcu *
revocable_provider_alloc_in(struct revocable_domain *dom, void *res);

/**
 * revocable_provider_publish() - store a new provider in an owner's slot
 * @rpp: the owner's slot, empty (NULL)
 * @rp: what revocable_provider_alloc() or revocable_provider_alloc_in()
 *	returned
 *
 * A plain assignment to the slot is enough while no consumer can see it
 * yet (before the threads or the device that read it exist).  Once
 * consumers may read the slot concurrently, publish with this call: its
 * store is a release, so a consumer that finds the provider through
 * revocable_provider_get_rcu() also sees what the owner did before (the
 * resource's initialisation).  It is rcu_assign_pointer() with the checks.
 *
 * Context: any.
 * Return: 0; -EINVAL (with a warning) for a NULL @rpp or @rp; -EBUSY (with
 * a warning) when the slot holds a provider already, which stays there.
 */
int revocable_provider_publish(struct revocable_provider __rcu **rpp,
			       struct revocable_provider __rcu *rp);

/**
 * revocable_provider_get_rcu() - take a consumer reference from a slot
 * @rpp: the slot the provider is published in
 *
 * Safe against a concurrent revoke and release of the provider: the slot
 * is read inside an RCU read-side section, and the provider's memory lives
 * for a grace period after its last reference is dropped.
 *
 * Context: any context that may call rcu_read_lock().
 * Return: the provider with a new reference, to be dropped with
 * revocable_provider_put(); NULL when the slot is empty (revoked), or
 * with a warning when @rpp is NULL.
 */
struct revocable_provider *
revocable_provider_get_rcu(struct revocable_provider __rcu *const *rpp);

/**
 * revocable_provider_get() - take another reference on a provider
 * @rp: a provider the caller holds a reference on; NULL is passed through
 *
 * Context: any.
 * Return: @rp.
 */
struct revocable_provider *revocable_provider_get(struct revocable_provider *rp);

/**
 * revocable_provider_put() - drop a consumer reference
 * @rp: the provider; NULL is ignored
 *
 * The provider's memory (not the resource, which belongs to its owner) is
 * freed a grace period after the last reference is dropped.  A put that
 * would drop the owner's reference of a provider that is not revoked yet
 * (one put too many) frees nothing: it warns, and the owner's reference
 * stays for its revoke.
 *
 * Context: any.
 */
void revocable_provider_put(struct revocable_provider *rp);

/* ----- revoke ------------------------------------------------------------ */

/**
 * revocable_revoke() - revoke a resource and wait for its readers
 * @rpp: the owner's slot; it is cleared
 *
 * Clears the slot with an atomic exchange, so of concurrent revokers
 * exactly one gets the provider.  New accesses then return NULL; the call
 * waits until every access in progress is withdrawn and drops the owner's
 * reference.  Revokers that lost the race return at once without waiting.
 *
 * Context: process context; may sleep; not inside an access of the same
 * domain.
 * Return: 1 when this call revoked and readers are drained (the owner may
 * free the resource); 0 when the slot was already empty, or (with a
 * warning) held a provider that a revoke through another slot took
 * already; -EDEADLK (with a warning) when called inside an access of the
 * provider's domain: new accesses already fail, but the wait could not be
 * done here, and the owner reference is dropped once the readers drain;
 * -EINVAL (with a warning) for a NULL @rpp.
 */
int revocable_revoke(struct revocable_provider __rcu **rpp);

/**
 * revocable_provider_revoke() - revoke, upstream-compatible form
 * @rpp: the owner's slot; it is cleared
 *
 * revocable_revoke() without the result.
 *
 * Context: process context; may sleep.
 */
void revocable_provider_revoke(struct revocable_provider __rcu **rpp);

/**
 * revocable_revoke_async() - revoke without waiting
 * @rpp: the owner's slot; it is cleared
 * @done: called once every access in progress is withdrawn, or NULL
 * @arg: passed to @done
 *
 * New accesses fail when this returns.  @done runs from a work item of
 * the grace-period machinery with bottom halves disabled: it must not
 * sleep, and may free the resource.
 *
 * Context: any context but NMI.
 * Return: 1 when this call revoked and @done will run; 0 when the slot was
 * already empty, or (with a warning) held a provider that a revoke through
 * another slot took already, and @done will not run; -EINVAL (with a
 * warning) for a NULL @rpp.
 */
int revocable_revoke_async(struct revocable_provider __rcu **rpp,
			   void (*done)(void *arg), void *arg);

/**
 * revocable_revoke_batch() - revoke many resources with one wait per domain
 * @rpps: the owners' slots; NULL entries are skipped with a warning
 * @n: how many
 *
 * All slots are cleared first, then the call waits once for each domain
 * the providers belong to, then drops the owners' references.
 *
 * Context: process context; may sleep; not inside an access.
 * Return: how many providers this call revoked; -EDEADLK (with a warning)
 * when called inside an access of one of their domains, in which case all
 * are revoked for new accesses and those of that domain complete in the
 * background; -EINVAL for a NULL array with @n > 0.
 */
int revocable_revoke_batch(struct revocable_provider __rcu **const rpps[],
			   unsigned int n);

/**
 * revocable_revoke_begin() - first half of a two-phase revoke
 * @rpp: the owner's slot; it is cleared
 *
 * New accesses fail when this returns.  The caller can then wake readers
 * that sleep on the device (complete their I/O with an error, wake wait
 * queues), and finally call revocable_revoke_wait().  This is how a driver
 * avoids hung tasks on removal.
 *
 * Example::
 *
 *	rp = revocable_revoke_begin(&priv->rp);
 *	if (rp) {
 *		priv->dead = true;
 *		wake_up_all(&priv->waitq);
 *		revocable_revoke_wait(rp);
 *	}
 *
 * Context: any.
 * Return: the provider, carrying the owner's reference that
 * revocable_revoke_wait() consumes; NULL when already revoked (with a
 * warning when another slot's revoke took the same provider), or with a
 * warning when @rpp is NULL.
 */
struct revocable_provider *
revocable_revoke_begin(struct revocable_provider __rcu **rpp);

/**
 * revocable_revoke_wait() - second half of a two-phase revoke
 * @rp: what revocable_revoke_begin() returned
 *
 * Waits until every access in progress is withdrawn and drops the owner's
 * reference.  Call it exactly once per successful begin: of several waits
 * on one begun provider, however they race, one finishes the revoke and the
 * others return -EINVAL.  A wait after the provider's last reference was
 * dropped reads freed memory (KASAN reports it).
 *
 * Context: process context; may sleep; not inside an access of the same
 * domain.
 * Return: 0 when readers are drained; -EDEADLK (with a warning) inside an
 * access of the domain, nothing done, call again from elsewhere; -EDEADLK
 * (with a warning) from a callback of the core (a @done), where the revoke then
 * finishes in the background: do not call it again; -EINVAL
 * (with a warning) for NULL, a provider that was not begun (live, or
 * revoked by revocable_revoke() or revocable_revoke_async()), or one whose
 * wait another call did or does.
 */
int revocable_revoke_wait(struct revocable_provider *rp);

/* ----- access ------------------------------------------------------------ */

/**
 * revocable_access_unchecked() - the resource, for callers that know it is live
 * @rp: the provider
 *
 * For code that can prove the resource cannot be revoked meanwhile, such
 * as the provider's own code between allocation and revoke.  No read-side
 * section is entered, so nothing protects the result beyond that proof.
 *
 * Context: any.
 * Return: the resource, or NULL once revoked (or with a warning for a NULL
 * @rp).
 */
void *revocable_access_unchecked(struct revocable_provider *rp);

/**
 * revocable_init() - set up a handle that holds a reference on a provider
 * @rp: the provider; the caller must keep it alive for the call (own the
 *	slot it was read from, or hold a reference): a stale pointer cannot
 *	be made safe here
 * @rev: the handle
 *
 * The handle may then be used for any number of
 * revocable_try_access() / revocable_withdraw_access() pairs by one context
 * at a time, and must be released with revocable_deinit().
 *
 * Context: any.
 * Return: 0; -ENODEV when @rp is NULL or being released (the handle is
 * then inert: accesses return NULL, withdraw and deinit do nothing);
 * -EINVAL (with a warning) for a NULL @rev.
 */
int revocable_init(struct revocable_provider __rcu *rp, struct revocable *rev);

/**
 * revocable_deinit() - release a handle set up by revocable_init()
 * @rev: the handle
 *
 * Context: any.  A handle still inside an access of the caller is first
 * withdrawn, with a warning.  A second deinit, or deinit while another
 * context is inside an access, only warns.
 */
void revocable_deinit(struct revocable *rev);

/**
 * REVOCABLE_TRY_ACCESS_WITH() - access a resource until the end of the scope
 * @_rp: the provider (``struct revocable_provider __rcu *`` or a consumer
 *	reference), kept alive by the caller
 * @_res: a variable that receives the resource, or NULL if revoked
 *
 * The access is withdrawn automatically when the enclosing scope ends.  It
 * takes no reference.  As with guard(), no goto may jump over it.
 *
 * Example::
 *
 *	REVOCABLE_TRY_ACCESS_WITH(priv->rp, res);
 *	if (!res)
 *		return -ENODEV;
 *	return res->reg;
 *
 * Context: as revocable_access().
 */
#define REVOCABLE_TRY_ACCESS_WITH(_rp, _res)				\
	__REVOCABLE_TRY_ACCESS_WITH(_rp, __UNIQUE_ID(rev), _res)

/**
 * REVOCABLE_TRY_ACCESS_SCOPED() - access a resource for one block
 * @_rp: as for REVOCABLE_TRY_ACCESS_WITH()
 * @_res: a variable that receives the resource, or NULL if revoked
 *
 * The block runs once, whether or not the resource
 * is there; break or return inside it withdraw the access.
 *
 * Example::
 *
 *	REVOCABLE_TRY_ACCESS_SCOPED(priv->rp, res) {
 *		if (!res)
 *			return -ENODEV;
 *		val = res->reg;
 *	}
 *
 * Context: as revocable_access().
 */
#define REVOCABLE_TRY_ACCESS_SCOPED(_rp, _res)				\
	__REVOCABLE_TRY_ACCESS_SCOPED(_rp, __UNIQUE_ID(rev),		\
				      __UNIQUE_ID(done), _res)

/* ----- inline accesses -------------------------------------------------- */

/* The handle calls' out-of-line halves, in drivers/base/revocable.c. */
void *__revocable_access(struct revocable_provider *rp, struct revocable *rev);
void *__revocable_try_access(struct revocable *rev);
void __revocable_withdraw_access(struct revocable *rev);

/*
 * The handle calls are inline for the common case only: a live handle,
 * idle (try_access) or owned by the caller (withdraw).  Everything else
 * (NULL arguments, inert or deinitialised handles, a handle already inside
 * an access, refused accesses) goes out of line, which warns and returns
 * the documented result.  With CONFIG_REVOCABLE_DEBUG every call goes out
 * of line, where the claim of a handle is exact.
 */

/**
 * revocable_access() - enter an access through a provider reference
 * @rp: a provider the caller keeps alive (a consumer reference, or the
 *	owner's own slot value); NULL gives a NULL access
 * @rev: an access handle on the caller's stack; need not be initialised
 *
 * The fast path: no reference count moves and nothing shared is written.
 * End it with revocable_withdraw_access() in the same context, also when
 * the result is NULL.
 *
 * Example::
 *
 *	struct revocable acc;
 *	struct foo *foo = revocable_access(ref, &acc);
 *
 *	if (foo)
 *		foo_do(foo);
 *	revocable_withdraw_access(&acc);
 *
 * Context: any context that may enter an SRCU read-side section; the
 * access may sleep.
 * Return: the resource, valid until the access is withdrawn, or NULL when
 * it has been revoked.
 */
static __always_inline void *
revocable_access(struct revocable_provider *rp, struct revocable *rev)
{
	const struct __revocable_provider_head *h =
		(const struct __revocable_provider_head *)rp;

	if (IS_ENABLED(CONFIG_REVOCABLE_DEBUG) || unlikely(!rev || !rp))
		return __revocable_access(rp, rev);
	rev->rp = rp;
	rev->ssp = h->ssp;
	rev->refused = 0;
	rev->counted = false;
	WRITE_ONCE(rev->owner, current);
	rev->idx = revocable_srcu_read_lock(h->ssp);
	return revocable_srcu_dereference(h->res, h->ssp);
}

/**
 * revocable_try_access() - enter an access through an initialised handle
 * @rev: the handle
 *
 * A handle serves one access at a time: a second
 * access through a handle already inside one (shared between contexts, or
 * nested) is refused with a warning instead of corrupting the read index.
 *
 * Context: as revocable_access().
 * Return: the resource, valid until revocable_withdraw_access(), or NULL
 * when revoked, refused, or the handle is inert or deinitialised (the
 * last with a warning).
 */
static __always_inline void *revocable_try_access(struct revocable *rev)
{
	const struct __revocable_provider_head *h;

	if (IS_ENABLED(CONFIG_REVOCABLE_DEBUG) || unlikely(!rev) ||
	    IS_ERR_OR_NULL(rev->rp) || unlikely(READ_ONCE(rev->owner)))
		return __revocable_try_access(rev);
	h = (const struct __revocable_provider_head *)rev->rp;
	WRITE_ONCE(rev->owner, current);
	rev->idx = revocable_srcu_read_lock(rev->ssp);
	return revocable_srcu_dereference(h->res, rev->ssp);
}

/**
 * revocable_withdraw_access() - end an access
 * @rev: the handle of the access
 *
 * Context: the context that entered the access.  Withdrawing without an
 * access, or from another context, only warns.
 */
static __always_inline void revocable_withdraw_access(struct revocable *rev)
{
	/* Only the owner of a live access has its task in ->owner. */
	if (IS_ENABLED(CONFIG_REVOCABLE_DEBUG) || unlikely(!rev) ||
	    unlikely(READ_ONCE(rev->owner) != current || rev->refused)) {
		__revocable_withdraw_access(rev);
		return;
	}
	revocable_srcu_read_unlock(rev->ssp, rev->idx);
	/*
	 * Orders the unlock's read of ->idx before the next claim, whose
	 * store to ->idx depends on its load of ->owner (a control
	 * dependency).
	 */
	smp_store_release(&rev->owner, NULL);
}

/*
 * The scope forms need no handle: nothing outside the scope can reach
 * theirs, so they keep only what the end of the access needs, the domain
 * and the counters the access entered.  The domain is NULL when there is
 * no access: the counters' token may be NULL for a live one (Tiny SRCU's
 * srcu_read_lock_fast() returns the read index as a pointer).
 */
struct __revocable_guard {
	struct revocable_srcu *ssp;			/* NULL: no access */
	struct revocable_srcu_ctr __percpu *scp;
};

static __always_inline void *
__revocable_guard_enter(struct __revocable_guard *g,
			struct revocable_provider *rp)
{
	const struct __revocable_provider_head *h =
		(const struct __revocable_provider_head *)rp;

	if (unlikely(!rp)) {
		g->ssp = NULL;
		return NULL;
	}
	g->ssp = h->ssp;
	g->scp = revocable_srcu_enter(g->ssp);
	return revocable_srcu_dereference(h->res, g->ssp);
}

static __always_inline void __revocable_guard_exit(struct __revocable_guard *g)
{
	if (g->ssp)
		revocable_srcu_exit(g->ssp, g->scp);
}

#define __REVOCABLE_TRY_ACCESS_WITH(_rp, _g, _res)			\
	struct __revocable_guard _g __cleanup(__revocable_guard_exit);	\
	_res = __revocable_guard_enter(&_g, unrcu_pointer(_rp))

#define __REVOCABLE_TRY_ACCESS_SCOPED(_rp, _g, _done, _res)		\
	for (struct __revocable_guard _g __cleanup(__revocable_guard_exit) = {}, \
	     *_done = ((_res) = __revocable_guard_enter(&_g, unrcu_pointer(_rp)), \
		       NULL);						\
	     !_done; _done = (void *)1)

/**
 * struct revocable_scope - an access held by a subsystem's guard class
 * @res: the resource, or NULL when the provider has been revoked
 *
 * For subsystems that keep their call sites to one line with a guard class
 * of their own (gpiolib's ``gpio_chip_guard``).  Use it through
 * ``CLASS(revocable, name)(rp)`` or through revocable_scope_enter() and
 * revocable_scope_exit().  It costs what the scope macros cost: the
 * domain and the counters entered, no reference and no owner.
 */
struct revocable_scope {
	void *res;
	/* private: */
	struct __revocable_guard __g;
};

/**
 * revocable_scope_enter() - enter an access held in a struct revocable_scope
 * @s: the scope
 * @rp: the provider, kept alive by the caller (a consumer reference, or
 *	the value of the owner's slot); NULL gives a NULL access
 *
 * The scope may be copied while the access is held (a class constructor
 * returns it by value); exactly one copy is ended with
 * revocable_scope_exit(), in the context that entered the access.
 *
 * Context: as revocable_access().
 * Return: the resource, also stored in @s->res, or NULL when revoked.
 */
static __always_inline void *
revocable_scope_enter(struct revocable_scope *s, struct revocable_provider *rp)
{
	s->res = __revocable_guard_enter(&s->__g, rp);
	return s->res;
}

/**
 * revocable_scope_exit() - end an access entered by revocable_scope_enter()
 * @s: the scope
 *
 * Context: the context that entered the access.
 */
static __always_inline void revocable_scope_exit(struct revocable_scope *s)
{
	__revocable_guard_exit(&s->__g);
}

DEFINE_CLASS(revocable, struct revocable_scope, revocable_scope_exit(&_T),
	     ({
		struct revocable_scope __s;

		revocable_scope_enter(&__s, rp);
		__s;
	     }), struct revocable_provider *rp)

struct device;

/* Documented in drivers/base/revocable_devm.c. */
int devm_revocable_provider_alloc(struct device *dev,
				  struct revocable_provider __rcu **rpp,
				  void *res);
void *__revocable_access_bound_check(struct revocable_provider *rp,
				     struct device *dev);

/* For code that builds on kernels with and without the bound accessor. */
#define REVOCABLE_HAVE_ACCESS_BOUND	1

/**
 * revocable_access_bound() - the resource, for code that runs while bound
 * @rp: the provider, published by the driver bound to @dev (with
 *	devm_revocable_provider_alloc(), or revoked in its remove())
 * @dev: the device the driver is bound to
 *
 * While a driver is bound to @dev it has not revoked its provider yet:
 * its probe(), its remove() up to the revoke, and the callbacks that
 * remove() stops before revoking (its IRQ handlers, timers and work
 * items) need no access to use the resource.  This is their accessor: a
 * plain load, no read-side section, nothing to end.  Calling it from
 * anywhere else (a file operation, another driver) is a use-after-free
 * waiting for an unbind; use an access there.
 *
 * With CONFIG_REVOCABLE_DEBUG it sanity-checks its precondition, the two
 * ways a call after unbind shows: with no driver bound to @dev it warns
 * and returns NULL (whether or not @rp was revoked), and it warns when @rp
 * has been revoked.  It cannot prove that the caller is one of the
 * driver's own paths, nor see a callback that devres stops only after
 * the revoke: register the provider before what its users need.
 *
 * Context: any, while a driver is bound to @dev.
 * Return: the resource.  NULL (with a warning in debug builds) when @rp
 * has been revoked, which is a bug of the caller; in debug builds also
 * when no driver is bound to @dev.
 */
static __always_inline void *
revocable_access_bound(struct revocable_provider *rp, struct device *dev)
{
	struct __revocable_provider_head *h =
		(struct __revocable_provider_head *)rp;

	if (IS_ENABLED(CONFIG_REVOCABLE_DEBUG))
		return __revocable_access_bound_check(rp, dev);
	return rcu_dereference_raw(h->res);
}

#endif /* _LINUX_REVOCABLE_H */
