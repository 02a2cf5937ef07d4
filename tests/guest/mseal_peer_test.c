// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_peer_test: what the mseal() tests of glibc (2.43: tst-mseal,
 * tst-mseal-pkey) and LTP (mseal01, mseal02) check, written anew here, with
 * the errors of the ABI the kernel speaks.
 *
 * Those tests are written for mainline Linux: plain mappings, EPERM from a
 * refused call. In mainline's ABI (mseal_abi=mainline) this test maps the
 * same way and expects EPERM; in the v6 ABI (the default) it maps with
 * MAP_SEALABLE, without which nothing can be sealed there, and expects
 * EACCES. Either way, a refused call must change nothing, which mainline
 * itself no longer promises (6.12): the tests that refuse a call over a
 * range of several VMAs check every page afterwards.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mseal.h>

/* The 6.1 harness and its TEST() wrapper leave parameters unused. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#ifndef PKEY_DISABLE_WRITE
#define PKEY_DISABLE_WRITE	0x2
#endif

static size_t ps;		/* the page size */
static int abi;			/* MSEAL_ABI_* */
static int refused;		/* errno of a call that sealing refuses */
static int map_flags;		/* what a mapping needs to be sealable */

__attribute__((constructor)) static void find_abi(void)
{
	ps = (size_t)sysconf(_SC_PAGESIZE);
	abi = mseal_abi();
	refused = mseal_errno();
	map_flags = abi == MSEAL_ABI_V6 ? MAP_SEALABLE : 0;
}

/*
 * In the 6.1 harness a SKIP() in FIXTURE_SETUP does not stop the test:
 * setups return early without sealing, and each test skips itself.
 */
#define REQUIRE_MSEAL() do {						\
	if (abi == MSEAL_ABI_NONE)					\
		SKIP(return, "mseal() is not implemented (ENOSYS)");	\
} while (0)

#define REQUIRE_PKEY(key) do {						\
	if ((key) < 0)							\
		SKIP(return, "no protection keys (pkey_alloc failed)");	\
} while (0)

/* @pages pages of private anonymous memory, sealable in either ABI. */
static char *map(size_t pages, int prot)
{
	char *p = mmap(NULL, pages * ps, prot,
		       MAP_PRIVATE | MAP_ANONYMOUS | map_flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static unsigned char pat(size_t i, int seed)
{
	return (unsigned char)(i * 7 + i / 4096 * 13 + seed);
}

static void fill(char *p, size_t len, int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)pat(i, seed);
}

static bool same(const char *p, size_t len, int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)p[i] != pat(i, seed))
			return false;
	return true;
}

/*
 * Is every page of [p, p + pages * ps) mapped, with protection @perms
 * ("r--", "rw-", ...), by /proc/self/maps?
 */
static bool mapped_as(const char *p, size_t pages, const char *perms)
{
	unsigned long start, end, at = (unsigned long)p;
	unsigned long stop = at + pages * ps;
	char line[512], prot[8];
	FILE *f = fopen("/proc/self/maps", "r");
	bool ok = true;

	if (!f)
		return false;
	while (at < stop && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &start, &end, prot) != 3)
			continue;
		if (end <= at)
			continue;
		if (start > at || strncmp(prot, perms, strlen(perms))) {
			ok = false;
			break;
		}
		at = end;
	}
	fclose(f);
	return ok && at >= stop;
}

/* mseal(MAP_FAILED, 0, 0), the probe of glibc's tests: no ENOSYS here. */
TEST(probe_with_map_failed_is_einval_not_enosys)
{
	REQUIRE_MSEAL();
	TH_LOG("mseal() ABI: %s, refused calls fail with %s",
	       abi == MSEAL_ABI_V6 ? "v6" : "mainline",
	       refused == EPERM ? "EPERM" : "EACCES");
	errno = 0;
	ASSERT_EQ(-1, mseal(MAP_FAILED, 0, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, mseal(NULL, 0, 0));
}

/*
 * glibc's tst-mseal: four read-only pages, the third one unmapped.
 */
FIXTURE(four_pages) {
	char *p;
};

FIXTURE_SETUP(four_pages)
{
	if (abi == MSEAL_ABI_NONE)
		return;
	self->p = map(4, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, 4 * ps, 1);
	ASSERT_EQ(0, mprotect(self->p, 4 * ps, PROT_READ));
	ASSERT_EQ(0, munmap(self->p + 2 * ps, ps));
}

FIXTURE_TEARDOWN(four_pages)
{
}

TEST_F(four_pages, unaligned_start_einval)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(-1, mseal(self->p + 1, ps, 0));
	ASSERT_EQ(EINVAL, errno);
	/* Nothing was sealed. */
	ASSERT_EQ(0, mprotect(self->p, 2 * ps, PROT_READ));
}

