// SPDX-License-Identifier: GPL-2.0
/*
 * mseal-demo: what memory sealing does, shown step by step.
 *
 * A page holds a secret. Once it is sealed, every attempt to change the
 * mapping - make it writable, unmap it, map something else over it, move
 * it, or throw its contents away - is refused, and the secret survives.
 * The error is that of the ABI the kernel was booted with: EACCES in the
 * v6 one (the default), where memory must be mapped with MAP_SEALABLE to
 * be sealed, EPERM in mainline's (mseal_abi=mainline), where any mapping
 * can be. Exit status 0 if the kernel behaved exactly so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/mman.h>

#include <mseal.h>

#define SECRET "the launch code is 0000"

static long page;
static int surprises;
static int refused;		/* the errno of a refused call */

static int sys_mseal(void *addr, size_t len)
{
	return syscall(__NR_mseal, addr, len, 0);
}

/* Print one tampering attempt and whether the kernel refused it. */
static void attempt(const char *what, int failed)
{
	int err = errno;

	if (failed && err == refused) {
		printf("  %-44s refused: %s (%s)\n", what, strerrorname_np(err),
		       strerror(err));
		return;
	}
	if (failed)
		printf("  %-44s failed, but with %s, not %s  <-- unexpected\n",
		       what, strerrorname_np(err), strerrorname_np(refused));
	else
		printf("  %-44s SUCCEEDED  <-- sealing did not hold\n", what);
	surprises++;
}

/* The VmFlags line of /proc/self/smaps for the mapping at @addr. */
static void show_vmflags(void *addr)
{
	unsigned long start, end, want = (unsigned long)addr;
	char line[512];
	int here = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			here = start <= want && want < end;
		else if (here && !strncmp(line, "VmFlags:", 8)) {
			line[strcspn(line, "\n")] = 0;
			printf("  /proc/self/smaps %s   (\"sl\" = sealed)\n", line);
			if (!strstr(line, " sl")) {
				printf("  no \"sl\" flag  <-- unexpected\n");
				surprises++;
			}
		}
	}
	fclose(f);
}

int main(void)
{
	struct utsname u;
	char *secret, *other;
	int status, mainline, sealable;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	uname(&u);
	printf("mseal() demo on Linux %s\n", u.release);
	mainline = mseal_abi() == MSEAL_ABI_MAINLINE;
	refused = mainline ? EPERM : EACCES;
	sealable = mainline ? 0 : MAP_SEALABLE;
	switch (mseal_abi()) {
	case MSEAL_ABI_V6:
		printf("mseal() ABI: v6 (the default): memory opts in with MAP_SEALABLE,\n"
		       "refused calls fail with EACCES. Boot with mseal_abi=mainline for mainline's.\n\n");
		break;
	case MSEAL_ABI_MAINLINE:
		printf("mseal() ABI: mainline (mseal_abi=mainline): every mapping can be sealed,\n"
		       "refused calls fail with EPERM, as in mainline Linux.\n\n");
		break;
	default:
		printf("mseal() ABI: none: this kernel has no mseal().\n\n");
	}

	if (mainline)
		printf("1. Map a page (no MAP_SEALABLE needed) and put a secret in it.\n");
	else
		printf("1. Map a page with MAP_SEALABLE and put a secret in it.\n");
	secret = mmap(NULL, page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | sealable, -1, 0);
	if (secret == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	strcpy(secret, SECRET);
	printf("   %p: \"%s\"\n\n", secret, secret);

	printf("2. Make it read-only and seal it: mseal(%p, %ld, 0).\n", secret, page);
	mprotect(secret, page, PROT_READ);
	if (sys_mseal(secret, page)) {
		printf("   mseal failed: %s (%s)\n", strerrorname_np(errno), strerror(errno));
		printf("   This kernel cannot seal memory.\n");
		return 1;
	}
	printf("   sealed.\n");
	show_vmflags(secret);

	printf("\n3. Try to tamper with the sealed page:\n");
	errno = 0;
	attempt("mprotect(PROT_READ | PROT_WRITE)", mprotect(secret, page, PROT_READ | PROT_WRITE) != 0);
	errno = 0;
	attempt("munmap()", munmap(secret, page) != 0);
	errno = 0;
	attempt("mmap(MAP_FIXED) a fresh page over it",
		mmap(secret, page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED);
	errno = 0;
	attempt("mremap() it elsewhere (MREMAP_MAYMOVE)",
		mremap(secret, page, 2 * page, MREMAP_MAYMOVE) == MAP_FAILED);
	errno = 0;
	attempt("madvise(MADV_DONTNEED), which would zero it", madvise(secret, page, MADV_DONTNEED) != 0);
	errno = 0;
	attempt("pkey_mprotect(PROT_READ | PROT_WRITE, key 0)",
		syscall(SYS_pkey_mprotect, secret, page, PROT_READ | PROT_WRITE, 0) != 0);

	printf("\n4. The secret is still there: \"%s\"\n", secret);
	if (strcmp(secret, SECRET)) {
		printf("   it changed  <-- unexpected\n");
		surprises++;
	}

	printf("\n5. A child made by fork() inherits the seal:\n");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		errno = 0;
		attempt("munmap() in the child", munmap(secret, page) != 0);
		_exit(surprises ? 1 : 0);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		surprises++;

	other = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mainline) {
		printf("\n6. Every mapping can be sealed: one made without MAP_SEALABLE too.\n");
		if (other == MAP_FAILED || sys_mseal(other, page)) {
			printf("  mseal() of it failed: %s  <-- unexpected\n",
			       strerrorname_np(errno));
			surprises++;
		} else {
			printf("  %-44s sealed.\n", "mseal() of it");
			errno = 0;
			attempt("munmap() of it", munmap(other, page) != 0);
		}
	} else {
		printf("\n6. Sealing is opt-in: a mapping made without MAP_SEALABLE cannot be sealed.\n");
		errno = 0;
		attempt("mseal() of it", sys_mseal(other, page) != 0);
	}

	printf("\n%s\n", surprises ? "Sealing did NOT hold: see the lines marked above." :
	       "Every attempt was refused and the secret survived: sealing holds.");
	return surprises ? 1 : 0;
}
