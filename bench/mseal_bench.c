// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_bench - microbenchmarks for the cost of the mseal() series (issue 5).
 *
 * The v6 design walks the VMAs of the range on every munmap, mremap,
 * mprotect, madvise and mmap. This program times those calls, with few and
 * with many other VMAs in the process, on memory that nothing has sealed
 * (the paths every process takes), in a process that has sealed something,
 * on sealed memory where the call is allowed, and mseal() itself.
 *
 * It only reports; it never fails on a number. Output, one result a line:
 *
 *   R <TAB> group <TAB> bench <TAB> vmas <TAB> ns-per-op <TAB> unit
 *   S <TAB> group <TAB> bench <TAB> vmas <TAB> reason        (skipped)
 *   I <TAB> free text                                          (information)
 *
 * group: "unsealed"    nothing in the process is sealed;
 *        "sealed-proc" the same calls on unsealed memory of a process that
 *                      has sealed VMAs away from the range it operates on
 *                      (all its "other VMAs" are sealed), as a program whose
 *                      loader sealed its libraries: what a per-mm "has
 *                      sealed" bit cannot make free. Each process runs the
 *                      benchmark first with its other VMAs sealable and not
 *                      yet sealed (reported as "sealable-proc"), then seals
 *                      them and runs it again ("sealed-proc"). On a kernel
 *                      without mseal() the same process runs the same
 *                      sequence, its mseal() calls failing with ENOSYS: its
 *                      sealed-proc numbers are the control of the patched
 *                      kernel's (why the process runs first: see
 *                      docs/bench.md, "Sealing after the first run");
 *        "sealed-mem"  allowed calls on sealed memory (madvise(MADV_DONTNEED)
 *                      of sealed writable memory, page faults);
 *        "mseal"       mseal() itself (vmas = VMAs in the sealed range);
 *        "sealed1-proc" (only when asked for by --groups) the sealed-proc
 *                      set-up with only the page at SEALED_PAGE sealed,
 *                      before the one run.
 * vmas:  number of other VMAs the benchmark adds to the process (1, 1000,
 *        10000; at least 1): one page far away (SEALED_PAGE) and vmas - 1
 *        one-page mappings of alternating protections (the filler), far from
 *        the benchmarked addresses, so that they neither merge nor get in the
 *        way. Every group maps them at the same addresses, and only the
 *        sealed groups seal them: the layout of the VMA tree changes the cost
 *        of these calls by up to 20%, so all groups must have the same
 *        layout. (Before issue 15 the filler had vmas pages and the page
 *        came on top: "0 other VMAs" then is "1" now, with the same layout.)
 *
 * On request only (--ops names them): mprotect_3vma and madvise_3vma, the
 * calls over a range of three VMAs, where a process that has sealed
 * something pays for the separate pass of the seal checks.
 *
 * Each benchmark runs in its own child process: a warm-up, then BATCHES
 * batches of a fixed number of iterations, timed with
 * clock_gettime(CLOCK_MONOTONIC); the result is the median batch, per op.
 * With --settle US, the process sleeps US microseconds before the warm-up
 * and before each batch, so that the machine idles (deferred frees done,
 * RCU grace periods over) and each batch starts from a settled state,
 * whatever ran before (another process, mseal()); the result is then the
 * mean of the batches without the fastest and the slowest: in a process,
 * the cost of these calls sits on one of a few levels ~0.4% apart, set by
 * the allocators' state when a loop starts, which idling draws anew.
 * On a kernel without mseal() (ENOSYS) sealed-mem, sealed1-proc and mseal
 * are skipped; sealed-proc runs, as the control.
 *
 * usage: mseal_bench [--groups LIST] [--ops LIST] [--vmas LIST]
 *                    [--scale F] [--batches N] [--settle US] [--list]
 *   LIST is comma separated; --scale multiplies every iteration count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_mseal
#define __NR_mseal 462
#endif
#ifndef PROT_SEAL
#define PROT_SEAL 0x04000000
#endif
#ifndef MAP_SEALABLE
#define MAP_SEALABLE 0x08000000
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PG 4096UL
#define MAX_BATCHES 15

