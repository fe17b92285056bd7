// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The half of test_inline built without _LGPL_SOURCE: every call here goes
 * through the library's exported functions, on the same providers and
 * handles as the inline half.
 */
#include <revocable.h>

#include "inline_peer.h"

#ifdef __REVOCABLE_INLINE
#error "inline_peer.c must call the out-of-line functions"
#endif

void *peer_access(struct revocable_provider *rp, struct revocable *rev)
{
	return revocable_access(rp, rev);
}

void *peer_try_access(struct revocable *rev)
{
	return revocable_try_access(rev);
}

void peer_withdraw(struct revocable *rev)
{
	revocable_withdraw_access(rev);
}

int peer_with(struct revocable_provider __rcu *rp)
{
	int *res;

	REVOCABLE_TRY_ACCESS_WITH(rp, res);
	return res ? *res : -1;
}

int peer_revoke(struct revocable_provider __rcu **rpp)
{
	return revocable_revoke(rpp);
}
