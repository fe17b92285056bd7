// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The access loops built the way a program that defines _LGPL_SOURCE gets
 * them: inline over the per-thread SRCU counters, on the same providers
 * as the out-of-line loops of revocable-bench.c.
 */
#define _LGPL_SOURCE
#include <revocable.h>

#include "bench.h"

#ifndef __REVOCABLE_INLINE
#error "_LGPL_SOURCE must select the inline accessors"
#endif

uint64_t lgpl_loop_access(uint64_t n)
{
	uint64_t sum = 0;

	while (n--) {
		struct revocable acc;
		int *res = revocable_access(bench_ref, &acc);

		sum += res ? (uint64_t)*res : 0;
		revocable_withdraw_access(&acc);
	}
	return sum;
}

uint64_t lgpl_loop_with(uint64_t n)
{
	uint64_t sum = 0;

	while (n--) {
		int *res;

		REVOCABLE_TRY_ACCESS_WITH(bench_slot, res);
		sum += res ? (uint64_t)*res : 0;
	}
	return sum;
}

uint64_t lgpl_loop_handle(uint64_t n)
{
	struct revocable rev;
	uint64_t sum = 0;

	if (revocable_init(bench_slot, &rev))
		return 0;
	while (n--) {
		int *res = revocable_try_access(&rev);

		sum += res ? (uint64_t)*res : 0;
		revocable_withdraw_access(&rev);
	}
	revocable_deinit(&rev);
	return sum;
}