/* Where things live: far apart, far from the program's own mappings. */
#define FILLER_BASE 0x100000000000UL	/* the "other VMAs" */
#define BENCH_BASE 0x200000000000UL	/* the benchmarked ranges */
#define SEALED_PAGE 0x280000000000UL	/* the one sealed page of sealed-proc */
#define MSEAL_BASE 0x300000000000UL	/* mseal() benchmarks */
#define GIB_BASE 0x400000000000UL	/* 1 GiB mappings for mseal_1gib */

static double scale = 1.0;
static int batches = 5;
static long settle_us;
static int have_mseal;

static void die(const char *what)
{
	fprintf(stderr, "mseal_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long sys_mseal(unsigned long start, size_t len, unsigned long flags)
{
	return syscall(__NR_mseal, start, len, flags);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* mmap exactly at @addr (setup only: never timed). */
static void *map_at(unsigned long addr, size_t len, int prot, int flags)
{
	void *p = mmap((void *)addr, len, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | flags, -1, 0);

	if (p == MAP_FAILED)
		die("mmap (setup)");
	if ((unsigned long)p != addr) {
		errno = EEXIST;
		die("mmap (setup) did not map at the address asked");
	}
	return p;
}

static void unmap(unsigned long addr, size_t len)
{
	if (munmap((void *)addr, len))
		die("munmap (teardown)");
}

static void touch(unsigned long addr, size_t len)
{
	for (size_t off = 0; off < len; off += PG)
		*(volatile char *)(addr + off) = 1;
}

static int count_vmas(unsigned long start, unsigned long end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long s, e;
	char line[512];
	int n = 0;

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s < end && e > start)
			n++;
	fclose(f);
	return n;
}

static int count_all_vmas(void)
{
	return count_vmas(0, ~0UL);
}

/* ------------------------------------------------------------------------ */
/* The benchmarks. Each returns the time, in ns, of @n operations.          */

struct ctx {
	int sealed;		/* the memory benchmarked is sealed (sealed-mem) */
	int mapped;		/* the sealed memory is mapped (it stays) */
};

/*
 * The memory of the madvise and page-fault benchmarks: mapped for each
 * run, or, sealed, mapped and sealed once for all the runs of the process.
 */
static void map_bench_mem(struct ctx *c, unsigned long a, size_t len)
{
	if (!c->sealed) {
		map_at(a, len, PROT_READ | PROT_WRITE, 0);
		return;
	}
	if (c->mapped)
		return;
	map_at(a, len, PROT_READ | PROT_WRITE, MAP_SEALABLE);
	if (sys_mseal(a, len, 0))
		die("mseal");
	c->mapped = 1;
}

/* mmap() of one anonymous page at a free hint, then munmap(): per pair. */
static uint64_t b_mmap_munmap(struct ctx *c, long n)
{
	void *hint = (void *)BENCH_BASE;
	uint64_t t0, t1;

	(void)c;
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		void *p = mmap(hint, PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != hint)
			die("mmap did not take the hint");
		if (munmap(p, PG))
			die("munmap");
	}
	t1 = now_ns();
	return t1 - t0;
}

/* mprotect() of a one-page VMA, RW <-> R: per call. */
static uint64_t b_mprotect(struct ctx *c, long n)
{
	unsigned long a = BENCH_BASE;
	uint64_t t0, t1;

	(void)c;
	map_at(a, PG, PROT_READ | PROT_WRITE, 0);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (mprotect((void *)a, PG, (i & 1) ? PROT_READ | PROT_WRITE : PROT_READ))
			die("mprotect");
	t1 = now_ns();
	unmap(a, PG);
	return t1 - t0;
}

/* mprotect() of the middle page of three, RW <-> R (split, merge): per call. */
static uint64_t b_mprotect_split(struct ctx *c, long n)
{
	unsigned long a = BENCH_BASE;
	uint64_t t0, t1;

	(void)c;
	map_at(a, 3 * PG, PROT_READ | PROT_WRITE, 0);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (mprotect((void *)(a + PG), PG,
			     (i & 1) ? PROT_READ | PROT_WRITE : PROT_READ))
			die("mprotect");
	t1 = now_ns();
	unmap(a, 3 * PG);
	return t1 - t0;
}

/*
 * pagemove-style: a populated 16-page region moved back and forth between
 * two addresses with mremap(MREMAP_MAYMOVE | MREMAP_FIXED): per call.
 */
#define MOVE_LEN (16 * PG)
static uint64_t b_mremap_move(struct ctx *c, long n)
{
	unsigned long a = BENCH_BASE, b = BENCH_BASE + (1UL << 30);
	uint64_t t0, t1;

	(void)c;
	map_at(a, MOVE_LEN, PROT_READ | PROT_WRITE, 0);
	touch(a, MOVE_LEN);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		unsigned long from = (i & 1) ? b : a, to = (i & 1) ? a : b;

		if (mremap((void *)from, MOVE_LEN, MOVE_LEN,
			   MREMAP_MAYMOVE | MREMAP_FIXED, (void *)to) != (void *)to)
			die("mremap (move)");
	}
	t1 = now_ns();
	unmap((n & 1) ? b : a, MOVE_LEN);
	return t1 - t0;
}

