// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program that knows librevocable only through its installed header and
 * pkg-config: threads start without any registration call, access, and
 * see the resource vanish on revoke.
 */
#include <pthread.h>
#include <revocable.h>
#include <stdio.h>

static struct revocable_provider *slot;
static int value = 42;

static void *reader(void *arg)
{
	struct revocable_provider *ref = revocable_provider_get_rcu(&slot);
	int *res, ok = 0;

	(void)arg;
	REVOCABLE_TRY_ACCESS_SCOPED(ref, res) {
		ok = res && *res == 42;
	}
	revocable_provider_put(ref);
	return ok ? (void *)1 : NULL;
}

int main(void)
{
	pthread_t t[4];
	void *ret;
	int i, good = 0;

	slot = revocable_provider_alloc(&value);
	if (!slot)
		return 1;
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, reader, NULL);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &ret);
		good += ret != NULL;
	}
	if (revocable_revoke(&slot) != 1 || slot)
		return 1;
	ret = reader(NULL);
	printf("consumer: %d/4 readers saw the resource; after revoke: %s\n",
	       good, ret ? "still there (BUG)" : "gone");
	return good == 4 && !ret ? 0 : 1;
}
