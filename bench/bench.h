/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef REVOCABLE_BENCH_H
#define REVOCABLE_BENCH_H

#include <stdint.h>

struct revocable_provider;

/* peer_urcu.c */
void peer_urcu_thread_init(void);
void peer_urcu_thread_exit(void);
uint64_t peer_urcu_read_loop(uint64_t iters);
uint64_t peer_urcu_read_loop_outline(uint64_t iters);
void peer_urcu_synchronize(void);
void peer_urcu_life(void);
void peer_urcu_churn(int n);

/* revocable-bench.c: the owner's slot and a consumer reference */
extern struct revocable_provider *bench_slot;
extern struct revocable_provider *bench_ref;

/* lgpl_loops.c: the same loops, inline (_LGPL_SOURCE) */
uint64_t lgpl_loop_access(uint64_t n);
uint64_t lgpl_loop_with(uint64_t n);
uint64_t lgpl_loop_handle(uint64_t n);

/* so_loops.c: through a dlopen()ed librevocable.so */
const char *so_open(const char *path, int *target);
void so_close(void);
long so_tls_bytes(void);
uint64_t so_loop_access(uint64_t n);
uint64_t so_loop_with(uint64_t n);
uint64_t so_loop_handle(uint64_t n);

#endif
