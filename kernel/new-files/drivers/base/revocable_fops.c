// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Revocable file operations.
 *
 * A driver creates a struct revocable_fops from its file_operations and
 * registers the proxy table revocable_fops_ops() returns (with cdev_init()
 * or in a miscdevice).  Each call of the proxy runs the driver's operation
 * inside one access of a provider that the driver revokes on removal;
 * once revoked, the driver's operations are no longer called.  The access
 * is an SRCU read-side section in a domain of the device's own, so that a
 * reader sleeping on one device never delays the removal of another.
 *
 * The proxy table is embedded in the object: a call finds its object from
 * file->f_op with no lookup and no allocation.  Open files hold a
 * reference on the object, so it outlives the device for as long as a
 * file still points at its table.
 *
 * The per-call operations (read, write, poll, ioctl, ...) are wrappers
 * made by one macro of the header: either the generic proxies below,
 * which call the driver's operation through rfo->fops, or those that
 * DEFINE_REVOCABLE_FOPS() generates in the driver's own file and that call
 * it directly.  Both read only the head of the object (struct
 * __revocable_fops_head, in the header).
 */
#include <linux/error-injection.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/revocable.h>
#include <linux/revocable_fops.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>

/* An open file of a device whose driver has mmap. */
struct revocable_fops_file {
	struct list_head node;
	struct file *file;
	struct mm_struct *mm;	/* the last address space that mapped it */
	bool zapped;
};

struct revocable_fops {
	/* proxy (filled in once by create), rp, revoked_poll */
	struct __revocable_fops_head head;
	const struct file_operations *fops;
	struct revocable_domain *dom;
	struct revocable_provider __rcu *slot;	/* the owner's */
	struct revocable_provider *pending;	/* begun, wait not done */
	void *res;
	void (*cancel)(void *res);
	bool revoked;
	bool keep_mappings;	/* mmap: nothing to wrap, nothing to zap */
	struct kref kref;
	spinlock_t lock;		/* files, vm_ops, pending */
	struct list_head files;
	const struct vm_operations_struct *vm_ops;	/* the driver's */
	const struct vm_operations_struct proxy_vm_ops;	/* filled in once */
};

static int rfo_open(struct inode *inode, struct file *file);

static struct revocable_fops *rfo_of(const struct file *file)
{
	return container_of(file->f_op, struct revocable_fops, head.proxy);
}

/*
 * The generic proxies of the per-call operations: the wrappers
 * DEFINE_REVOCABLE_FOPS() generates, calling the driver's operations
 * through the object's table rather than a constant one.
 */
static const struct file_operations *rfo_table_of(const struct file *file)
{
	return rfo_of(file)->fops;
}

__REVOCABLE_FOPS_WRAPPERS(rfo)

static int rfo_flush(struct file *file, fl_owner_t id)
{
	struct revocable_fops *rfo = rfo_of(file);

	CLASS(revocable, acc)(rfo->head.rp);

	if (!acc.res)
		return -ENODEV;
	return rfo->fops->flush(file, id);
}

/*
 * Turning FASYNC off still reaches the driver after revoke: it only undoes
 * the file's own registration (fasync_helper() on the file's list), and
 * __fput() relies on it before release.
 */
static int rfo_fasync(int fd, struct file *file, int on)
{
	struct revocable_fops *rfo = rfo_of(file);

	CLASS(revocable, acc)(rfo->head.rp);

	if (!acc.res && on)
		return -ENODEV;
	return rfo->fops->fasync(fd, file, on);
}

/* ----- mmap -------------------------------------------------------------- */

static unsigned long rfo_get_unmapped_area(struct file *file,
					   unsigned long addr,
					   unsigned long len,
					   unsigned long pgoff,
					   unsigned long flags)
{
	struct revocable_fops *rfo = rfo_of(file);

	CLASS(revocable, acc)(rfo->head.rp);

	if (!acc.res)
		return -ENODEV;
	return rfo->fops->get_unmapped_area(file, addr, len, pgoff, flags);
}

static struct revocable_fops *rfo_of_vma(struct vm_area_struct *vma)
{
	return rfo_of(vma->vm_file);
}

static void rfo_vm_open(struct vm_area_struct *vma)
{
	struct revocable_fops *rfo = rfo_of_vma(vma);

	CLASS(revocable, acc)(rfo->head.rp);

	if (acc.res)
		rfo->vm_ops->open(vma);
}

