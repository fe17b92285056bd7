// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program that exits right after revoking: a deferred free and an
 * asynchronous revoke are still pending, and the library's service threads
 * run.  Run under valgrind the way a daemon's CI does (see
 * pkgconfig-consumer.sh): with the installed suppression file, clean.
 */
#include <revocable.h>
#include <stdio.h>

static int value = 1;

static void done(void *arg)
{
	(void)arg;
}

int main(void)
{
	struct revocable_provider *slot = revocable_provider_alloc(&value);
	struct revocable_provider *other = revocable_provider_alloc(&value);
	struct revocable_provider *ref = revocable_provider_get_rcu(&slot);

	if (!slot || !other || !ref)
		return 1;
	if (revocable_revoke(&slot) != 1)
		return 1;
	revocable_provider_put(ref);
	if (revocable_revoke_async(&other, done, NULL) != 1)
		return 1;
	printf("consumer-exit: exiting with a deferred free and an async revoke pending\n");
	return 0;
}
