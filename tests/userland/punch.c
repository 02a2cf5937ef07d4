// SPDX-License-Identifier: GPL-2.0
/*
 * libpunch.so: a library that unmaps a page of its own .bss from its
 * constructor, as a program that unmaps parts of its own libraries would.
 * Preloaded next to libmseal-run.so, it leaves a hole that mseal() cannot
 * seal (ENOMEM): the failure that mseal_run_test uses to see the warning,
 * and MSEAL_RUN_FATAL=1, at work on any kernel with mseal().
 */
#include <sys/mman.h>
#include <unistd.h>

static char pad[4 * 4096] __attribute__((aligned(4096)));

__attribute__((constructor)) static void punch(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = (char *)(((unsigned long)pad + page) & ~(page - 1));

	munmap(p, page);
}
