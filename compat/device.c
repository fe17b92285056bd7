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

struct compat_action {
	void (*fn)(void *data);
	void *data;
	struct compat_action *next;
};

void compat_actions_init(struct compat_actions *l)
{
	pthread_mutex_init(&l->lock, NULL);
	l->head = NULL;
}

int compat_actions_add(struct compat_actions *l, void (*fn)(void *data),
		       void *data)
{
	struct compat_action *a = malloc(sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->fn = fn;
	a->data = data;
	pthread_mutex_lock(&l->lock);
	a->next = l->head;
	l->head = a;
	pthread_mutex_unlock(&l->lock);
	return 0;
}

bool compat_actions_take(struct compat_actions *l, void (*fn)(void *data),
			 void *data)
{
	struct compat_action **pp, *a = NULL;

	pthread_mutex_lock(&l->lock);
	for (pp = &l->head; *pp; pp = &(*pp)->next) {
		if ((*pp)->fn == fn && (*pp)->data == data) {
			a = *pp;
			*pp = a->next;
			break;
		}
	}
	pthread_mutex_unlock(&l->lock);
	free(a);
	return a;
}

/* An action may add or take others: the lock is not held while it runs. */
void compat_actions_run(struct compat_actions *l)
{
	struct compat_action *a;

	for (;;) {
		pthread_mutex_lock(&l->lock);
		a = l->head;
		if (a)
			l->head = a->next;
		pthread_mutex_unlock(&l->lock);
		if (!a)
			break;
		a->fn(a->data);
		free(a);
	}
}

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
	compat_actions_init(&dev->devres);
	return dev;
}

int devm_add_action(struct device *dev, void (*action)(void *data),
		    void *data)
{
	return compat_actions_add(&dev->devres, action, data);
}

void root_device_unregister(struct device *dev)
{
	compat_actions_run(&dev->devres);
	pthread_mutex_destroy(&dev->devres.lock);
	free(dev->name);
	free(dev);
}

void device_release_driver(struct device *dev)
{
	if (!dev->driver)
		return;
	compat_actions_run(&dev->devres);
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
	compat_actions_init(&pdev->dev.devres);
	/* Bind as the driver core does: dev->driver is set during probe. */
	if (drv && !strcmp(drv->driver.name, name)) {
		pdev->dev.driver = &drv->driver;
		if (drv->probe(pdev)) {
			compat_actions_run(&pdev->dev.devres);
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
	pthread_mutex_destroy(&pdev->dev.devres.lock);
	free(pdev->dev.name);
	free(pdev);
}
