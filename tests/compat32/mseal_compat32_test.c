// SPDX-License-Identifier: GPL-2.0
/*
 * mseal() from a 32-bit (AArch32) process on the arm64 kernel: the compat
 * syscall table (arch/arm64/include/asm/unistd32.h) and the compat paths of
 * mmap2, munmap, mprotect, mremap and madvise. The arm64 counterpart of
 * mseal_paths_test's int $0x80 test on x86_64.
 *
 * Built static with Debian's gcc-arm-linux-gnueabihf (guest/Makefile, for
 * ARCH=arm64 only), against its C library and include/mseal.h alone. It
 * speaks both ABIs of the series: the errno of a refused call and the
 * MAP_SEALABLE opt-in follow mseal_abi().
 *
 * TAP on stdout; exit 0 if every test passed, 1 if one failed, 4 (skip) if
 * the kernel has no mseal().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <mseal.h>

#define NTESTS 11	/* and one more in the v6 ABI */

static int n, failed;
static long ps;
static int abi, eperm;

static void result(int ok, const char *name, const char *why)
{
	n++;
	if (!ok)
		failed++;
	printf("%sok %d %s%s%s\n", ok ? "" : "not ", n, name,
	       ok ? "" : " # ", ok ? "" : why);
}

#define CHECK(name, cond)	result(!!(cond), name, #cond)

/* The "sl" VmFlag of the VMA holding @p in /proc/self/smaps. */
static int sealed(const void *p)
{
	unsigned long a = (unsigned long)p, lo, hi;
	int in = 0, ret = -1;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = a >= lo && a < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			ret = strstr(line, " sl") != NULL;
			break;
		}
	}
	fclose(f);
	return ret;
}

static int filled(const unsigned char *p, size_t len, unsigned char c)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

/* A fresh 2-page private anonymous mapping that mseal() may seal. */
static unsigned char *map2(int prot)
{
	unsigned char *p = mmap(NULL, 2 * ps, prot,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_SEALABLE,
				-1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int main(void)
{
	unsigned char *p, *q;
	long r;

	ps = sysconf(_SC_PAGESIZE);
	printf("TAP version 13\n");
	if (!mseal_supported()) {
		printf("1..0 # SKIP mseal() is not implemented (ENOSYS)\n");
		return 4;
	}
	abi = mseal_abi();
	eperm = mseal_errno();
	printf("# 32-bit process, mseal ABI %s, refused calls fail with %s\n",
	       abi == MSEAL_ABI_MAINLINE ? "mainline" : "v6",
	       eperm == EPERM ? "EPERM" : "EACCES");
	printf("1..%d\n", NTESTS + (abi == MSEAL_ABI_V6));

	/* 1: the EABI number is the generic one; its neighbours are free. */
	CHECK("compat_nr_mseal_is_462", SYS_mseal == 462);
	r = syscall(463, 0, 0, 0);
	CHECK("compat_syscall_463_enosys", r == -1 && errno == ENOSYS);

	/* 3: argument checks through the compat entry. */
	p = map2(PROT_READ | PROT_WRITE);
	if (!p) {
		perror("mmap");
		return 1;
	}
	memset(p, 78, 2 * ps);
	CHECK("compat_mseal_flags_einval",
	      mseal(p, ps, 1) == -1 && errno == EINVAL && sealed(p) == 0);
	CHECK("compat_mseal_unaligned_einval",
	      mseal(p + 1, ps, 0) == -1 && errno == EINVAL && sealed(p) == 0);

	/* 5: seal the first page, leave the second. */
	CHECK("compat_mseal_seals_one_page",
	      mseal(p, ps, 0) == 0 && sealed(p) == 1 && sealed(p + ps) == 0);

	/* 6: what sealing refuses, with nothing changed. */
	CHECK("compat_munmap_sealed_refused",
	      munmap(p, ps) == -1 && errno == eperm && sealed(p) == 1);
	CHECK("compat_mprotect_sealed_refused",
	      mprotect(p, ps, PROT_READ) == -1 && errno == eperm);
	q = mremap(p, ps, 2 * ps, MREMAP_MAYMOVE);
	CHECK("compat_mremap_sealed_refused",
	      q == MAP_FAILED && errno == eperm);
	q = mmap(p, ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0);
	CHECK("compat_mmap_fixed_over_sealed_refused",
	      q == MAP_FAILED && errno == eperm && filled(p, ps, 78));

	/* 10: the unsealed page next to it still goes. */
	CHECK("compat_munmap_unsealed_neighbour_ok",
	      munmap(p + ps, ps) == 0 && filled(p, ps, 78));

	/* 11: read-only sealed anonymous memory keeps its pages. */
	p = map2(PROT_READ | PROT_WRITE);
	if (p) {
		memset(p, 79, 2 * ps);
		if (mprotect(p, 2 * ps, PROT_READ) || mseal(p, 2 * ps, 0))
			p = NULL;
	}
	CHECK("compat_madvise_dontneed_sealed_ro_refused",
	      p && madvise(p, 2 * ps, MADV_DONTNEED) == -1 &&
	      errno == eperm && filled(p, 2 * ps, 79));

	/* 12: v6 only: mmap2() with PROT_SEAL maps sealed memory. */
	if (abi == MSEAL_ABI_V6) {
		p = mmap(NULL, ps, PROT_READ | PROT_SEAL,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK("compat_mmap_prot_seal_maps_sealed",
		      p != MAP_FAILED && sealed(p) == 1 &&
		      munmap(p, ps) == -1 && errno == EACCES);
	}
	return failed ? 1 : 0;
}
