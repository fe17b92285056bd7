/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef REVOCABLE_BENCH_H
#define REVOCABLE_BENCH_H

#include <stdint.h>

/* peer_urcu.c */
void peer_urcu_thread_init(void);
void peer_urcu_thread_exit(void);
uint64_t peer_urcu_read_loop(uint64_t iters);
void peer_urcu_synchronize(void);

/* upstream.c: the reverted design, rebuilt over the compat layer */
struct up_provider;
struct up_provider *up_provider_alloc(void *res);
void up_provider_revoke(struct up_provider **rpp);
uint64_t up_with_macro_loop(struct up_provider *rp, uint64_t iters);
unsigned long up_provider_bytes(void);

#endif
