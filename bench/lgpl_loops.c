// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The access loops built the way a program that defines _LGPL_SOURCE gets
 * them: inline over the per-thread SRCU counters, on the same providers
 * as the out-of-line loops of revocable-bench.c.
 */
#define _LGPL_SOURCE
#include <revocable.h>

#ifndef __REVOCABLE_INLINE
#error "_LGPL_SOURCE must select the inline accessors"
#endif

#define BENCH_LOOP(name)	lgpl_loop_##name
#define BENCH_LOOP_SCOPE
#include "access_loops.h"
