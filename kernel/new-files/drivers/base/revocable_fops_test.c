// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for revocable file operations.
 *
 * The files are anonymous-inode files whose f_op is the proxy table, and
 * the tests call the proxy's operations the way the VFS does (open first,
 * release through the last fput).  Mappings need a device node of their
 * own and are tested by the kselftest.  Every wait is bounded.
 *
 * The cases that exercise the operations run twice: with the generic
 * proxies, and with the direct wrappers DEFINE_REVOCABLE_FOPS() generates
 * below.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/poll.h>
#include <linux/revocable_fops.h>
#include <linux/string.h>
#include <linux/uio.h>
#include <linux/wait.h>

#define TEST_TIMEOUT	msecs_to_jiffies(5000)

#define EXPECT_WARN_BEGIN()	pr_info("revocable_test: expected warning begin\n")
#define EXPECT_WARN_END()	pr_info("revocable_test: expected warning end\n")

enum { OP_OPEN, OP_LLSEEK, OP_READ, OP_WRITE, OP_READ_ITER, OP_WRITE_ITER,
	OP_POLL, OP_IOCTL, OP_COMPAT_IOCTL, OP_FLUSH, OP_FASYNC, OP_RELEASE,
	OP_NR };

#define IOCTL_REVOKE	0x7e	/* revoke from inside an operation */
#define IOCTL_SLEEP	0x7f	/* sleep, not woken by the cancellation */

struct tdev {
	struct revocable_fops *rfo;
	atomic_t calls[OP_NR];
	atomic_t released_revoked;	/* releases that saw the revoke */
	atomic_t cancels;
	atomic_t after_dead;		/* driver calls after revoke returned */
	int fasync_on;
	int revoke_ret;
	bool block;			/* read sleeps until revoked */
	bool dead;
	bool slept;
	struct completion inside;
	wait_queue_head_t wq;
};

static struct tdev *tdev_of(struct file *file)
{
	return file->private_data;
}

static void tdev_call(struct tdev *t, int op)
{
	atomic_inc(&t->calls[op]);
	if (READ_ONCE(t->dead))
		atomic_inc(&t->after_dead);
}

static int t_open(struct inode *inode, struct file *file)
{
	tdev_call(tdev_of(file), OP_OPEN);
	return 0;
}

static loff_t t_llseek(struct file *file, loff_t off, int whence)
{
	tdev_call(tdev_of(file), OP_LLSEEK);
	return 42;
}

static ssize_t t_read(struct file *file, char __user *buf, size_t len,
		      loff_t *ppos)
{
	struct tdev *t = tdev_of(file);

	tdev_call(t, OP_READ);
	if (!READ_ONCE(t->block))
		return len;
	complete(&t->inside);
	if (wait_event_timeout(t->wq, revocable_fops_revoked(t->rfo),
			       TEST_TIMEOUT) == 0)
		return -ETIMEDOUT;
	return -ENODEV;
}

static ssize_t t_write(struct file *file, const char __user *buf,
		       size_t len, loff_t *ppos)
{
	tdev_call(tdev_of(file), OP_WRITE);
	return len + 1;
}

static ssize_t t_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	tdev_call(tdev_of(iocb->ki_filp), OP_READ_ITER);
	return iov_iter_count(to);
}

static ssize_t t_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	tdev_call(tdev_of(iocb->ki_filp), OP_WRITE_ITER);
	return iov_iter_count(from) + 1;
}

static __poll_t t_poll(struct file *file, struct poll_table_struct *pt)
{
	struct tdev *t = tdev_of(file);

	tdev_call(t, OP_POLL);
	poll_wait(file, &t->wq, pt);
	return EPOLLOUT | EPOLLWRNORM;
}

static long t_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tdev *t = tdev_of(file);

	tdev_call(t, OP_IOCTL);
	if (cmd == IOCTL_REVOKE) {
		t->revoke_ret = revocable_fops_revoke(t->rfo);
	} else if (cmd == IOCTL_SLEEP) {
		complete(&t->inside);
		msleep(300);
		WRITE_ONCE(t->slept, true);
	}
	return cmd + 1;
}

static long t_compat_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	tdev_call(tdev_of(file), OP_COMPAT_IOCTL);
	return cmd + 2;
}

static int t_flush(struct file *file, fl_owner_t id)
{
	tdev_call(tdev_of(file), OP_FLUSH);
	return 3;
}

