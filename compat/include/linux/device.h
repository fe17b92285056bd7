/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/device.h>: a device is a name and its list
 * of devres actions (compat/device.c), enough for a root device whose
 * unregistration runs the actions, newest first, as driver detach does.
 */
#ifndef _COMPAT_LINUX_DEVICE_H
#define _COMPAT_LINUX_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <linux/compiler.h>
#include <linux/bug.h>
#include <linux/err.h>

/*
 * A list of actions run newest first: a device's devres actions, and a
 * KUnit case's (tests/kunit/shim.c).
 */
struct compat_action;

struct compat_actions {
	pthread_mutex_t lock;
	struct compat_action *head;	/* newest first */
};

void compat_actions_init(struct compat_actions *l);
int compat_actions_add(struct compat_actions *l, void (*fn)(void *data),
		       void *data);
/* Removes the newest entry of @fn with @data; false if there is none. */
bool compat_actions_take(struct compat_actions *l, void (*fn)(void *data),
			 void *data);
/* Runs and removes every action, newest first. */
void compat_actions_run(struct compat_actions *l);

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
	struct compat_actions devres;
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
