// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel benchmark of every form of a revocable access against its
 * peers, in one boot: raw SRCU, RCU, percpu_ref, an out-of-line call into
 * the core, and the reverted upstream design (bench/upstream.c, the same
 * file the userspace benchmark builds).  Each form runs on one CPU, then
 * on every CPU at once.  Results are printed as
 * "revocable_bench: NAME NS_PER_OP_X1000" lines (NAME@Ncpu for the runs on
 * every CPU).  Then what a device's life costs ("revocable_bench: life
 * NAME NS_PER_OP_X1000"): a domain made and freed, a provider made,
 * revoked and released, a whole device (domain, provider, a consumer's
 * reference and access, revoke, free), against init_srcu_struct() and
 * cleanup_srcu_struct(), the same with a reader and synchronize_srcu()
 * (what a stock device does), and a percpu_ref made, killed, released and
 * exited.  Then the module fails to load on purpose so that nothing stays
 * behind.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/revocable.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "upstream.h"

static unsigned long iters = 2000000;
module_param(iters, ulong, 0444);
MODULE_PARM_DESC(iters, "iterations per measurement");

static int bench_target = 42;
DEFINE_STATIC_SRCU(bench_srcu);
#ifdef DEFINE_STATIC_SRCU_FAST
/* Linux 6.15 on: SRCU-fast, which the core's read side is on mainline. */
DEFINE_STATIC_SRCU_FAST(bench_srcu_fast);
#endif

static void percpu_release(struct percpu_ref *ref)
{
}

struct bench_ctx {
	struct revocable_provider __rcu *slot;
	struct revocable_provider *ref;
	struct up_provider *up;
	struct percpu_ref pref;
	int __rcu *ptr;
	struct device *dev;	/* for revocable_access_bound() */
};

#define RUNS	7

/* Put ns[r] in its place among ns[0..r-1] (sorted): the median is reported. */
static void sort_last(u64 *ns, int r)
{
	u64 tmp;

	for (; r > 0 && ns[r - 1] > ns[r]; r--) {
		tmp = ns[r];
		ns[r] = ns[r - 1];
		ns[r - 1] = tmp;
	}
}

static void run(const char *name, u64 (*fn)(struct bench_ctx *, unsigned long),
	       struct bench_ctx *ctx)
{
	u64 ns[RUNS], t0;
	int r;

	for (r = 0; r < RUNS; r++) {
		t0 = ktime_get_ns();
		if (fn(ctx, iters) != (u64)iters * bench_target)
			pr_err("revocable_bench: %s: wrong result\n", name);
		ns[r] = ktime_get_ns() - t0;
		sort_last(ns, r);
		cond_resched();
	}
	/* ns per op, times 1000, as an integer: the kernel has no %f. */
	pr_info("revocable_bench: %s %llu\n", name,
		div64_u64(ns[RUNS / 2] * 1000, iters));
}

struct par_worker {
	u64 (*fn)(struct bench_ctx *c, unsigned long n);
	struct bench_ctx *ctx;
	struct completion *go;
	struct completion done;
	u64 ns;
};

static int par_fn(void *data)
{
	struct par_worker *w = data;
	u64 t0;

	wait_for_completion(w->go);
	t0 = ktime_get_ns();
	w->fn(w->ctx, iters);
	w->ns = ktime_get_ns() - t0;
	complete(&w->done);
	return 0;
}

/*
 * The same loop on every online CPU at once, reported as the time per
 * access of one CPU: what sharing a cache line between CPUs costs.
 */
static void run_all_cpus(const char *name,
			u64 (*fn)(struct bench_ctx *, unsigned long),
			struct bench_ctx *ctx)
{
	struct par_worker *w;
	struct completion go;
	u64 worst = 0;
	int cpu, n = 0;

	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!w)
		return;
	init_completion(&go);
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		w[cpu].fn = fn;
		w[cpu].ctx = ctx;
		w[cpu].go = &go;
		init_completion(&w[cpu].done);
		t = kthread_create_on_cpu(par_fn, &w[cpu], cpu, "revocable_bench/%u");
		if (IS_ERR(t))
			continue;
		wake_up_process(t);
		n++;
	}
	complete_all(&go);
	for_each_online_cpu(cpu) {
		if (!w[cpu].fn)
			continue;
		wait_for_completion(&w[cpu].done);
		worst = max(worst, w[cpu].ns);
	}
	kfree(w);
	pr_info("revocable_bench: %s@%dcpu %llu\n", name, n,
		div64_u64(worst * 1000, iters));
}

static u64 loop_srcu(struct bench_ctx *c, unsigned long n)
{
	u64 sum = 0;
	int idx;

	while (n--) {
		idx = srcu_read_lock(&bench_srcu);
		sum += *srcu_dereference(c->ptr, &bench_srcu);
		srcu_read_unlock(&bench_srcu, idx);
	}
	return sum;
}

