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

void peer_urcu_thread_init(void)
{
	urcu_memb_register_thread();
}

void peer_urcu_thread_exit(void)
{
	urcu_memb_unregister_thread();
}

#define PEER_URCU_LOOP peer_urcu_read_loop
#include "peer_urcu_loop.h"

void peer_urcu_synchronize(void)
{
	urcu_memb_synchronize_rcu();
}
