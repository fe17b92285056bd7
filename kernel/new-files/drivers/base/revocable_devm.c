// SPDX-License-Identifier: GPL-2.0
/*
 * Device-managed revocable providers: published while a driver is bound,
 * revoked when it is unbound.
 */
#include <linux/bug.h>
#include <linux/device.h>
#include <linux/errno.h>
#include <linux/error-injection.h>
#include <linux/export.h>
#include <linux/rcupdate.h>
#include <linux/revocable.h>

static void devm_revocable_revoke(void *slot)
{
	revocable_revoke(slot);
}

/**
 * devm_revocable_provider_alloc() - publish a resource for as long as a driver is bound
 * @dev: the device whose driver owns the resource
 * @rpp: the owner's slot, empty; it must stay valid until the driver is
 *	unbound: a field of driver data allocated with devm_ before this
 *	call, or of memory that lives longer
 * @res: the resource; must not be NULL
 *
 * Publishes @res in the default domain through @rpp, as
 * revocable_provider_alloc() would, and registers a devres action that
 * revokes it through the same slot on unbind or probe failure.  The
 * action clears the slot and waits for accesses in progress before
 * devres goes on to release what was registered earlier, so the
 * resource and @rpp itself may be device-managed memory allocated before
 * this call.  Because the revoke goes through the slot, no pointer to the
 * provider is left behind in driver data; consumers keep references
 * taken with revocable_provider_get_rcu() while the driver is bound.  The
 * driver may revoke earlier itself; the action then finds the slot empty
 * and does nothing.
 *
 * Example::
 *
 *	priv = devm_kzalloc(dev, sizeof(*priv), GFP_KERNEL);
 *	...
 *	ret = devm_revocable_provider_alloc(dev, &priv->rp, &priv->hw);
 *	if (ret)
 *		return ret;
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL (with a warning) for a NULL @dev, @rpp or @res;
 * -EBUSY (with a warning) when @rpp already holds a provider; -ENOMEM,
 * in which case nothing is published.
 */
int devm_revocable_provider_alloc(struct device *dev,
				  struct revocable_provider __rcu **rpp,
				  void *res)
{
	struct revocable_provider __rcu *rp;

	if (WARN_ON_ONCE(!dev || !rpp || !res))
		return -EINVAL;
	if (WARN_ONCE(rcu_access_pointer(*rpp),
		      "%s: revocable slot already holds a provider\n", dev_name(dev)))
		return -EBUSY;
	rp = revocable_provider_alloc(res);
	if (!rp)
		return -ENOMEM;
	rcu_assign_pointer(*rpp, unrcu_pointer(rp));
	/* On failure the action runs at once: the slot is revoked again. */
	return devm_add_action_or_reset(dev, devm_revocable_revoke, rpp);
}
EXPORT_SYMBOL_GPL(devm_revocable_provider_alloc);
ALLOW_ERROR_INJECTION(devm_revocable_provider_alloc, ERRNO);

/*
 * revocable_access_bound() with CONFIG_REVOCABLE_DEBUG: the same load,
 * after a check of what the plain load relies on.  A driver's binding is
 * seen through dev->driver, which the driver core sets before probe() and
 * clears after remove() and the devres actions have run.  A call while
 * no driver is bound returns NULL even if the provider was never revoked
 * (a driver that forgot to): the resource may be freed already.
 */
void *__revocable_access_bound_check(struct revocable_provider *rp,
				     struct device *dev)
{
	void *res;

	if (WARN_ON_ONCE(!rp || !dev))
		return NULL;
	if (dev_WARN_ONCE(dev, !READ_ONCE(dev->driver),
			  "revocable_access_bound() with no driver bound\n"))
		return NULL;
	res = revocable_access_unchecked(rp);
	dev_WARN_ONCE(dev, !res,
		      "revocable_access_bound() after the provider was revoked\n");
	return res;
}
EXPORT_SYMBOL_GPL(__revocable_access_bound_check);
