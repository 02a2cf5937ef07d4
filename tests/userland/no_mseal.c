// SPDX-License-Identifier: GPL-2.0
/*
 * no_mseal PROG [ARGS...]: run PROG under a seccomp filter that fails
 * mseal() with ENOSYS and allows everything else, as systemd 252's filters
 * do for the system calls that their libseccomp cannot name. mseal_run_test
 * uses it to see libmseal-run's warning on a kernel that has mseal().
 * Exit status 4: the kernel has no seccomp filters (CONFIG_SECCOMP_FILTER).
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_mseal
#define __NR_mseal 462
#endif

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mseal, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (argc < 2) {
		fprintf(stderr, "usage: no_mseal PROG [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		/* 4: a kernel without CONFIG_SECCOMP_FILTER (the test guest's) */
		int no_filters = errno == EINVAL;

		perror("no_mseal: seccomp");
		return no_filters ? 4 : 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
