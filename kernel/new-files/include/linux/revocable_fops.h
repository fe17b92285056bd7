/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Revocable file operations: a character device whose file operations
 * never run on a removed device.
 */
#ifndef __LINUX_REVOCABLE_FOPS_H
#define __LINUX_REVOCABLE_FOPS_H

#include <linux/container_of.h>
#include <linux/fs.h>
#include <linux/revocable.h>
#include <linux/types.h>

struct revocable_fops;

/**
 * struct revocable_fops_calls - the per-call operations of a proxy table
 * @llseek: as in struct file_operations
 * @read: as in struct file_operations
 * @write: as in struct file_operations
 * @read_iter: as in struct file_operations
 * @write_iter: as in struct file_operations
 * @poll: as in struct file_operations
 * @unlocked_ioctl: as in struct file_operations
 * @compat_ioctl: as in struct file_operations
 *
 * The operations that DEFINE_REVOCABLE_FOPS() can generate for a driver.
 * Drivers do not use this structure themselves.
 */
struct revocable_fops_calls {
	loff_t (*llseek)(struct file *file, loff_t off, int whence);
	ssize_t (*read)(struct file *file, char __user *buf, size_t len,
			loff_t *ppos);
	ssize_t (*write)(struct file *file, const char __user *buf,
			 size_t len, loff_t *ppos);
	ssize_t (*read_iter)(struct kiocb *iocb, struct iov_iter *to);
	ssize_t (*write_iter)(struct kiocb *iocb, struct iov_iter *from);
	__poll_t (*poll)(struct file *file, struct poll_table_struct *pt);
	long (*unlocked_ioctl)(struct file *file, unsigned int cmd,
			       unsigned long arg);
	long (*compat_ioctl)(struct file *file, unsigned int cmd,
			     unsigned long arg);
};

/**
 * struct revocable_fops_direct - a driver's direct wrappers
 * @fill: sets, in the &struct revocable_fops_calls it is given, the
 *	wrapper of each operation that the driver's table has, leaves the
 *	others alone, and returns that table (the one the wrappers call)
 *
 * Defined by DEFINE_REVOCABLE_FOPS(), never by hand.
 */
struct revocable_fops_direct {
	const struct file_operations *(*fill)(struct revocable_fops_calls *calls);
};

/**
 * struct revocable_fops_desc - what a driver hands revocable_fops_create()
 * @fops: the driver's file operations; they must outlive every file opened
 *	through the result (the usual case: a static const table in the
 *	module that @fops->owner names)
 * @direct: the wrappers DEFINE_REVOCABLE_FOPS() generated from @fops, or
 *	NULL for the generic ones
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
 * @keep_mappings: the driver's mappings hold references on what they map
 *	(videobuf2's buffers do), so they stay valid after the device is gone:
 *	mmap runs inside an access as usual, but the proxy leaves the
 *	mapping's vm_operations to the driver, also after revoke, and revoke
 *	does not zap the mappings.  false (the default) for a driver that
 *	maps device memory or state it frees after revoke
 */
struct revocable_fops_desc {
	const struct file_operations *fops;
	const struct revocable_fops_direct *direct;
	void *res;
	void (*cancel)(void *res);
	__poll_t revoked_poll;
	const char *name;
	bool keep_mappings;
};

struct revocable_fops *
revocable_fops_create(const struct revocable_fops_desc *desc);
const struct file_operations *revocable_fops_ops(struct revocable_fops *rfo);
int revocable_fops_revoke(struct revocable_fops *rfo);
int revocable_fops_revoke_begin(struct revocable_fops *rfo);
bool revocable_fops_revoked(const struct revocable_fops *rfo);
struct revocable_fops *revocable_fops_of(const struct file *file);
void revocable_fops_put(struct revocable_fops *rfo);

/*
 * The first member of struct revocable_fops: what a direct wrapper reads.
 * Private to this header and drivers/base/revocable_fops.c.
 */
struct __revocable_fops_head {
	const struct file_operations proxy;	/* what file->f_op points to */
	struct revocable_provider *rp;		/* what the calls access */
	__poll_t revoked_poll;
};

static __always_inline const struct __revocable_fops_head *
__revocable_fops_head(const struct file *file)
{
	return container_of(file->f_op, struct __revocable_fops_head, proxy);
}

/*
 * One access of the device behind @file until the end of the scope, @res
 * receiving the resource or NULL.  REVOCABLE_TRY_ACCESS_WITH() rather than
 * CLASS(revocable): its enter and exit are always inlined, where a class
 * constructor is a plain inline function returning a structure, which
 * GCC may well leave out of line.
 */
#define __REVOCABLE_FOPS_ACCESS(res, file)				\
	REVOCABLE_TRY_ACCESS_WITH(__revocable_fops_head(file)->rp, res)

/*
 * A wrapper's value: @call, made inside one access of the device behind
 * @file, or @gone, without calling the driver, once the device has been
 * revoked.  The access ends with the statement expression.
 */
#define __REVOCABLE_FOPS_CALL(file, gone, call)				\
	({								\
		void *__res;						\
									\
		__REVOCABLE_FOPS_ACCESS(__res, file);			\
		__res ? (call) : (gone);				\
	})

/*
 * The wrappers of the per-call operations, named @name followed by _read,
 * _poll, ...: each finds the device from the file's f_op, enters one
 * access, and calls the operation of the table that @name followed by
 * _table_of returns for the file.  DEFINE_REVOCABLE_FOPS() returns a
 * constant there, so the calls are direct; revocable_fops.c's generic
 * proxies return the table of the file's object.
 */
