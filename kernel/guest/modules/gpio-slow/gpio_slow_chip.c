// SPDX-License-Identifier: GPL-2.0
/*
 * A GPIO chip whose callbacks sleep, like those of an expander on a slow
 * bus, for the GPIO unplug storm: its readers are still inside the driver
 * when the chip is removed, so a removal that does not wait for them lets
 * them touch freed memory (KASAN).  gpio-sim's callbacks are too short to
 * show that.
 *
 * /sys/kernel/debug/gpio-slow/live: write 1 to add the chip, 0 to remove it
 * and free its state; read gives the chip's device name (gpiochipN) or
 * nothing.  The module parameter delay_us sets how long each get/set sleeps.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/gpio/driver.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/version.h>

#define SLOW_NLINES	4

static unsigned int delay_us = 2000;
module_param(delay_us, uint, 0644);
MODULE_PARM_DESC(delay_us, "how long each get and set sleeps");

struct slow_chip {
	struct gpio_chip gc;
	unsigned long *values;	/* freed at removal, separately */
};

static DEFINE_MUTEX(slow_lock);
static struct slow_chip *slow;
static struct dentry *slow_dir;

static int slow_get(struct gpio_chip *gc, unsigned int offset)
{
	struct slow_chip *c = gpiochip_get_data(gc);
	unsigned long *values = c->values;

	usleep_range(delay_us, delay_us + 100);
	return test_bit(offset, values);
}

static int slow_set(struct gpio_chip *gc, unsigned int offset, int value)
{
	struct slow_chip *c = gpiochip_get_data(gc);
	unsigned long *values = c->values;

	usleep_range(delay_us, delay_us + 100);
	assign_bit(offset, values, value);
	return 0;
}

static int slow_get_direction(struct gpio_chip *gc, unsigned int offset)
{
	return GPIO_LINE_DIRECTION_OUT;
}

static int slow_direction_output(struct gpio_chip *gc, unsigned int offset,
				 int value)
{
	return slow_set(gc, offset, value);
}

static int slow_add(void)
{
	struct slow_chip *c;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->values = bitmap_zalloc(SLOW_NLINES, GFP_KERNEL);
	if (!c->values) {
		kfree(c);
		return -ENOMEM;
	}
	c->gc.label = "gpio-slow";
	c->gc.owner = THIS_MODULE;
	c->gc.base = -1;
	c->gc.ngpio = SLOW_NLINES;
	c->gc.can_sleep = true;
	c->gc.get = slow_get;
	/* 6.12 has both forms, the int one as set_rv; 6.17 kept only that. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
	c->gc.set_rv = slow_set;
#else
	c->gc.set = slow_set;
#endif
	c->gc.get_direction = slow_get_direction;
	c->gc.direction_output = slow_direction_output;
	ret = gpiochip_add_data(&c->gc, c);
	if (ret) {
		bitmap_free(c->values);
		kfree(c);
		return ret;
	}
	slow = c;
	return 0;
}

static void slow_remove(void)
{
	gpiochip_remove(&slow->gc);
	/* The removal waited for the readers: nothing uses these any more. */
	bitmap_free(slow->values);
	kfree(slow);
	slow = NULL;
}

static ssize_t live_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	bool on;
	int ret = kstrtobool_from_user(buf, count, &on);

	if (ret)
		return ret;
	guard(mutex)(&slow_lock);
	if (on && !slow)
		ret = slow_add();
	else if (!on && slow)
		slow_remove();
	return ret ? ret : count;
}

static ssize_t live_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	char name[32] = "";

	scoped_guard(mutex, &slow_lock)
		if (slow)
			snprintf(name, sizeof(name), "%s\n",
				 dev_name(gpio_device_to_device(slow->gc.gpiodev)));
	return simple_read_from_buffer(buf, count, ppos, name, strlen(name));
}

static const struct file_operations live_fops = {
	.owner = THIS_MODULE,
	.read = live_read,
	.write = live_write,
	.llseek = default_llseek,
};

static int __init slow_init(void)
{
	slow_dir = debugfs_create_dir("gpio-slow", NULL);
	debugfs_create_file("live", 0600, slow_dir, NULL, &live_fops);
	return 0;
}

static void __exit slow_exit(void)
{
	debugfs_remove_recursive(slow_dir);
	guard(mutex)(&slow_lock);
	if (slow)
		slow_remove();
}

module_init(slow_init);
module_exit(slow_exit);
MODULE_DESCRIPTION("A GPIO chip with sleeping callbacks, for the unplug storm");
MODULE_LICENSE("GPL");
