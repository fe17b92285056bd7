// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The access loops as a program linked against librevocable.so without
 * _LGPL_SOURCE runs them: every call through the dynamic linker.  The
 * shared library is loaded with dlopen() (which is also what a plugin
 * does) and has its own providers: it is a second instance of the library
 * beside the static one the rest of the bench links.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include <revocable.h>

#include "bench.h"

static struct {
	struct revocable_provider *(*alloc)(void *res);
	struct revocable_provider *(*get_rcu)(struct revocable_provider *const *rpp);
	void (*put)(struct revocable_provider *rp);
	int (*revoke)(struct revocable_provider **rpp);
	void *(*access)(struct revocable_provider *rp, struct revocable *rev);
	int (*init)(struct revocable_provider *rp, struct revocable *rev);
	void (*deinit)(struct revocable *rev);
	void *(*try_access)(struct revocable *rev);
	void (*withdraw)(struct revocable *rev);
} so;

static void *so_handle;
static struct revocable_provider *so_slot, *so_ref;

#define SO_SYM(field, name)						\
	(*(void **)&so.field = dlsym(so_handle, name))

const char *so_open(const char *path, int *target)
{
	so_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!so_handle)
		return dlerror();
	if (!SO_SYM(alloc, "revocable_provider_alloc") ||
	    !SO_SYM(get_rcu, "revocable_provider_get_rcu") ||
	    !SO_SYM(put, "revocable_provider_put") ||
	    !SO_SYM(revoke, "revocable_revoke") ||
	    !SO_SYM(access, "revocable_access") ||
	    !SO_SYM(init, "revocable_init") ||
	    !SO_SYM(deinit, "revocable_deinit") ||
	    !SO_SYM(try_access, "revocable_try_access") ||
	    !SO_SYM(withdraw, "revocable_withdraw_access"))
		return "a symbol is missing";
	so_slot = so.alloc(target);
	so_ref = so.get_rcu(&so_slot);
	return so_slot && so_ref ? NULL : "setup failed";
}

static int find_tls(struct dl_phdr_info *info, size_t size, void *arg)
{
	long *memsz = arg;
	int i;

	(void)size;
	if (!strstr(info->dlpi_name, "librevocable.so"))
		return 0;
	*memsz = 0;
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			*memsz = (long)info->dlpi_phdr[i].p_memsz;
	return 1;
}

/* Thread-local bytes the loaded librevocable.so asks for, or -1. */
long so_tls_bytes(void)
{
	long memsz = -1;

	dl_iterate_phdr(find_tls, &memsz);
	return memsz;
}

void so_close(void)
{
	if (!so_handle)
		return;
	so.put(so_ref);
	so.revoke(&so_slot);
	dlclose(so_handle);
	so_handle = NULL;
}

/* revocable_access() + withdraw through @rp, as called from outside. */
static uint64_t so_access_loop(struct revocable_provider *rp, uint64_t n)
{
	uint64_t sum = 0;

	while (n--) {
		struct revocable acc;
		int *res = so.access(rp, &acc);

		sum += res ? (uint64_t)*res : 0;
		so.withdraw(&acc);
	}
	return sum;
}

uint64_t so_loop_access(uint64_t n)
{
	return so_access_loop(so_ref, n);
}

/* What REVOCABLE_TRY_ACCESS_WITH expands to without _LGPL_SOURCE. */
uint64_t so_loop_with(uint64_t n)
{
	return so_access_loop(so_slot, n);
}

uint64_t so_loop_handle(uint64_t n)
{
	struct revocable rev;
	uint64_t sum = 0;

	if (so.init(so_slot, &rev))
		return 0;
	while (n--) {
		int *res = so.try_access(&rev);

		sum += res ? (uint64_t)*res : 0;
		so.withdraw(&rev);
	}
	so.deinit(&rev);
	return sum;
}