/* mremap() one page to two in place, then back to one: per pair. */
static uint64_t b_mremap_grow(struct ctx *c, long n)
{
	unsigned long a = BENCH_BASE;
	uint64_t t0, t1;

	(void)c;
	map_at(a, PG, PROT_READ | PROT_WRITE, 0);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (mremap((void *)a, PG, 2 * PG, 0) != (void *)a)
			die("mremap (grow)");
		if (mremap((void *)a, 2 * PG, PG, 0) != (void *)a)
			die("mremap (shrink)");
	}
	t1 = now_ns();
	unmap(a, PG);
	return t1 - t0;
}

/*
 * madvise(MADV_DONTNEED) of one populated writable page: per call. Only
 * the madvise() is timed; the page is written again, untimed, before each.
 */
static uint64_t b_madvise_dontneed(struct ctx *c, long n)
{
	unsigned long a = BENCH_BASE;
	uint64_t sum = 0;

	map_bench_mem(c, a, PG);
	for (long i = 0; i < n; i++) {
		uint64_t t0;

		touch(a, PG);
		t0 = now_ns();
		if (madvise((void *)a, PG, MADV_DONTNEED))
			die("madvise");
		sum += now_ns() - t0;
	}
	if (!c->sealed)
		unmap(a, PG);
	return sum;
}

/*
 * Page faults: write to each page of a 64-page anonymous mapping, then
 * MADV_DONTNEED it (untimed) and again: per fault.
 */
#define FAULT_PAGES 64
static uint64_t b_pagefault(struct ctx *c, long n)
{
	unsigned long a = BENCH_BASE, len = FAULT_PAGES * PG;
	uint64_t sum = 0;
	long done = 0;

	map_bench_mem(c, a, len);
	while (done < n) {
		long k = n - done < FAULT_PAGES ? n - done : FAULT_PAGES;
		uint64_t t0 = now_ns();

		touch(a, k * PG);
		sum += now_ns() - t0;
		if (madvise((void *)a, len, MADV_DONTNEED))
			die("madvise");
		done += k;
	}
	if (!c->sealed)
		unmap(a, len);
	return sum;
}

/*
 * A range over three VMAs: three pages, the middle one MADV_DONTFORK (a
 * flag mprotect() keeps), so that they never merge.
 */
static void map_3vma(unsigned long a)
{
	map_at(a, 3 * PG, PROT_READ | PROT_WRITE, 0);
	if (madvise((void *)(a + PG), PG, MADV_DONTFORK))
		die("madvise (MADV_DONTFORK)");
}