#ifdef DEFINE_STATIC_SRCU_FAST
static u64 loop_srcu_fast(struct bench_ctx *c, unsigned long n)
{
	struct srcu_ctr __percpu *scp;
	u64 sum = 0;

	while (n--) {
		scp = srcu_read_lock_fast(&bench_srcu_fast);
		sum += *srcu_dereference(c->ptr, &bench_srcu_fast);
		srcu_read_unlock_fast(&bench_srcu_fast, scp);
	}
	return sum;
}
#endif

static u64 loop_rcu(struct bench_ctx *c, unsigned long n)
{
	u64 sum = 0;

	while (n--) {
		rcu_read_lock();
		sum += *rcu_dereference(c->ptr);
		rcu_read_unlock();
	}
	return sum;
}

static u64 loop_percpu_ref(struct bench_ctx *c, unsigned long n)
{
	u64 sum = 0;

	while (n--) {
		if (percpu_ref_tryget_live(&c->pref)) {
			sum += bench_target;
			percpu_ref_put(&c->pref);
		}
	}
	return sum;
}

/*
 * An access and its withdraw an iteration.  Through the names themselves,
 * the inline fast path of the header's macros; through the names in
 * parentheses, which no macro expands, the exported functions: what every
 * access costs with CONFIG_REVOCABLE_DEBUG, and what the inline path saves.
 */
#define DEFINE_LOOP_ACCESS(name, access, withdraw)			\
static u64 name(struct bench_ctx *c, unsigned long n)			\
{									\
	struct revocable acc;						\
	u64 sum = 0;							\
	int *res;							\
									\
	while (n--) {							\
		res = access(c->ref, &acc);				\
		sum += res ? *res : 0;					\
		withdraw(&acc);						\
	}								\
	return sum;							\
}

DEFINE_LOOP_ACCESS(loop_access, revocable_access, revocable_withdraw_access)
DEFINE_LOOP_ACCESS(loop_access_outofline, __revocable_access,
		   __revocable_withdraw_access)

static u64 loop_with(struct bench_ctx *c, unsigned long n)
{
	u64 sum = 0;
	int *res;

	while (n--) {
		REVOCABLE_TRY_ACCESS_WITH(c->slot, res);
		sum += res ? *res : 0;
	}
	return sum;
}

static u64 loop_try_access(struct bench_ctx *c, unsigned long n)
{
	struct revocable rev;
	u64 sum = 0;
	int *res;

	if (revocable_init(c->slot, &rev))
		return 0;
	while (n--) {
		res = revocable_try_access(&rev);
		sum += res ? *res : 0;
		revocable_withdraw_access(&rev);
	}
	revocable_deinit(&rev);
	return sum;
}

/* The class a subsystem's one-line guard is built on (gpio_chip_guard). */
static u64 loop_class(struct bench_ctx *c, unsigned long n)
{
	u64 sum = 0;

	while (n--) {
		CLASS(revocable, scope)(c->ref);
		sum += scope.res ? *(int *)scope.res : 0;
	}
	return sum;
}

/*
 * The floor of a call into the core: the core exports no empty function,
 * and revocable_access_unchecked() comes closest (a NULL test and a load,
 * no read-side section).
 */
static u64 loop_unchecked(struct bench_ctx *c, unsigned long n)
{
	u64 sum = 0;
	int *res;

	while (n--) {
		res = revocable_access_unchecked(c->ref);
		sum += res ? *res : 0;
	}
	return sum;
}

#ifdef REVOCABLE_HAVE_ACCESS_BOUND
/* The access of a driver to its own device's resource while bound. */
static u64 loop_bound(struct bench_ctx *c, unsigned long n)
{
	u64 sum = 0;
	int *res;

	while (n--) {
		res = revocable_access_bound(c->ref, c->dev);
		sum += res ? *res : 0;
	}
	return sum;
}
#endif

static u64 loop_upstream(struct bench_ctx *c, unsigned long n)
{
	return up_with_macro_loop(c->up, n);
}

/* Every form, in the order of the report. */
/* ----- a device's life ---------------------------------------------------- */

/* Lives per measurement: each is microseconds to a grace period long. */
#define LIFE_N	200

static bool life_domain(void)
{
	return !revocable_domain_free(revocable_domain_alloc("bench-life"));
}

/* A provider in the default domain: made, revoked, released. */
static bool life_provider(void)
{
	struct revocable_provider __rcu *slot = revocable_provider_alloc(&bench_target);

	return slot && revocable_revoke(&slot) == 1;
}

/* A device with a domain of its own, as a converted subsystem has. */
static bool life_device(void)
{
	struct revocable_domain *dom = revocable_domain_alloc("bench-life");
	struct revocable_provider __rcu *slot;
	struct revocable_provider *ref;
	struct revocable acc;
	bool ok;

	if (!dom)
		return false;
	slot = revocable_provider_alloc_in(dom, &bench_target);
	ref = revocable_provider_get_rcu(&slot);
	ok = ref && revocable_access(ref, &acc) == &bench_target;
	revocable_withdraw_access(&acc);
	ok = revocable_revoke(&slot) == 1 && ok;
	revocable_provider_put(ref);
	return !revocable_domain_free(dom) && ok;
}

static bool life_srcu(void)
{
	struct srcu_struct s;

	if (init_srcu_struct(&s))
		return false;
	cleanup_srcu_struct(&s);
	return true;
}