#define __REVOCABLE_FOPS_WRAPPERS(name)					\
static loff_t name##_llseek(struct file *file, loff_t off, int whence)	\
{									\
	return __REVOCABLE_FOPS_CALL(file, -ENODEV,			\
		name##_table_of(file)->llseek(file, off, whence));	\
}									\
									\
static ssize_t name##_read(struct file *file,				\
			   char __user *buf, size_t len, loff_t *ppos)	\
{									\
	return __REVOCABLE_FOPS_CALL(file, -ENODEV,			\
		name##_table_of(file)->read(file, buf, len, ppos));	\
}									\
									\
static ssize_t name##_write(struct file *file,				\
			    const char __user *buf, size_t len, loff_t *ppos) \
{									\
	return __REVOCABLE_FOPS_CALL(file, -ENODEV,			\
		name##_table_of(file)->write(file, buf, len, ppos));	\
}									\
									\
static ssize_t name##_read_iter(struct kiocb *iocb,			\
				struct iov_iter *to)			\
{									\
	struct file *file = iocb->ki_filp;				\
									\
	return __REVOCABLE_FOPS_CALL(file, -ENODEV,			\
		name##_table_of(file)->read_iter(iocb, to));		\
}									\
									\
static ssize_t name##_write_iter(struct kiocb *iocb,			\
				 struct iov_iter *from)			\
{									\
	struct file *file = iocb->ki_filp;				\
									\
	return __REVOCABLE_FOPS_CALL(file, -ENODEV,			\
		name##_table_of(file)->write_iter(iocb, from));		\
}									\
									\
static __poll_t name##_poll(struct file *file,				\
			    struct poll_table_struct *pt)		\
{									\
	return __REVOCABLE_FOPS_CALL(file,					\
		__revocable_fops_head(file)->revoked_poll,		\
		name##_table_of(file)->poll(file, pt));			\
}									\
									\
static long name##_unlocked_ioctl(struct file *file,			\
				  unsigned int cmd, unsigned long arg)	\
{									\
	return __REVOCABLE_FOPS_CALL(file, -ENODEV,			\
		name##_table_of(file)->unlocked_ioctl(file, cmd, arg));	\
}									\
									\
static long name##_compat_ioctl(struct file *file,			\
				unsigned int cmd, unsigned long arg)	\
{									\
	return __REVOCABLE_FOPS_CALL(file, -ENODEV,			\
		name##_table_of(file)->compat_ioctl(file, cmd, arg));	\
}

/**
 * DEFINE_REVOCABLE_FOPS() - generate direct wrappers of a driver's operations
 * @name: the name of the &struct revocable_fops_direct to define; the
 *	wrappers are named after it (@name followed by _read, _poll, ...)
 * @driver_fops: the driver's &struct file_operations: a const table
 *	defined, with its initializer, earlier in the same file
 *
 * Defines a static &struct revocable_fops_direct @name, for
 * &revocable_fops_desc.direct next to &@driver_fops in
 * &revocable_fops_desc.fops.  For each of llseek, read, write, read_iter,
 * write_iter, poll, unlocked_ioctl and compat_ioctl that @driver_fops has,
 * it defines a wrapper that finds the device from the file's f_op, enters
 * the access, both with inline code (REVOCABLE_TRY_ACCESS_WITH()), and
 * calls the operation as a member of @driver_fops.  The compiler knows the
 * member's value, so the call is a direct one, or the driver's function is
 * inlined; it also knows which members are NULL, and emits no wrapper for
 * those.  After the revoke the wrappers return -ENODEV (poll returns
 * &revocable_fops_desc.revoked_poll) without calling the driver, as the
 * generic proxies do.  open, release, flush, fasync and mmap stay the
 * generic proxies.
 *
 * Example::
 *
 *	static const struct file_operations foo_fops = {
 *		.owner		= THIS_MODULE,
 *		.open		= foo_open,
 *		.read		= foo_read,
 *		.release	= foo_release,
 *	};
 *
 *	DEFINE_REVOCABLE_FOPS(foo_revocable, foo_fops);
 *	...
 *	struct revocable_fops_desc d = {
 *		.fops	= &foo_fops,
 *		.direct	= &foo_revocable,
 *		...
 *	};
 *
 * Context: used at file scope, after the definition of @driver_fops.  The
 * wrappers run where the VFS calls the operations they wrap (process
 * context; they may sleep if the driver's operation does).
 * Return: nothing; the macro expands to definitions.
 */
#define DEFINE_REVOCABLE_FOPS(name, driver_fops)			\
static const struct file_operations *const name##_table =		\
	&(driver_fops);							\
									\
static __always_inline const struct file_operations *			\
name##_table_of(const struct file *file)				\
{									\
	return name##_table;						\
}									\
									\
__REVOCABLE_FOPS_WRAPPERS(name)						\
									\
/* Folded by the compiler: the wrappers of NULL members go unused. */	\
static const struct file_operations *					\
name##_fill(struct revocable_fops_calls *calls)				\
{									\
	if (name##_table->llseek)					\
		calls->llseek = name##_llseek;				\
	if (name##_table->read)						\
		calls->read = name##_read;				\
	if (name##_table->write)					\
		calls->write = name##_write;				\
	if (name##_table->read_iter)					\
		calls->read_iter = name##_read_iter;			\
	if (name##_table->write_iter)					\
		calls->write_iter = name##_write_iter;			\
	if (name##_table->poll)						\
		calls->poll = name##_poll;				\
	if (name##_table->unlocked_ioctl)				\
		calls->unlocked_ioctl = name##_unlocked_ioctl;		\
	if (name##_table->compat_ioctl)					\
		calls->compat_ioctl = name##_compat_ioctl;		\
	return name##_table;						\
}									\
									\
static const struct revocable_fops_direct name = {			\
	.fill = name##_fill,						\
}

#endif /* __LINUX_REVOCABLE_FOPS_H */
