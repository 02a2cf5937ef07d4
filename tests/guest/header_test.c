// SPDX-License-Identifier: GPL-2.0
/*
 * include/mseal.h from a program's point of view: only <mseal.h> and the
 * C library's headers, no kernel UAPI headers, so the header's fallback
 * definitions are what gets used when the C library predates mseal().
 *
 * On a kernel without mseal(), mseal_supported() must say so, and the
 * cases that need sealing skip. Refused calls fail with the errno of the
 * ABI the kernel speaks (mseal_errno(): EACCES in v6, EPERM in mainline's),
 * and in mainline's ABI memory needs no MAP_SEALABLE to be sealed.
 */
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mseal.h>

/* The 6.1 harness and its TEST() wrapper leave parameters unused. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#define REQUIRE_MSEAL() do {						\
	if (!mseal_supported())						\
		SKIP(return, "mseal() is not implemented (ENOSYS)");	\
} while (0)

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static void *map(size_t len, int prot, int flags)
{
	return mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags,
		    -1, 0);
}

TEST(constants)
{
	ASSERT_EQ(0x04000000, PROT_SEAL);
	ASSERT_EQ(0x08000000, MAP_SEALABLE);
	ASSERT_EQ(__NR_mseal, SYS_mseal);
#if defined(__x86_64__) && !defined(__ILP32__) || defined(__i386__) || \
	defined(__aarch64__) || defined(__ARM_EABI__)
	ASSERT_EQ(462, SYS_mseal);
#endif
}

/*
 * The probe must agree with what the kernel does: mmap(PROT_SEAL) seals
 * on the kernels of this series and maps unsealed memory on those without
 * mseal(), where PROT_SEAL is an unknown bit that mmap() ignores.
 */
TEST(supported_matches_kernel)
{
	size_t page = page_size();
	int kernel_seals, supported;
	void *p;

	p = map(page, PROT_READ | PROT_SEAL, 0);
	ASSERT_NE(MAP_FAILED, p);
	kernel_seals = munmap(p, page) == -1;
	if (kernel_seals)
		ASSERT_EQ(mseal_errno(), errno);

	errno = 12345;
	supported = mseal_supported();
	EXPECT_EQ(12345, errno) TH_LOG("mseal_supported() changed errno");
	ASSERT_EQ(kernel_seals, supported);

	if (!supported) {
		/* Not an argument check failing: the syscall is missing. */
		ASSERT_EQ(-1, mseal(NULL, 0, 0));
		ASSERT_EQ(ENOSYS, errno);
		ASSERT_EQ(-1, mseal(NULL, 0, 1));
		ASSERT_EQ(ENOSYS, errno);
		ASSERT_EQ(-1, mimmutable(NULL, 0));
		ASSERT_EQ(ENOSYS, errno);
		TH_LOG("no mseal() in this kernel: the other cases skip");
	}
}

TEST(mimmutable_sealable)
{
	size_t page = page_size();
	char *p;

	REQUIRE_MSEAL();
	p = map(page, PROT_READ | PROT_WRITE, MAP_SEALABLE);
	ASSERT_NE(MAP_FAILED, p);
	strcpy(p, "secret");

	ASSERT_EQ(0, mimmutable(p, page));
	ASSERT_EQ(-1, mprotect(p, page, PROT_READ));
	ASSERT_EQ(mseal_errno(), errno);
	ASSERT_EQ(-1, munmap(p, page));
	ASSERT_EQ(mseal_errno(), errno);

	/* Sealing freezes the mapping, not the data. */
	ASSERT_EQ(0, strcmp(p, "secret"));
	strcpy(p, "changed");
	ASSERT_EQ(0, strcmp(p, "changed"));

	/* Sealing again succeeds. */
	ASSERT_EQ(0, mimmutable(p, page));
	ASSERT_EQ(0, mseal(p, page, 0));
}

