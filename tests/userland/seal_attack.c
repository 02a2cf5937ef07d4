// SPDX-License-Identifier: GPL-2.0
/*
 * seal_attack: what a program started under mseal-run can no longer do to
 * its own code and data. Each attempt runs in a child process (an allowed
 * munmap() of libc's text would leave nothing to report with):
 *   mprotect() libc's RELRO writable        mprotect() libc's text writable
 *   munmap() libc's text                    madvise(MADV_DONTNEED) own RELRO
 * and the child then checks that the contents are what they were.
 *
 * usage: seal_attack sealed|unsealed
 *        seal_attack abi    prints the kernel's sealing: none, v6, mainline,
 *                           or v6-old (v6 without PR_GET_MSEAL_SEALABLE: a
 *                           kernel from before the opt-in of mseal-run)
 * Prints TAP-like lines "ok/not ok N ...". sealed: every attempt must fail
 * with the kernel's errno for sealed memory (EACCES in the v6 ABI, EPERM in
 * mainline's) and leave the contents intact. unsealed: the mprotect() and
 * madvise() attempts must succeed (the attacks are real; munmap() is not
 * tried). Exit status: 0 if all lines are ok.
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mseal.h>

struct range {
	unsigned long lo, hi;
};

static struct range libc_text, libc_relro, own_relro;
static unsigned long page;

static struct range page_range(unsigned long a, unsigned long len)
{
	struct range r = { a & ~(page - 1), (a + len + page - 1) & ~(page - 1) };

	return r;
}

static int find(struct dl_phdr_info *info, size_t size, void *data)
{
	int is_libc = info->dlpi_name && strstr(info->dlpi_name, "/libc.so.6");
	int is_exe = info->dlpi_name && !*info->dlpi_name;

	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		unsigned long a = info->dlpi_addr + p->p_vaddr;

		if (is_libc && p->p_type == PT_LOAD && (p->p_flags & PF_X))
			libc_text = page_range(a, p->p_memsz);
		if (p->p_type == PT_GNU_RELRO && (is_libc || is_exe)) {
			/* RELRO ends on a page boundary: ld.so rounds down. */
			struct range r = { a & ~(page - 1), (a + p->p_memsz) & ~(page - 1) };

			*(is_libc ? &libc_relro : &own_relro) = r;
		}
	}
	return 0;
}

static unsigned long sum(struct range r)
{
	unsigned long s = 0;

	for (unsigned long *q = (unsigned long *)r.lo; q < (unsigned long *)r.hi; q++)
		s = s * 31 + *q;
	return s;
}

/* A way out of a child that may have lost libc. */
static void __attribute__((noreturn)) raw_exit(int code)
{
	for (;;)
		__asm__ volatile("syscall" : : "a"(231), "D"(code) : "rcx", "r11", "memory");
}

enum { REFUSED = 0, ALLOWED = 1, WRONG_ERRNO = 2, CHANGED = 3 };

static int attempt(int what, struct range r, int want)
{
	unsigned long before = sum(r);
	pid_t pid = fork();
	int status, ret;

	if (pid == 0) {
		switch (what) {
		case 0:
			/* PROT_EXEC kept: the child runs on in libc's text. */
			ret = mprotect((void *)r.lo, r.hi - r.lo, PROT_READ | PROT_WRITE | PROT_EXEC);
			break;
		case 1:
			ret = munmap((void *)r.lo, r.hi - r.lo);
			break;
		default:
			ret = madvise((void *)r.lo, r.hi - r.lo, MADV_DONTNEED);
			break;
		}
		if (ret == 0)
			raw_exit(sum(r) == before ? ALLOWED : CHANGED + ALLOWED);
		raw_exit(errno != want ? WRONG_ERRNO : sum(r) == before ? REFUSED : CHANGED);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	int sealed = argc > 1 && !strcmp(argv[1], "sealed"), want = mseal_errno(), n = 0, bad = 0;
	static const char *const result[] = {
		"refused, contents intact", "allowed, contents intact", "refused with another errno",
		"refused, but the contents changed", "allowed, and the contents changed",
	};
	struct {
		const char *what;
		int call;
		struct range *r;
		int unsealed_ok;	/* the result that shows the attack is real */
	} attacks[] = {
		{ "mprotect(PROT_READ|PROT_WRITE) of libc's RELRO", 0, &libc_relro, ALLOWED },
		{ "mprotect(PROT_READ|PROT_WRITE|PROT_EXEC) of libc's text", 0, &libc_text, ALLOWED },
		{ "munmap() of libc's text", 1, &libc_text, -1 },
		{ "madvise(MADV_DONTNEED) of the program's own RELRO", 2, &own_relro, CHANGED + ALLOWED },
	};

	if (argc > 1 && !strcmp(argv[1], "abi")) {
		int abi = mseal_abi();

		puts(abi == MSEAL_ABI_MAINLINE ? "mainline" : abi == MSEAL_ABI_NONE ? "none" :
		     prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0) < 0 ? "v6-old" : "v6");
		return 0;
	}
	page = sysconf(_SC_PAGESIZE);
	dl_iterate_phdr(find, NULL);
	if (!libc_text.lo || !libc_relro.lo || !own_relro.lo) {
		printf("not ok 1 could not find libc's text and RELRO and the program's RELRO\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(attacks) / sizeof(attacks[0]); i++) {
		int expect = sealed ? REFUSED : attacks[i].unsealed_ok, got;

		if (expect < 0)
			continue;
		got = attempt(attacks[i].call, *attacks[i].r, want);
		n++;
		if (got != expect)
			bad++;
		printf("%sok %d %s %s: %s\n", got == expect ? "" : "not ", n,
		       sealed ? "sealed:" : "unsealed:", attacks[i].what,
		       got < 0 || got > 4 ? "the child crashed" : result[got]);
	}
	return bad != 0;
}