static void rfo_vm_close(struct vm_area_struct *vma)
{
	struct revocable_fops *rfo = rfo_of_vma(vma);

	CLASS(revocable, acc)(rfo->head.rp);

	if (acc.res)
		rfo->vm_ops->close(vma);
}

static vm_fault_t rfo_vm_fault(struct vm_fault *vmf)
{
	struct revocable_fops *rfo = rfo_of_vma(vmf->vma);

	CLASS(revocable, acc)(rfo->head.rp);

	if (!acc.res)
		return VM_FAULT_SIGBUS;
	return rfo->vm_ops->fault(vmf);
}

static vm_fault_t rfo_vm_page_mkwrite(struct vm_fault *vmf)
{
	struct revocable_fops *rfo = rfo_of_vma(vmf->vma);

	CLASS(revocable, acc)(rfo->head.rp);

	if (!acc.res)
		return VM_FAULT_SIGBUS;
	return rfo->vm_ops->page_mkwrite(vmf);
}

/* A member of an operations table, for rfo_table_only(). */
struct rfo_member {
	size_t offset;
	size_t size;
};

#define RFO_MEMBER(type, member)					\
	{ offsetof(type, member), sizeof_field(type, member) }

/*
 * Whether the @size bytes of @table are zero outside the members @ok: the
 * table sets no operation but those, whatever members this kernel's
 * version of the table has.
 */
static bool rfo_table_only(const void *table, size_t size,
			   const struct rfo_member *ok, unsigned int n)
{
	const u8 *p = table;
	unsigned int j;
	size_t i;

	for (i = 0; i < size; i++) {
		for (j = 0; j < n; j++)
			if (i >= ok[j].offset && i < ok[j].offset + ok[j].size)
				break;
		if (j == n && p[i])
			return false;
	}
	return true;
}

/* Only open, close, fault and page_mkwrite can be wrapped. */
static bool rfo_vm_ops_supported(const struct vm_operations_struct *ops)
{
	static const struct rfo_member ok[] = {
		RFO_MEMBER(typeof(*ops), open),
		RFO_MEMBER(typeof(*ops), close),
		RFO_MEMBER(typeof(*ops), fault),
		RFO_MEMBER(typeof(*ops), page_mkwrite),
	};

	return rfo_table_only(ops, sizeof(*ops), ok, ARRAY_SIZE(ok));
}

/*
 * Put the proxy vm_operations in front of the driver's, so that faults
 * after revoke get SIGBUS instead of running the driver.  A device has one
 * set of driver vm_operations; a mapping with another one is refused.
 */
static int rfo_wrap_vm_ops(struct revocable_fops *rfo,
			   struct vm_area_struct *vma)
{
	const struct vm_operations_struct *ops = vma->vm_ops;
	int ret = 0;

	if (!ops || (!ops->open && !ops->close && !ops->fault &&
		     rfo_vm_ops_supported(ops)))
		return 0;	/* nothing of the driver's runs later */
	if (!rfo_vm_ops_supported(ops)) {
		pr_warn_once("revocable_fops: %ps: vm_operations beyond open, close, fault and page_mkwrite are not supported\n",
			     ops);
		return -EINVAL;
	}
	spin_lock(&rfo->lock);
	if (!rfo->vm_ops) {
		const struct vm_operations_struct p = {
			.open = ops->open ? rfo_vm_open : NULL,
			.close = ops->close ? rfo_vm_close : NULL,
			.fault = ops->fault ? rfo_vm_fault : NULL,
			.page_mkwrite = ops->page_mkwrite ? rfo_vm_page_mkwrite : NULL,
		};

		/* Before any mapping uses it; fixed from then on. */
		memcpy((void *)&rfo->proxy_vm_ops, &p, sizeof(p));
		rfo->vm_ops = ops;
	} else if (rfo->vm_ops != ops) {
		ret = -EINVAL;
	}
	spin_unlock(&rfo->lock);
	if (ret) {
		pr_warn_once("revocable_fops: %ps: a device maps with one set of vm_operations\n",
			     ops);
		return ret;
	}
	vma->vm_ops = &rfo->proxy_vm_ops;
	return 0;
}

static struct revocable_fops_file *rfo_file(struct revocable_fops *rfo,
					    const struct file *file)
{
	struct revocable_fops_file *rf;

	lockdep_assert_held(&rfo->lock);
	list_for_each_entry(rf, &rfo->files, node)
		if (rf->file == file)
			return rf;
	return NULL;
}

