// SPDX-License-Identifier: GPL-2.0
/*
 * The libraries dlopen_loop loads, one source for all of them:
 *   libplugin.so           plain: dlclose() must unmap it (never sealed)
 *   libplugin_nodelete.so  linked with -z nodelete (DF_1_NODELETE): sealed
 *   libloader.so           DT_RUNPATH $ORIGIN/sub; dlopen()s "libdeep.so" by
 *                          its bare name (found only along that RUNPATH)
 *   sub/libdeep.so
 * PLUGIN_NAME tells them apart.
 */
#include <dlfcn.h>
#include <stdio.h>

/* RELRO after relocation: a table of pointers. */
static const char *const names[] = { "zero", "one", "two", "three" };

const char *plugin_name(void)
{
	return PLUGIN_NAME;
}

long plugin_value(long i)
{
	return i * 3 + (long)sizeof(PLUGIN_NAME) + names[i & 3][0];
}

#ifdef PLUGIN_LOADER
/* dlopen() a bare name from here: only our DT_RUNPATH finds it. */
long load_deep(long i)
{
	void *h = dlopen("libdeep.so", RTLD_NOW | RTLD_NODELETE);
	long (*value)(long);

	if (!h) {
		printf("load_deep: %s\n", dlerror());
		return -1;
	}
	value = (long (*)(long))dlsym(h, "plugin_value");
	return value ? value(i) : -1;
}
#endif
