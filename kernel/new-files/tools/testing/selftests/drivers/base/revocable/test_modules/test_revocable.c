// SPDX-License-Identifier: GPL-2.0
/*
 * A debugfs driver for the revocable kselftest.
 *
 * /sys/kernel/debug/revocable_test/provider (write):
 *	"alloc STRING"	publish STRING as the resource
 *	"revoke"	revoke it (two-phase) and free it
 * /sys/kernel/debug/revocable_test/consumer (read):
 *	open() takes a consumer reference from the provider's slot, release()
 *	drops it.  pread() at offset 0 reads the resource through
 *	revocable_access(), at offset 1 through REVOCABLE_TRY_ACCESS_WITH(),
 *	at offset 2 through REVOCABLE_TRY_ACCESS_SCOPED(); a revoked resource
 *	reads as "(gone)".
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/revocable.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define RES_MAX 64

static struct dentry *test_dir;
static DEFINE_MUTEX(test_lock);		/* serialises the owner's commands */
static struct revocable_provider __rcu *test_slot;
static char *test_res;			/* the owner's pointer, under test_lock */

static int consumer_open(struct inode *inode, struct file *filp)
{
	/* NULL when there is no device: reads then report it gone. */
	filp->private_data = revocable_provider_get_rcu(&test_slot);
	return 0;
}

static int consumer_release(struct inode *inode, struct file *filp)
{
	revocable_provider_put(filp->private_data);
	return 0;
}

static ssize_t consumer_read(struct file *filp, char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct revocable_provider *ref = filp->private_data;
	char data[RES_MAX + 1];
	struct revocable acc;
	char *res;

	switch (*ppos) {
	case 0:
		res = revocable_access(ref, &acc);
		strscpy(data, res ? res : "(gone)", sizeof(data));
		revocable_withdraw_access(&acc);
		break;
	case 1: {
		REVOCABLE_TRY_ACCESS_WITH(ref, res);
		strscpy(data, res ? res : "(gone)", sizeof(data));
		break;
	}
	case 2:
		REVOCABLE_TRY_ACCESS_SCOPED(ref, res)
			strscpy(data, res ? res : "(gone)", sizeof(data));
		break;
	default:
		return 0;
	}
	count = min(count, strlen(data));
	if (copy_to_user(buf, data, count))
		return -EFAULT;
	return count;
}

static const struct file_operations consumer_fops = {
	.owner = THIS_MODULE,
	.open = consumer_open,
	.release = consumer_release,
	.read = consumer_read,
	.llseek = default_llseek,
};

static void test_revoke_locked(void)
{
	struct revocable_provider *rp = revocable_revoke_begin(&test_slot);

	if (!rp)
		return;
	revocable_revoke_wait(rp);
	kfree(test_res);
	test_res = NULL;
}

static ssize_t provider_write(struct file *filp, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct revocable_provider __rcu *rp;
	char cmd[RES_MAX + 8];
	ssize_t ret = count;
	char *res;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	strim(cmd);

	mutex_lock(&test_lock);
	if (!strcmp(cmd, "revoke")) {
		test_revoke_locked();
	} else if (!strncmp(cmd, "alloc ", 6)) {
		if (test_res) {
			ret = -EBUSY;
			goto out;
		}
		res = kstrdup(cmd + 6, GFP_KERNEL);
		rp = res ? revocable_provider_alloc(res) : NULL;
		if (!rp) {
			kfree(res);
			ret = -ENOMEM;
			goto out;
		}
		test_res = res;
		rcu_assign_pointer(test_slot, unrcu_pointer(rp));
	} else {
		ret = -EINVAL;
	}
out:
	mutex_unlock(&test_lock);
	return ret;
}

static const struct file_operations provider_fops = {
	.owner = THIS_MODULE,
	.write = provider_write,
};

static int __init revocable_test_init(void)
{
	test_dir = debugfs_create_dir("revocable_test", NULL);
	debugfs_create_file("provider", 0200, test_dir, NULL, &provider_fops);
	debugfs_create_file("consumer", 0400, test_dir, NULL, &consumer_fops);
	return 0;
}

static void __exit revocable_test_exit(void)
{
	debugfs_remove(test_dir);
	mutex_lock(&test_lock);
	test_revoke_locked();
	mutex_unlock(&test_lock);
	revocable_domain_barrier(revocable_default_domain());
}

module_init(revocable_test_init);
module_exit(revocable_test_exit);
MODULE_DESCRIPTION("debugfs driver for the revocable kselftest");
MODULE_LICENSE("GPL");