/*
 * A file is tracked from its first mapping on, not from its open: opening
 * and closing a file that never maps costs no allocation.  The record is
 * added inside the mmap's access, so a revoke that drains the access finds
 * it, as it finds every file that mapped before.
 */
static int rfo_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct revocable_fops *rfo = rfo_of(file);
	struct revocable_fops_file *rf, *new = NULL;
	struct mm_struct *old = NULL;
	int ret;

	CLASS(revocable, acc)(rfo->head.rp);

	if (!acc.res)
		return -ENODEV;
	if (!rfo->keep_mappings) {
		spin_lock(&rfo->lock);
		rf = rfo_file(rfo, file);
		spin_unlock(&rfo->lock);
		if (!rf) {
			new = kzalloc_obj(*new, GFP_KERNEL);
			if (!new)
				return -ENOMEM;
			new->file = file;
		}
	}
	ret = rfo->fops->mmap(file, vma);
	if (!ret && !rfo->keep_mappings)
		ret = rfo_wrap_vm_ops(rfo, vma);
	if (ret || rfo->keep_mappings) {
		/* On a failed wrap, the caller undoes the mapping (close). */
		kfree(new);
		return ret;
	}
	/*
	 * Remember the address space: the mapping is linked where revoke can
	 * find it only after this returns, under the caller's mmap_lock,
	 * which revoke takes once to wait for that (see rfo_zap()).
	 */
	spin_lock(&rfo->lock);
	rf = rfo_file(rfo, file);
	if (!rf) {
		list_add(&new->node, &rfo->files);
		rf = new;
		new = NULL;
	}
	if (rf->mm != vma->vm_mm) {
		old = rf->mm;
		mmgrab(vma->vm_mm);
		rf->mm = vma->vm_mm;
	}
	spin_unlock(&rfo->lock);
	kfree(new);	/* another mmap of the file added one meanwhile */
	if (old)
		mmdrop(old);
	return 0;
}

/*
 * After the calls in progress are drained: wait until mmaps that were
 * inside the driver are linked into their file's mapping (their caller
 * holds mmap_lock until then), and zap every mapping of the open files.
 * Later faults go through the proxy and get SIGBUS.
 */
static void rfo_zap(struct revocable_fops *rfo)
{
	struct revocable_fops_file *rf;
	struct mm_struct *mm;
	struct inode *inode;

	for (;;) {
		spin_lock(&rfo->lock);
		list_for_each_entry(rf, &rfo->files, node)
			if (!rf->zapped)
				break;
		if (list_entry_is_head(rf, &rfo->files, node)) {
			spin_unlock(&rfo->lock);
			return;
		}
		rf->zapped = true;
		mm = rf->mm;
		if (mm)
			mmgrab(mm);
		/* The file may be released meanwhile; its inode may not. */
		inode = file_inode(rf->file);
		ihold(inode);
		spin_unlock(&rfo->lock);

		if (mm) {
			mmap_read_lock(mm);
			mmap_read_unlock(mm);
			mmdrop(mm);
		}
		unmap_mapping_range(inode->i_mapping, 0, 0, 1);
		iput(inode);
	}
}

/* ----- open and release -------------------------------------------------- */

static void rfo_free(struct kref *kref)
{
	struct revocable_fops *rfo = container_of(kref, struct revocable_fops, kref);

	/*
	 * A revoke that was only begun (revocable_fops_revoke_begin()): every
	 * file is closed, so no call is in progress; finish it.
	 */
	if (rfo->pending)
		WARN_ON_ONCE(revocable_revoke_wait(rfo->pending));
	revocable_provider_put(rfo->head.rp);
	revocable_domain_free(rfo->dom);
	kfree(rfo);
}

/*
 * The access parts of open and release are functions of their own rather
 * than scoped_class() blocks: 6.1's cleanup.h has no scoped_class().
 */
static int rfo_open_access(struct revocable_fops *rfo, struct inode *inode,
			   struct file *file)
{
	CLASS(revocable, acc)(rfo->head.rp);
	int ret = 0;

	if (!acc.res)
		return -ENODEV;
	if (rfo->fops->open)
		ret = rfo->fops->open(inode, file);
	if (!ret)
		kref_get(&rfo->kref);
	return ret;
}