static int t_fasync(int fd, struct file *file, int on)
{
	struct tdev *t = tdev_of(file);

	atomic_inc(&t->calls[OP_FASYNC]);	/* off is allowed after revoke */
	t->fasync_on = on;
	return 4;
}

static int t_release(struct inode *inode, struct file *file)
{
	struct tdev *t = tdev_of(file);

	atomic_inc(&t->calls[OP_RELEASE]);	/* runs after revoke too */
	if (revocable_fops_revoked(t->rfo))
		atomic_inc(&t->released_revoked);
	return 0;
}

static const struct file_operations t_fops = {
	.owner		= THIS_MODULE,
	.open		= t_open,
	.llseek		= t_llseek,
	.read		= t_read,
	.write		= t_write,
	.read_iter	= t_read_iter,
	.write_iter	= t_write_iter,
	.poll		= t_poll,
	.unlocked_ioctl	= t_ioctl,
	.compat_ioctl	= t_compat_ioctl,
	.flush		= t_flush,
	.fasync		= t_fasync,
	.release	= t_release,
};

DEFINE_REVOCABLE_FOPS(t_direct, t_fops);

/* The form of the proxy a parameterized case runs with. */
struct rfo_form {
	const char *name;
	bool direct;
};

static const struct rfo_form rfo_forms[] = {
	{ .name = "generic", .direct = false },
	{ .name = "direct", .direct = true },
};

static void rfo_form_desc(const struct rfo_form *form, char *desc)
{
	strscpy(desc, form->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rfo_form, rfo_forms, rfo_form_desc);

/* Whether the case runs with the direct wrappers (a parameterized one). */
static bool rfo_direct(struct kunit *test)
{
	const struct rfo_form *form = test->param_value;

	return form && form->direct;
}

static void t_cancel(void *res)
{
	struct tdev *t = res;

	atomic_inc(&t->cancels);
	wake_up_all(&t->wq);
}

static struct tdev *tdev_new(struct kunit *test)
{
	struct revocable_fops_desc d = {
		.fops = &t_fops, .cancel = t_cancel, .name = "rfo_kunit",
	};
	struct tdev *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	if (rfo_direct(test))
		d.direct = &t_direct;
	init_completion(&t->inside);
	init_waitqueue_head(&t->wq);
	d.res = t;
	t->rfo = revocable_fops_create(&d);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->rfo));
	return t;
}

/* What the VFS does for an open(): a file with the proxy, then ->open. */
static struct file *tdev_open(struct kunit *test, struct tdev *t)
{
	const struct file_operations *fops = revocable_fops_ops(t->rfo);
	struct file *f;

	f = anon_inode_getfile("rfo_kunit", fops, t, O_RDWR);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_ASSERT_EQ(test, f->f_op->open(file_inode(f), f), 0);
	return f;
}

static ssize_t tdev_iter(struct file *f, bool write)
{
	char buf[8];
	struct kvec kv = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct iov_iter it;
	struct kiocb kiocb;

	init_sync_kiocb(&kiocb, f);
	iov_iter_kvec(&it, write ? ITER_SOURCE : ITER_DEST, &kv, 1, sizeof(buf));
	return write ? f->f_op->write_iter(&kiocb, &it) :
		       f->f_op->read_iter(&kiocb, &it);
}

