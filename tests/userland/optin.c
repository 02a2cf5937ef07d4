// SPDX-License-Identifier: GPL-2.0
/*
 * optin PROG [ARGS...]: opt this process in to sealing
 * (prctl(PR_SET_MSEAL_SEALABLE, 1): every mapping it creates from now on is
 * sealable, inherited over execve()) and execute PROG, with nothing
 * preloaded: what a kernel's mseal_exec=on does at every exec. A sealing
 * ld.so (glibc/, tools/glibc) then seals PROG's objects. A kernel without
 * the opt-in (EINVAL): PROG runs all the same. Exit status 127 if PROG
 * cannot be executed, 126 if the opt-in fails otherwise.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include <mseal.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: optin PROG [ARGS...]\n");
		return 2;
	}
	if (mseal_set_sealable(1) && errno != EINVAL) {
		fprintf(stderr, "optin: PR_SET_MSEAL_SEALABLE: %s\n", strerror(errno));
		return 126;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "optin: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
