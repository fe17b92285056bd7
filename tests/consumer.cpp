// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A C++ program that knows librevocable only through its installed headers
 * and pkg-config: every access form, from threads that register nothing,
 * then revoke in each form, after which every form sees nothing.
 */
#include <revocable.hpp>

#include <cstdio>
#include <thread>
#include <vector>

struct device {
	int reg;
};

static struct revocable_provider *slot;
static device dev = { 42 };

/* One access in each form; how many saw the resource. */
static int each_form(struct revocable_provider *ref)
{
	struct revocable rev;
	int seen = 0;
	device *d;

	d = static_cast<device *>(revocable_access(ref, &rev));
	seen += d && d->reg == 42;
	revocable_withdraw_access(&rev);

	if (revocable_init(ref, &rev) == 0) {
		d = static_cast<device *>(revocable_try_access(&rev));
		seen += d && d->reg == 42;
		revocable_withdraw_access(&rev);
		revocable_deinit(&rev);
	}

	{
		REVOCABLE_TRY_ACCESS_WITH(ref, d);
		seen += d && d->reg == 42;
	}

	REVOCABLE_TRY_ACCESS_SCOPED(ref, d) {
		seen += d && d->reg == 42;
	}

	{
		librevocable::access<device> a(ref);
		seen += a && a->reg == 42 && (*a).reg == 42 && a.get() == &dev;
	}
	return seen;
}

static int in_thread(void)
{
	struct revocable_provider *ref = revocable_provider_get_rcu(&slot);
	int seen = each_form(ref);

	revocable_provider_put(ref);
	return seen;
}

int main()
{
	std::vector<std::thread> threads;
	int seen[4] = {};
	struct revocable_provider *rp;
	int ok = 1;

	slot = revocable_provider_alloc(&dev);
	if (!slot)
		return 1;
	for (int i = 0; i < 4; i++)
		threads.emplace_back([&seen, i] { seen[i] = in_thread(); });
	for (auto &t : threads)
		t.join();
	for (int i = 0; i < 4; i++)
		ok &= seen[i] == 5;

	/* A consumer reference outlives the revoke and sees nothing. */
	struct revocable_provider *ref = revocable_provider_get_rcu(&slot);

	ok &= revocable_revoke(&slot) == 1 && !slot;
	ok &= each_form(ref) == 0;
	revocable_provider_put(ref);

	/* The two-phase revoke. */
	slot = revocable_provider_alloc(&dev);
	ref = revocable_provider_get_rcu(&slot);
	ok &= each_form(ref) == 5;
	rp = revocable_revoke_begin(&slot);
	ok &= rp != nullptr && each_form(ref) == 0;
	ok &= revocable_revoke_wait(rp) == 0;
	revocable_provider_put(ref);

	/* The upstream-compatible revoke. */
	slot = revocable_provider_alloc(&dev);
	revocable_provider_revoke(&slot);
	ok &= !slot;

	std::printf("consumer (C++): every access form %s before and after revoke\n",
		    ok ? "right" : "WRONG");
	return ok ? 0 : 1;
}