/* Every operation reaches the driver before revoke and none after. */
static void rfo_test_ops(struct kunit *test)
{
	struct tdev *t = tdev_new(test);
	struct file *f = tdev_open(test, t);
	const struct file_operations *p = f->f_op;
	int op;

	KUNIT_EXPECT_PTR_EQ(test, revocable_fops_of(f), t->rfo);
	KUNIT_EXPECT_EQ(test, p->llseek(f, 0, SEEK_SET), 42);
	KUNIT_EXPECT_EQ(test, p->read(f, NULL, 16, &f->f_pos), 16);
	KUNIT_EXPECT_EQ(test, p->write(f, NULL, 16, &f->f_pos), 17);
	KUNIT_EXPECT_EQ(test, tdev_iter(f, false), 8);
	KUNIT_EXPECT_EQ(test, tdev_iter(f, true), 9);
	KUNIT_EXPECT_EQ(test, p->poll(f, NULL), EPOLLOUT | EPOLLWRNORM);
	KUNIT_EXPECT_EQ(test, p->unlocked_ioctl(f, 5, 0), 6);
	KUNIT_EXPECT_EQ(test, p->compat_ioctl(f, 5, 0), 7);
	KUNIT_EXPECT_EQ(test, p->flush(f, NULL), 3);
	KUNIT_EXPECT_EQ(test, p->fasync(-1, f, 1), 4);
	for (op = 0; op < OP_NR; op++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&t->calls[op]),
				    op == OP_RELEASE ? 0 : 1, "op %d", op);

	KUNIT_EXPECT_FALSE(test, revocable_fops_revoked(t->rfo));
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 1);
	KUNIT_EXPECT_TRUE(test, revocable_fops_revoked(t->rfo));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->cancels), 1);
	WRITE_ONCE(t->dead, true);

	KUNIT_EXPECT_EQ(test, p->llseek(f, 0, SEEK_SET), -ENODEV);
	KUNIT_EXPECT_EQ(test, p->read(f, NULL, 16, &f->f_pos), -ENODEV);
	KUNIT_EXPECT_EQ(test, p->write(f, NULL, 16, &f->f_pos), -ENODEV);
	KUNIT_EXPECT_EQ(test, tdev_iter(f, false), -ENODEV);
	KUNIT_EXPECT_EQ(test, tdev_iter(f, true), -ENODEV);
	KUNIT_EXPECT_EQ(test, p->poll(f, NULL),
			EPOLLHUP | EPOLLERR | EPOLLIN | EPOLLRDNORM |
			EPOLLOUT | EPOLLWRNORM);
	KUNIT_EXPECT_EQ(test, p->unlocked_ioctl(f, 5, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, p->compat_ioctl(f, 5, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, p->flush(f, NULL), -ENODEV);
	KUNIT_EXPECT_EQ(test, p->fasync(-1, f, 1), -ENODEV);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->after_dead), 0);
	/* Turning FASYNC off still reaches the driver, as __fput() needs. */
	KUNIT_EXPECT_EQ(test, p->fasync(-1, f, 0), 4);
	KUNIT_EXPECT_EQ(test, t->fasync_on, 0);
	/* A second revoke has nothing to do. */
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->cancels), 1);

	__fput_sync(f);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->calls[OP_RELEASE]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->released_revoked), 1);
	revocable_fops_put(t->rfo);
}

static int n_read(struct inode *inode, struct file *file)
{
	return 0;
}

static ssize_t n_readf(struct file *file, char __user *buf, size_t len,
		       loff_t *ppos)
{
	return len;
}

static const struct file_operations n_fops = {
	.read = n_readf,
	.release = n_read,
};

DEFINE_REVOCABLE_FOPS(n_direct, n_fops);

/*
 * The proxy has an operation exactly where the driver has one; the direct
 * form differs from the generic one only where it has wrappers.
 */
static void rfo_test_mirrors(struct kunit *test)
{
	struct revocable_fops_desc d = {
		.fops = &n_fops, .res = test, .revoked_poll = EPOLLHUP,
	};
	const struct file_operations *p, *g;
	struct revocable_fops *rfo, *gen;

	gen = revocable_fops_create(&d);
	KUNIT_ASSERT_FALSE(test, IS_ERR(gen));
	g = revocable_fops_ops(gen);
	if (rfo_direct(test))
		d.direct = &n_direct;
	rfo = revocable_fops_create(&d);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rfo));
	p = revocable_fops_ops(rfo);
	if (rfo_direct(test))
		KUNIT_EXPECT_PTR_NE(test, p->read, g->read);
	else
		KUNIT_EXPECT_PTR_EQ(test, p->read, g->read);
	KUNIT_EXPECT_PTR_EQ(test, p->open, g->open);
	KUNIT_EXPECT_PTR_EQ(test, p->release, g->release);
	KUNIT_EXPECT_NOT_NULL(test, p->read);
	KUNIT_EXPECT_NOT_NULL(test, p->open);
	KUNIT_EXPECT_NOT_NULL(test, p->release);
	KUNIT_EXPECT_NULL(test, p->write);
	KUNIT_EXPECT_NULL(test, p->llseek);
	KUNIT_EXPECT_NULL(test, p->poll);
	KUNIT_EXPECT_NULL(test, p->mmap);
	KUNIT_EXPECT_NULL(test, p->unlocked_ioctl);
	KUNIT_EXPECT_NULL(test, p->fasync);
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(rfo), 1);
	revocable_fops_put(rfo);
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(gen), 1);
	revocable_fops_put(gen);
}

