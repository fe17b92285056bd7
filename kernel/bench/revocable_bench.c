// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel benchmark of a revocable access against its peers: raw SRCU,
 * RCU, percpu_ref, and the reverted upstream design (an srcu_struct per
 * provider and a reference taken and dropped around every access, as its
 * REVOCABLE_TRY_ACCESS_WITH() did).  Results are printed as
 * "revocable_bench: NAME NS_PER_OP_X1000" lines, then the module fails to
 * load on purpose so that nothing stays behind.
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/percpu-refcount.h>
#include <linux/rcupdate.h>
#include <linux/revocable.h>
#include <linux/slab.h>
#include <linux/srcu.h>

static unsigned long iters = 2000000;
module_param(iters, ulong, 0444);
MODULE_PARM_DESC(iters, "iterations per measurement");

static int bench_target = 42;
DEFINE_STATIC_SRCU(bench_srcu);

/* The reverted design, for comparison. */
struct up_provider {
	struct srcu_struct srcu;
	void __rcu *res;
	struct kref kref;
};

static void up_release(struct kref *kref)
{
	struct up_provider *rp = container_of(kref, struct up_provider, kref);

	cleanup_srcu_struct(&rp->srcu);
	kfree(rp);
}

static noinline int up_access(struct up_provider *rp)
{
	int *res, idx, val = 0;

	rcu_read_lock();
	if (!kref_get_unless_zero(&rp->kref)) {
		rcu_read_unlock();
		return 0;
	}
	rcu_read_unlock();
	idx = srcu_read_lock(&rp->srcu);
	res = srcu_dereference(rp->res, &rp->srcu);
	if (res)
		val = *res;
	srcu_read_unlock(&rp->srcu, idx);
	kref_put(&rp->kref, up_release);
	return val;
}

static void percpu_release(struct percpu_ref *ref)
{
}

struct bench_ctx {
	struct revocable_provider __rcu *slot;
	struct revocable_provider *ref;
	struct up_provider *up;
	struct percpu_ref pref;
	int __rcu *ptr;
};

static u64 run(const char *name, u64 (*fn)(struct bench_ctx *, unsigned long),
	       struct bench_ctx *ctx)
{
	u64 best = U64_MAX, t0, ns;
	int r;

	for (r = 0; r < 5; r++) {
		t0 = ktime_get_ns();
		if (fn(ctx, iters) != (u64)iters * bench_target)
			pr_err("revocable_bench: %s: wrong result\n", name);
		ns = ktime_get_ns() - t0;
		best = min(best, ns);
		cond_resched();
	}
	/* ns per op, times 1000, as an integer: the kernel has no %f. */
	pr_info("revocable_bench: %s %llu\n", name, div64_u64(best * 1000, iters));
	return best;
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
static u64 run_all_cpus(const char *name,
			u64 (*fn)(struct bench_ctx *, unsigned long),
			struct bench_ctx *ctx)
{
	struct par_worker *w;
	struct completion go;
	u64 worst = 0;
	int cpu, n = 0;

	w = kcalloc(nr_cpu_ids, sizeof(*w), GFP_KERNEL);
	if (!w)
		return 0;
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
	return worst;
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

static u64 loop_access(struct bench_ctx *c, unsigned long n)
{
	struct revocable acc;
	u64 sum = 0;
	int *res;

	while (n--) {
		res = revocable_access(c->ref, &acc);
		sum += res ? *res : 0;
		revocable_withdraw_access(&acc);
	}
	return sum;
}

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

static u64 loop_upstream(struct bench_ctx *c, unsigned long n)
{
	u64 sum = 0;

	while (n--)
		sum += up_access(c->up);
	return sum;
}

static int __init revocable_bench_init(void)
{
	struct bench_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);
	u64 srcu, rcu, pref, acc, with, up;

	if (!c)
		return -ENOMEM;
	RCU_INIT_POINTER(c->ptr, &bench_target);
	c->slot = revocable_provider_alloc(&bench_target);
	c->ref = revocable_provider_get_rcu(&c->slot);
	c->up = kzalloc(sizeof(*c->up), GFP_KERNEL);
	if (!c->slot || !c->ref || !c->up || init_srcu_struct(&c->up->srcu) ||
	    percpu_ref_init(&c->pref, percpu_release, 0, GFP_KERNEL)) {
		pr_err("revocable_bench: setup failed\n");
		return -ENOMEM;
	}
	RCU_INIT_POINTER(c->up->res, &bench_target);
	kref_init(&c->up->kref);

	pr_info("revocable_bench: start iters=%lu\n", iters);
	srcu = run("srcu_read_lock", loop_srcu, c);
	rcu = run("rcu_read_lock", loop_rcu, c);
	pref = run("percpu_ref_tryget_live", loop_percpu_ref, c);
	acc = run("revocable_access", loop_access, c);
	with = run("REVOCABLE_TRY_ACCESS_WITH", loop_with, c);
	up = run("upstream_WITH", loop_upstream, c);
	{
		u64 psrcu = run_all_cpus("srcu_read_lock", loop_srcu, c);
		u64 pacc = run_all_cpus("revocable_access", loop_access, c);
		u64 pup = run_all_cpus("upstream_WITH", loop_upstream, c);
		u64 ppref = run_all_cpus("percpu_ref_tryget_live", loop_percpu_ref, c);

		pr_info("revocable_bench: ratio allcpu_access/srcu_x1000 %llu\n",
			div64_u64(pacc * 1000, psrcu));
		pr_info("revocable_bench: ratio allcpu_upstream/access_x1000 %llu\n",
			div64_u64(pup * 1000, pacc));
		pr_info("revocable_bench: ratio allcpu_access/percpu_ref_x1000 %llu\n",
			div64_u64(pacc * 1000, ppref));
	}
	pr_info("revocable_bench: ratio access/srcu_x1000 %llu\n",
		div64_u64(acc * 1000, srcu));
	pr_info("revocable_bench: ratio upstream/access_x1000 %llu\n",
		div64_u64(up * 1000, acc));
	pr_info("revocable_bench: ratio upstream/with_x1000 %llu\n",
		div64_u64(up * 1000, with));
	pr_info("revocable_bench: ratio access/rcu_x1000 %llu\n",
		div64_u64(acc * 1000, rcu));
	pr_info("revocable_bench: ratio access/percpu_ref_x1000 %llu\n",
		div64_u64(acc * 1000, pref));
	pr_info("revocable_bench: done\n");

	revocable_provider_put(c->ref);
	revocable_provider_revoke(&c->slot);
	percpu_ref_exit(&c->pref);
	kref_put(&c->up->kref, up_release);
	kfree(c);
	return -EAGAIN;	/* measured; nothing to keep loaded */
}

module_init(revocable_bench_init);
MODULE_DESCRIPTION("Benchmark of revocable accesses against their peers");
MODULE_LICENSE("GPL");
