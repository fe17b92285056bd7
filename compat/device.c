// SPDX-License-Identifier: LGPL-2.1-or-later
/* Root devices and devres actions for the KUnit shim (<linux/device.h>). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <linux/device.h>

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

void root_device_unregister(struct device *dev)
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
	pthread_mutex_destroy(&dev->devres_lock);
	free(dev->name);
	free(dev);
}
