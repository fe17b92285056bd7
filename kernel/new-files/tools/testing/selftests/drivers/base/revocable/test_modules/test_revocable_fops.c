// SPDX-License-Identifier: GPL-2.0
/*
 * A character device behind revocable file operations, for the kselftest.
 *
 * /sys/kernel/debug/revocable_fops_test/plug (write):
 *	"1"	create /dev/revocable_fops_test (a misc device)
 *	"0"	unplug it: deregister, revoke, and free its resource at once
 * /sys/kernel/debug/revocable_fops_test/{opens,releases,revokes} (read):
 *	how many opens and releases of the device's files, and revokes, so
 *	far (all devices)
 *
 * The device's resource (a message buffer and a page that mmap maps) is
 * freed right after the revoke: an operation running after it would be a
 * use-after-free that KASAN reports.  What outlives the device (its wait
 * queue, which poll() may still be registered on, and its miscdevice) is
 * reference-counted by the open files.
 *
 * The device: write() stores a message; read() returns it, blocking until
 * there is one; poll() reports it; ioctl RFO_IOC_GEN returns the device's
 * generation, RFO_IOC_SLEEP sleeps arg milliseconds inside the call first;
 * lseek moves within the 64-byte buffer; mmap maps a page whose first word
 * is the generation, faulted in on access.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/revocable_fops.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define RFO_IOC_GEN	_IO('R', 1)
#define RFO_IOC_SLEEP	_IO('R', 2)
#define MSG_MAX		64

struct tres {
	char msg[MSG_MAX];
	size_t len;
	unsigned long page;
	int gen;
	int maps;
};

struct tdev {
	struct kref kref;
	struct miscdevice misc;
	wait_queue_head_t wq;
	struct revocable_fops *rfo;
	struct tres *res;
	struct mutex lock;		/* msg */
};

struct tfile {
	struct tdev *t;
	struct fasync_struct *fasync;
};

static DEFINE_MUTEX(plug_lock);
static struct tdev *plugged;
static int generation;
static atomic_t opens, releases, revokes;
static struct dentry *dir;

static void tdev_free(struct kref *kref)
{
	struct tdev *t = container_of(kref, struct tdev, kref);

	revocable_fops_put(t->rfo);
	kfree(t);
}

static struct tdev *tdev_of(struct file *file)
{
	return ((struct tfile *)file->private_data)->t;
}

static int t_open(struct inode *inode, struct file *file)
{
	struct tdev *t = container_of(file->private_data, struct tdev, misc);
	struct tfile *tf = kzalloc_obj(*tf, GFP_KERNEL);

	if (!tf)
		return -ENOMEM;
	tf->t = t;
	kref_get(&t->kref);
	file->private_data = tf;
	atomic_inc(&opens);
	return 0;
}

static int t_release(struct inode *inode, struct file *file)
{
	struct tfile *tf = file->private_data;

	atomic_inc(&releases);
	kref_put(&tf->t->kref, tdev_free);
	kfree(tf);
	return 0;
}

static ssize_t t_read(struct file *file, char __user *buf, size_t len,
		      loff_t *ppos)
{
	struct tdev *t = tdev_of(file);
	struct tres *r = t->res;
	char msg[MSG_MAX];
	size_t n;
	int ret;

	if (!(file->f_flags & O_NONBLOCK)) {
		ret = wait_event_interruptible(t->wq, READ_ONCE(r->len) ||
					       revocable_fops_revoked(t->rfo));
		if (ret)
			return ret;
	}
	mutex_lock(&t->lock);
	n = min(len, r->len);
	memcpy(msg, r->msg, n);
	mutex_unlock(&t->lock);
	if (!n)
		return revocable_fops_revoked(t->rfo) ? -ENODEV : -EAGAIN;
	return copy_to_user(buf, msg, n) ? -EFAULT : n;
}

static ssize_t t_write(struct file *file, const char __user *buf,
		       size_t len, loff_t *ppos)
{
	struct tdev *t = tdev_of(file);
	char msg[MSG_MAX];

	len = min(len, sizeof(msg));
	if (copy_from_user(msg, buf, len))
		return -EFAULT;
	mutex_lock(&t->lock);
	memcpy(t->res->msg, msg, len);
	WRITE_ONCE(t->res->len, len);
	mutex_unlock(&t->lock);
	wake_up_interruptible(&t->wq);
	return len;
}

static __poll_t t_poll(struct file *file, struct poll_table_struct *pt)
{
	struct tdev *t = tdev_of(file);

	poll_wait(file, &t->wq, pt);
	return EPOLLOUT | EPOLLWRNORM |
		(READ_ONCE(t->res->len) ? EPOLLIN | EPOLLRDNORM : 0);
}

static long t_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tdev *t = tdev_of(file);

	switch (cmd) {
	case RFO_IOC_SLEEP:
		msleep(min(arg, 1000UL));
		fallthrough;
	case RFO_IOC_GEN:
		return READ_ONCE(t->res->gen);
	}
	return -ENOTTY;
}