TEST_F(four_pages, range_over_the_hole_enomem)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(-1, mseal(self->p, 3 * ps, 0));
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(-1, mseal(self->p + ps, 3 * ps, 0));
	ASSERT_EQ(ENOMEM, errno);
	/* Nothing was sealed, not even the pages before the hole. */
	ASSERT_EQ(0, mprotect(self->p, 2 * ps, PROT_READ));
	ASSERT_EQ(0, munmap(self->p, 2 * ps));
}

TEST_F(four_pages, sealing_twice_succeeds)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(0, mseal(self->p, ps, 0));
	ASSERT_EQ(0, mseal(self->p, ps, 0));
	ASSERT_EQ(0, mseal(self->p, 2 * ps, 0));
}

TEST_F(four_pages, calls_on_sealed_read_only_page_refused)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(0, mseal(self->p, ps, 0));
	EXPECT_EQ(-1, mprotect(self->p, ps, PROT_READ | PROT_WRITE));
	EXPECT_EQ(refused, errno);
	EXPECT_EQ(-1, munmap(self->p, ps));
	EXPECT_EQ(refused, errno);
	EXPECT_EQ(MAP_FAILED, mremap(self->p, ps, 2 * ps, MREMAP_MAYMOVE));
	EXPECT_EQ(refused, errno);
	EXPECT_EQ(-1, madvise(self->p, ps, MADV_DONTNEED));
	EXPECT_EQ(refused, errno);
	EXPECT_TRUE(mapped_as(self->p, 1, "r--"));
	EXPECT_TRUE(same(self->p, ps, 1));
	/* The page next to it was not sealed. */
	EXPECT_EQ(0, munmap(self->p + ps, ps));
}

/*
 * glibc's tst-mseal-pkey: sealed memory that is writable may have its pages
 * discarded as long as the thread's protection key rights allow writing
 * it, and not once they deny it. Read-write and read-write-execute alike.
 */
FIXTURE(pkey) {
	char *p;
	int key;
};

FIXTURE_VARIANT(pkey) {
	int prot;
};

FIXTURE_VARIANT_ADD(pkey, rw) {
	.prot = PROT_READ | PROT_WRITE,
};

FIXTURE_VARIANT_ADD(pkey, rwx) {
	.prot = PROT_READ | PROT_WRITE | PROT_EXEC,
};

FIXTURE_SETUP(pkey)
{
	self->key = pkey_alloc(0, 0);
	self->p = map(1, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
}

FIXTURE_TEARDOWN(pkey)
{
	if (self->key >= 0)
		pkey_set(self->key, 0);
}

TEST_F(pkey, discard_follows_the_key_write_right)
{
	char *p = self->p;

	REQUIRE_MSEAL();
	REQUIRE_PKEY(self->key);
	ASSERT_EQ(0, pkey_mprotect(p, ps, variant->prot, self->key));
	fill(p, ps, 2);
	ASSERT_EQ(0, mseal(p, ps, 0));

	/* The key allows writing: the pages may go. */
	ASSERT_EQ(0, pkey_set(self->key, 0));
	ASSERT_EQ(0, madvise(p, ps, MADV_DONTNEED));
	ASSERT_EQ(0, p[0]);
	ASSERT_EQ(0, p[ps - 1]);

	/* Neither the key nor the protection may change. */
	EXPECT_EQ(-1, pkey_mprotect(p, ps, variant->prot, 0));
	EXPECT_EQ(refused, errno);
	EXPECT_EQ(-1, pkey_mprotect(p, ps, variant->prot, self->key));
	EXPECT_EQ(refused, errno);
	EXPECT_EQ(-1, mprotect(p, ps, PROT_READ));
	EXPECT_EQ(refused, errno);

	/* The key denies writing: the pages stay. */
	fill(p, ps, 3);
	ASSERT_EQ(0, pkey_set(self->key, PKEY_DISABLE_WRITE));
	EXPECT_EQ(-1, madvise(p, ps, MADV_DONTNEED));
	EXPECT_EQ(refused, errno);
	EXPECT_EQ(-1, munmap(p, ps));
	EXPECT_EQ(refused, errno);
	EXPECT_TRUE(same(p, ps, 3));
	ASSERT_EQ(0, pkey_set(self->key, 0));
	EXPECT_TRUE(mapped_as(p, 1, variant->prot & PROT_EXEC ? "rwx" : "rw-"));
}

/*
 * LTP's mseal01: eight pages, the third one sealed; every call over the
 * whole range is refused, and here, changes none of the eight pages.
 */
FIXTURE(eight_pages) {
	char *p;
};

FIXTURE_VARIANT(eight_pages) {
	int prot;
	const char *perms;
};

FIXTURE_VARIANT_ADD(eight_pages, read_write) {
	.prot = PROT_READ | PROT_WRITE,
	.perms = "rw-",
};

FIXTURE_VARIANT_ADD(eight_pages, read_only) {
	.prot = PROT_READ,
	.perms = "r--",
};

FIXTURE_SETUP(eight_pages)
{
	if (abi == MSEAL_ABI_NONE)
		return;
	self->p = map(8, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, self->p);
	fill(self->p, 8 * ps, 4);
	ASSERT_EQ(0, mprotect(self->p, 8 * ps, variant->prot));
	ASSERT_EQ(0, mseal(self->p + 2 * ps, ps, 0));
}

FIXTURE_TEARDOWN(eight_pages)
{
}

/* All eight pages are there, as they were. */
#define EXPECT_INTACT() do {						\
	EXPECT_TRUE(mapped_as(self->p, 8, variant->perms));		\
	EXPECT_TRUE(same(self->p, 8 * ps, 4));				\
} while (0)

