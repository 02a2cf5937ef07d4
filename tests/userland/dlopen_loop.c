// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen_loop DIR [N]: dlopen() and dlclose() DIR/libplugin.so N times (100),
 * checking each time that dlclose() unmapped it; then dlopen() the objects
 * that can never be unloaded (RTLD_NODELETE, DF_1_NODELETE), and a bare name
 * from a library whose DT_RUNPATH is the only way to find it.
 *
 * stdout: what the program computes, the same sealed or not (the suite
 * compares it). stderr: "sealed NAME yes|no" for each object, as
 * /proc/self/smaps shows it (the suite checks those against the mode).
 * Exit status: 0, or 1 if something did not work.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* Is every mapping of a file whose path ends in NAME sealed? -1: none mapped. */
static int sealed(const char *name)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512], cur[512] = "";
	int found = 0, all = 1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		unsigned long a, b;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			snprintf(cur, sizeof(cur), "%s", path ? path : "");
			cur[strcspn(cur, "\n")] = 0;
			continue;
		}
		if (strncmp(line, "VmFlags:", 8))
			continue;
		size_t n = strlen(cur), m = strlen(name);

		if (n < m || strcmp(cur + n - m, name))
			continue;
		found = 1;
		if (!strstr(line, " sl"))
			all = 0;
	}
	fclose(f);
	return found ? all : -1;
}

static void report(const char *name)
{
	int s = sealed(name);

	fprintf(stderr, "sealed %s %s\n", name, s < 0 ? "unmapped" : s ? "yes" : "no");
}

static void *open_or_fail(const char *dir, const char *lib, int mode)
{
	char path[4096];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, lib);
	h = dlopen(path, mode);
	if (!h) {
		printf("dlopen %s: %s\n", lib, dlerror());
		failures++;
	}
	return h;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 100, sum = 0, unmapped = 0;
	const char *dir = argc > 1 ? argv[1] : ".";
	long (*value)(long);
	void *h;

	for (long i = 0; i < n; i++) {
		h = open_or_fail(dir, "libplugin.so", RTLD_NOW);
		if (!h)
			return 1;
		value = (long (*)(long))dlsym(h, "plugin_value");
		sum += value(i);
		if (i == 0)
			report("/libplugin.so");
		if (dlclose(h)) {
			printf("dlclose: %s\n", dlerror());
			failures++;
		}
		unmapped += sealed("/libplugin.so") < 0;
	}
	printf("loop: %ld dlopen/dlclose, sum %ld, unmapped after dlclose %ld\n", n, sum, unmapped);
	if (unmapped != n)
		failures++;

	/* Never unloaded: DF_1_NODELETE, then RTLD_NODELETE. */
	h = open_or_fail(dir, "libplugin_nodelete.so", RTLD_NOW);
	if (h) {
		value = (long (*)(long))dlsym(h, "plugin_value");
		printf("nodelete: %ld\n", value(5));
		dlclose(h);
		report("/libplugin_nodelete.so");
	}
	h = open_or_fail(dir, "libplugin.so", RTLD_LAZY | RTLD_NODELETE);
	if (h) {
		value = (long (*)(long))dlsym(h, "plugin_value");
		printf("RTLD_NODELETE: %ld\n", value(6));
		dlclose(h);
		report("/libplugin.so");
	}
	/* A bare name, found along the DT_RUNPATH of the library asking. */
	h = open_or_fail(dir, "libloader.so", RTLD_NOW);
	if (h) {
		long (*deep)(long) = (long (*)(long))dlsym(h, "load_deep");

		printf("runpath: %ld\n", deep ? deep(7) : -1);
		if (!deep || deep(7) < 0)
			failures++;
		report("/libdeep.so");
		report("/libloader.so");
	}
	report("/libc.so.6");
	report("/ld-linux-x86-64.so.2");
	report("/dlopen_loop");
	printf("failures: %d\n", failures);
	return failures != 0;
}
