/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reverted upstream design, rebuilt for comparison (upstream.c).  Kernel
 * C: the userspace benchmark builds it over compat/, the kernel benchmark
 * module against the real kernel.
 */
#ifndef REVOCABLE_BENCH_UPSTREAM_H
#define REVOCABLE_BENCH_UPSTREAM_H

#include <linux/types.h>

struct up_provider;
struct up_provider *up_provider_alloc(void *res);
void up_provider_revoke(struct up_provider **rpp);
/* n accesses as the upstream REVOCABLE_TRY_ACCESS_WITH() made them. */
u64 up_with_macro_loop(struct up_provider *rp, unsigned long n);
unsigned long up_provider_bytes(void);

#endif
