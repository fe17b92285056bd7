// SPDX-License-Identifier: GPL-2.0
/*
 * Life cycles of the revocable core that no converted driver goes
 * through, for the fault sweep (kernel/guest/fault_sweep.c): each command
 * runs one whole cycle in the context of the task that writes it, so that
 * /proc/thread-self/fail-nth and fail_function fail its allocations there,
 * one at a time.
 *
 * /sys/kernel/debug/revocable_faults/run (write one command):
 *	"domain"	a domain of its own, a provider in it, a consumer handle
 *			(revocable_init()) that accesses the resource, a
 *			synchronous revoke, the handle's deinit, the domain's
 *			free
 *	"async"		the same, revoked with revocable_revoke_async(); its
 *			done callback frees the resource
 *	"batch"		three providers, two in a domain of its own and one in
 *			the default domain, revoked by one
 *			revocable_revoke_batch() (whose own allocation has a
 *			fallback)
 *	"devm"		devm_revocable_provider_alloc() on a device of this
 *			module's inside a devres group, accessed through a
 *			consumer reference, then the group released
 *	The write returns its count when the cycle completed, -ENOMEM when an
 *	allocation failed (what was done is undone first), and -EPROTO when
 *	the core broke its contract, which the console then describes.
 * /sys/kernel/debug/revocable_faults/live (read): resources allocated and
 *	not yet freed; 0 between commands.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/revocable.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define RF_NAME		"revocable_faults"
#define RF_BATCH	3

static struct dentry *rf_dir;
static struct device *rf_dev;
static DEFINE_MUTEX(rf_lock);		/* one cycle at a time */
static atomic_t rf_live;

static char *rf_res_alloc(void)
{
	char *res = kstrdup(RF_NAME, GFP_KERNEL);

	if (res)
		atomic_inc(&rf_live);
	return res;
}

static void rf_res_free(void *res)
{
	if (!res)
		return;
	kfree(res);
	atomic_dec(&rf_live);
}

/* The core broke its contract: said on the console, -EPROTO to the writer. */
static int rf_broken(const char *cycle, const char *what, long val)
{
	pr_err("%s: %s (%ld)\n", cycle, what, val);
	return -EPROTO;
}

/* The consumer handle @rev must see @want: the resource, or NULL once revoked. */
static int rf_handle_sees(const char *cycle, struct revocable *rev, void *want)
{
	void *got = revocable_try_access(rev);
	int ret = 0;

	if (got != want)
		ret = rf_broken(cycle, want ? "a live resource reads as revoked" :
				"a revoked resource is still accessible", 0);
	revocable_withdraw_access(rev);
	return ret;
}

struct rf_async {
	struct completion done;
	void *res;
};

/* Every access has ended: the resource may go (bottom halves disabled). */
static void rf_async_done(void *arg)
{
	struct rf_async *a = arg;

	rf_res_free(a->res);
	complete(&a->done);
}

static int rf_domain(bool async)
{
	const char *cycle = async ? "async" : "domain";
	struct revocable_provider __rcu *slot;
	struct revocable_domain *dom;
	struct rf_async a;
	struct revocable rev;
	int ret = 0, n, err;

	init_completion(&a.done);
	dom = revocable_domain_alloc(RF_NAME);
	if (!dom)
		return -ENOMEM;
	a.res = rf_res_alloc();
	if (!a.res) {
		ret = -ENOMEM;
		goto free_dom;
	}
	slot = revocable_provider_alloc_in(dom, a.res);
	if (!slot) {
		rf_res_free(a.res);
		ret = -ENOMEM;
		goto free_dom;
	}

	err = revocable_init(slot, &rev);
	if (err)
		ret = rf_broken(cycle, "revocable_init() of a live provider failed", err);
	else
		ret = rf_handle_sees(cycle, &rev, a.res);

	if (async) {
		n = revocable_revoke_async(&slot, rf_async_done, &a);
		if (n == 1)
			wait_for_completion(&a.done);
		else
			rf_res_free(a.res);
	} else {
		n = revocable_revoke(&slot);
		rf_res_free(a.res);
	}
	if (n != 1)
		ret = rf_broken(cycle, "the revoke of a live provider returned", n);

	if (!err) {
		if (!ret)
			ret = rf_handle_sees(cycle, &rev, NULL);
		revocable_deinit(&rev);
	}
free_dom:
	err = revocable_domain_free(dom);
	if (err)
		ret = rf_broken(cycle, "revocable_domain_free() failed", err);
	return ret;
}

