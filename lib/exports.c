// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The library's names of the three handle calls.  The kernel's header
 * defines revocable_access(), revocable_try_access() and
 * revocable_withdraw_access() inline, over the core's out-of-line halves
 * (__revocable_access() and the others); a library exports the calls
 * themselves, for programs built without _LGPL_SOURCE and for the inline
 * path's uncommon cases.  Each is a jump to the core's half.
 */
/* Declares the halves too, as the kernel's header does. */
#include "revocable.h"

void *revocable_access(struct revocable_provider *rp, struct revocable *rev)
{
	return __revocable_access(rp, rev);
}

void *revocable_try_access(struct revocable *rev)
{
	return __revocable_try_access(rev);
}

void revocable_withdraw_access(struct revocable *rev)
{
	__revocable_withdraw_access(rev);
}
