// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * liburcu-memb's read side without _LGPL_SOURCE: calls into liburcu, the
 * peer of our out-of-line accessors.
 */
#include <stdint.h>
#include <urcu/urcu-memb.h>

#include "bench.h"

static int urcu_target = 42;
static int *urcu_ptr = &urcu_target;

uint64_t peer_urcu_read_loop_outline(uint64_t iters)
{
	uint64_t sum = 0;

	while (iters--) {
		int *p;

		urcu_memb_read_lock();
		p = rcu_dereference(urcu_ptr);
		sum += (uint64_t)*p;
		urcu_memb_read_unlock();
	}
	return sum;
}
