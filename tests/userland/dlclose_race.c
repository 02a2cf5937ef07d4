// SPDX-License-Identifier: GPL-2.0
/*
 * dlclose_race DIR SECONDS: issue 26, item 7. One thread dlopen()s and
 * dlclose()s DIR/librace_a.so (and the libraries it needs) in a loop, so
 * that they are mapped and unmapped all the time; the main thread
 * dlopen()s and dlclose()s DIR/librace_b.so, which needs several libraries
 * of its own: under mseal-run each of its dlopen()s goes through the
 * library's wrapper, which looks at every loaded object to find what can
 * never be unloaded. A wrapper that reads the objects after the loader's
 * lock is dropped reads librace_a's unmapped pages: SIGSEGV.
 *
 * Runs for SECONDS (or 100000 rounds); prints "rounds N" and exits 0.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *dir;
static volatile int stop;

static void *open_close(const char *name)
{
	char path[4096];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		printf("dlopen %s: %s\n", name, dlerror());
		exit(1);
	}
	if (dlclose(h)) {
		printf("dlclose %s: %s\n", name, dlerror());
		exit(1);
	}
	return NULL;
}

static void *closer(void *arg)
{
	(void)arg;
	while (!stop)
		open_close("librace_a.so");
	return NULL;
}

int main(int argc, char **argv)
{
	time_t end;
	pthread_t t;
	long rounds = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: dlclose_race DIR SECONDS\n");
		return 2;
	}
	dir = argv[1];
	end = time(NULL) + atoi(argv[2]);
	if (pthread_create(&t, NULL, closer, NULL))
		return 1;
	while (time(NULL) < end && rounds < 100000) {
		open_close("librace_b.so");
		rounds++;
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("rounds %ld\n", rounds);
	return 0;
}