static int rfo_open(struct inode *inode, struct file *file)
{
	struct revocable_fops *rfo = rfo_of(file);
	int ret;

	ret = rfo_open_access(rfo, inode, file);
	if (ret)
		/*
		 * The caller puts f_op after a failed open, maybe after the
		 * device's owner dropped the last reference to this object:
		 * leave it the driver's table, as rfo_release() does.
		 */
		file->f_op = rfo->fops;
	return ret;
}

static int rfo_release_access(struct revocable_fops *rfo,
			      struct inode *inode, struct file *file)
{
	CLASS(revocable, acc)(rfo->head.rp);

	if (!acc.res)
		/*
		 * Refused: the revoke's begin is visible, so is the flag set
		 * before it (pairs with smp_mb() in revocable_fops_revoke()).
		 */
		smp_rmb();
	return rfo->fops->release(inode, file);
}

/*
 * The driver's release runs exactly once per successful open, at the last
 * close, also after revoke: the file's own state (and what epoll or fasync
 * still hold of it) lives until then.  While the device is live it runs
 * inside an access, so a revoke waits for it; after revoke it runs outside,
 * and revocable_fops_revoked() tells the driver so.
 */
static int rfo_release(struct inode *inode, struct file *file)
{
	struct revocable_fops *rfo = rfo_of(file);
	struct revocable_fops_file *rf = NULL;
	int ret = 0;

	/*
	 * A file that mapped was added in its mmap, which held a reference
	 * on the file; this runs after the last one was put (an ordered
	 * atomic), so an empty list means the file is not on it.
	 */
	if (rfo->fops->mmap && !list_empty(&rfo->files)) {
		spin_lock(&rfo->lock);
		rf = rfo_file(rfo, file);
		if (rf)
			list_del(&rf->node);
		spin_unlock(&rfo->lock);
	}
	if (rfo->fops->release)
		ret = rfo_release_access(rfo, inode, file);
	if (rf) {
		if (rf->mm)
			mmdrop(rf->mm);
		kfree(rf);
	}
	/*
	 * __fput() still reads f_op->owner to put the module reference the
	 * open took, and the proxy table may be freed just below: leave the
	 * file on the driver's own table, which has the same owner and lives
	 * as long as that module.
	 */
	file->f_op = rfo->fops;
	kref_put(&rfo->kref, rfo_free);
	return ret;
}

/* ----- the API ----------------------------------------------------------- */

/* Whether the proxy wraps or copies every operation @f sets. */
static bool rfo_fops_supported(const struct file_operations *f)
{
	static const struct rfo_member ok[] = {
		RFO_MEMBER(typeof(*f), owner),
		RFO_MEMBER(typeof(*f), fop_flags),
		RFO_MEMBER(typeof(*f), open),
		RFO_MEMBER(typeof(*f), release),
		RFO_MEMBER(typeof(*f), llseek),
		RFO_MEMBER(typeof(*f), read),
		RFO_MEMBER(typeof(*f), write),
		RFO_MEMBER(typeof(*f), read_iter),
		RFO_MEMBER(typeof(*f), write_iter),
		RFO_MEMBER(typeof(*f), poll),
		RFO_MEMBER(typeof(*f), unlocked_ioctl),
		RFO_MEMBER(typeof(*f), compat_ioctl),
		RFO_MEMBER(typeof(*f), flush),
		RFO_MEMBER(typeof(*f), fasync),
		RFO_MEMBER(typeof(*f), mmap),
		RFO_MEMBER(typeof(*f), get_unmapped_area),
#ifndef CONFIG_MMU
		RFO_MEMBER(typeof(*f), mmap_capabilities),
#endif
	};

	return rfo_table_only(f, sizeof(*f), ok, ARRAY_SIZE(ok));
}

/* For the message: the first operation of @f the proxy cannot wrap. */
static const char *rfo_unsupported(const struct file_operations *f)
{
	if (rfo_fops_supported(f))
		return NULL;
	if (f->iopoll)
		return "iopoll";
	if (f->iterate_shared)
		return "iterate_shared";
	if (f->fsync)
		return "fsync";
	if (f->lock)
		return "lock";
	if (f->flock)
		return "flock";
	if (f->splice_read || f->splice_write)
		return "splice";
	if (f->setlease)
		return "setlease";
	if (f->fallocate)
		return "fallocate";
	if (f->show_fdinfo)
		return "show_fdinfo";
	if (f->uring_cmd)
		return "uring_cmd";
	return "an operation it does not wrap";
}

