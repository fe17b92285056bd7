/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Userspace stand-in for <linux/srcu.h>: sleepable RCU with per-domain
 * grace periods.
 *
 * As in the kernel, srcu_read_lock() returns the read index it counted
 * under, and srcu_read_unlock() must be given the same index: a wrong index
 * leaves one index's lock and unlock sums apart for good and the next
 * grace period never ends, exactly as in the kernel.  The read side is
 * <revocable/reader.h>'s, the same code that programs built with
 * _LGPL_SOURCE run inline: a few loads of the thread's own block, one
 * store to its own counter and a compiler barrier; no atomic
 * read-modify-write and no store to memory another thread writes.
 */
#ifndef _COMPAT_LINUX_SRCU_H
#define _COMPAT_LINUX_SRCU_H

#include <pthread.h>
#include <runtime/thread.h>
#include <linux/rcupdate.h>
#include <revocable/reader.h>

struct srcu_struct {
	/*
	 * What readers read: the read index and the domain's slot.  First,
	 * because <revocable.h>'s inline accessors, which know a domain's
	 * srcu_struct only by pointer, reach it by a cast.
	 */
	struct __revocable_srcu reader;
	const char *name;
	pthread_mutex_t gp_lock;	/* serialises grace periods */
	/* call_srcu() machinery: a worker thread started on first use */
	pthread_mutex_t cb_lock;
	pthread_cond_t cb_cond;
	pthread_cond_t cb_done_cond;
	struct rcu_head *cb_head;
	struct rcu_head **cb_tail;
	struct rcu_head *cb_inflight;	/* taken, waiting for its grace period */
	unsigned long cb_queued;
	unsigned long cb_done;
	pthread_t cb_worker;
	pthread_t cb_drainer;	/* runs the queue itself, no worker; 0: none */
	bool cb_running;
	bool cb_stop;
};

int __init_srcu_struct(struct srcu_struct *ssp, const char *name);
#define init_srcu_struct(ssp) __init_srcu_struct((ssp), #ssp)
void cleanup_srcu_struct(struct srcu_struct *ssp);
void synchronize_srcu(struct srcu_struct *ssp);
void call_srcu(struct srcu_struct *ssp, struct rcu_head *head,
	       rcu_callback_t func);
void srcu_barrier(struct srcu_struct *ssp);
int srcu_read_lock_held(const struct srcu_struct *ssp);
/*
 * synchronize_srcu() that calls @report in the caller's context each time
 * it has waited another @every_ms for readers (0, or no @report: never):
 * the slow-revoke report's wait.  The kernel's SRCU has no such call; there the library's read
 * side (revocable_srcu) has its own, which <linux/revocable_srcu.h> maps
 * here in userspace.
 */
void compat_synchronize_srcu_report(struct srcu_struct *ssp,
				    unsigned int every_ms,
				    void (*report)(void *arg,
						   unsigned int waited_ms),
				    void *arg);
#define synchronize_srcu_report compat_synchronize_srcu_report
/* Grace periods completed so far, all domains together (tests only). */
unsigned long compat_srcu_gp_count(void);

/*
 * Userspace only: the name reports give @ssp (init_srcu_struct() names it
 * after the expression it was given).  @name must outlive @ssp.  The
 * library names a domain's SRCU state after the domain when this is
 * defined; the kernel has no such call.
 */
void compat_srcu_set_name(struct srcu_struct *ssp, const char *name);
#define srcu_set_name compat_srcu_set_name

/*
 * Userspace only: whether a grace period or a call_srcu() of @ssp, made
 * now by the calling thread, would wait for the calling thread itself: a
 * signal handler that interrupted the thread while it held one of the
 * locks those take (a grace period of @ssp or any registry scan under
 * way, @ssp's callback queue).  Callers warn and return -EDEADLK instead
 * of waiting.  In the kernel, the same calls from interrupt context are
 * caught by in_interrupt().
 */
bool compat_srcu_would_deadlock(const struct srcu_struct *ssp);
#define srcu_would_deadlock compat_srcu_would_deadlock

/*
 * A static domain is set up by a constructor, so that the read side never
 * has to test whether its domain is initialised.
 */
#define __DEFINE_SRCU(name, qual)					\
	qual struct srcu_struct name;					\
	static void __attribute__((__constructor__))			\
	__PASTE(name, _compat_srcu_ctor)(void)				\
	{								\
		if (__init_srcu_struct(&name, #name))			\
			compat_srcu_static_init_failed(#name);		\
	}
#define DEFINE_STATIC_SRCU(name)	__DEFINE_SRCU(name, static)
#define DEFINE_SRCU(name)		__DEFINE_SRCU(name, )
void compat_srcu_static_init_failed(const char *name) __cold;

static __always_inline int srcu_read_lock(struct srcu_struct *ssp)
{
	return __revocable_reader_lock(__revocable_me(), &ssp->reader);
}

static __always_inline void srcu_read_unlock(struct srcu_struct *ssp, int idx)
{
	__revocable_reader_unlock(__revocable_me(), &ssp->reader, idx);
}

#define srcu_dereference(p, ssp)	rcu_dereference_raw(p)
#define srcu_dereference_check(p, ssp, c) rcu_dereference_raw(p)

#endif
