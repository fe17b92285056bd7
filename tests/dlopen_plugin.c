// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A plugin that links librevocable, built with _LGPL_SOURCE (so it uses the
 * inline path's initial-exec thread-local pointer): test_dlopen loads it
 * with dlopen(), uses it from threads, and unloads it.
 */
#define _LGPL_SOURCE
#include <pthread.h>
#include <stddef.h>

#include <revocable.h>

int plugin_touch(void);
int plugin_run(int nthreads);

static int value = 42;

/* One access: registers the calling thread with the library. */
int plugin_touch(void)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(&value);
	int *res, ret = -1;

	REVOCABLE_TRY_ACCESS_SCOPED(rp, res) {
		if (res)
			ret = *res;
	}
	return revocable_revoke(&rp) == 1 ? ret : -2;
}

struct run {
	struct revocable_provider *ref;
	int bad;
};

static void *reader(void *arg)
{
	struct run *r = arg;
	struct revocable rev;
	int i, *res;

	for (i = 0; i < 10000; i++) {
		res = revocable_access(r->ref, &rev);
		if (res && *res != 42)
			__atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
		revocable_withdraw_access(&rev);
	}
	return NULL;
}

/* Readers in threads that come and go, then a revoke: 0 when all went. */
int plugin_run(int nthreads)
{
	struct revocable_provider __rcu *rp = revocable_provider_alloc(&value);
	struct run r = { .ref = revocable_provider_get_rcu(&rp) };
	pthread_t t[16];
	int i, n = nthreads < 16 ? nthreads : 16;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, reader, &r))
			return -1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	revocable_provider_put(r.ref);
	if (revocable_revoke(&rp) != 1)
		return -3;
	revocable_domain_barrier(revocable_default_domain());
	return r.bad;
}