/* The generic proxies of the operations a driver may have wrapped directly. */
static const struct revocable_fops_calls rfo_generic_calls = {
	.llseek = rfo_llseek,
	.read = rfo_read,
	.write = rfo_write,
	.read_iter = rfo_read_iter,
	.write_iter = rfo_write_iter,
	.poll = rfo_poll,
	.unlocked_ioctl = rfo_unlocked_ioctl,
	.compat_ioctl = rfo_compat_ioctl,
};

/*
 * The driver's direct wrappers, into @c: they must have been generated from
 * @f, and so have a wrapper exactly where @f has an operation.
 */
static int rfo_direct_calls(const struct revocable_fops_direct *d,
			    const struct file_operations *f,
			    struct revocable_fops_calls *c)
{
	const struct file_operations *from;

	if (WARN_ON_ONCE(!d->fill))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	from = d->fill(c);
	if (WARN_ONCE(from != f,
		      "revocable_fops: %ps: direct wrappers generated from %ps\n",
		      f, from))
		return -EINVAL;
	if (WARN_ONCE(!c->llseek != !f->llseek || !c->read != !f->read ||
		      !c->write != !f->write || !c->read_iter != !f->read_iter ||
		      !c->write_iter != !f->write_iter || !c->poll != !f->poll ||
		      !c->unlocked_ioctl != !f->unlocked_ioctl ||
		      !c->compat_ioctl != !f->compat_ioctl,
		      "revocable_fops: %ps: direct wrappers do not match its operations\n",
		      f))
		return -EINVAL;
	return 0;
}

/**
 * revocable_fops_create() - wrap a driver's file operations
 * @desc: the driver's operations, its state and its cancellation step
 *
 * The result holds a proxy file_operations, revocable_fops_ops(), with
 * the same owner and flags as @desc->fops and an operation wherever the
 * driver has one (open and release always).  Each call of open, read,
 * write, read_iter, write_iter, unlocked_ioctl, compat_ioctl, poll,
 * llseek, fasync, flush, mmap and get_unmapped_area runs the driver's
 * operation inside one access; after revocable_fops_revoke() they return
 * -ENODEV (poll returns @desc->revoked_poll, fasync turning FASYNC off
 * still reaches the driver) and the driver's operation is not called.
 * release runs exactly once per successful open, at the last close of the
 * file.  Faults on mappings after revoke get SIGBUS, unless
 * @desc->keep_mappings says the mappings outlive the device.  The only
 * allocation is at a file's first mmap, and only for a driver whose
 * mappings revoke zaps (to find the file's mappings); open and release
 * allocate nothing.
 *
 * With @desc->direct, llseek, read, write, read_iter, write_iter, poll,
 * unlocked_ioctl and compat_ioctl are the wrappers DEFINE_REVOCABLE_FOPS()
 * generated in the driver's file, which call the driver's operations
 * directly; without it, generic proxies that call them through
 * @desc->fops.  Both behave alike.
 *
 * Operations the proxy cannot protect (splice, fsync, locks, io_uring
 * commands, ...) make the call fail rather than run unprotected.
 *
 * Context: process context; may sleep.
 * Return: the object, holding the owner's reference; ERR_PTR(-EINVAL)
 * (with a warning) when @desc, its @fops or its @res is NULL, or when
 * @desc->direct was not generated from @desc->fops; ERR_PTR(-EOPNOTSUPP)
 * (with a message naming them) when @desc->fops has operations the proxy
 * does not support; ERR_PTR(-ENOMEM).
 */
