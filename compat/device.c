// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Root devices, devres actions and platform drivers for the KUnit shim
 * (<linux/device.h>, <linux/platform_device.h>).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <linux/device.h>
#include <linux/platform_device.h>

struct compat_devres {
	void (*action)(void *data);
	void *data;
	struct compat_devres *next;
};

struct device *root_device_register(const char *name)
{
	struct device *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->name = strdup(name);
	if (!dev->name) {
		free(dev);
		return ERR_PTR(-ENOMEM);
	}
	pthread_mutex_init(&dev->devres_lock, NULL);
	return dev;
}

int devm_add_action(struct device *dev, void (*action)(void *data),
		    void *data)
{
	struct compat_devres *dr = malloc(sizeof(*dr));

	if (!dr)
		return -ENOMEM;
	dr->action = action;
	dr->data = data;
	pthread_mutex_lock(&dev->devres_lock);
	dr->next = dev->devres;
	dev->devres = dr;
	pthread_mutex_unlock(&dev->devres_lock);
	return 0;
}

static void compat_devres_release_all(struct device *dev)
{
	struct compat_devres *dr;

	for (;;) {
		pthread_mutex_lock(&dev->devres_lock);
		dr = dev->devres;
		if (dr)
			dev->devres = dr->next;
		pthread_mutex_unlock(&dev->devres_lock);
		if (!dr)
			break;
		dr->action(dr->data);
		free(dr);
	}
}

void root_device_unregister(struct device *dev)
{
	compat_devres_release_all(dev);
	pthread_mutex_destroy(&dev->devres_lock);
	free(dev->name);
	free(dev);
}

void device_release_driver(struct device *dev)
{
	if (!dev->driver)
		return;
	compat_devres_release_all(dev);
	__atomic_store_n(&dev->driver, NULL, __ATOMIC_RELEASE);
}

/* One registered platform driver at a time is all the suite needs. */
static struct platform_driver *compat_platform_driver;

int platform_driver_register(struct platform_driver *drv)
{
	if (compat_platform_driver)
		return -EBUSY;
	compat_platform_driver = drv;
	return 0;
}

void platform_driver_unregister(struct platform_driver *drv)
{
	if (compat_platform_driver == drv)
		compat_platform_driver = NULL;
}

struct platform_device *platform_device_register_simple(const char *name,
							int id,
							const void *res,
							unsigned int num)
{
	struct platform_driver *drv = compat_platform_driver;
	struct platform_device *pdev = calloc(1, sizeof(*pdev));

	(void)id;
	(void)res;
	(void)num;
	if (!pdev)
		return ERR_PTR(-ENOMEM);
	pdev->dev.name = strdup(name);
	if (!pdev->dev.name) {
		free(pdev);
		return ERR_PTR(-ENOMEM);
	}
	pthread_mutex_init(&pdev->dev.devres_lock, NULL);
	/* Bind as the driver core does: dev->driver is set during probe. */
	if (drv && !strcmp(drv->driver.name, name)) {
		pdev->dev.driver = &drv->driver;
		if (drv->probe(pdev)) {
			compat_devres_release_all(&pdev->dev);
			pdev->dev.driver = NULL;
		}
	}
	return pdev;
}

void platform_device_unregister(struct platform_device *pdev)
{
	if (IS_ERR_OR_NULL(pdev))
		return;
	device_release_driver(&pdev->dev);
	pthread_mutex_destroy(&pdev->dev.devres_lock);
	free(pdev->dev.name);
	free(pdev);
}
