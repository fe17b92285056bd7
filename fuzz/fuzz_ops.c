// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: the input is a program of operations on a few provider
 * slots, consumer references, upstream handles and fast accesses, run from
 * three contexts (the fuzzer's thread and two worker threads).  Every
 * result is checked against a model of the contract in <linux/revocable.h>:
 * return values, which accesses see the resource, how many WARNs fire,
 * that a revoke blocked by readers finishes once they withdraw, and that
 * every resource is freed exactly once.  A broken expectation aborts with
 * the line of the check; a use after free is left to ASan, which the
 * target is built with.
 *
 * Each operation is two bytes:
 *   byte 0: bits 0-4 the operation, bits 5-7 the context (mod 3)
 *   byte 1: bits 0-1 a, bits 2-3 b, bits 4-7 c (operands)
 *
 * The model never lets a context block while it holds an access (that is
 * a deadlock by design, in the kernel too), so the program always ends:
 * a revoke that must wait for readers held by other contexts is started on
 * a worker and that worker counts as busy until the readers are gone.
 *
 * Every cell of the misuse matrix is among the operations (MISUSE_CELLS
 * below).  Left to the unit tests: creating and freeing domains, and
 * revocable_domain_barrier() where it waits (the fuzzer only calls it, and
 * revocable_domain_free(), where they refuse at once or after a short
 * barrier).  Both wait for liburcu's call_rcu thread, which batches for
 * 10 ms, and would cut the fuzzer to ~50 inputs/s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/bug.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <revocable.h>

#define NPROV		4
#define NREF		4
#define NHANDLE		3
#define NCTX		3
#define NACC		3
#define NDOM		2
#define MAX_GENS	1024
#define BOUND_MS	10000

#define RES_MAGIC	0x5245564f4b414c4cULL
#define RES_POISON	0x6b6b6b6b6b6b6b6bULL

static void __attribute__((__noreturn__, __format__(printf, 2, 3)))
model_fail(int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_ops.c:%d: model broken: ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			model_fail(__LINE__, #cond " " __VA_ARGS__);	\
	} while (0)

/*
 * The misuse matrix of docs/design.md, cell by cell (its KUnit case names
 * without "misuse_").  The operations below reach each FUZZED cell, mark it
 * with CELL() and check the cell's defined result (return value, WARN
 * count, what is freed); with FUZZ_CELLS=1 (the fuzz-seeds test) the
 * process fails at exit when the inputs it ran reached no FUZZED cell of
 * the list.  tests/check-misuse-matrix.py checks the list against the
 * matrix.
 */
#define MISUSE_CELLS(FUZZED, NOT_FUZZED)					\
	NOT_FUZZED(domain_alloc, null, "domains are made by the unit tests")	\
	FUZZED(domain_free, null)						\
	FUZZED(domain_free, default_domain)					\
	FUZZED(domain_free, out_of_order)					\
	FUZZED(domain_free, inside_access)					\
	FUZZED(domain_barrier, null)						\
	FUZZED(domain_barrier, inside_access)					\
	FUZZED(domain_set_slow, null)						\
	FUZZED(provider_alloc, null)						\
	FUZZED(provider_alloc_in, null)						\
	FUZZED(provider_publish, null)						\
	FUZZED(provider_publish, twice)						\
	FUZZED(provider_get_rcu, null)						\
	FUZZED(provider_get_rcu, after_revoke)					\
	FUZZED(provider_get, null)						\
	FUZZED(provider_put, null)						\
	FUZZED(provider_put, twice)						\
	FUZZED(revoke, null)							\
	FUZZED(revoke, twice)							\
	FUZZED(revoke, second_slot)						\
	FUZZED(revoke, inside_access)						\
	FUZZED(provider_revoke, null)						\
	FUZZED(provider_revoke, twice)						\
	FUZZED(provider_revoke, inside_access)					\
	FUZZED(revoke_async, null)						\
	FUZZED(revoke_async, twice)						\
	FUZZED(revoke_async, second_slot)					\
	FUZZED(revoke_batch, null)						\
	FUZZED(revoke_batch, twice)						\
	FUZZED(revoke_batch, inside_access)					\
	FUZZED(revoke_begin, null)						\
	FUZZED(revoke_begin, twice)						\
	FUZZED(revoke_begin, second_slot)					\
	FUZZED(revoke_wait, null)						\
	FUZZED(revoke_wait, twice)						\
	FUZZED(revoke_wait, out_of_order)					\
	FUZZED(revoke_wait, after_async)					\
	FUZZED(revoke_wait, inside_access)					\
	FUZZED(access, null)							\
	FUZZED(access_unchecked, null)						\
	NOT_FUZZED(try_access_with, null, "the macros are revocable_access()")	\
	NOT_FUZZED(try_access_scoped, null, "the macros are revocable_access()") \
	FUZZED(init, null)							\
	FUZZED(try_access, twice)						\
	FUZZED(try_access, after_deinit)					\
	FUZZED(withdraw_access, out_of_order)					\
	FUZZED(deinit, twice)							\
	FUZZED(deinit, inside_access)

#define CELL_ENUM(fn, m)	CELL_##fn##__##m,
#define CELL_NAME(fn, m)	#fn "__" #m,
#define CELL_SKIP(fn, m, why)

enum cell { MISUSE_CELLS(CELL_ENUM, CELL_SKIP) CELL_COUNT };
static const char *const cell_names[CELL_COUNT] = {
	MISUSE_CELLS(CELL_NAME, CELL_SKIP)
};
static unsigned long cell_hits[CELL_COUNT];

#define CELL(fn, m)	(cell_hits[CELL_##fn##__##m]++)

/* ----- resources --------------------------------------------------------- */

struct res {
	uint64_t magic;
	unsigned int gen;
};

static unsigned long res_live;		/* allocated and not yet freed */

static struct res *res_new(unsigned int gen)
{
	struct res *r = malloc(sizeof(*r));

	if (!r)
		abort();
	r->magic = RES_MAGIC;
	r->gen = gen;
	__atomic_add_fetch(&res_live, 1, __ATOMIC_RELAXED);
	return r;
}

static void res_free(struct res *r)
{
	CHECK(r->magic == RES_MAGIC, "(resource %u freed twice)", r->gen);
	r->magic = RES_POISON;
	free(r);
	__atomic_sub_fetch(&res_live, 1, __ATOMIC_RELAXED);
}

static unsigned long async_done_count;

static void async_done(void *arg)
{
	if (arg)
		res_free(arg);
	__atomic_add_fetch(&async_done_count, 1, __ATOMIC_RELEASE);
}

/* ----- the model --------------------------------------------------------- */

struct gen {			/* one provider, from allocation on */
	struct res *res;
	int dom;
	bool revoked;		/* new accesses must fail */
	char how;		/* 'a' async, 'w' begin and wait, else 0 */
};

struct prov {			/* an owner's slot */
	struct revocable_provider __rcu *slot;
	struct gen *g;		/* the live provider in the slot */
	struct revocable_provider *begun;	/* two-phase revoke pending */
	struct gen *begun_g;
};

struct ref {			/* a consumer reference */
	struct revocable_provider *rp;
	struct gen *g;
	int accesses;		/* fast accesses entered through it */
};

struct fast {			/* a revocable_access() */
	struct revocable acc;
	bool open;
	struct gen *g;		/* NULL when entered with a NULL provider */
	struct ref *via;
	struct res *res;
};

enum hstate { H_UNUSED, H_INERT, H_LIVE, H_DEAD };

struct handle {			/* a revocable_init() handle */
	struct revocable rev;
	enum hstate st;
	struct gen *g;
	int owner;		/* context inside an access through it, or -1 */
	int refused;
	struct res *res;
};

enum op_kind {
	OP_ALLOC, OP_GET_RCU, OP_GET, OP_PUT, OP_ACCESS, OP_WITHDRAW,
	OP_WITHDRAW_OTHER, OP_USE, OP_INIT, OP_TRY, OP_WITHDRAW_H, OP_DEINIT,
	OP_REVOKE, OP_ASYNC, OP_BATCH, OP_BEGIN, OP_WAIT, OP_UNCHECKED,
	OP_BAD, OP_EXIT, OP_CASCADE, OP_STALE, OP_COUNT
};

/* What a context is asked to run, and what came back. */
struct call {
	int kind;
	struct revocable_provider __rcu **slot;
	struct revocable_provider __rcu **slots[NPROV];	/* for a batch */
	unsigned int n;
	struct revocable_provider *rp;
	struct revocable *rev;
	struct res *res;		/* for async: freed by the callback */
	struct res *free_after[NPROV];	/* freed by the caller on success */
	bool void_variant;
	int bad;
	struct revocable_provider __rcu *tmp;	/* a second slot */
	long ret;
	void *ptr;
};

struct ctx {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct call *call;
	bool pending, done;
	int held[NDOM];		/* read-side sections open per domain */
	struct fast acc[NACC];
	bool busy;		/* blocked in a revoke, waiting for readers */
	struct call blocked;
	unsigned int blocked_doms;
	long blocked_ret;
};

static struct revocable_domain *doms[NDOM];
static struct prov provs[NPROV];
static struct ref refs[NREF];
static struct handle handles[NHANDLE];
static struct ctx ctxs[NCTX];
static struct gen gens[MAX_GENS];
static unsigned int ngens;
static struct res *orphans[MAX_GENS];
static unsigned int norphans;
static unsigned long async_expected;

/* Printed at exit with FUZZ_STATS=1: what the inputs exercised. */
static struct {
	unsigned long inputs, ops[OP_COUNT], blocked, released, deadlocks,
		      warned, async;
} stats;

/* ----- running a call in a context --------------------------------------- */

static void call_free_after(struct call *c)
{
	unsigned int i;

	for (i = 0; i < NPROV; i++) {
		if (c->free_after[i])
			res_free(c->free_after[i]);
		c->free_after[i] = NULL;
	}
}

static void bad_call(struct call *c);
static void stale_call(struct call *c);

/* Runs in the chosen context. */
static void call_exec(struct call *c)
{
	switch (c->kind) {
	case OP_GET_RCU:
		c->ptr = revocable_provider_get_rcu(c->slot);
		break;
	case OP_ACCESS:
		c->ptr = revocable_access(c->rp, c->rev);
		break;
	case OP_WITHDRAW:
	case OP_WITHDRAW_OTHER:
	case OP_WITHDRAW_H:
		revocable_withdraw_access(c->rev);
		break;
	case OP_TRY:
		c->ptr = revocable_try_access(c->rev);
		break;
	case OP_DEINIT:
		revocable_deinit(c->rev);
		break;
	case OP_REVOKE:
		if (c->void_variant) {
			revocable_provider_revoke(c->slot);
			c->ret = 1;
		} else {
			c->ret = revocable_revoke(c->slot);
		}
		if (c->ret == 1)
			call_free_after(c);
		break;
	case OP_ASYNC:
		c->ret = revocable_revoke_async(c->slot, async_done, c->res);
		break;
	case OP_BATCH:
		c->ret = revocable_revoke_batch(c->slots, c->n);
		if (c->ret >= 0)
			call_free_after(c);
		break;
	case OP_BEGIN:
		c->ptr = revocable_revoke_begin(c->slot);
		break;
	case OP_WAIT:
		c->ret = revocable_revoke_wait(c->rp);
		if (c->ret == 0)
			call_free_after(c);
		break;
	case OP_BAD:
		bad_call(c);
		break;
	case OP_STALE:
		stale_call(c);
		break;
	case OP_EXIT:
		/* ctx_exit() joins; the exit handler runs after this. */
		pthread_exit(NULL);
	default:
		abort();
	}
}

static void *worker(void *arg)
{
	struct ctx *x = arg;

	pthread_mutex_lock(&x->lock);
	for (;;) {
		while (!x->pending)
			pthread_cond_wait(&x->cond, &x->lock);
		x->pending = false;
		pthread_mutex_unlock(&x->lock);
		call_exec(x->call);
		pthread_mutex_lock(&x->lock);
		x->done = true;
		pthread_cond_broadcast(&x->cond);
	}
	return NULL;
}

static void ctx_spawn(int i)
{
	if (pthread_create(&ctxs[i].tid, NULL, worker, &ctxs[i]))
		abort();
}

static void ctx_start(int i, struct call *c)
{
	struct ctx *x = &ctxs[i];

	pthread_mutex_lock(&x->lock);
	x->call = c;
	x->done = false;
	x->pending = true;
	pthread_cond_broadcast(&x->cond);
	pthread_mutex_unlock(&x->lock);
}

/* Waits for a started call; a call that does not finish is a hang. */
static void ctx_finish(int i, int line)
{
	struct ctx *x = &ctxs[i];
	struct timespec ts;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += BOUND_MS / 1000;
	pthread_mutex_lock(&x->lock);
	while (!x->done && err == 0)
		err = pthread_cond_timedwait(&x->cond, &x->lock, &ts);
	pthread_mutex_unlock(&x->lock);
	if (!x->done)
		model_fail(line, "call %d in context %d did not finish in %d ms",
			   x->call->kind, i, BOUND_MS);
}

/* Runs @c in context @i and waits for it; returns the WARNs it fired. */
static unsigned long run(int i, struct call *c)
{
	unsigned long w = compat_warn_count();

	if (i == 0) {
		call_exec(c);
	} else {
		ctx_start(i, c);
		ctx_finish(i, __LINE__);
	}
	return compat_warn_count() - w;
}

#define RUN(i, c, warns)						\
	do {								\
		struct call *__c = (c);					\
		int __i = (i);						\
		unsigned long __want = (warns);				\
		unsigned long __w = run(__i, __c);			\
		stats.warned += __w;					\
		CHECK(__w == __want,					\
		      "(op %d in context %d: %lu WARNs, expected %lu)",	\
		      __c->kind, __i, __w, __want);			\
	} while (0)

/* ----- model helpers ------------------------------------------------------ */

static struct gen *gen_new(struct res **resp, int dom)
{
	struct gen *g;

	if (ngens == MAX_GENS)
		return NULL;
	g = &gens[ngens];
	memset(g, 0, sizeof(*g));
	g->res = res_new(ngens);
	g->dom = dom;
	ngens++;
	*resp = g->res;
	return g;
}

static int held_by_others(int self, unsigned int dmask)
{
	int i, d, n = 0;

	for (i = 0; i < NCTX; i++)
		for (d = 0; d < NDOM; d++)
			if (i != self && (dmask & (1u << d)))
				n += ctxs[i].held[d];
	return n;
}

static unsigned int held_mask(int self)
{
	unsigned int m = 0;
	int d;

	for (d = 0; d < NDOM; d++)
		if (ctxs[self].held[d])
			m |= 1u << d;
	return m;
}

static void expect_access(struct gen *g, void *got)
{
	struct res *want = g && !g->revoked ? g->res : NULL;

	CHECK(got == want, "(access saw %p, expected %p)", got, (void *)want);
	if (got)
		CHECK(((struct res *)got)->magic == RES_MAGIC);
}

/*
 * Blocked revokes whose domains now have no reader at all must finish:
 * "revoke terminates once readers withdraw".
 */
static void release_blocked(void)
{
	int i;

	for (i = 1; i < NCTX; i++) {
		struct ctx *x = &ctxs[i];

		if (!x->busy || held_by_others(-1, x->blocked_doms))
			continue;
		ctx_finish(i, __LINE__);
		CHECK(x->blocked.ret == x->blocked_ret,
		      "(blocked op %d returned %ld, expected %ld)",
		      x->blocked.kind, x->blocked.ret, x->blocked_ret);
		x->busy = false;
		stats.released++;
	}
}

/*
 * How a revoke-type call in context @i on domains @dmask must behave:
 * 'd' deadlock (inside an access of one of them), 'b' blocks on other
 * contexts' readers, 'r' returns at once, 0 skip (it would block while
 * holding an access of another domain, or block the fuzzer's own thread).
 */
static char revoke_mode(int i, unsigned int dmask)
{
	unsigned int mine = held_mask(i);

	if (mine & ~dmask)
		return 0;
	if (mine & dmask)
		return held_by_others(i, dmask & ~mine) ? 0 : 'd';
	if (held_by_others(i, dmask))
		return i == 0 ? 0 : 'b';
	return 'r';
}

/* Start @c in worker @i, which stays blocked until the readers go. */
static void start_blocked(int i, struct call *c, unsigned int dmask, long ret)
{
	struct revocable_provider *rps[NPROV] = { NULL };
	struct ctx *x = &ctxs[i];
	unsigned long t0 = (unsigned long)time(NULL);
	unsigned int p, n = c->kind == OP_BATCH ? c->n : 1;

	for (p = 0; p < n; p++) {
		struct revocable_provider __rcu **s =
			c->kind == OP_BATCH ? c->slots[p] : c->slot;

		rps[p] = s ? rcu_access_pointer(*s) : NULL;
	}
	stats.blocked++;
	x->blocked = *c;
	x->blocked_doms = dmask;
	x->blocked_ret = ret;
	x->busy = true;
	ctx_start(i, &x->blocked);
	/*
	 * The revoke has begun for the model once new accesses fail: when the
	 * providers' resource pointers read NULL (the slots are cleared just
	 * before them).
	 */
	for (p = 0; p < n; p++) {
		while (rps[p] && revocable_access_unchecked(rps[p])) {
			CHECK((unsigned long)time(NULL) - t0 < BOUND_MS / 1000);
			sched_yield();
		}
	}
}

/* ----- operations --------------------------------------------------------- */

struct args {
	int ctx, a, b, c;
};

static void op_alloc(struct args *o)
{
	struct prov *p = &provs[o->a];
	int dom = o->b & 1;
	bool fail = o->c & 1;
	struct revocable_provider *rp;
	struct res *res;
	struct gen *g;

	if (p->g)
		return;
	g = gen_new(&res, dom);
	if (!g)
		return;
	if (fail)
		compat_alloc_fail_countdown = 1;
	rp = revocable_provider_alloc_in(doms[dom], res);
	if (fail) {
		CHECK(!rp && !compat_alloc_fail_countdown);
		res_free(res);
		return;
	}
	CHECK(rp);
	rcu_assign_pointer(p->slot, rp);
	p->g = g;
}

static void op_get_rcu(struct args *o)
{
	struct prov *p = &provs[o->a];
	struct ref *r = &refs[o->b];
	struct call c = { .kind = OP_GET_RCU, .slot = &p->slot };

	if (r->rp)
		return;
	RUN(o->ctx, &c, 0);
	CHECK(!!c.ptr == !!p->g);
	if (!p->g)
		CELL(provider_get_rcu, after_revoke);
	if (c.ptr) {
		CHECK(c.ptr == (void *)rcu_access_pointer(p->slot));
		r->rp = c.ptr;
		r->g = p->g;
	}
}

static void op_get(struct args *o)
{
	struct ref *from = &refs[o->a], *to = &refs[o->b];

	if (!from->rp || to->rp)
		return;
	to->rp = revocable_provider_get(from->rp);
	CHECK(to->rp == from->rp);
	to->g = from->g;
	to->accesses = 0;
}

static void op_put(struct args *o)
{
	struct ref *r = &refs[o->a];
	unsigned long w = compat_warn_count();

	if (r->accesses)
		return;		/* accesses through it keep it alive */
	revocable_provider_put(r->rp);
	CHECK(compat_warn_count() == w);
	r->rp = NULL;
	r->g = NULL;
}

/* The provider an operand names: the owner's slot (c odd) or a reference. */
static struct revocable_provider *pick_provider(struct args *o,
						struct gen **g,
						struct ref **via)
{
	*via = NULL;
	if ((o->c & 1) && provs[o->a].g) {
		*g = provs[o->a].g;
		return rcu_access_pointer(provs[o->a].slot);
	}
	if (refs[o->a].rp) {
		*g = refs[o->a].g;
		*via = &refs[o->a];
		return refs[o->a].rp;
	}
	*g = NULL;
	return NULL;
}

static void op_access(struct args *o)
{
	struct ctx *x = &ctxs[o->ctx];
	struct call c = { .kind = OP_ACCESS };
	struct fast *f = NULL;
	struct ref *via;
	struct gen *g;
	int k;

	for (k = 0; k < NACC && !f; k++)
		if (!x->acc[k].open)
			f = &x->acc[k];
	if (!f)
		return;
	c.rp = pick_provider(o, &g, &via);
	c.rev = &f->acc;
	RUN(o->ctx, &c, 0);
	expect_access(g, c.ptr);
	if (!c.rp)
		CELL(access, null);
	f->open = true;
	f->g = g;
	f->via = via;
	f->res = c.ptr;
	if (g)
		x->held[g->dom]++;
	if (via)
		via->accesses++;
}

static void fast_closed(struct ctx *x, struct fast *f)
{
	if (f->g)
		x->held[f->g->dom]--;
	if (f->via)
		f->via->accesses--;
	memset(f, 0, sizeof(*f));
}

static void op_withdraw(struct args *o)
{
	struct ctx *x = &ctxs[o->ctx];
	struct fast *f = &x->acc[o->a % NACC];
	struct call c = { .kind = OP_WITHDRAW, .rev = &f->acc };

	if (!f->open)
		return;
	RUN(o->ctx, &c, 0);
	fast_closed(x, f);
	release_blocked();
}

/* I3/I8: withdrawing another context's access only warns. */
static void op_withdraw_other(struct args *o)
{
	int victim = o->b % NCTX;
	struct fast *f = &ctxs[victim].acc[o->a % NACC];
	struct call c = { .kind = OP_WITHDRAW_OTHER, .rev = &f->acc };

	if (!f->open || victim == o->ctx)
		return;
	/* A NULL-provider access has nothing to withdraw and stays silent. */
	RUN(o->ctx, &c, f->g ? 1 : 0);
	if (f->res)
		CHECK(f->res->magic == RES_MAGIC);
}

static void op_use(struct args *o)
{
	struct ctx *x = &ctxs[o->ctx];
	int k;

	for (k = 0; k < NACC; k++)
		if (x->acc[k].open && x->acc[k].res)
			CHECK(x->acc[k].res->magic == RES_MAGIC);
	for (k = 0; k < NHANDLE; k++)
		if (handles[k].owner == o->ctx && handles[k].res)
			CHECK(handles[k].res->magic == RES_MAGIC);
}

static void op_init(struct args *o)
{
	struct handle *h = &handles[o->b % NHANDLE];
	struct revocable_provider *rp;
	struct ref *via;
	struct gen *g;
	int ret;

	if (h->st == H_LIVE)
		return;
	rp = pick_provider(o, &g, &via);
	ret = revocable_init(rp, &h->rev);
	CHECK(ret == (rp ? 0 : -ENODEV), "(init returned %d)", ret);
	if (!rp)
		CELL(init, null);
	h->st = rp ? H_LIVE : H_INERT;
	h->g = g;
	h->owner = -1;
	h->refused = 0;
	h->res = NULL;
}

/*
 * A call through a handle that is not live: skipped if never initialised;
 * through an inert handle no WARN, through a deinitialised one one WARN;
 * never a resource.  Returns false for a live handle, left to the caller.
 */
static bool handle_not_live(int ctx, struct handle *h, struct call *c)
{
	if (h->st == H_LIVE)
		return false;
	if (h->st != H_UNUSED) {
		RUN(ctx, c, h->st == H_DEAD ? 1 : 0);
		CHECK(!c->ptr);
		if (h->st == H_DEAD && c->kind == OP_TRY)
			CELL(try_access, after_deinit);
		if (h->st == H_DEAD && c->kind == OP_DEINIT)
			CELL(deinit, twice);
	}
	return true;
}

static void op_try(struct args *o)
{
	struct handle *h = &handles[o->a % NHANDLE];
	struct call c = { .kind = OP_TRY, .rev = &h->rev };

	if (handle_not_live(o->ctx, h, &c))
		return;
	if (h->owner >= 0) {
		/* Nested or shared: refused with a WARN. */
		RUN(o->ctx, &c, 1);
		CHECK(!c.ptr);
		CELL(try_access, twice);
		if (h->owner == o->ctx)
			h->refused++;
		return;
	}
	RUN(o->ctx, &c, 0);
	expect_access(h->g, c.ptr);
	h->owner = o->ctx;
	h->res = c.ptr;
	ctxs[o->ctx].held[h->g->dom]++;
}

static void handle_released(struct handle *h)
{
	ctxs[h->owner].held[h->g->dom]--;
	h->owner = -1;
	h->res = NULL;
}

static void op_withdraw_h(struct args *o)
{
	struct handle *h = &handles[o->a % NHANDLE];
	struct call c = { .kind = OP_WITHDRAW_H, .rev = &h->rev };

	if (handle_not_live(o->ctx, h, &c))
		return;
	if (h->owner != o->ctx) {
		/* Without an access, or someone else's: a WARN, no effect. */
		RUN(o->ctx, &c, 1);
		CELL(withdraw_access, out_of_order);
		return;
	}
	RUN(o->ctx, &c, 0);
	if (h->refused) {
		h->refused--;
		return;
	}
	handle_released(h);
	release_blocked();
}

static void op_deinit(struct args *o)
{
	struct handle *h = &handles[o->a % NHANDLE];
	struct call c = { .kind = OP_DEINIT, .rev = &h->rev };

	if (handle_not_live(o->ctx, h, &c)) {
		if (h->st == H_INERT)
			h->st = H_DEAD;
		return;
	}
	if (h->owner < 0) {
		RUN(o->ctx, &c, 0);
		h->st = H_DEAD;
		return;
	}
	/* Inside an access: a WARN; the owner's own deinit withdraws first. */
	RUN(o->ctx, &c, 1);
	CELL(deinit, inside_access);
	if (h->owner != o->ctx)
		return;
	h->refused = 0;
	handle_released(h);
	h->st = H_DEAD;
	release_blocked();
}

/* The provider leaves the slot: new accesses fail from now on. */
static struct gen *prov_detached(struct prov *p)
{
	struct gen *g = p->g;

	g->revoked = true;
	p->g = NULL;
	return g;
}

static void op_revoke(struct args *o)
{
	struct prov *p = &provs[o->a];
	struct call c = { .kind = OP_REVOKE, .slot = &p->slot,
			  .void_variant = o->b & 1 };
	struct gen *g;
	char mode;

	if (!p->g) {
		RUN(o->ctx, &c, 0);
		CHECK(c.ret == 0 || c.void_variant, "(%ld)", c.ret);
		if (c.void_variant)
			CELL(provider_revoke, twice);
		else
			CELL(revoke, twice);
		return;
	}
	mode = revoke_mode(o->ctx, 1u << p->g->dom);
	if (!mode)
		return;
	if (mode == 'd') {
		/*
		 * I7: refused with a WARN, finished in the background; the
		 * resource is freed once that is over (the void variant's
		 * owner could not tell when: the model keeps it for then).
		 */
		g = prov_detached(p);
		RUN(o->ctx, &c, 1);
		CHECK(c.ret == -EDEADLK || c.void_variant, "(%ld)", c.ret);
		orphans[norphans++] = g->res;
		stats.deadlocks++;
		if (c.void_variant)
			CELL(provider_revoke, inside_access);
		else
			CELL(revoke, inside_access);
		return;
	}
	c.free_after[0] = p->g->res;
	g = prov_detached(p);
	if (mode == 'b') {
		start_blocked(o->ctx, &c, 1u << g->dom, 1);
		return;
	}
	RUN(o->ctx, &c, 0);
	CHECK(c.ret == 1, "(%ld)", c.ret);
}

static void op_async(struct args *o)
{
	struct prov *p = &provs[o->a];
	struct call c = { .kind = OP_ASYNC, .slot = &p->slot };

	if (p->g) {
		c.res = p->g->res;
		prov_detached(p)->how = 'a';
		async_expected++;
		stats.async++;
	} else {
		CELL(revoke_async, twice);
	}
	RUN(o->ctx, &c, 0);
	CHECK(c.ret == (c.res ? 1 : 0), "(%ld)", c.ret);
}

static void op_batch(struct args *o)
{
	unsigned int mask = (o->a | o->b << 2) & 0xf, dmask = 0, i, n = 0;
	struct revocable_provider __rcu **live_slots[NPROV];
	unsigned int live = 0, dprovs = 0;
	struct call c = { .kind = OP_BATCH };
	struct res *res[NPROV];
	bool fail = o->c & 1;
	char mode;

	for (i = 0; i < NPROV; i++) {
		if (!(mask & (1u << i)))
			continue;
		c.slots[n++] = &provs[i].slot;
		if (!provs[i].g)
			continue;
		dmask |= 1u << provs[i].g->dom;
		dprovs += !!ctxs[o->ctx].held[provs[i].g->dom];
		live_slots[live] = &provs[i].slot;
		res[live++] = provs[i].g->res;
	}
	c.n = n;
	mode = revoke_mode(o->ctx, dmask);
	/* Allocation failure is injected only where nothing else allocates. */
	if (!n)
		fail = false;
	if (!mode || (fail && (o->ctx != 0 || mode == 'b')))
		return;
	for (i = 0; i < NPROV; i++)
		if ((mask & (1u << i)) && provs[i].g)
			prov_detached(&provs[i]);
	if (fail)
		compat_alloc_fail_countdown = 1;
	if (mode == 'd') {
		/* One WARN per domain; per provider when it falls back. */
		for (i = 0; i < live; i++)
			orphans[norphans++] = res[i];
		RUN(o->ctx, &c, fail ? dprovs :
		    __builtin_popcount(dmask & held_mask(o->ctx)));
		CHECK(c.ret == -EDEADLK, "(%ld)", c.ret);
		stats.deadlocks++;
		CELL(revoke_batch, inside_access);
		return;
	}
	memcpy(c.free_after, res, live * sizeof(res[0]));
	if (mode == 'b') {
		/*
		 * Only the live slots: the fuzzer's thread goes on once their
		 * resources read NULL, and an empty slot it refilled before
		 * the worker reached it would be revoked too.
		 */
		memcpy(c.slots, live_slots, sizeof(live_slots));
		c.n = live;
		start_blocked(o->ctx, &c, dmask, live);
		return;
	}
	RUN(o->ctx, &c, 0);
	CHECK(c.ret == (long)live, "(%ld, expected %u)", c.ret, live);
	CHECK(!compat_alloc_fail_countdown);
}

static void op_begin(struct args *o)
{
	struct prov *p = &provs[o->a];
	struct call c = { .kind = OP_BEGIN, .slot = &p->slot };
	void *want = rcu_access_pointer(p->slot);

	if (p->begun && p->g)
		return;	/* a new provider in the slot: one pending begin only */
	RUN(o->ctx, &c, 0);
	CHECK(c.ptr == want);
	if (p->begun) {
		/* Begun already: the slot is empty, nothing more to begin. */
		CELL(revoke_begin, twice);
		return;
	}
	if (!c.ptr)
		return;
	p->begun_g = prov_detached(p);
	p->begun = c.ptr;
}

static void op_wait(struct args *o)
{
	struct prov *p = &provs[o->a];
	struct call c = { .kind = OP_WAIT, .rp = p->begun };
	char mode;

	if (!p->begun)
		return;
	mode = revoke_mode(o->ctx, 1u << p->begun_g->dom);
	if (!mode)
		return;
	if (mode == 'd') {
		/* Nothing done: may be called again from elsewhere. */
		RUN(o->ctx, &c, 1);
		CHECK(c.ret == -EDEADLK, "(%ld)", c.ret);
		CELL(revoke_wait, inside_access);
		return;
	}
	c.free_after[0] = p->begun_g->res;
	p->begun_g->how = 'w';
	p->begun = NULL;
	if (mode == 'b') {
		start_blocked(o->ctx, &c, 1u << p->begun_g->dom, 0);
		return;
	}
	RUN(o->ctx, &c, 0);
	CHECK(c.ret == 0, "(%ld)", c.ret);
}

static void op_unchecked(struct args *o)
{
	struct prov *p = &provs[o->a];

	if (p->g)
		CHECK(revocable_access_unchecked(rcu_access_pointer(p->slot)) ==
		      p->g->res);
	if (p->begun)
		CHECK(!revocable_access_unchecked(p->begun));
}

/* I8: the bad calls, each with its defined result and WARN count. */
enum {
	BAD_REVOKE_NULL, BAD_PROVIDER_REVOKE_NULL, BAD_ASYNC_NULL,
	BAD_BEGIN_NULL, BAD_BATCH_NULL, BAD_GET_RCU_NULL, BAD_ALLOC_NULL_RES,
	BAD_ALLOC_NULL_DOM, BAD_INIT_NULL_HANDLE, BAD_WAIT_NULL,
	BAD_WAIT_NOT_BEGUN, BAD_UNCHECKED_NULL, BAD_TRY_NULL,
	BAD_WITHDRAW_NULL, BAD_DEINIT_NULL, BAD_DOMAIN_FREE, BAD_PUBLISH_NULL,
	BAD_PUBLISH_BUSY, BAD_DOMAIN_FREE_NULL, BAD_BARRIER_NULL,
	BAD_SET_SLOW_NULL, BAD_PUT_NULL, BAD_PUT_TOO_MANY, BAD_DOMAIN_FREE_BUSY,
	BAD_DOMAIN_FREE_INSIDE, BAD_BARRIER_INSIDE, BAD_BATCH_TWICE, BAD_GET_NULL,
	BAD_COUNT
};

/* The matrix cell each bad call reaches, plus one (0: none; not a cell). */
#define TO(cell)	(CELL_##cell + 1)
static const unsigned char bad_cell[BAD_COUNT] = {
	[BAD_REVOKE_NULL] = TO(revoke__null),
	[BAD_PROVIDER_REVOKE_NULL] = TO(provider_revoke__null),
	[BAD_ASYNC_NULL] = TO(revoke_async__null),
	[BAD_BEGIN_NULL] = TO(revoke_begin__null),
	[BAD_BATCH_NULL] = TO(revoke_batch__null),
	[BAD_GET_RCU_NULL] = TO(provider_get_rcu__null),
	[BAD_ALLOC_NULL_RES] = TO(provider_alloc__null),
	[BAD_ALLOC_NULL_DOM] = TO(provider_alloc_in__null),
	[BAD_INIT_NULL_HANDLE] = TO(init__null),
	[BAD_WAIT_NULL] = TO(revoke_wait__null),
	[BAD_WAIT_NOT_BEGUN] = TO(revoke_wait__out_of_order),
	[BAD_UNCHECKED_NULL] = TO(access_unchecked__null),
	[BAD_DOMAIN_FREE] = TO(domain_free__default_domain),
	[BAD_PUBLISH_NULL] = TO(provider_publish__null),
	[BAD_PUBLISH_BUSY] = TO(provider_publish__twice),
	[BAD_DOMAIN_FREE_NULL] = TO(domain_free__null),
	[BAD_BARRIER_NULL] = TO(domain_barrier__null),
	[BAD_SET_SLOW_NULL] = TO(domain_set_slow__null),
	[BAD_PUT_NULL] = TO(provider_put__null),
	[BAD_PUT_TOO_MANY] = TO(provider_put__twice),
	[BAD_DOMAIN_FREE_BUSY] = TO(domain_free__out_of_order),
	[BAD_DOMAIN_FREE_INSIDE] = TO(domain_free__inside_access),
	[BAD_BARRIER_INSIDE] = TO(domain_barrier__inside_access),
	[BAD_BATCH_TWICE] = TO(revoke_batch__twice),
	[BAD_GET_NULL] = TO(provider_get__null),
};

static void bad_call(struct call *c)
{
	static const int one = 1;

	c->ret = 0;
	c->ptr = NULL;
	switch (c->bad) {
	case BAD_REVOKE_NULL:
		c->ret = revocable_revoke(NULL) == -EINVAL;
		break;
	case BAD_PROVIDER_REVOKE_NULL:
		revocable_provider_revoke(NULL);
		c->ret = 1;
		break;
	case BAD_ASYNC_NULL:
		c->ret = revocable_revoke_async(NULL, async_done, NULL) == -EINVAL;
		break;
	case BAD_BEGIN_NULL:
		c->ret = !revocable_revoke_begin(NULL);
		break;
	case BAD_BATCH_NULL:
		c->ret = revocable_revoke_batch(NULL, 2) == -EINVAL;
		break;
	case BAD_GET_RCU_NULL:
		c->ret = !revocable_provider_get_rcu(NULL);
		break;
	case BAD_ALLOC_NULL_RES:
		c->ret = !revocable_provider_alloc(NULL);
		break;
	case BAD_ALLOC_NULL_DOM:
		c->ret = !revocable_provider_alloc_in(NULL, (void *)&one);
		break;
	case BAD_INIT_NULL_HANDLE:
		c->ret = revocable_init(c->rp, NULL) == -EINVAL;
		break;
	case BAD_WAIT_NULL:
		c->ret = revocable_revoke_wait(NULL) == -EINVAL;
		break;
	case BAD_WAIT_NOT_BEGUN:
		c->ret = revocable_revoke_wait(c->rp) == -EINVAL;
		break;
	case BAD_UNCHECKED_NULL:
		c->ret = !revocable_access_unchecked(NULL);
		break;
	case BAD_TRY_NULL:
		c->ret = !revocable_try_access(NULL);
		break;
	case BAD_WITHDRAW_NULL:
		revocable_withdraw_access(NULL);
		c->ret = 1;
		break;
	case BAD_DEINIT_NULL:
		revocable_deinit(NULL);
		c->ret = 1;
		break;
	case BAD_DOMAIN_FREE:
		c->ret = revocable_domain_free(revocable_default_domain()) == -EINVAL;
		break;
	case BAD_PUBLISH_NULL:
		c->ret = revocable_provider_publish(NULL, c->rp) == -EINVAL;
		break;
	case BAD_PUBLISH_BUSY:
		/* Its own provider again: refused, the slot keeps it. */
		c->ret = revocable_provider_publish(c->slot, c->rp) == -EBUSY &&
			 rcu_access_pointer(*c->slot) == c->rp;
		break;
	case BAD_DOMAIN_FREE_NULL:
		c->ret = revocable_domain_free(NULL) == 0;
		break;
	case BAD_BARRIER_NULL:
		c->ret = revocable_domain_barrier(NULL) == -EINVAL;
		break;
	case BAD_SET_SLOW_NULL:
		c->ret = revocable_domain_set_slow(NULL, 0, NULL, NULL) == -EINVAL;
		break;
	case BAD_PUT_NULL:
		revocable_provider_put(NULL);
		c->ret = 1;
		break;
	case BAD_GET_NULL:
		c->ret = !revocable_provider_get(NULL);
		break;
	case BAD_PUT_TOO_MANY:
		/* Would drop the owner's reference of a live provider. */
		revocable_provider_put(c->rp);
		c->ret = revocable_access_unchecked(c->rp) == c->res;
		break;
	case BAD_DOMAIN_FREE_BUSY:
	case BAD_DOMAIN_FREE_INSIDE:
		c->ret = revocable_domain_free(doms[1]) ==
			 (c->bad == BAD_DOMAIN_FREE_BUSY ? -EBUSY : -EDEADLK);
		break;
	case BAD_BARRIER_INSIDE:
		c->ret = revocable_domain_barrier(doms[c->n]) == -EDEADLK;
		break;
	case BAD_BATCH_TWICE:
		/* One provider in two slots of a batch: revoked once. */
		c->ret = revocable_revoke_batch(c->slots, 2) == 1 &&
			 !rcu_access_pointer(c->tmp);
		break;
	}
}

/*
 * Does the owner hold the only reference of @rp, the provider of @g?
 * Consumer references and live handles (revocable_init() takes one) hold
 * others.
 */
static bool unreferenced(struct revocable_provider *rp, struct gen *g)
{
	int k;

	for (k = 0; k < NREF; k++)
		if (refs[k].rp == rp)
			return false;
	for (k = 0; k < NHANDLE; k++)
		if (handles[k].st == H_LIVE && handles[k].g == g)
			return false;
	return true;
}

static void op_bad(struct args *o)
{
	struct call c = { .kind = OP_BAD, .bad = (o->a | o->c << 2) % BAD_COUNT };
	struct prov *p = &provs[o->b];
	struct gen *g = NULL;
	int warns = 1, k;

	switch (c.bad) {
	case BAD_WAIT_NOT_BEGUN:
	case BAD_PUBLISH_BUSY:
	case BAD_PUT_TOO_MANY:
	case BAD_BATCH_TWICE:
		if (!p->g)
			return;
		c.rp = rcu_access_pointer(p->slot);
		c.slot = &p->slot;
		c.res = p->g->res;
		if (c.bad == BAD_PUT_TOO_MANY && !unreferenced(c.rp, p->g))
			return;	/* that put would drop a consumer's reference */
		if (c.bad == BAD_BATCH_TWICE) {
			/* Only where it returns at once. */
			if (revoke_mode(o->ctx, 1u << p->g->dom) != 'r')
				return;
			RCU_INIT_POINTER(c.tmp, c.rp);
			c.slots[0] = &p->slot;
			c.slots[1] = &c.tmp;
			g = prov_detached(p);
		}
		break;
	case BAD_PUBLISH_NULL:
		c.rp = (void *)p;	/* never stored */
		break;
	case BAD_INIT_NULL_HANDLE:
		c.rp = p->g ? rcu_access_pointer(p->slot) : NULL;
		break;
	case BAD_DOMAIN_FREE_NULL:
	case BAD_PUT_NULL:
	case BAD_GET_NULL:
		warns = 0;
		break;
	case BAD_DOMAIN_FREE_BUSY:
		/*
		 * A provider of the fuzzer's domain not revoked; nobody inside
		 * an access of it, for the barrier the free starts with.
		 */
		if (held_by_others(-1, 1u << 1))
			return;
		for (k = 0; k < NPROV && !(provs[k].g && provs[k].g->dom == 1); k++)
			;
		if (k == NPROV)
			return;
		break;
	case BAD_DOMAIN_FREE_INSIDE:
		if (!ctxs[o->ctx].held[1])
			return;
		break;
	case BAD_BARRIER_INSIDE:
		c.n = o->b & 1;
		if (!ctxs[o->ctx].held[c.n])
			return;
		break;
	}
	RUN(o->ctx, &c, warns);
	CHECK(c.ret == 1, "(bad call %d)", c.bad);
	if (bad_cell[c.bad])
		cell_hits[bad_cell[c.bad] - 1]++;
	if (g)
		res_free(g->res);
}

/*
 * A provider already revoked (or begun) through its owner's slot, reached
 * again through a consumer reference: copied into a second slot and revoked,
 * revoked asynchronously or begun through it (one WARN; 0, the done callback
 * never runs, NULL), or waited on when no begun revoke waits for that wait
 * (one WARN, -EINVAL, no second drop of the owner's reference).
 */
static void never_done(void *arg)
{
	model_fail(__LINE__, "the done callback of a refused revoke ran");
}

static void stale_call(struct call *c)
{
	switch (c->bad) {
	case 0:
		c->ret = revocable_revoke(&c->tmp);
		break;
	case 1:
		c->ret = revocable_revoke_async(&c->tmp, never_done, NULL);
		break;
	case 2:
		c->ptr = revocable_revoke_begin(&c->tmp);
		break;
	default:
		c->ret = revocable_revoke_wait(c->rp);
		break;
	}
}

static void op_stale(struct args *o)
{
	struct ref *r = &refs[o->a];
	struct call c = { .kind = OP_STALE, .bad = o->b };
	int k;

	if (!r->rp || !r->g->revoked)
		return;
	for (k = 0; k < NPROV && o->b == 3; k++)
		if (provs[k].begun == r->rp)
			return;	/* the owner's wait is still to come: valid */
	/*
	 * Nor while a worker's wait on it may not have claimed it yet (the
	 * model lets the fuzzer's thread go on once new accesses fail, which
	 * for a begun provider is at once): two racing waits, one finishes it
	 * (racing_waits_finish_once in tests/test_misuse.c).
	 */
	for (k = 1; k < NCTX && o->b == 3; k++)
		if (ctxs[k].busy && ctxs[k].blocked.kind == OP_WAIT &&
		    ctxs[k].blocked.rp == r->rp)
			return;
	c.rp = r->rp;
	RCU_INIT_POINTER(c.tmp, r->rp);
	RUN(o->ctx, &c, 1);
	switch (o->b) {
	case 0:
		CHECK(c.ret == 0 && !rcu_access_pointer(c.tmp), "(%ld)", c.ret);
		CELL(revoke, second_slot);
		break;
	case 1:
		CHECK(c.ret == 0 && !rcu_access_pointer(c.tmp), "(%ld)", c.ret);
		CELL(revoke_async, second_slot);
		break;
	case 2:
		CHECK(!c.ptr && !rcu_access_pointer(c.tmp));
		CELL(revoke_begin, second_slot);
		break;
	default:
		CHECK(c.ret == -EINVAL, "(%ld)", c.ret);
		if (r->g->how == 'w')
			CELL(revoke_wait, twice);
		else if (r->g->how == 'a')
			CELL(revoke_wait, after_async);
		else
			CELL(revoke_wait, out_of_order);
		break;
	}
}

/*
 * A context's thread exits wherever it is, inside accesses or not: its
 * accesses are released with one WARN (none if it had none open), handles
 * it owned become idle for everyone, and revokes waiting for it finish.
 * A new thread takes the context's place.
 */
static void op_exit(struct args *o)
{
	struct ctx *x = &ctxs[o->ctx];
	struct call c = { .kind = OP_EXIT };
	unsigned long w;
	int d, k, held = 0;

	if (o->ctx == 0)
		return;		/* the fuzzer's own thread */
	for (d = 0; d < NDOM; d++)
		held += x->held[d];
	w = compat_warn_count();
	ctx_start(o->ctx, &c);
	pthread_join(x->tid, NULL);
	w = compat_warn_count() - w;
	stats.warned += w;
	CHECK(w == (held ? 1u : 0u), "(exit with %d open: %lu WARNs)", held, w);
	for (k = 0; k < NACC; k++)
		if (x->acc[k].open)
			fast_closed(x, &x->acc[k]);
	for (k = 0; k < NHANDLE; k++) {
		if (handles[k].st == H_LIVE && handles[k].owner == o->ctx) {
			handles[k].refused = 0;
			handle_released(&handles[k]);
		}
	}
	for (d = 0; d < NDOM; d++)
		CHECK(!x->held[d]);
	ctx_spawn(o->ctx);
	release_blocked();
}

/*
 * A done callback that revokes a dependent provider.  Synchronously (b
 * even) it would wait on the very worker that runs it: one WARN, -EDEADLK,
 * the dependent finishes in the background.  With revocable_revoke_async()
 * (b odd) it is the documented cascade: no WARN, 1.
 */
static struct cascade {
	struct revocable_provider __rcu **dep;
	struct res *res;
	bool async;
	long ret;
	unsigned long warns;
	int ran;
} cascade;

static void cascade_done(void *arg)
{
	struct cascade *cc = arg;
	unsigned long w = compat_warn_count();

	cc->ret = cc->async ? revocable_revoke_async(cc->dep, async_done, NULL) :
			      revocable_revoke(cc->dep);
	cc->warns = compat_warn_count() - w;
	res_free(cc->res);
	__atomic_store_n(&cc->ran, 1, __ATOMIC_RELEASE);
}

static void op_cascade(struct args *o)
{
	struct prov *p = &provs[o->a], *dep = &provs[o->b];
	bool async = o->c & 1;
	struct timespec ts = { 0, 20000 };
	unsigned int waited_us = 0;
	struct gen *dg;
	long ret;

	/*
	 * The callback must run promptly for the WARN count to be exact:
	 * nobody inside an access of the first provider's domain.
	 */
	if (o->a == o->b || !p->g || !dep->g || held_by_others(-1, 1u << p->g->dom))
		return;
	memset(&cascade, 0, sizeof(cascade));
	cascade.dep = &dep->slot;
	cascade.res = p->g->res;
	cascade.async = async;
	prov_detached(p);
	dg = prov_detached(dep);
	ret = revocable_revoke_async(&p->slot, cascade_done, &cascade);
	CHECK(ret == 1, "(%ld)", ret);
	while (!__atomic_load_n(&cascade.ran, __ATOMIC_ACQUIRE)) {
		if (waited_us > BOUND_MS * 1000)
			model_fail(__LINE__, "cascade callback did not run");
		nanosleep(&ts, NULL);
		waited_us += 20;
	}
	stats.warned += cascade.warns;
	if (async) {
		CHECK(cascade.ret == 1 && !cascade.warns, "(%ld, %lu WARNs)",
		      cascade.ret, cascade.warns);
		/* async_done(NULL) counts; the resource is the model's. */
		async_expected++;
	} else {
		CHECK(cascade.ret == -EDEADLK && cascade.warns == 1,
		      "(%ld, %lu WARNs)", cascade.ret, cascade.warns);
		stats.deadlocks++;
	}
	orphans[norphans++] = dg->res;
}

static void (*const ops[OP_COUNT])(struct args *o) = {
	[OP_ALLOC] = op_alloc,
	[OP_GET_RCU] = op_get_rcu,
	[OP_GET] = op_get,
	[OP_PUT] = op_put,
	[OP_ACCESS] = op_access,
	[OP_WITHDRAW] = op_withdraw,
	[OP_WITHDRAW_OTHER] = op_withdraw_other,
	[OP_USE] = op_use,
	[OP_INIT] = op_init,
	[OP_TRY] = op_try,
	[OP_WITHDRAW_H] = op_withdraw_h,
	[OP_DEINIT] = op_deinit,
	[OP_REVOKE] = op_revoke,
	[OP_ASYNC] = op_async,
	[OP_BATCH] = op_batch,
	[OP_BEGIN] = op_begin,
	[OP_WAIT] = op_wait,
	[OP_UNCHECKED] = op_unchecked,
	[OP_BAD] = op_bad,
	[OP_EXIT] = op_exit,
	[OP_CASCADE] = op_cascade,
	[OP_STALE] = op_stale,
};

/* ----- teardown: everything back to nothing, checked ---------------------- */

static void wait_async_done(int line)
{
	struct timespec ts = { 0, 20000 };
	unsigned int waited_us = 0;

	while (__atomic_load_n(&async_done_count, __ATOMIC_ACQUIRE) != async_expected) {
		if (waited_us > BOUND_MS * 1000)
			model_fail(line, "%lu of %lu async callbacks ran in %d ms",
				   async_done_count, async_expected, BOUND_MS);
		nanosleep(&ts, NULL);
		waited_us += 20;
	}
}

static void teardown(void)
{
	struct args o = { 0 };
	int i, k;

	for (i = 0; i < NCTX; i++) {
		if (ctxs[i].busy)
			continue;
		o.ctx = i;
		for (k = 0; k < NACC; k++) {
			o.a = k;
			op_withdraw(&o);
		}
		for (k = 0; k < NHANDLE; k++) {
			o.a = k;
			while (handles[k].st == H_LIVE && handles[k].owner == i)
				op_withdraw_h(&o);
		}
	}
	release_blocked();
	for (i = 0; i < NCTX; i++)
		CHECK(!ctxs[i].busy && !ctxs[i].held[0] && !ctxs[i].held[1]);
	o.ctx = 0;
	for (k = 0; k < NHANDLE; k++) {
		o.a = k;
		if (handles[k].st == H_LIVE || handles[k].st == H_INERT)
			op_deinit(&o);
		handles[k].st = H_UNUSED;
	}
	for (k = 0; k < NPROV; k++) {
		o.a = k;
		op_wait(&o);
		CHECK(!provs[k].begun);
	}
	/* One batch for what is left: one grace period per domain. */
	o.a = 3;
	o.b = 3;
	o.c = 0;
	op_batch(&o);
	for (k = 0; k < NPROV; k++)
		CHECK(!provs[k].g && !provs[k].slot);
	for (k = 0; k < NREF; k++) {
		o.a = k;
		op_put(&o);
	}
	/*
	 * No access is open any more, so the resources of revokes that
	 * returned -EDEADLK can go now; the model knows what an owner could
	 * not.  Asynchronous callbacks must all run within the bound.
	 */
	for (k = 0; k < (int)norphans; k++)
		res_free(orphans[k]);
	wait_async_done(__LINE__);
	CHECK(__atomic_load_n(&res_live, __ATOMIC_RELAXED) == 0,
	      "(%lu resources leaked)", res_live);
}

static void reset(void)
{
	int i;

	memset(provs, 0, sizeof(provs));
	memset(refs, 0, sizeof(refs));
	memset(handles, 0, sizeof(handles));
	for (i = 0; i < NCTX; i++) {
		memset(ctxs[i].held, 0, sizeof(ctxs[i].held));
		memset(ctxs[i].acc, 0, sizeof(ctxs[i].acc));
		ctxs[i].busy = false;
	}
	ngens = 0;
	norphans = 0;
	async_expected = 0;
	async_done_count = 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void print_stats(void)
{
	static const char *const names[OP_COUNT] = {
		"alloc", "get_rcu", "get", "put", "access", "withdraw",
		"withdraw_other", "use", "init", "try", "withdraw_h", "deinit",
		"revoke", "async", "batch", "begin", "wait", "unchecked", "bad",
		"exit", "cascade", "stale",
	};
	int k;

	fprintf(stderr, "fuzz_ops: %lu inputs; revokes that waited for other "
		"contexts' readers: %lu started, %lu seen to finish; "
		"-EDEADLK: %lu; async: %lu; WARNs checked: %lu\nfuzz_ops: ops:",
		stats.inputs, stats.blocked, stats.released, stats.deadlocks,
		stats.async, stats.warned);
	for (k = 0; k < OP_COUNT; k++)
		fprintf(stderr, " %s %lu", names[k], stats.ops[k]);
	fputs("\nfuzz_ops: misuse cells:", stderr);
	for (k = 0; k < CELL_COUNT; k++)
		fprintf(stderr, " %s %lu", cell_names[k], cell_hits[k]);
	fputc('\n', stderr);
}

/* FUZZ_CELLS=1: the inputs run must have reached every FUZZED cell. */
static void check_cells(void)
{
	int k, missed = 0;

	for (k = 0; k < CELL_COUNT; k++) {
		if (cell_hits[k])
			continue;
		fprintf(stderr, "fuzz_ops: misuse cell %s not reached\n",
			cell_names[k]);
		missed++;
	}
	if (missed)
		_exit(1);
	fprintf(stderr, "fuzz_ops: all %d fuzzed misuse cells reached\n",
		CELL_COUNT);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int i;

	if (getenv("FUZZ_CELLS"))
		atexit(check_cells);
	if (getenv("FUZZ_STATS"))
		atexit(print_stats);

	if (!getenv("FUZZ_VERBOSE"))
		compat_log = fopen("/dev/null", "w");
	doms[0] = revocable_default_domain();
	doms[1] = revocable_domain_alloc("fuzz");
	if (!doms[1])
		abort();
	/*
	 * The default domain waits through call_srcu() with a report
	 * threshold far beyond any wait here; the other calls
	 * synchronize_srcu() directly: both paths are exercised.
	 */
	revocable_domain_set_slow(doms[0], 600000, NULL, NULL);
	revocable_domain_set_slow(doms[1], 0, NULL, NULL);
	for (i = 1; i < NCTX; i++) {
		pthread_mutex_init(&ctxs[i].lock, NULL);
		pthread_cond_init(&ctxs[i].cond, NULL);
		ctx_spawn(i);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct args o;
	size_t i;
	int kind;

	reset();
	stats.inputs++;
	for (i = 0; i + 1 < size; i += 2) {
		kind = data[i] & 0x1f;
		if (kind >= OP_COUNT)
			continue;
		o.ctx = (data[i] >> 5) % NCTX;
		o.a = data[i + 1] & 3;
		o.b = (data[i + 1] >> 2) & 3;
		o.c = data[i + 1] >> 4;
		if (ctxs[o.ctx].busy)
			continue;
		ops[kind](&o);
		stats.ops[kind]++;
	}
	teardown();
	return 0;
}
