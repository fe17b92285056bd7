/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Revocable file operations: a character device whose file operations
 * never run on a removed device.
 */
#ifndef __LINUX_REVOCABLE_FOPS_H
#define __LINUX_REVOCABLE_FOPS_H

#include <linux/types.h>

struct file;
struct revocable_fops;

/**
 * struct revocable_fops_desc - what a driver hands revocable_fops_create()
 * @fops: the driver's file operations; they must outlive every file opened
 *	through the result (the usual case: a static const table in the
 *	module that @fops->owner names)
 * @res: the device's state, passed to @cancel; must not be NULL
 * @cancel: called by revocable_fops_revoke() after new calls are refused
 *	and before it waits for the calls in progress, with @res; it must
 *	wake every caller that sleeps inside one of @fops on the device
 *	(wake its wait queues, complete its pending I/O with an error), so
 *	that the revoke never waits on a sleeper.  NULL when no operation
 *	sleeps on the device
 * @revoked_poll: what poll() returns once the device is revoked; 0 means
 *	``EPOLLHUP | EPOLLERR | EPOLLIN | EPOLLRDNORM | EPOLLOUT |
 *	EPOLLWRNORM``, so that a waiter on any direction wakes
 * @name: a name for diagnostics (the SRCU domain's); the string must
 *	outlive the result
 */
struct revocable_fops_desc {
	const struct file_operations *fops;
	void *res;
	void (*cancel)(void *res);
	__poll_t revoked_poll;
	const char *name;
};

struct revocable_fops *
revocable_fops_create(const struct revocable_fops_desc *desc);
const struct file_operations *revocable_fops_ops(struct revocable_fops *rfo);
int revocable_fops_revoke(struct revocable_fops *rfo);
bool revocable_fops_revoked(const struct revocable_fops *rfo);
struct revocable_fops *revocable_fops_of(const struct file *file);
void revocable_fops_put(struct revocable_fops *rfo);

#endif /* __LINUX_REVOCABLE_FOPS_H */