/* Without MAP_SEALABLE: refused in the v6 ABI, sealed in mainline's. */
TEST(mimmutable_not_sealable)
{
	size_t page = page_size();
	void *p;

	REQUIRE_MSEAL();
	p = map(page, PROT_READ | PROT_WRITE, 0);
	ASSERT_NE(MAP_FAILED, p);

	if (mseal_abi() == MSEAL_ABI_MAINLINE) {
		ASSERT_EQ(0, mimmutable(p, page));
		ASSERT_EQ(-1, mprotect(p, page, PROT_READ));
		ASSERT_EQ(EPERM, errno);
		return;
	}
	ASSERT_EQ(-1, mimmutable(p, page));
	ASSERT_EQ(EACCES, errno);
	/* Nothing was sealed. */
	ASSERT_EQ(0, mprotect(p, page, PROT_READ));
	ASSERT_EQ(0, munmap(p, page));
}

TEST(mimmutable_rounds_len_up)
{
	size_t page = page_size();
	char *p;

	REQUIRE_MSEAL();
	p = map(2 * page, PROT_READ, MAP_SEALABLE);
	ASSERT_NE(MAP_FAILED, p);

	/* One byte seals the whole first page and nothing of the second. */
	ASSERT_EQ(0, mimmutable(p, 1));
	ASSERT_EQ(-1, munmap(p, page));
	ASSERT_EQ(mseal_errno(), errno);
	ASSERT_EQ(0, munmap(p + page, page));
}

TEST(mimmutable_unaligned_addr)
{
	size_t page = page_size();
	char *p;

	REQUIRE_MSEAL();
	p = map(2 * page, PROT_READ, MAP_SEALABLE);
	ASSERT_NE(MAP_FAILED, p);

	ASSERT_EQ(-1, mimmutable(p + 1, page));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, munmap(p, 2 * page));
}

TEST(mimmutable_hole)
{
	size_t page = page_size();
	char *p;

	REQUIRE_MSEAL();
	p = map(3 * page, PROT_READ, MAP_SEALABLE);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, munmap(p + page, page));

	ASSERT_EQ(-1, mimmutable(p, 3 * page));
	ASSERT_EQ(ENOMEM, errno);
	/* Nothing was sealed, not even the part before the hole. */
	ASSERT_EQ(0, munmap(p, 3 * page));
}

TEST(prot_seal)
{
	size_t page = page_size();
	void *p;

	REQUIRE_MSEAL();
	p = map(page, PROT_READ | PROT_SEAL, 0);
	ASSERT_NE(MAP_FAILED, p);

	ASSERT_EQ(-1, mprotect(p, page, PROT_READ | PROT_WRITE));
	ASSERT_EQ(mseal_errno(), errno);
	ASSERT_EQ(-1, munmap(p, page));
	ASSERT_EQ(mseal_errno(), errno);
	ASSERT_EQ(0, mseal(p, page, 0));
}

/*
 * mseal_abi() reads /proc/sys/vm/mseal_abi on these kernels, and
 * mseal_errno() is what the kernel answers a refused call with.
 */
TEST(abi_matches_kernel)
{
	size_t page = page_size();
	char buf[16] = "";
	FILE *f;
	void *p;
	int abi;

	REQUIRE_MSEAL();
	f = fopen("/proc/sys/vm/mseal_abi", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	abi = mseal_abi();
	if (!strcmp(buf, "mainline\n")) {
		ASSERT_EQ(MSEAL_ABI_MAINLINE, abi);
		ASSERT_EQ(EPERM, mseal_errno());
	} else {
		ASSERT_EQ(0, strcmp(buf, "v6\n")) TH_LOG("mseal_abi: %s", buf);
		ASSERT_EQ(MSEAL_ABI_V6, abi);
		ASSERT_EQ(EACCES, mseal_errno());
	}
	TH_LOG("mseal() ABI: %s", abi == MSEAL_ABI_V6 ? "v6" : "mainline");

	p = map(page, PROT_READ | PROT_SEAL, 0);
	ASSERT_NE(MAP_FAILED, p);
	errno = 0;
	ASSERT_EQ(-1, munmap(p, page));
	ASSERT_EQ(mseal_errno(), errno);
}

TEST(flags_einval)
{
	size_t page = page_size();
	void *p;

	REQUIRE_MSEAL();
	p = map(page, PROT_READ, MAP_SEALABLE);
	ASSERT_NE(MAP_FAILED, p);

	ASSERT_EQ(-1, mseal(p, page, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, mseal(p, page, ~0UL));
	ASSERT_EQ(EINVAL, errno);
	/* Nothing was sealed. */
	ASSERT_EQ(0, munmap(p, page));
}

TEST_HARNESS_MAIN
