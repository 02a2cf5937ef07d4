// SPDX-License-Identifier: GPL-2.0
/*
 * gdb_target: the program mseal_gdb_test debugs and attacks (issue 27).
 *
 *	gdb_target		says whether its code is sealed, calls
 *				marker() (gdb's breakpoint), exits 0
 *	gdb_target --patch-self	writes over marker()'s code through
 *				/proc/self/mem: "patch: refused (ERRNO)" or
 *				"patch: written"
 *	gdb_target --wait	prints "pid PID addr ADDR" (marker()'s code),
 *				waits for end of input, then says whether its
 *				code changed: "text unchanged" or "text changed"
 *	gdb_target --poke PID ADDR	writes over ADDR in /proc/PID/mem, as
 *				a process that does not trace PID:
 *				"poke: refused (ERRNO)" or "poke: written"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) void marker(void)
{
	puts("marker reached");
	fflush(stdout);
}

/* Is the VMA holding @addr sealed ("sl" in its VmFlags)? */
static int sealed(uintptr_t addr)
{
	char line[1024];
	int in = 0, ret = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, ' '))
			in = addr >= s && addr < e;
		else if (in && !strncmp(line, "VmFlags:", 8))
			ret = strstr(line, " sl") != NULL;
	}
	fclose(f);
	return ret;
}

static int overwrite(const char *who, pid_t pid, uintptr_t addr)
{
	static const unsigned char junk[16] = {
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	};
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		printf("%s: cannot open %s: %s\n", who, path, strerror(errno));
		return 1;
	}
	n = pwrite(fd, junk, sizeof(junk), (off_t)addr);
	if (n == (ssize_t)sizeof(junk))
		printf("%s: written\n", who);
	else
		printf("%s: refused (%s)\n", who, n < 0 ? strerror(errno) : "short write");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	uintptr_t code = (uintptr_t)marker;
	unsigned char before[16];
	char c;

	if (argc == 1) {
		printf("text sealed: %s\n", sealed(code) ? "yes" : "no");
		marker();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--patch-self"))
		return overwrite("patch", getpid(), code);
	if (argc == 2 && !strcmp(argv[1], "--wait")) {
		memcpy(before, (void *)code, sizeof(before));
		printf("pid %d addr %#lx\n", (int)getpid(), (unsigned long)code);
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		printf("text %s\n", memcmp(before, (void *)code, sizeof(before)) ?
		       "changed" : "unchanged");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "--poke"))
		return overwrite("poke", atoi(argv[2]), strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: gdb_target [--patch-self | --wait | --poke PID ADDR]\n");
	return 2;
}
