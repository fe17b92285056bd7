/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/platform_device.h>: enough of platform
 * drivers and devices for the KUnit suite to bind a driver to a device
 * and unbind it again (compat/device.c).  Registering a device whose name
 * matches the registered driver probes it at once, as the driver core
 * does for a registered driver.
 */
#ifndef _COMPAT_LINUX_PLATFORM_DEVICE_H
#define _COMPAT_LINUX_PLATFORM_DEVICE_H

#include <linux/device.h>

struct platform_device {
	struct device dev;
};

struct platform_driver {
	int (*probe)(struct platform_device *pdev);
	struct device_driver driver;
};

int platform_driver_register(struct platform_driver *drv);
void platform_driver_unregister(struct platform_driver *drv);
struct platform_device *platform_device_register_simple(const char *name,
							int id,
							const void *res,
							unsigned int num);
void platform_device_unregister(struct platform_device *pdev);

#endif