TEST_F(eight_pages, mprotect_refused)
{
	REQUIRE_MSEAL();
	EXPECT_EQ(-1, mprotect(self->p, 8 * ps, PROT_NONE));
	EXPECT_EQ(refused, errno);
	EXPECT_INTACT();
}

TEST_F(eight_pages, pkey_mprotect_refused)
{
	int key = pkey_alloc(0, 0);

	REQUIRE_MSEAL();
	REQUIRE_PKEY(key);
	EXPECT_EQ(-1, pkey_mprotect(self->p, 8 * ps, PROT_NONE, key));
	EXPECT_EQ(refused, errno);
	EXPECT_INTACT();
}

/* Read-only, the pages must stay; writable, they may go (glibc's rule). */
TEST_F(eight_pages, madvise_dontneed)
{
	REQUIRE_MSEAL();
	if (variant->prot & PROT_WRITE) {
		EXPECT_EQ(0, madvise(self->p, 8 * ps, MADV_DONTNEED));
		EXPECT_EQ(0, self->p[2 * ps]);
		EXPECT_TRUE(mapped_as(self->p, 8, variant->perms));
		return;
	}
	EXPECT_EQ(-1, madvise(self->p, 8 * ps, MADV_DONTNEED));
	EXPECT_EQ(refused, errno);
	EXPECT_INTACT();
}

TEST_F(eight_pages, munmap_refused)
{
	REQUIRE_MSEAL();
	EXPECT_EQ(-1, munmap(self->p, 8 * ps));
	EXPECT_EQ(refused, errno);
	EXPECT_INTACT();
}

TEST_F(eight_pages, mremap_maymove_fixed_refused)
{
	REQUIRE_MSEAL();
	char *to = map(2, PROT_READ | PROT_WRITE);

	ASSERT_NE(NULL, to);
	fill(to, 2 * ps, 5);
	EXPECT_EQ(MAP_FAILED, mremap(self->p, 8 * ps, 2 * ps,
				     MREMAP_MAYMOVE | MREMAP_FIXED, to));
	EXPECT_EQ(refused, errno);
	EXPECT_INTACT();
	/* The destination was not unmapped either. */
	EXPECT_TRUE(mapped_as(to, 2, "rw-"));
	EXPECT_TRUE(same(to, 2 * ps, 5));
}

TEST_F(eight_pages, mmap_fixed_refused)
{
	REQUIRE_MSEAL();
	EXPECT_EQ(MAP_FAILED, mmap(self->p, 8 * ps, PROT_READ,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				   -1, 0));
	EXPECT_EQ(refused, errno);
	EXPECT_INTACT();
}

/*
 * LTP's mseal02: the arguments, then ranges not wholly mapped.
 */
FIXTURE(args) {
	char *p;
};

FIXTURE_SETUP(args)
{
	if (abi == MSEAL_ABI_NONE)
		return;
	self->p = map(4, PROT_READ);
	ASSERT_NE(NULL, self->p);
}

FIXTURE_TEARDOWN(args)
{
}

TEST_F(args, flags_all_ones_einval)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(-1, mseal(self->p, ps, ULONG_MAX));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, munmap(self->p, 4 * ps));
}

TEST_F(args, start_plus_one_einval)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(-1, mseal(self->p + 1, ps, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, munmap(self->p, 4 * ps));
}

TEST_F(args, len_wrapping_einval)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(-1, mseal(self->p, ULONG_MAX - ps + 2, 0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, munmap(self->p, 4 * ps));
}

TEST_F(args, unmapped_start_enomem)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(0, munmap(self->p, ps));
	ASSERT_EQ(-1, mseal(self->p, 4 * ps, 0));
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, munmap(self->p + ps, 3 * ps));
}

TEST_F(args, unmapped_end_enomem)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(0, munmap(self->p + 3 * ps, ps));
	ASSERT_EQ(-1, mseal(self->p, 4 * ps, 0));
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, munmap(self->p, 3 * ps));
}

TEST_F(args, gap_inside_enomem)
{
	REQUIRE_MSEAL();
	ASSERT_EQ(0, munmap(self->p + ps, ps));
	ASSERT_EQ(-1, mseal(self->p, 4 * ps, 0));
	ASSERT_EQ(ENOMEM, errno);
	ASSERT_EQ(0, munmap(self->p, ps));
	ASSERT_EQ(0, munmap(self->p + 2 * ps, 2 * ps));
}

TEST_HARNESS_MAIN
