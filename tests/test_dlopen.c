// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * librevocable loaded at run time, as plugins load it: this program does
 * not link the library.  It dlopen()s the library itself and a plugin that
 * links it (built with _LGPL_SOURCE), uses both from threads, unloads
 * them while a thread that used the library is still alive, then lets
 * that thread exit: its exit handler must still be there (the library is
 * not unloadable, -z nodelete).  Runs under glibc's default tunables, and
 * in the valgrind and ASan runs of the unit suite.
 *
 * usage: test_dlopen LIBREVOCABLE.so PLUGIN.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "test_dlopen: %s:%d: %s failed\n", \
				__FILE__, __LINE__, #cond);		\
			exit(1);					\
		}							\
	} while (0)

static int (*touch)(void);
static pthread_barrier_t used, unloaded;

/* Uses the library, then outlives the dlclose() and exits. */
static void *lingering(void *arg)
{
	int *ret = arg;

	*ret = touch();
	pthread_barrier_wait(&used);
	pthread_barrier_wait(&unloaded);
	return NULL;		/* the library's exit handler runs now */
}

int main(int argc, char **argv)
{
	void *(*alloc)(void *res);
	int (*revoke)(void **rpp);
	int (*run)(int nthreads);
	void *lib, *plugin, *rp;
	int value = 1, ret = 0, i;
	pthread_t t;

	CHECK(argc == 3);
	alarm(60);

	/* The library on its own. */
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		fprintf(stderr, "dlopen(%s): %s\n", argv[1], dlerror());
	CHECK(lib);
	*(void **)&alloc = dlsym(lib, "revocable_provider_alloc");
	*(void **)&revoke = dlsym(lib, "revocable_revoke");
	CHECK(alloc && revoke);
	rp = alloc(&value);
	CHECK(rp);
	CHECK(revoke(&rp) == 1);

	/* A plugin that links it, with the inline path. */
	plugin = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	if (!plugin)
		fprintf(stderr, "dlopen(%s): %s\n", argv[2], dlerror());
	CHECK(plugin);
	*(void **)&touch = dlsym(plugin, "plugin_touch");
	*(void **)&run = dlsym(plugin, "plugin_run");
	CHECK(touch && run);
	CHECK(touch() == 42);
	for (i = 0; i < 3; i++)
		CHECK(run(4) == 0);

	pthread_barrier_init(&used, NULL, 2);
	pthread_barrier_init(&unloaded, NULL, 2);
	CHECK(!pthread_create(&t, NULL, lingering, &ret));
	pthread_barrier_wait(&used);
	CHECK(ret == 42);
	CHECK(!dlclose(plugin));
	CHECK(!dlclose(lib));
	pthread_barrier_wait(&unloaded);
	CHECK(!pthread_join(t, NULL));

	/* And once more after the unload: loading again works. */
	plugin = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	CHECK(plugin);
	*(void **)&run = dlsym(plugin, "plugin_run");
	CHECK(run && run(2) == 0);
	CHECK(!dlclose(plugin));
	printf("test_dlopen: ok\n");
	return 0;
}
