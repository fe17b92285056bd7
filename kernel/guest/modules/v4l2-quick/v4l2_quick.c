// SPDX-License-Identifier: GPL-2.0
/*
 * A V4L2 driver that frees its state as soon as its device is unbound,
 * for the media unplug storm: vivid and vimc keep their state until the
 * last file is closed, so a video_unregister_device() that did not wait
 * for the file operations in progress would go unnoticed with them.  This
 * one asks for the wait (V4L2_FL_UNREGISTER_WAITS) and relies on it: its
 * remove() unregisters the video device and then poisons and frees the
 * state that its ioctls use.  Without the wait, an ioctl sleeping in the
 * driver wakes up on freed memory (KASAN reports a slab-use-after-free;
 * without KASAN the poisoned magic makes the ioctl fail with EIO and log
 * "v4l2-quick: state changed").
 *
 * The module registers the platform driver "v4l2-quick" and its one device
 * "v4l2-quick.0": unbind and bind it through
 * /sys/bus/platform/drivers/v4l2-quick/{unbind,bind}.  Each probe adds one
 * capture node, /sys/bus/platform/devices/v4l2-quick.0/video4linux/videoN,
 * with no buffers and no lock of its own, so its ioctls run concurrently:
 *
 *	VIDIOC_QUERYCAP		card is the state's name, "v4l2-quick"
 *	V4L2_QUICK_IOC_SLEEP	_IOW('V', BASE_VIDIOC_PRIVATE + 0, __u32),
 *				0x400456c0 on arm64 and x86: sleeps for
 *				the given number of milliseconds (at most
 *				QUICK_MAX_SLEEP_MS) inside the driver, reading
 *				the state before and after the sleep and
 *				writing to it after; 0, or -EIO if the state
 *				changed under it
 */
#include <linux/delay.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/videodev2.h>

#include <media/v4l2-dev.h>
#include <media/v4l2-device.h>
#include <media/v4l2-fh.h>
#include <media/v4l2-ioctl.h>

#define V4L2_QUICK_IOC_SLEEP	_IOW('V', BASE_VIDIOC_PRIVATE + 0, __u32)

#define QUICK_NAME		"v4l2-quick"
#define QUICK_MAGIC		0x51c4b00fU
#define QUICK_MAX_SLEEP_MS	200U

/* The driver's private state: freed right after the unregistration. */
struct quick_state {
	u32 magic;
	char name[32];
	spinlock_t lock;	/* protects sleeps and buf */
	unsigned long sleeps;
	char buf[256];
};

/*
 * What the device holds while it is bound.  The v4l2_device has its own
 * allocation and is freed by its release: the video device references it
 * until its own release, at the last close of its files.
 */
struct quick_dev {
	struct v4l2_device v4l2_dev;
	struct video_device *vdev;
	struct quick_state *state;
};

static bool quick_state_ok(struct quick_state *s, const char *what)
{
	u32 magic = READ_ONCE(s->magic);

	if (magic == QUICK_MAGIC)
		return true;
	pr_err(QUICK_NAME ": state changed under %s (magic %#x)\n", what, magic);
	return false;
}

static int quick_querycap(struct file *file, void *fh,
			  struct v4l2_capability *cap)
{
	struct quick_state *s = video_drvdata(file);

	if (!quick_state_ok(s, "VIDIOC_QUERYCAP"))
		return -EIO;
	strscpy(cap->driver, QUICK_NAME, sizeof(cap->driver));
	strscpy(cap->card, s->name, sizeof(cap->card));
	return 0;
}

static long quick_default(struct file *file, void *fh, bool valid_prio,
			  unsigned int cmd, void *arg)
{
	struct quick_state *s = video_drvdata(file);
	u32 ms;

	if (cmd != V4L2_QUICK_IOC_SLEEP)
		return -ENOTTY;
	ms = min(*(u32 *)arg, QUICK_MAX_SLEEP_MS);
	if (!quick_state_ok(s, "the sleep"))
		return -EIO;
	msleep(ms);
	/* The device may have been unbound meanwhile: its state must be. */
	if (!quick_state_ok(s, "the sleep, after it"))
		return -EIO;
	spin_lock(&s->lock);
	s->sleeps++;
	snprintf(s->buf, sizeof(s->buf), "sleep %lu: %u ms", s->sleeps, ms);
	spin_unlock(&s->lock);
	return 0;
}

