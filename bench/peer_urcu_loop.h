/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The liburcu-memb read loop, included by peer_urcu.c (with _LGPL_SOURCE:
 * inline) and peer_urcu_outline.c (without: calls into liburcu) under the
 * name PEER_URCU_LOOP.
 */
static int urcu_target = 42;
static int *urcu_ptr = &urcu_target;

uint64_t PEER_URCU_LOOP(uint64_t iters)
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
