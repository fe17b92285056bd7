// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * liburcu-memb peer, in a file of its own: liburcu's headers and the
 * compat linux/ headers define the same names.  The read side is inlined
 * (_LGPL_SOURCE), which is the practical floor an access is compared to.
 */
#define _LGPL_SOURCE
#include <stdint.h>
#include <stdlib.h>
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

/*
 * The lifecycle peers: an object's life as a liburcu program lives it,
 * allocated, published, read once, unpublished, and freed by call_rcu()
 * (peer_urcu_life(): one, waited for with synchronize_rcu() as a revoke
 * waits; peer_urcu_churn(): @n, then rcu_barrier(), as a pool tears down).
 */
struct peer_obj {
	struct rcu_head rcu;
	int v;
};

static struct peer_obj *peer_slot;

static void peer_obj_free(struct rcu_head *head)
{
	free(caa_container_of(head, struct peer_obj, rcu));
}

static struct peer_obj *peer_publish(void)
{
	struct peer_obj *o = malloc(sizeof(*o)), *p;

	if (!o)
		abort();
	o->v = 1;
	rcu_assign_pointer(peer_slot, o);
	urcu_memb_read_lock();
	p = rcu_dereference(peer_slot);
	if (p && p->v != 1)
		abort();
	urcu_memb_read_unlock();
	rcu_assign_pointer(peer_slot, NULL);
	return o;
}

void peer_urcu_life(void)
{
	struct peer_obj *o = peer_publish();

	urcu_memb_synchronize_rcu();
	urcu_memb_call_rcu(&o->rcu, peer_obj_free);
}

void peer_urcu_churn(int n)
{
	for (int i = 0; i < n; i++)
		urcu_memb_call_rcu(&peer_publish()->rcu, peer_obj_free);
	urcu_memb_barrier();
}