/*
 * release runs once per open: inside an access while the device is live,
 * at the last close after revoke, also when the files outlive the object's
 * owner.
 */
static void rfo_test_release_once(struct kunit *test)
{
	struct tdev *t = tdev_new(test);
	struct file *f[3];
	int i;

	for (i = 0; i < 3; i++)
		f[i] = tdev_open(test, t);
	__fput_sync(f[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->calls[OP_RELEASE]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->released_revoked), 0);
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->calls[OP_RELEASE]), 1);
	/* The owner lets go while two files are still open. */
	revocable_fops_put(t->rfo);
	__fput_sync(f[1]);
	__fput_sync(f[2]);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->calls[OP_RELEASE]), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->released_revoked), 2);
}

struct caller {
	struct file *f;
	int op;			/* OP_READ or OP_IOCTL */
	long ret;
	struct completion done;
};

static int caller_fn(void *arg)
{
	struct caller *c = arg;

	if (c->op == OP_READ)
		c->ret = c->f->f_op->read(c->f, NULL, 16, &c->f->f_pos);
	else
		c->ret = c->f->f_op->unlocked_ioctl(c->f, IOCTL_SLEEP, 0);
	complete(&c->done);
	return 0;
}

/* A reader sleeping on the device is woken by the cancellation step. */
static void rfo_test_blocked_read(struct kunit *test)
{
	struct tdev *t = tdev_new(test);
	struct caller c = { .op = OP_READ };
	unsigned long t0;

	init_completion(&c.done);
	c.f = tdev_open(test, t);
	t->block = true;
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(caller_fn, &c, "rfo_reader")));
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&t->inside,
							  TEST_TIMEOUT), 0);
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 1);
	KUNIT_EXPECT_LT(test, jiffies - t0, msecs_to_jiffies(2000));
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&c.done, TEST_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, c.ret, -ENODEV);
	__fput_sync(c.f);
	revocable_fops_put(t->rfo);
}

/* A kernel thread sleeping in IOCTL_SLEEP on a new file of @t, inside. */
static void rfo_start_sleeper(struct kunit *test, struct tdev *t,
			      struct caller *c)
{
	c->op = OP_IOCTL;
	init_completion(&c->done);
	c->f = tdev_open(test, t);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(caller_fn, c, "rfo_sleeper")));
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&t->inside,
							  TEST_TIMEOUT), 0);
}

/* After a revoke that waited: the sleeper's call ran to its end. */
static void rfo_end_sleeper(struct kunit *test, struct tdev *t,
			    struct caller *c)
{
	KUNIT_EXPECT_TRUE(test, READ_ONCE(t->slept));
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&c->done, TEST_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, c->ret, IOCTL_SLEEP + 1);
	__fput_sync(c->f);
	revocable_fops_put(t->rfo);
}

/* Revoke waits for a call that is not woken, and then nothing runs. */
static void rfo_test_revoke_waits(struct kunit *test)
{
	struct tdev *t = tdev_new(test);
	struct caller c = {};

	rfo_start_sleeper(test, t, &c);
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 1);
	rfo_end_sleeper(test, t, &c);
}

/*
 * The revoke's first half alone refuses new calls and cancels without
 * waiting; the second half (a revoke, or the owner's put) waits.
 */
static void rfo_test_revoke_begin(struct kunit *test)
{
	struct tdev *t = tdev_new(test);
	struct caller c = {};

	rfo_start_sleeper(test, t, &c);
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke_begin(t->rfo), 1);
	/* The sleeper sleeps 300 ms: not waited for. */
	KUNIT_EXPECT_FALSE(test, READ_ONCE(t->slept));
	KUNIT_EXPECT_EQ(test, atomic_read(&t->cancels), 1);
	KUNIT_EXPECT_TRUE(test, revocable_fops_revoked(t->rfo));
	KUNIT_EXPECT_EQ(test, c.f->f_op->unlocked_ioctl(c.f, 1, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke_begin(t->rfo), 0);
	/* A second begin does not cancel again. */
	KUNIT_EXPECT_EQ(test, atomic_read(&t->cancels), 1);
	if (rfo_direct(test)) {
		/* (Either form:) the owner's put finishes the wait, silently. */
		KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&c.done,
								  TEST_TIMEOUT), 0);
		__fput_sync(c.f);
		revocable_fops_put(t->rfo);
		return;
	}
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->cancels), 1);
	rfo_end_sleeper(test, t, &c);
}

