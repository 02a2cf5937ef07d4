// SPDX-License-Identifier: GPL-2.0
/*
 * probe [overflow]: print /proc/self/smaps (the suite checks what is
 * sealed), after writing one byte past a heap block with "overflow". Built
 * as a 32-bit program (probe32: issue 26, item 8, the i386 library found
 * through $LIB) and with AddressSanitizer (asan_probe: its runtime comes
 * after a preloaded library; the overflow must still be caught).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char line[1024];
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "overflow")) {
		volatile int past = 8;	/* volatile: no compiler warning */
		volatile char *p = malloc(8);

		p[past] = 1;
		free((void *)p);
	}
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	fclose(f);
	return 0;
}
