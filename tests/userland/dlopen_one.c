// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen_one PATH: dlopen() PATH once main() runs, then say "ran on" and
 * exit 0 (1 if dlopen() fails). With PATH a library that can never be
 * unloaded and cannot be sealed (libpunch_nodelete.so), it shows what a
 * failure to seal after main() does: a warning, even with
 * MSEAL_RUN_FATAL=1, which is fatal only before main() (issue 26, item 10).
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2 || !dlopen(argv[1], RTLD_NOW)) {
		printf("dlopen: %s\n", argc == 2 ? dlerror() : "usage: dlopen_one PATH");
		return 1;
	}
	printf("ran on\n");
	return 0;
}