/* What a stock device does with its srcu_struct: a reader, a sync, cleanup. */
static bool life_srcu_sync(void)
{
	struct srcu_struct s;
	int idx;

	if (init_srcu_struct(&s))
		return false;
	idx = srcu_read_lock(&s);
	srcu_read_unlock(&s, idx);
	synchronize_srcu(&s);
	cleanup_srcu_struct(&s);
	return true;
}

static DECLARE_COMPLETION(life_ref_done);

static void life_ref_release(struct percpu_ref *ref)
{
	complete(&life_ref_done);
}

static bool life_percpu_ref(void)
{
	struct percpu_ref r;

	if (percpu_ref_init(&r, life_ref_release, 0, GFP_KERNEL))
		return false;
	percpu_ref_kill(&r);
	wait_for_completion(&life_ref_done);
	percpu_ref_exit(&r);
	return true;
}

static const struct {
	const char *name;
	bool (*fn)(void);
} lives[] = {
	{ "domain", life_domain },
	{ "provider", life_provider },
	{ "device", life_device },
	{ "srcu", life_srcu },
	{ "srcu_sync", life_srcu_sync },
	{ "percpu_ref", life_percpu_ref },
};

/* Each life LIFE_N times in a row, RUNS runs; the median run per life. */
static void run_lives(void)
{
	u64 ns[RUNS], t0;
	unsigned int l;
	int r, j;

	for (l = 0; l < ARRAY_SIZE(lives); l++) {
		for (r = 0; r < RUNS; r++) {
			t0 = ktime_get_ns();
			for (j = 0; j < LIFE_N; j++)
				if (!lives[l].fn())
					pr_err("revocable_bench: life %s failed\n",
					       lives[l].name);
			ns[r] = ktime_get_ns() - t0;
			sort_last(ns, r);
			cond_resched();
		}
		pr_info("revocable_bench: life %s %llu\n", lives[l].name,
			div64_u64(ns[RUNS / 2] * 1000, LIFE_N));
	}
}

static const struct bench_form {
	const char *name;
	u64 (*fn)(struct bench_ctx *c, unsigned long n);
} forms[] = {
	{ "srcu_read_lock", loop_srcu },
#ifdef DEFINE_STATIC_SRCU_FAST
	{ "srcu_read_lock_fast", loop_srcu_fast },
#endif
	{ "rcu_read_lock", loop_rcu },
	{ "percpu_ref_tryget_live", loop_percpu_ref },
	{ "revocable_access_unchecked", loop_unchecked },
	{ "revocable_access", loop_access },
	{ "revocable_access_outofline", loop_access_outofline },
	{ "REVOCABLE_TRY_ACCESS_WITH", loop_with },
	{ "CLASS_revocable", loop_class },
	{ "revocable_try_access", loop_try_access },
#ifdef REVOCABLE_HAVE_ACCESS_BOUND
	{ "revocable_access_bound", loop_bound },
#endif
	{ "upstream_WITH", loop_upstream },
};

static int __init revocable_bench_init(void)
{
	struct bench_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);
	unsigned int i;

	if (!c)
		return -ENOMEM;
#ifdef REVOCABLE_HAVE_ACCESS_BOUND
	/* A root device: nothing unbinds it while this module runs. */
	c->dev = root_device_register("revocable_bench");
	if (IS_ERR(c->dev)) {
		int err = PTR_ERR(c->dev);

		pr_err("revocable_bench: no device: %d\n", err);
		kfree(c);
		return err;
	}
#endif
	RCU_INIT_POINTER(c->ptr, &bench_target);
	c->slot = revocable_provider_alloc(&bench_target);
	c->ref = revocable_provider_get_rcu(&c->slot);
	c->up = up_provider_alloc(&bench_target);
	if (!c->slot || !c->ref || !c->up ||
	    percpu_ref_init(&c->pref, percpu_release, 0, GFP_KERNEL)) {
		pr_err("revocable_bench: setup failed\n");
#ifdef REVOCABLE_HAVE_ACCESS_BOUND
		root_device_unregister(c->dev);
#endif
		return -ENOMEM;
	}

	pr_info("revocable_bench: start iters=%lu\n", iters);
	for (i = 0; i < ARRAY_SIZE(forms); i++)
		run(forms[i].name, forms[i].fn, c);
	for (i = 0; i < ARRAY_SIZE(forms); i++)
		run_all_cpus(forms[i].name, forms[i].fn, c);
	run_lives();
	pr_info("revocable_bench: done\n");

	revocable_provider_put(c->ref);
	revocable_provider_revoke(&c->slot);
	percpu_ref_exit(&c->pref);
	up_provider_revoke(&c->up);
#ifdef REVOCABLE_HAVE_ACCESS_BOUND
	root_device_unregister(c->dev);
#endif
	kfree(c);
	/* Deferred frees must run before this module's text goes away. */
	rcu_barrier();
	return -EAGAIN;	/* measured; nothing to keep loaded */
}

module_init(revocable_bench_init);
MODULE_DESCRIPTION("Benchmark of revocable accesses against their peers");
MODULE_LICENSE("GPL");