struct looper {
	struct file *f;
	bool stop;
	int bad;		/* results that are neither live nor -ENODEV */
	int gone;		/* -ENODEV results */
	struct completion done;
};

static int looper_fn(void *arg)
{
	struct looper *l = arg;
	const struct file_operations *p = l->f->f_op;
	unsigned int i = 0;
	long r;

	while (!READ_ONCE(l->stop)) {
		switch (i++ % 5) {
		case 0:
			r = p->unlocked_ioctl(l->f, 9, 0);
			l->bad += r != 10 && r != -ENODEV;
			break;
		case 1:
			r = p->read(l->f, NULL, 8, &l->f->f_pos);
			l->bad += r != 8 && r != -ENODEV;
			break;
		case 2:
			r = p->poll(l->f, NULL);
			l->bad += r != (EPOLLOUT | EPOLLWRNORM) && !(r & EPOLLHUP);
			r = r & EPOLLHUP ? -ENODEV : 0;
			break;
		case 3:
			r = p->write(l->f, NULL, 8, &l->f->f_pos);
			l->bad += r != 9 && r != -ENODEV;
			break;
		default:
			r = p->llseek(l->f, 0, SEEK_SET);
			l->bad += r != 42 && r != -ENODEV;
			break;
		}
		l->gone += r == -ENODEV;
		cond_resched();
	}
	complete(&l->done);
	return 0;
}

/* Revoke against two threads calling every kind of operation, 20 rounds. */
static void rfo_test_concurrent(struct kunit *test)
{
	struct looper l[2];
	int round, i, gone = 0;

	for (round = 0; round < 20; round++) {
		struct tdev *t = tdev_new(test);

		for (i = 0; i < 2; i++) {
			l[i] = (struct looper){ .f = tdev_open(test, t) };
			init_completion(&l[i].done);
			KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(looper_fn, &l[i],
								    "rfo_looper")));
		}
		usleep_range(5000 + 1000 * (round % 7), 10000 + 1000 * (round % 7));
		KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 1);
		WRITE_ONCE(t->dead, true);
		usleep_range(5000, 10000);
		for (i = 0; i < 2; i++) {
			WRITE_ONCE(l[i].stop, true);
			KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&l[i].done,
									  TEST_TIMEOUT), 0);
			KUNIT_EXPECT_EQ(test, l[i].bad, 0);
			gone += l[i].gone;
			__fput_sync(l[i].f);
		}
		KUNIT_EXPECT_EQ(test, atomic_read(&t->after_dead), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&t->calls[OP_RELEASE]), 2);
		revocable_fops_put(t->rfo);
	}
	KUNIT_EXPECT_GT(test, gone, 0);
}

static ssize_t bad_splice(struct file *in, loff_t *ppos,
			  struct pipe_inode_info *pipe, size_t len,
			  unsigned int flags)
{
	return -EINVAL;
}

static const struct file_operations bad_fops = {
	.read = n_readf,
	.splice_read = bad_splice,
};