static loff_t t_llseek(struct file *file, loff_t off, int whence)
{
	return fixed_size_llseek(file, off, whence, sizeof(tdev_of(file)->res->msg));
}

static int t_flush(struct file *file, fl_owner_t id)
{
	return READ_ONCE(tdev_of(file)->res->gen) > 0 ? 0 : -EIO;
}

static int t_fasync(int fd, struct file *file, int on)
{
	struct tfile *tf = file->private_data;

	return fasync_helper(fd, file, on, &tf->fasync);
}

static void t_vm_open(struct vm_area_struct *vma)
{
	struct tdev *t = vma->vm_private_data;

	t->res->maps++;
}

static void t_vm_close(struct vm_area_struct *vma)
{
	struct tdev *t = vma->vm_private_data;

	t->res->maps--;
}

static vm_fault_t t_vm_fault(struct vm_fault *vmf)
{
	struct tdev *t = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff)
		return VM_FAULT_SIGBUS;
	page = virt_to_page((void *)t->res->page);
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct t_vm_ops = {
	.open	= t_vm_open,
	.close	= t_vm_close,
	.fault	= t_vm_fault,
};

static int t_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct tdev *t = tdev_of(file);

	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	vma->vm_ops = &t_vm_ops;
	vma->vm_private_data = t;
	t->res->maps++;
	return 0;
}

static const struct file_operations t_fops = {
	.owner		= THIS_MODULE,
	.open		= t_open,
	.release	= t_release,
	.read		= t_read,
	.write		= t_write,
	.poll		= t_poll,
	.unlocked_ioctl	= t_ioctl,
	.compat_ioctl	= t_ioctl,
	.llseek		= t_llseek,
	.flush		= t_flush,
	.fasync		= t_fasync,
	.mmap		= t_mmap,
};

static void t_cancel(void *res)
{
	struct tdev *t = res;

	wake_up_interruptible_all(&t->wq);
}

static int plug(void)
{
	struct revocable_fops_desc d = {
		.fops = &t_fops, .cancel = t_cancel, .name = "revocable_fops_test",
	};
	struct tdev *t;
	int ret;

	if (plugged)
		return -EBUSY;
	t = kzalloc_obj(*t, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->res = kzalloc_obj(*t->res, GFP_KERNEL);
	if (t->res)
		t->res->page = get_zeroed_page(GFP_KERNEL);
	if (!t->res || !t->res->page) {
		kfree(t->res);
		kfree(t);
		return -ENOMEM;
	}
	kref_init(&t->kref);
	init_waitqueue_head(&t->wq);
	mutex_init(&t->lock);
	t->res->gen = ++generation;
	*(int *)t->res->page = t->res->gen;
	d.res = t;
	t->rfo = revocable_fops_create(&d);
	if (IS_ERR(t->rfo)) {
		ret = PTR_ERR(t->rfo);
		goto err;
	}
	t->misc.minor = MISC_DYNAMIC_MINOR;
	t->misc.name = "revocable_fops_test";
	t->misc.fops = revocable_fops_ops(t->rfo);
	t->misc.mode = 0666;
	ret = misc_register(&t->misc);
	if (ret) {
		revocable_fops_revoke(t->rfo);
		revocable_fops_put(t->rfo);
		goto err;
	}
	plugged = t;
	return 0;
err:
	free_page(t->res->page);
	kfree(t->res);
	kfree(t);
	return ret;
}

static int unplug(void)
{
	struct tdev *t = plugged;
	struct tres *r;

	if (!t)
		return -ENODEV;
	plugged = NULL;
	misc_deregister(&t->misc);
	if (revocable_fops_revoke(t->rfo) == 1)
		atomic_inc(&revokes);
	/* No operation runs any more: the resource goes now. */
	r = t->res;
	free_page(r->page);
	kfree(r);
	kref_put(&t->kref, tdev_free);
	return 0;
}

static ssize_t plug_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(buf, len, &on);
	if (ret)
		return ret;
	mutex_lock(&plug_lock);
	ret = on ? plug() : unplug();
	mutex_unlock(&plug_lock);
	return ret ? ret : len;
}

static const struct file_operations plug_fops = {
	.owner = THIS_MODULE,
	.write = plug_write,
};

static int __init rfo_test_init(void)
{
	dir = debugfs_create_dir("revocable_fops_test", NULL);
	debugfs_create_file("plug", 0200, dir, NULL, &plug_fops);
	debugfs_create_atomic_t("opens", 0444, dir, &opens);
	debugfs_create_atomic_t("releases", 0444, dir, &releases);
	debugfs_create_atomic_t("revokes", 0444, dir, &revokes);
	return 0;
}

static void __exit rfo_test_exit(void)
{
	debugfs_remove_recursive(dir);
	mutex_lock(&plug_lock);
	unplug();
	mutex_unlock(&plug_lock);
}

module_init(rfo_test_init);
module_exit(rfo_test_exit);
MODULE_DESCRIPTION("Test device for revocable file operations");
MODULE_LICENSE("GPL");
