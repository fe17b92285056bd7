// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * liburcu-memb peer, in a file of its own: liburcu's headers and the
 * compat linux/ headers define the same names.  The read side is inlined
 * (_LGPL_SOURCE), which is the practical floor an access is compared to.
 */
#define _LGPL_SOURCE
#include <stdint.h>
#include <urcu/urcu-memb.h>

#include "bench.h"

static int urcu_target = 42;
static int *urcu_ptr = &urcu_target;

void peer_urcu_thread_init(void)
{
	urcu_memb_register_thread();
}

void peer_urcu_thread_exit(void)
{
	urcu_memb_unregister_thread();
}

uint64_t peer_urcu_read_loop(uint64_t iters)
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

void peer_urcu_synchronize(void)
{
	urcu_memb_synchronize_rcu();
}