static const struct v4l2_ioctl_ops quick_ioctl_ops = {
	.vidioc_querycap = quick_querycap,
	.vidioc_default = quick_default,
};

static const struct v4l2_file_operations quick_fops = {
	.owner = THIS_MODULE,
	.open = v4l2_fh_open,
	.release = v4l2_fh_release,
	.unlocked_ioctl = video_ioctl2,
};

static void quick_v4l2_release(struct v4l2_device *v4l2_dev)
{
	kfree(container_of(v4l2_dev, struct quick_dev, v4l2_dev));
}

static int quick_probe(struct platform_device *pdev)
{
	struct quick_dev *q;
	struct video_device *vdev;
	int ret;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->state = kzalloc(sizeof(*q->state), GFP_KERNEL);
	if (!q->state) {
		kfree(q);
		return -ENOMEM;
	}
	q->state->magic = QUICK_MAGIC;
	strscpy(q->state->name, QUICK_NAME, sizeof(q->state->name));
	spin_lock_init(&q->state->lock);

	platform_set_drvdata(pdev, q);
	q->v4l2_dev.release = quick_v4l2_release;
	ret = v4l2_device_register(&pdev->dev, &q->v4l2_dev);
	if (ret) {
		kfree(q->state);
		kfree(q);
		return ret;
	}

	vdev = video_device_alloc();
	if (!vdev) {
		ret = -ENOMEM;
		goto err_v4l2;
	}
	strscpy(vdev->name, QUICK_NAME, sizeof(vdev->name));
	vdev->v4l2_dev = &q->v4l2_dev;
	vdev->fops = &quick_fops;
	vdev->ioctl_ops = &quick_ioctl_ops;
	vdev->release = video_device_release;
	vdev->device_caps = V4L2_CAP_VIDEO_CAPTURE;
	/* No lock: the ioctls run concurrently. */
	vdev->lock = NULL;
	/* video_unregister_device() waits for the file operations. */
	set_bit(V4L2_FL_UNREGISTER_WAITS, &vdev->flags);
	video_set_drvdata(vdev, q->state);

	ret = video_register_device(vdev, VFL_TYPE_VIDEO, -1);
	if (ret) {
		video_device_release(vdev);
		goto err_v4l2;
	}
	q->vdev = vdev;
	dev_info(&pdev->dev, "%s\n", video_device_node_name(vdev));
	return 0;

err_v4l2:
	kfree(q->state);
	v4l2_device_unregister(&q->v4l2_dev);
	v4l2_device_put(&q->v4l2_dev);
	return ret;
}

static void quick_remove(struct platform_device *pdev)
{
	struct quick_dev *q = platform_get_drvdata(pdev);
	struct quick_state *s = q->state;

	/*
	 * Refuses new file operations and, with V4L2_FL_UNREGISTER_WAITS,
	 * waits for those in progress: once it returns, no ioctl of this
	 * driver runs on the device, and the state can go at once although
	 * files are still open.
	 */
	video_unregister_device(q->vdev);
	WRITE_ONCE(s->magic, 0);
	kfree(s);
	q->state = NULL;
	q->vdev = NULL;

	v4l2_device_unregister(&q->v4l2_dev);
	/* Frees q, or the video device's release will. */
	v4l2_device_put(&q->v4l2_dev);
}

static struct platform_driver quick_driver = {
	.probe = quick_probe,
	.remove = quick_remove,
	.driver = {
		.name = QUICK_NAME,
	},
};

static struct platform_device *quick_pdev;

static int __init quick_init(void)
{
	int ret;

	ret = platform_driver_register(&quick_driver);
	if (ret)
		return ret;
	quick_pdev = platform_device_register_simple(QUICK_NAME, 0, NULL, 0);
	if (IS_ERR(quick_pdev)) {
		platform_driver_unregister(&quick_driver);
		return PTR_ERR(quick_pdev);
	}
	return 0;
}

static void __exit quick_exit(void)
{
	platform_device_unregister(quick_pdev);
	platform_driver_unregister(&quick_driver);
}

module_init(quick_init);
module_exit(quick_exit);
MODULE_DESCRIPTION("A V4L2 driver that frees its state at unbind, for the media unplug storm");
MODULE_LICENSE("GPL");
