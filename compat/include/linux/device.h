/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/device.h>: a device is a name and its list
 * of devres actions (compat/device.c), enough for a root device whose
 * unregistration runs the actions, newest first, as driver detach does.
 */
#ifndef _COMPAT_LINUX_DEVICE_H
#define _COMPAT_LINUX_DEVICE_H

#include <pthread.h>
#include <linux/compiler.h>
#include <linux/bug.h>
#include <linux/err.h>

struct compat_devres;

enum probe_type {
	PROBE_DEFAULT_STRATEGY,
	PROBE_PREFER_ASYNCHRONOUS,
	PROBE_FORCE_SYNCHRONOUS,
};

struct device_driver {
	const char *name;
	enum probe_type probe_type;	/* the shim always probes at once */
};

struct device {
	char *name;
	const struct device_driver *driver;	/* NULL: not bound */
	pthread_mutex_t devres_lock;
	struct compat_devres *devres;	/* newest first */
};

static inline const char *dev_name(const struct device *dev)
{
	return dev->name;
}

#define dev_WARN_ONCE(dev, cond, fmt, ...)				\
	WARN_ONCE(cond, "%s: " fmt, dev_name(dev), ##__VA_ARGS__)

/* A device with no bus and no driver: ERR_PTR(-ENOMEM) if none. */
struct device *root_device_register(const char *name);
/* Runs the device's devres actions and frees it. */
void root_device_unregister(struct device *root);

/*
 * Unbind @dev's driver as the driver core does: devres actions first,
 * newest first, then dev->driver cleared.
 */
void device_release_driver(struct device *dev);

int __must_check devm_add_action(struct device *dev,
				 void (*action)(void *data), void *data);

static inline int __must_check
devm_add_action_or_reset(struct device *dev, void (*action)(void *data),
			 void *data)
{
	int ret = devm_add_action(dev, action, data);

	if (ret)
		action(data);
	return ret;
}

#endif