/* mprotect() of a range of three VMAs, RW <-> R: per call. */
static uint64_t b_mprotect_3vma(struct ctx *c, long n)
{
	unsigned long a = BENCH_BASE;
	uint64_t t0, t1;

	(void)c;
	map_3vma(a);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (mprotect((void *)a, 3 * PG, (i & 1) ? PROT_READ | PROT_WRITE : PROT_READ))
			die("mprotect");
	t1 = now_ns();
	unmap(a, 3 * PG);
	return t1 - t0;
}

/* madvise(MADV_DONTNEED) of a range of three populated VMAs: per call. */
static uint64_t b_madvise_3vma(struct ctx *c, long n)
{
	unsigned long a = BENCH_BASE;
	uint64_t sum = 0;

	(void)c;
	map_3vma(a);
	for (long i = 0; i < n; i++) {
		uint64_t t0;

		touch(a, 3 * PG);
		t0 = now_ns();
		if (madvise((void *)a, 3 * PG, MADV_DONTNEED))
			die("madvise");
		sum += now_ns() - t0;
	}
	unmap(a, 3 * PG);
	return sum;
}

/* brk() one page up, then back: per pair. */
static uint64_t b_brk(struct ctx *c, long n)
{
	unsigned long b0 = syscall(SYS_brk, 0);
	uint64_t t0, t1;

	(void)c;
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if ((unsigned long)syscall(SYS_brk, b0 + PG) != b0 + PG)
			die("brk (grow)");
		if ((unsigned long)syscall(SYS_brk, b0) != b0)
			die("brk (shrink)");
	}
	t1 = now_ns();
	return t1 - t0;
}

struct op {
	const char *name;
	uint64_t (*fn)(struct ctx *c, long n);
	long iters;		/* per run, at scale 1 */
	const char *unit;
	int on_sealed;		/* also run on sealed memory (sealed-mem) */
	int on_request;		/* only when --ops names it */
};