struct revocable_fops *
revocable_fops_create(const struct revocable_fops_desc *desc)
{
	const struct revocable_fops_calls *c = &rfo_generic_calls;
	struct revocable_fops_calls direct;
	const struct file_operations *f;
	struct revocable_fops *rfo;
	const char *bad;

	if (WARN_ON_ONCE(!desc || !desc->fops || !desc->res))
		return ERR_PTR(-EINVAL);
	f = desc->fops;
	bad = rfo_unsupported(f);
	if (bad) {
		pr_err("revocable_fops: %ps has %s, which cannot be protected\n",
		       f, bad);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (desc->direct) {
		if (rfo_direct_calls(desc->direct, f, &direct))
			return ERR_PTR(-EINVAL);
		c = &direct;
	}

	rfo = kzalloc_obj(*rfo, GFP_KERNEL);
	if (!rfo)
		return ERR_PTR(-ENOMEM);
	rfo->dom = revocable_domain_alloc(desc->name ?: "revocable_fops");
	if (!rfo->dom)
		goto nomem;
	rfo->slot = revocable_provider_alloc_in(rfo->dom, desc->res);
	if (!rfo->slot)
		goto nomem;
	rfo->head.rp = revocable_provider_get_rcu(&rfo->slot);
	rfo->fops = f;
	rfo->res = desc->res;
	rfo->cancel = desc->cancel;
	rfo->keep_mappings = desc->keep_mappings;
	rfo->head.revoked_poll = desc->revoked_poll ?:
		EPOLLHUP | EPOLLERR | EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM;
	kref_init(&rfo->kref);
	spin_lock_init(&rfo->lock);
	INIT_LIST_HEAD(&rfo->files);

	{
		const struct file_operations p = {
			.owner = f->owner,
			.fop_flags = f->fop_flags,
			.open = rfo_open,
			.release = rfo_release,
			.llseek = f->llseek ? c->llseek : NULL,
			.read = f->read ? c->read : NULL,
			.write = f->write ? c->write : NULL,
			.read_iter = f->read_iter ? c->read_iter : NULL,
			.write_iter = f->write_iter ? c->write_iter : NULL,
			.poll = f->poll ? c->poll : NULL,
			.unlocked_ioctl = f->unlocked_ioctl ? c->unlocked_ioctl : NULL,
			.compat_ioctl = f->compat_ioctl ? c->compat_ioctl : NULL,
			.flush = f->flush ? rfo_flush : NULL,
			.fasync = f->fasync ? rfo_fasync : NULL,
			.mmap = f->mmap ? rfo_mmap : NULL,
			.get_unmapped_area = f->get_unmapped_area ?
				rfo_get_unmapped_area : NULL,
#ifndef CONFIG_MMU
			.mmap_capabilities = f->mmap_capabilities,
#endif
		};

		/* Not yet visible to anyone; read-only from here on. */
		memcpy((void *)&rfo->head.proxy, &p, sizeof(p));
	}
	return rfo;

nomem:
	if (rfo->slot)
		revocable_provider_revoke(&rfo->slot);
	revocable_domain_free(rfo->dom);
	kfree(rfo);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(revocable_fops_create);
ALLOW_ERROR_INJECTION(revocable_fops_create, ERRNO);

/**
 * revocable_fops_ops() - the file operations to register
 * @rfo: the object from revocable_fops_create()
 *
 * Register the result with cdev_init() or as a miscdevice's fops in place
 * of the driver's own.  It is valid as long as @rfo.
 *
 * Context: any.
 * Return: the proxy file operations.
 */
const struct file_operations *revocable_fops_ops(struct revocable_fops *rfo)
{
	return &rfo->head.proxy;
}
EXPORT_SYMBOL_GPL(revocable_fops_ops);

/*
 * Refuse new calls and run the cancellation step, once.  Returns the
 * provider to wait for: the one this call began, or the one a begin left
 * pending; NULL when there is none (revoked and waited for already, or
 * begun by a call that is still waiting).
 */
static struct revocable_provider *rfo_begin(struct revocable_fops *rfo,
					    bool *began)
{
	struct revocable_provider *rp;

	WRITE_ONCE(rfo->revoked, true);
	/* Pairs with smp_rmb() in rfo_release(): refused implies flagged. */
	smp_mb();
	rp = revocable_revoke_begin(&rfo->slot);
	*began = rp;
	if (rp) {
		if (rfo->cancel)
			rfo->cancel(rfo->res);
		return rp;
	}
	spin_lock(&rfo->lock);
	rp = rfo->pending;
	rfo->pending = NULL;
	spin_unlock(&rfo->lock);
	return rp;
}

static void rfo_set_pending(struct revocable_fops *rfo,
			    struct revocable_provider *rp)
{
	spin_lock(&rfo->lock);
	rfo->pending = rp;
	spin_unlock(&rfo->lock);
}

/**
 * revocable_fops_revoke() - stop the driver's file operations for good
 * @rfo: the object
 *
 * Call it when the device goes away (unbind, unregister), after which the
 * driver may free what its operations use.  In order: new calls are
 * refused; the driver's cancellation step runs and wakes the callers that
 * sleep on the device; the call waits for the calls in progress; then
 * every mapping of the device's open files is zapped (unless the driver
 * keeps its mappings: &revocable_fops_desc.keep_mappings).  Files stay open;
 * their release still runs at their last close.
 *
 * Context: process context; may sleep; not inside one of @rfo's file
 * operations.
 * Return: 1 when this call revoked; 0 when the device was already revoked
 * (by another call, which may still be waiting); -EDEADLK (with a
 * warning) when called from inside one of the device's operations: new
 * calls are refused, the wait is left to a later call of this function or
 * to revocable_fops_put(); -EINVAL (with a warning) for a NULL or error
 * pointer.
 */
int revocable_fops_revoke(struct revocable_fops *rfo)
{
	struct revocable_provider *rp;
	bool began;
	int ret;

	if (WARN_ON_ONCE(IS_ERR_OR_NULL(rfo)))
		return -EINVAL;
	might_sleep();
	rp = rfo_begin(rfo, &began);
	if (!rp)
		return 0;
	ret = revocable_revoke_wait(rp);
	if (ret) {
		rfo_set_pending(rfo, rp);
		return ret;
	}
	rfo_zap(rfo);
	return 1;
}
EXPORT_SYMBOL_GPL(revocable_fops_revoke);

/**
 * revocable_fops_revoke_begin() - refuse the driver's file operations from now on
 * @rfo: the object
 *
 * The first half of revocable_fops_revoke(): new calls are refused and the
 * driver's cancellation step runs, but the calls in progress are not
 * waited for; a later revocable_fops_revoke() does that, or else the
 * object's last put, after the last file is closed.  For a subsystem that
 * cannot wait where its devices are removed (its drivers may hold locks
 * there that the operations take): no call made after the removal reaches
 * the driver, and the calls already in it finish on what the driver keeps
 * alive until the last file is closed.
 *
 * Context: process context (the cancellation step may sleep).
 * Return: 1 when this call began the revoke; 0 when it had begun already;
 * -EINVAL (with a warning) for a NULL or error pointer.
 */
int revocable_fops_revoke_begin(struct revocable_fops *rfo)
{
	struct revocable_provider *rp;
	bool began;

	if (WARN_ON_ONCE(IS_ERR_OR_NULL(rfo)))
		return -EINVAL;
	rp = rfo_begin(rfo, &began);
	if (rp)
		rfo_set_pending(rfo, rp);
	return began;
}
EXPORT_SYMBOL_GPL(revocable_fops_revoke_begin);

/**
 * revocable_fops_revoked() - whether the device has been revoked
 * @rfo: the object
 *
 * For the driver's own wait conditions (a reader sleeping inside read()
 * stops when this turns true, which happens before the cancellation step
 * wakes it) and for its release, which runs after revoke too.
 *
 * Context: any.
 * Return: true once revocable_fops_revoke() has started on @rfo.
 */
bool revocable_fops_revoked(const struct revocable_fops *rfo)
{
	return READ_ONCE(rfo->revoked);
}
EXPORT_SYMBOL_GPL(revocable_fops_revoked);

/**
 * revocable_fops_of() - the object behind an open file
 * @file: a file
 *
 * Context: any.
 * Return: the struct revocable_fops whose proxy operations @file uses, or
 * NULL when @file does not use any.
 */
struct revocable_fops *revocable_fops_of(const struct file *file)
{
	if (!file || !file->f_op || file->f_op->open != rfo_open)
		return NULL;
	return rfo_of(file);
}
EXPORT_SYMBOL_GPL(revocable_fops_of);

/**
 * revocable_fops_put() - drop the owner's reference
 * @rfo: the object; NULL and error pointers are ignored
 *
 * Open files keep the object (not the device) alive until their last
 * close.  The owner should have revoked; if not, this revokes first, with
 * a warning.  A revoke that was only begun (revocable_fops_revoke_begin(),
 * or a revoke refused with -EDEADLK) is finished when the last of the
 * object's references goes, that is after the last close: no call can be
 * in progress then.
 *
 * Context: process context; may sleep; not inside one of @rfo's file
 * operations.
 */
void revocable_fops_put(struct revocable_fops *rfo)
{
	if (IS_ERR_OR_NULL(rfo))
		return;
	if (WARN_ONCE(!READ_ONCE(rfo->revoked),
		      "revocable_fops: %ps put before it was revoked\n", rfo->fops))
		revocable_fops_revoke(rfo);
	kref_put(&rfo->kref, rfo_free);
}
EXPORT_SYMBOL_GPL(revocable_fops_put);
