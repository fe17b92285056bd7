/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The three access loops of the bench, written once and compiled twice:
 * by revocable-bench.c against the library's own (out-of-line) accessors,
 * and by lgpl_loops.c the way a program that defines _LGPL_SOURCE gets
 * them (inline).  BENCH_LOOP(name) names each function of the including
 * file; BENCH_LOOP_SCOPE is its linkage (static or empty).
 */
#include <revocable.h>

#include "bench.h"

BENCH_LOOP_SCOPE uint64_t BENCH_LOOP(access)(uint64_t n)
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

BENCH_LOOP_SCOPE uint64_t BENCH_LOOP(with)(uint64_t n)
{
	uint64_t sum = 0;

	while (n--) {
		int *res;

		REVOCABLE_TRY_ACCESS_WITH(bench_slot, res);
		sum += res ? (uint64_t)*res : 0;
	}
	return sum;
}

BENCH_LOOP_SCOPE uint64_t BENCH_LOOP(handle)(uint64_t n)
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
