/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef REVOCABLE_INLINE_PEER_H
#define REVOCABLE_INLINE_PEER_H

struct revocable;
struct revocable_provider;

void *peer_access(struct revocable_provider *rp, struct revocable *rev);
void *peer_try_access(struct revocable *rev);
void peer_withdraw(struct revocable *rev);
int peer_with(struct revocable_provider *rp);
int peer_revoke(struct revocable_provider **rpp);

#endif
