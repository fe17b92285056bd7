// SPDX-License-Identifier: LGPL-2.1-or-later
/* The parent project's program: publish, access, revoke. */
#include <revocable.h>
#include <stdio.h>

static int value = 7;

int main(void)
{
	struct revocable_provider *slot = revocable_provider_alloc(&value);
	int *res, before = 0, after = 0;

	REVOCABLE_TRY_ACCESS_SCOPED(slot, res) {
		before = res && *res == 7;
	}
	if (revocable_revoke(&slot) != 1)
		return 1;
	REVOCABLE_TRY_ACCESS_SCOPED(slot, res) {
		after = res != NULL;
	}
	printf("parent: resource %s before revoke, %s after\n",
	       before ? "seen" : "NOT seen", after ? "STILL seen" : "gone");
	return before && !after ? 0 : 1;
}
