// SPDX-License-Identifier: GPL-2.0
/*
 * seal_cost [ROUNDS]: what the calls of system-wide sealing cost in the
 * kernel, in ns; under -icount shift=0 (bench/startup) a ns is one guest
 * instruction. Medians of ROUNDS (default 200) of each:
 *   getpid         a system call that does nothing (the entry and exit)
 *   prctl          PR_GET_MSEAL_SEALABLE (ld.so's decision)
 *   mprotect-probe mprotect() of an unsealed page to the protection it
 *                  has (ld.so's probe of mseal_exec, when it is off)
 *   mprotect-sealed the same on a sealed page (refused: when it is on)
 *   mseal N        mseal() of a fresh range of N VMAs (1 to 6), file-backed
 *                  private mappings of alternating protection, as an
 *                  object's segments are
 *   mseal-again N  mseal() of the same range once sealed (nothing to do)
 * Prints "R<TAB>cost<TAB>NAME<TAB>N<TAB>NS<TAB>ns" lines. The process opts
 * in first (PR_SET_MSEAL_SEALABLE), so that the v6 ABI seals its mappings
 * (a kernel without the opt-in, EINVAL: mainline's, which seals any).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mseal.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void report(const char *name, int n, long long *v, int rounds)
{
	qsort(v, rounds, sizeof(*v), cmp);
	printf("R\tcost\t%s\t%d\t%lld\tns\n", name, n, v[rounds / 2]);
}

/* N pages of FD, each its own VMA: protections alternate. */
static char *vmas(int fd, int n, long ps)
{
	char *p = mmap(NULL, n * ps, PROT_READ, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		return NULL;
	for (int i = 1; i < n; i += 2)
		if (mprotect(p + i * ps, ps, PROT_READ | PROT_EXEC))
			return NULL;
	return p;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	long ps = sysconf(_SC_PAGESIZE);
	long long *seal, *again, *probe, *refused, t;
	int fd;

	if (rounds <= 0) {
		fprintf(stderr, "usage: seal_cost [ROUNDS]\n");
		return 2;
	}
	seal = calloc(rounds, sizeof(*seal));
	again = calloc(rounds, sizeof(*again));
	probe = calloc(rounds, sizeof(*probe));
	refused = calloc(rounds, sizeof(*refused));
	fd = open("/proc/self/exe", O_RDONLY);
	/* EINVAL: a kernel without the opt-in (mainline's seals any mapping). */
	if (!seal || !again || !probe || !refused || fd < 0 ||
	    (mseal_set_sealable(1) && errno != EINVAL)) {
		perror("seal_cost");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		t = now();
		syscall(SYS_getpid);
		seal[r] = now() - t;
	}
	report("getpid", 0, seal, rounds);
	for (int r = 0; r < rounds; r++) {
		t = now();
		prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0);
		seal[r] = now() - t;
	}
	report("prctl", 0, seal, rounds);
	for (int n = 1; n <= 6; n++) {
		for (int r = 0; r < rounds; r++) {
			char *p = vmas(fd, n, ps);

			if (!p) {
				perror("seal_cost: mmap");
				return 1;
			}
			t = now();
			if (mprotect(p, ps, PROT_READ)) {
				perror("seal_cost: mprotect of an unsealed page");
				return 1;
			}
			probe[r] = now() - t;
			t = now();
			if (mseal(p, n * ps, 0)) {
				perror("seal_cost: mseal");
				return 1;
			}
			seal[r] = now() - t;
			t = now();
			if (mseal(p, n * ps, 0)) {
				perror("seal_cost: mseal again");
				return 1;
			}
			again[r] = now() - t;
			t = now();
			if (!mprotect(p, ps, PROT_READ)) {
				fprintf(stderr, "seal_cost: a sealed page reprotected\n");
				return 1;
			}
			refused[r] = now() - t;
		}
		report("mseal", n, seal, rounds);
		report("mseal-again", n, again, rounds);
		if (n == 1) {
			report("mprotect-probe", 0, probe, rounds);
			report("mprotect-sealed", 0, refused, rounds);
		}
	}
	return 0;
}
