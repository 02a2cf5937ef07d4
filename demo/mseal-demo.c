// SPDX-License-Identifier: GPL-2.0
/*
 * mseal-demo: what memory sealing does, shown step by step.
 *
 * A page holds a secret. Once it is sealed, every attempt to change the
 * mapping - make it writable, unmap it, map something else over it, move
 * it, or throw its contents away - is refused with EACCES, and the secret
 * survives. Exit status 0 if the kernel behaved exactly so.
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

#define SECRET "the launch code is 0000"

static long page;
static int surprises;

static int sys_mseal(void *addr, size_t len)
{
	return syscall(__NR_mseal, addr, len, 0);
}

/* Print one tampering attempt and whether the kernel refused it. */
static void attempt(const char *what, int failed)
{
	int err = errno;

	if (failed && err == EACCES) {
		printf("  %-44s refused: EACCES (%s)\n", what, strerror(err));
		return;
	}
	if (failed)
		printf("  %-44s failed, but with %s, not EACCES  <-- unexpected\n",
		       what, strerrorname_np(err));
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
	int status;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	uname(&u);
	printf("mseal() demo on Linux %s\n\n", u.release);

	printf("1. Map a page with MAP_SEALABLE and put a secret in it.\n");
	secret = mmap(NULL, page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_SEALABLE, -1, 0);
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

	printf("\n6. Sealing is opt-in: a mapping made without MAP_SEALABLE cannot be sealed.\n");
	other = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	errno = 0;
	attempt("mseal() of it", sys_mseal(other, page) != 0);

	printf("\n%s\n", surprises ? "Sealing did NOT hold: see the lines marked above." :
	       "Every attempt was refused and the secret survived: sealing holds.");
	return surprises ? 1 : 0;
}