static const struct op ops[] = {
	{ "mmap_munmap", b_mmap_munmap, 20000, "ns/pair", 0, 0 },
	{ "mprotect", b_mprotect, 40000, "ns/call", 0, 0 },
	{ "mprotect_split", b_mprotect_split, 20000, "ns/call", 0, 0 },
	{ "mremap_move", b_mremap_move, 20000, "ns/call", 0, 0 },
	{ "mremap_grow", b_mremap_grow, 20000, "ns/pair", 0, 0 },
	{ "madvise_dontneed", b_madvise_dontneed, 20000, "ns/call", 1, 0 },
	{ "brk", b_brk, 20000, "ns/pair", 0, 0 },
	{ "pagefault", b_pagefault, 40000, "ns/fault", 1, 0 },
	/* Ranges over several VMAs: the seal checks' separate pass. */
	{ "mprotect_3vma", b_mprotect_3vma, 20000, "ns/call", 0, 1 },
	{ "madvise_3vma", b_madvise_3vma, 20000, "ns/call", 0, 1 },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* ------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The mean of @v without its smallest and largest value (if n > 2). */
static double trimmed_mean(double *v, int n)
{
	double sum = 0;
	int k = n > 2;

	qsort(v, n, sizeof(*v), cmp_double);
	for (int i = k; i < n - k; i++)
		sum += v[i];
	return sum / (n - 2 * k);
}

/* --settle: let the machine idle before a timed loop. */
static void settle(void)
{
	if (settle_us > 0)
		usleep(settle_us);
}

static long scaled(long iters)
{
	long n = (long)(iters * scale);

	return n < 10 ? 10 : n;
}

/* Warm up, then time @batches batches: the median per op. */
static double run_op(const struct op *op, struct ctx *c)
{
	long per_batch = scaled(op->iters) / batches;
	double v[MAX_BATCHES];

	if (per_batch < 2)
		per_batch = 2;
	settle();
	op->fn(c, per_batch / 4 + 1);
	for (int b = 0; b < batches; b++) {
		settle();
		v[b] = (double)op->fn(c, per_batch) / per_batch;
	}
	return settle_us ? trimmed_mean(v, batches) : median(v, batches);
}

/*
 * The @n other VMAs: the page at SEALED_PAGE and @n - 1 one-page VMAs of
 * alternating protections at FILLER_BASE (sealable if @sealable), which do
 * not merge, so the process has @n more VMAs.
 */
static void make_filler(int n, int sealable)
{
	for (int i = 0; i < n - 1; i++)
		map_at(FILLER_BASE + i * PG, PG,
		       (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE,
		       sealable ? MAP_SEALABLE : 0);
	map_at(SEALED_PAGE, PG, PROT_READ, sealable ? MAP_SEALABLE : 0);
}

/*
 * Seal what make_filler(@n) mapped. Without mseal() (ENOSYS), make the same
 * calls, which fail: the control runs the same sequence.
 */
static void seal_filler(int n)
{
	if (n > 1 && sys_mseal(FILLER_BASE, (n - 1) * PG, 0) && have_mseal)
		die("mseal (other VMAs)");
	if (sys_mseal(SEALED_PAGE, PG, 0) && have_mseal)
		die("mseal (one page)");
}

static int selected(const char *list, const char *name)
{
	size_t len = strlen(name);

	if (!list)
		return 1;
	for (const char *p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
			return 1;
	return 0;
}

static void report(const char *group, const char *bench, long vmas, double v, const char *unit)
{
	printf("R\t%s\t%s\t%ld\t%.1f\t%s\n", group, bench, vmas, v, unit);
	fflush(stdout);
}

static void skip(const char *group, const char *bench, long vmas, const char *why)
{
	printf("S\t%s\t%s\t%ld\t%s\n", group, bench, vmas, why);
	fflush(stdout);
}

/* Run @fn in a child process; a child that fails is reported, not fatal. */
static void in_child(void (*fn)(const void *), const void *arg, const char *what)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		fn(arg);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		printf("I\t%s: the child failed (status 0x%x)\n", what, status);
}

struct opjob {
	const struct op *op;
	const char *group;
	int vmas;
};

/*
 * One benchmark in a fresh process: @vmas other VMAs, mapped the same way
 * in every group, all sealed for the sealed groups. sealed-proc measures
 * twice, before and after sealing them (see the top of this file).
 */
static void op_job(const void *arg)
{
	const struct opjob *j = arg;
	struct ctx c = { .sealed = !strcmp(j->group, "sealed-mem") };
	int sealable = strcmp(j->group, "unsealed") != 0;

	make_filler(j->vmas, sealable);
	if (!strcmp(j->group, "sealed-proc")) {
		double before = run_op(j->op, &c);

		seal_filler(j->vmas);
		report("sealable-proc", j->op->name, j->vmas, before, j->op->unit);
	} else if (!strcmp(j->group, "sealed1-proc")) {
		if (sys_mseal(SEALED_PAGE, PG, 0))
			die("mseal (one page)");
	} else if (sealable) {
		seal_filler(j->vmas);
	}
	report(j->group, j->op->name, j->vmas, run_op(j->op, &c), j->op->unit);
}

/* ------------------------------------------------------------------------ */
/* mseal() itself.                                                          */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* mseal() of a one-page VMA, @n separate VMAs: per call. */
static void ms_1page(const void *arg)
{
	long n = scaled(4000);
	uint64_t t0, t1;

	(void)arg;
	for (long i = 0; i < n; i++)
		map_at(MSEAL_BASE + i * 2 * PG, PG, PROT_READ, MAP_SEALABLE);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (sys_mseal(MSEAL_BASE + i * 2 * PG, PG, 0))
			die("mseal (1 page)");
	t1 = now_ns();
	report("mseal", "mseal_1page", 1, (double)(t1 - t0) / n, "ns/call");
}

/* mseal() of a 1 GiB VMA (MAP_NORESERVE, never touched): per call. */
static void ms_1gib(const void *arg)
{
	long n = scaled(400);
	uint64_t t0, t1;

	(void)arg;
	if (n > 4000)
		n = 4000;
	for (long i = 0; i < n; i++)
		map_at(GIB_BASE + i * (2UL << 30), 1UL << 30, PROT_READ,
		       MAP_SEALABLE | MAP_NORESERVE);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (sys_mseal(GIB_BASE + i * (2UL << 30), 1UL << 30, 0))
			die("mseal (1 GiB)");
	t1 = now_ns();
	report("mseal", "mseal_1gib", 1, (double)(t1 - t0) / n, "ns/call");
}

/*
 * mseal() of a range of @nv VMAs (one-page VMAs of alternating
 * protections, which stay separate once sealed): the median call over
 * several ranges, per call and per VMA.
 */
static void ms_nvma(const void *arg)
{
	long nv = *(const long *)arg;
	long reps = scaled(20000) / nv;
	uint64_t t[2000];
	unsigned long base = MSEAL_BASE;

	if (reps < 5)
		reps = 5;
	if (reps > 2000)
		reps = 2000;
	for (long r = 0; r < reps; r++) {
		uint64_t t0;

		for (long i = 0; i < nv; i++)
			map_at(base + i * PG, PG, (i & 1) ? PROT_READ : PROT_READ | PROT_WRITE,
			       MAP_SEALABLE);
		t0 = now_ns();
		if (sys_mseal(base, nv * PG, 0))
			die("mseal (N VMAs)");
		t[r] = now_ns() - t0;
		if (r == 0 && count_vmas(base, base + nv * PG) != nv)
			printf("I\tmseal_nvma: %ld VMAs expected in the range, %d found\n",
			       nv, count_vmas(base, base + nv * PG));
		base += (nv + 1) * PG;
	}
	qsort(t, reps, sizeof(t[0]), cmp_u64);
	report("mseal", "mseal_nvma", nv, (double)t[reps / 2], "ns/call");
	report("mseal", "mseal_per_vma", nv, (double)t[reps / 2] / nv, "ns/vma");
}

/*
 * Page-by-page sealing of a 16384-page mapping: each call splits the
 * unsealed rest and merges the page into the sealed part. The time per call
 * over the first, middle and last thousand calls should be flat; the range
 * ends as one VMA.
 */
#define PAGEWISE 16384
static void ms_pagewise(const void *arg)
{
	static uint64_t t[PAGEWISE];
	unsigned long a = MSEAL_BASE;
	double first = 0, mid = 0, last = 0;
	int nv;

	(void)arg;
	map_at(a, PAGEWISE * PG, PROT_READ | PROT_WRITE, MAP_SEALABLE);
	for (int i = 0; i < PAGEWISE; i++) {
		uint64_t t0 = now_ns();

		if (sys_mseal(a + i * PG, PG, 0))
			die("mseal (page by page)");
		t[i] = now_ns() - t0;
	}
	for (int i = 0; i < 1000; i++) {
		first += t[i];
		mid += t[PAGEWISE / 2 - 500 + i];
		last += t[PAGEWISE - 1000 + i];
	}
	report("mseal", "mseal_pagewise_first1k", PAGEWISE, first / 1000, "ns/call");
	report("mseal", "mseal_pagewise_mid1k", PAGEWISE, mid / 1000, "ns/call");
	report("mseal", "mseal_pagewise_last1k", PAGEWISE, last / 1000, "ns/call");
	nv = count_vmas(a, a + PAGEWISE * PG);
	report("mseal", "mseal_pagewise_vmas", PAGEWISE, nv, "VMAs at the end");
	printf("I\tmseal_pagewise: %d pages sealed one by one: %d VMA%s in the range%s\n",
	       PAGEWISE, nv, nv == 1 ? "" : "s", nv == 1 ? "" : " (expected 1)");
}

/* ------------------------------------------------------------------------ */

/* Say how many VMAs a process with @n other VMAs has in all. */
static void check_filler(const void *arg)
{
	long n = *(const long *)arg;
	int before = count_all_vmas();

	make_filler(n, 0);
	printf("I\t%ld other VMAs: %d VMAs in the process (%d without them)%s\n", n,
	       count_all_vmas(), before,
	       count_all_vmas() == before + n ? "" : " (not as many as asked)");
}

static void raise_map_count(void)
{
	int fd = open("/proc/sys/vm/max_map_count", O_RDWR);
	char buf[32] = "";

	if (fd < 0)
		return;
	if (read(fd, buf, sizeof(buf) - 1) > 0 && atol(buf) < 1000000) {
		if (pwrite(fd, "1000000\n", 8, 0) != 8)
			printf("I\tcould not raise vm.max_map_count (%s): %s\n", buf,
			       strerror(errno));
	}
	close(fd);
}

static void usage(void)
{
	fprintf(stderr, "usage: mseal_bench [--groups LIST] [--ops LIST] [--vmas LIST]\n"
			"                   [--scale F] [--batches N] [--settle US] [--list]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	/* sealed1-proc (a variant of sealed-proc): on request */
	static const char *const groups[] = { "unsealed", "sealed-proc", "sealed-mem",
					      "sealed1-proc" };
	const char *want_groups = NULL, *want_ops = NULL, *vmas_arg = "1,1000,10000";
	long vmas[16];
	int nvmas = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--list")) {
			for (size_t k = 0; k < NOPS; k++)
				printf("%s\t%s\t%ld\n", ops[k].name, ops[k].unit, ops[k].iters);
			return 0;
		}
		if (!v)
			usage();
		if (!strcmp(a, "--groups"))
			want_groups = v;
		else if (!strcmp(a, "--ops"))
			want_ops = v;
		else if (!strcmp(a, "--vmas"))
			vmas_arg = v;
		else if (!strcmp(a, "--scale"))
			scale = atof(v);
		else if (!strcmp(a, "--batches"))
			batches = atoi(v);
		else if (!strcmp(a, "--settle"))
			settle_us = atol(v);
		else
			usage();
		i++;
	}
	if (scale <= 0 || batches < 1 || batches > MAX_BATCHES || settle_us < 0)
		usage();
	for (const char *p = vmas_arg; *p && nvmas < 16; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
		vmas[nvmas++] = atol(p);
	for (int v = 0; v < nvmas; v++)
		if (vmas[v] < 1)
			usage();	/* the page at SEALED_PAGE is always there */

	setvbuf(stdout, NULL, _IOLBF, 0);
	raise_map_count();
	errno = 0;
	have_mseal = sys_mseal(0, 0, 0) == 0;
	printf("I\tmseal(): %s; scale %g, %d batches, settle %ld us\n",
	       have_mseal ? "present" : strerror(errno), scale, batches, settle_us);

	for (int v = 0; v < nvmas; v++)
		in_child(check_filler, &vmas[v], "check_filler");
	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		if (!selected(want_groups, groups[g]) || (g >= 3 && !want_groups))
			continue;
		for (int v = 0; v < nvmas; v++) {
			for (size_t k = 0; k < NOPS; k++) {
				struct opjob j = { &ops[k], groups[g], (int)vmas[v] };

				if (!selected(want_ops, ops[k].name) ||
				    (ops[k].on_request && !want_ops))
					continue;
				if (g == 2 && !ops[k].on_sealed)
					continue;
				/* sealed-proc runs without mseal() too: the control */
				if ((g == 2 || g == 3) && !have_mseal) {
					skip(groups[g], ops[k].name, vmas[v], "no mseal()");
					continue;
				}
				in_child(op_job, &j, ops[k].name);
			}
		}
	}

	if (selected(want_groups, "mseal")) {
		static const long nv[] = { 1, 10, 100, 1000, 10000 };

		if (!have_mseal) {
			skip("mseal", "mseal", 0, "no mseal()");
			return 0;
		}
		in_child(ms_1page, NULL, "mseal_1page");
		in_child(ms_1gib, NULL, "mseal_1gib");
		for (size_t i = 0; i < sizeof(nv) / sizeof(nv[0]); i++)
			in_child(ms_nvma, &nv[i], "mseal_nvma");
		in_child(ms_pagewise, NULL, "mseal_pagewise");
	}
	return 0;
}
