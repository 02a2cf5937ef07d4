// SPDX-License-Identifier: GPL-2.0
/*
 * What must hold on the unpatched kernel: mseal() and the numbers below it
 * that 6.1 never assigned return ENOSYS, and PROT_SEAL, an unknown prot
 * bit there, seals nothing.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "kselftest.h"

#ifndef PROT_SEAL
#define PROT_SEAL 0x04000000
#endif

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int nr;

	ksft_print_header();
	ksft_set_plan(3);

	errno = 0;
	ksft_test_result(syscall(__NR_mseal, 0, 0, 0) == -1 && errno == ENOSYS,
			 "mseal (%d) returns ENOSYS on the baseline kernel\n", __NR_mseal);

	/* 451 to 461, offset as the ABI's numbers are (mips n64: 5451) */
	for (nr = __NR_mseal - 11; nr < __NR_mseal; nr++) {
		errno = 0;
		if (syscall(nr, 0, 0, 0) != -1 || errno != ENOSYS)
			break;
	}
	ksft_test_result(nr == __NR_mseal, "syscalls %d to %d return ENOSYS\n",
			 __NR_mseal - 11, __NR_mseal - 1);

	/*
	 * powerpc's mmap() checks prot with arch_validate_prot(), which
	 * refuses bits it does not know: there the unknown bit is EINVAL.
	 */
	errno = 0;
	p = mmap(NULL, page, PROT_READ | PROT_SEAL, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
#ifdef __powerpc64__
	if (p == MAP_FAILED && errno == EINVAL) {
		ksft_test_result_pass("mmap(PROT_SEAL) is EINVAL on the baseline kernel (powerpc)\n");
		ksft_finished();
	}
#endif
	ksft_test_result(p != MAP_FAILED && munmap(p, page) == 0,
			 "mmap(PROT_SEAL) maps, but seals nothing, on the baseline kernel\n");

	ksft_finished();
}