static int rf_batch(void)
{
	struct revocable_provider __rcu *slot[RF_BATCH] = {};
	struct revocable_provider __rcu **const rpps[RF_BATCH] = {
		&slot[0], &slot[1], &slot[2],
	};
	char *res[RF_BATCH] = {};
	struct revocable_domain *dom;
	int i, n, ret = 0, published = 0;

	dom = revocable_domain_alloc(RF_NAME);
	if (!dom)
		return -ENOMEM;
	for (i = 0; i < RF_BATCH; i++) {
		res[i] = rf_res_alloc();
		if (!res[i]) {
			ret = -ENOMEM;
			break;
		}
		if (i < RF_BATCH - 1)
			slot[i] = revocable_provider_alloc_in(dom, res[i]);
		else
			slot[i] = revocable_provider_alloc(res[i]);
		if (!slot[i]) {
			ret = -ENOMEM;
			break;
		}
		published++;
	}
	/* What was published goes in one batch, after a failure too. */
	n = revocable_revoke_batch(rpps, RF_BATCH);
	if (n != published)
		ret = rf_broken("batch", "revocable_revoke_batch() miscounted", n);
	for (i = 0; i < RF_BATCH; i++) {
		if (rcu_access_pointer(slot[i]))
			ret = rf_broken("batch", "a slot was left published", i);
		else
			rf_res_free(res[i]);
	}
	n = revocable_domain_free(dom);
	if (n)
		ret = rf_broken("batch", "revocable_domain_free() failed", n);
	return ret;
}

static int rf_devm(void)
{
	struct revocable_provider __rcu *slot = NULL;
	struct revocable_provider *ref;
	struct revocable acc;
	void *grp, *got;
	char *res;
	int ret;

	grp = devres_open_group(rf_dev, NULL, GFP_KERNEL);
	if (!grp)
		return -ENOMEM;
	res = rf_res_alloc();
	if (!res) {
		devres_release_group(rf_dev, grp);
		return -ENOMEM;
	}
	ret = devm_revocable_provider_alloc(rf_dev, &slot, res);
	if (ret && ret != -ENOMEM)
		ret = rf_broken("devm", "devm_revocable_provider_alloc() returned", ret);
	if (ret && rcu_access_pointer(slot))
		ret = rf_broken("devm", "a failed allocation left its slot published",
				ret);
	if (!ret) {
		ref = revocable_provider_get_rcu(&slot);
		got = revocable_access(ref, &acc);
		if (got != res)
			ret = rf_broken("devm", "a consumer reference misses the resource",
					0);
		revocable_withdraw_access(&acc);
		revocable_provider_put(ref);
	}
	/* The devres action revokes through the slot. */
	devres_release_group(rf_dev, grp);
	if (rcu_access_pointer(slot))
		return rf_broken("devm", "the devres release left the slot published",
				 0);
	rf_res_free(res);
	return ret;
}

static ssize_t rf_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char cmd[16];
	int ret;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';

	mutex_lock(&rf_lock);
	if (sysfs_streq(cmd, "domain"))
		ret = rf_domain(false);
	else if (sysfs_streq(cmd, "async"))
		ret = rf_domain(true);
	else if (sysfs_streq(cmd, "batch"))
		ret = rf_batch();
	else if (sysfs_streq(cmd, "devm"))
		ret = rf_devm();
	else
		ret = -EINVAL;
	mutex_unlock(&rf_lock);
	return ret ? ret : count;
}

static const struct file_operations rf_run_fops = {
	.owner = THIS_MODULE,
	.write = rf_run_write,
};

static int __init rf_init(void)
{
	rf_dev = root_device_register(RF_NAME);
	if (IS_ERR(rf_dev))
		return PTR_ERR(rf_dev);
	rf_dir = debugfs_create_dir(RF_NAME, NULL);
	debugfs_create_file("run", 0200, rf_dir, NULL, &rf_run_fops);
	debugfs_create_atomic_t("live", 0444, rf_dir, &rf_live);
	return 0;
}

static void __exit rf_exit(void)
{
	debugfs_remove_recursive(rf_dir);
	root_device_unregister(rf_dev);
}

module_init(rf_init);
module_exit(rf_exit);
MODULE_DESCRIPTION("Life cycles of the revocable core for the fault sweep");
MODULE_LICENSE("GPL");