/* Misuse gets a defined result. */
static void rfo_test_misuse(struct kunit *test)
{
	struct revocable_fops_desc d = { .fops = &t_fops };
	struct revocable_fops *rfo;
	struct tdev *t;
	struct file *f;

	EXPECT_WARN_BEGIN();
	KUNIT_EXPECT_EQ(test, PTR_ERR(revocable_fops_create(NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(revocable_fops_create(&d)), -EINVAL);
	d.fops = NULL;
	d.res = test;
	KUNIT_EXPECT_EQ(test, PTR_ERR(revocable_fops_create(&d)), -EINVAL);
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(NULL), -EINVAL);
	EXPECT_WARN_END();
	d.fops = &bad_fops;
	KUNIT_EXPECT_EQ(test, PTR_ERR(revocable_fops_create(&d)), -EOPNOTSUPP);
	revocable_fops_put(NULL);
	revocable_fops_put(ERR_PTR(-EINVAL));

	/* Not a proxied file. */
	f = anon_inode_getfile("rfo_kunit", &n_fops, NULL, O_RDONLY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_NULL(test, revocable_fops_of(f));
	__fput_sync(f);

	/*
	 * Revoke from inside one of the device's own operations: lockdep
	 * detects it (without lockdep, it deadlocks, as documented).
	 */
	if (!IS_ENABLED(CONFIG_PROVE_RCU) || !debug_locks)
		kunit_skip(test, "needs lockdep, which is off");
	t = tdev_new(test);
	f = tdev_open(test, t);
	EXPECT_WARN_BEGIN();
	KUNIT_EXPECT_EQ(test, f->f_op->unlocked_ioctl(f, IOCTL_REVOKE, 0),
			IOCTL_REVOKE + 1);
	EXPECT_WARN_END();
	KUNIT_EXPECT_EQ(test, t->revoke_ret, -EDEADLK);
	KUNIT_EXPECT_EQ(test, f->f_op->unlocked_ioctl(f, 1, 0), -ENODEV);
	/* The wait left undone is finished by the next revoke. */
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 1);
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(t->rfo), 0);
	__fput_sync(f);
	revocable_fops_put(t->rfo);

	/* Put without revoke: revoked for the owner, with a warning. */
	t = tdev_new(test);
	f = tdev_open(test, t);
	rfo = t->rfo;
	EXPECT_WARN_BEGIN();
	revocable_fops_put(rfo);
	EXPECT_WARN_END();
	KUNIT_EXPECT_EQ(test, f->f_op->unlocked_ioctl(f, 1, 0), -ENODEV);
	__fput_sync(f);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->calls[OP_RELEASE]), 1);
}

static const struct file_operations *
n_fill_none(struct revocable_fops_calls *calls)
{
	return &n_fops;
}

/* Made by hand, wrongly: n_fops has read, and this has no wrapper for it. */
static const struct revocable_fops_direct n_direct_none = {
	.fill = n_fill_none,
};

/* Direct wrappers are refused with any table but the one they call. */
static void rfo_test_direct_mismatch(struct kunit *test)
{
	struct revocable_fops_desc d = {
		.fops = &t_fops, .direct = &n_direct, .res = test,
	};
	struct revocable_fops *rfo;

	EXPECT_WARN_BEGIN();
	KUNIT_EXPECT_EQ(test, PTR_ERR(revocable_fops_create(&d)), -EINVAL);
	d.fops = &n_fops;
	d.direct = &t_direct;
	KUNIT_EXPECT_EQ(test, PTR_ERR(revocable_fops_create(&d)), -EINVAL);
	d.direct = &n_direct_none;
	KUNIT_EXPECT_EQ(test, PTR_ERR(revocable_fops_create(&d)), -EINVAL);
	EXPECT_WARN_END();

	/* The table they were generated from is accepted. */
	d.direct = &n_direct;
	rfo = revocable_fops_create(&d);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rfo));
	KUNIT_EXPECT_EQ(test, revocable_fops_revoke(rfo), 1);
	revocable_fops_put(rfo);
}

static struct kunit_case revocable_fops_test_cases[] = {
	KUNIT_CASE_PARAM(rfo_test_ops, rfo_form_gen_params),
	KUNIT_CASE_PARAM(rfo_test_mirrors, rfo_form_gen_params),
	KUNIT_CASE_PARAM(rfo_test_release_once, rfo_form_gen_params),
	KUNIT_CASE_PARAM(rfo_test_blocked_read, rfo_form_gen_params),
	KUNIT_CASE_PARAM(rfo_test_revoke_waits, rfo_form_gen_params),
	KUNIT_CASE_PARAM(rfo_test_revoke_begin, rfo_form_gen_params),
	KUNIT_CASE_PARAM(rfo_test_concurrent, rfo_form_gen_params),
	KUNIT_CASE_PARAM(rfo_test_misuse, rfo_form_gen_params),
	KUNIT_CASE(rfo_test_direct_mismatch),
	{}
};

static struct kunit_suite revocable_fops_test_suite = {
	.name = "revocable_fops",
	.test_cases = revocable_fops_test_cases,
};

kunit_test_suite(revocable_fops_test_suite);

MODULE_DESCRIPTION("KUnit tests for revocable file operations");
MODULE_LICENSE("GPL");
