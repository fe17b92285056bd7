// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * liburcu-memb's read side without _LGPL_SOURCE: calls into liburcu, the
 * peer of our out-of-line accessors.
 */
#include <stdint.h>
#include <urcu/urcu-memb.h>

#include "bench.h"

#define PEER_URCU_LOOP peer_urcu_read_loop_outline
#include "peer_urcu_loop.h"
