/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef REVOCABLE_BENCH_H
#define REVOCABLE_BENCH_H

#include <stdint.h>

/* peer_urcu.c */
void peer_urcu_thread_init(void);
void peer_urcu_thread_exit(void);
uint64_t peer_urcu_read_loop(uint64_t iters);
void peer_urcu_synchronize(void);

#endif
