// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_vdso_test: a call that sealing refuses over a range holding the
 * vDSO changes nothing, the kernel's idea of the vDSO included.
 *
 * On powerpc, arch_unmap() forgets the vDSO (mm->context.vdso = NULL) when
 * an unmapped range covers its first page. It used to run before the seal
 * check: a munmap(), mmap(MAP_FIXED) or mremap(MREMAP_FIXED) refused
 * because of a sealed page in the range left the vDSO mapped, but the
 * kernel no longer knew of it, and signal handlers then returned through a
 * trampoline written on the (non-executable) stack instead of the vDSO's.
 * The series calls arch_unmap() after the check (patch 2). This test
 * puts a sealed page beside the vDSO, has each of the three calls refused
 * over a range from the vDSO's first page to that page, and checks,
 * in a child process each:
 *   - the call fails with the ABI's errno (EACCES in v6, EPERM in mainline);
 *   - [vdso], [vvar] and the sealed page are where they were, unchanged;
 *   - a signal handler is entered with its return address in the vDSO
 *     (powerpc64, arm64 and s390x, whose kernels return from signals
 *     through the vDSO's trampoline when there is no SA_RESTORER, and
 *     mips64, which has no SA_RESTORER at all; x86-64 needs one, so there
 *     this check is left out and said so), and it returns;
 *   - the vDSO's clock_gettime() (found in its symbol table) works and
 *     agrees with the system call.
 * The same checks before any refusal show that they hold on this kernel
 * and architecture to begin with.
 *
 * TAP on stdout; exit 0 if every test passed, 1 if one failed, 4 (skip)
 * if the kernel has no mseal() or the process no vDSO.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <mseal.h>

#if defined(__powerpc64__) || defined(__aarch64__) || defined(__s390x__)
#define SIGRETURN_THROUGH_VDSO 1
#define RAW_SIGACTION 1		/* the C library would set SA_RESTORER */
#elif defined(__mips__)
#define SIGRETURN_THROUGH_VDSO 1
#define RAW_SIGACTION 0		/* no SA_RESTORER on mips */
#else
#define SIGRETURN_THROUGH_VDSO 0
#define RAW_SIGACTION 0
#endif

static long ps;
static int refused;		/* errno of a refused call in this ABI */
static int map_flags;		/* MAP_SEALABLE in the v6 ABI */

struct range {
	unsigned long start, end;
};

static struct range vdso, vvar;	/* as /proc/self/maps shows them */

/* The first mapping named @name in /proc/self/maps. */
static int find_named(const char *name, struct range *r)
{
	char line[512], path[256];
	unsigned long s, e;
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &s, &e,
			   path) >= 2 && !strcmp(path, name)) {
			r->start = s;
			r->end = e;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* ---- the vDSO's clock_gettime(), from its dynamic symbol table ---- */

typedef int (*gettime_t)(clockid_t, struct timespec *);

static gettime_t vdso_sym(unsigned long base, const char *name)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *sym = NULL;
	const Elf32_Word *hash = NULL;
	const char *str = NULL;
	unsigned long bias = 0, nsym;
	unsigned int i;

	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !bias)
			bias = base + ph[i].p_offset - ph[i].p_vaddr;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(base + ph[i].p_offset);
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const ElfW(Sym) *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const Elf32_Word *)(bias + dyn->d_un.d_ptr);
	}
	if (!sym || !str || !hash)
		return NULL;
	/* nchain, the number of symbols: s390x's hash words are 8 bytes */
	if (eh->e_machine == EM_S390 || eh->e_machine == EM_ALPHA)
		nsym = ((const Elf64_Xword *)hash)[1];
	else
		nsym = hash[1];
	for (i = 0; i < nsym; i++)
		if (sym[i].st_shndx != SHN_UNDEF &&
		    !strcmp(str + sym[i].st_name, name))
			return (gettime_t)(bias + sym[i].st_value);
	return NULL;
}

static const char *vdso_gettime_works(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct timespec a, b, c;
	gettime_t gettime;

	gettime = vdso_sym(base, "__vdso_clock_gettime");
	if (!gettime)
		gettime = vdso_sym(base, "__kernel_clock_gettime");
	if (!gettime)
		return "no clock_gettime in the vDSO's symbol table";
	if (syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &a) ||
	    gettime(CLOCK_MONOTONIC, &b) ||
	    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &c))
		return "clock_gettime(CLOCK_MONOTONIC) failed";
	if (b.tv_sec < a.tv_sec ||
	    (b.tv_sec == a.tv_sec && b.tv_nsec < a.tv_nsec) ||
	    c.tv_sec < b.tv_sec ||
	    (c.tv_sec == b.tv_sec && c.tv_nsec < b.tv_nsec))
		return "the vDSO's clock_gettime() disagrees with the system call";
	return NULL;
}

/* ---- a signal handler's return ---- */

static volatile sig_atomic_t handled;
static void *volatile handler_ret;

static __attribute__((noinline)) void handler(int sig)
{
	(void)sig;
	handler_ret = __builtin_extract_return_addr(__builtin_return_address(0));
	handled = 1;
}

/*
 * Deliver SIGUSR1 to a handler installed by the system call itself, so
 * that no C library restorer is involved: the kernel picks the way back.
 * x86-64 requires SA_RESTORER; there, glibc's sigaction() installs it.
 */
static const char *signal_returns(void)
{
#if RAW_SIGACTION
	struct {
		void (*handler)(int);
		unsigned long flags;
		void (*restorer)(void);
		unsigned long mask;
	} ka = { .handler = handler };

	if (syscall(SYS_rt_sigaction, SIGUSR1, &ka, NULL, sizeof(ka.mask)))
		return "rt_sigaction() failed";
#else
	struct sigaction sa = { .sa_handler = handler };

	if (sigaction(SIGUSR1, &sa, NULL))
		return "sigaction() failed";
#endif
	handled = 0;
	handler_ret = NULL;
	if (syscall(SYS_kill, getpid(), SIGUSR1))
		return "kill() failed";
	if (!handled)
		return "the handler did not run";
	if (SIGRETURN_THROUGH_VDSO &&
	    ((unsigned long)handler_ret < vdso.start ||
	     (unsigned long)handler_ret >= vdso.end)) {
		static char why[160];

		snprintf(why, sizeof(why),
			 "the handler returns to %p, outside the vDSO %#lx-%#lx: the kernel forgot its vDSO",
			 handler_ret, vdso.start, vdso.end);
		return why;
	}
	return NULL;
}

/* ---- the checks, in a child each ---- */

static unsigned char *neighbour;	/* the sealed page beside the vDSO */
static struct range span;		/* from the vDSO's first page to it */

/* The vDSO, its data and the sealed page are where and as they were. */
static const char *unchanged(void)
{
	struct range r;

	if (!find_named("[vdso]", &r) || r.start != vdso.start ||
	    r.end != vdso.end)
		return "[vdso] moved or went";
	if (!find_named("[vvar]", &r) || r.start != vvar.start ||
	    r.end != vvar.end)
		return "[vvar] moved or went";
	for (long i = 0; i < ps; i++)
		if (neighbour[i] != 0x5a)
			return "the sealed page lost its contents";
	return NULL;
}

/* The vDSO still works: signals return through it, its clock reads. */
static const char *vdso_works(void)
{
	const char *why = unchanged();

	if (!why)
		why = signal_returns();
	if (!why)
		why = vdso_gettime_works();
	if (!why)
		why = unchanged();
	return why;
}

enum call { CALL_NONE, CALL_MUNMAP, CALL_MMAP_FIXED, CALL_MREMAP_FIXED };

static const char *const call_names[] = {
	[CALL_NONE] = "no call",
	[CALL_MUNMAP] = "munmap()",
	[CALL_MMAP_FIXED] = "mmap(MAP_FIXED)",
	[CALL_MREMAP_FIXED] = "mremap(MREMAP_FIXED)",
};

/* In the child: the refused call, then the checks. */
static const char *refuse_and_check(enum call c)
{
	static char why[160];
	unsigned long len = span.end - span.start;
	void *r = MAP_FAILED;
	void *src;
	int err = 0;

	switch (c) {
	case CALL_NONE:
		return vdso_works();
	case CALL_MUNMAP:
		if (munmap((void *)span.start, len))
			err = errno;
		break;
	case CALL_MMAP_FIXED:
		r = mmap((void *)span.start, len, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (r == MAP_FAILED)
			err = errno;
		break;
	case CALL_MREMAP_FIXED:
		src = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (src == MAP_FAILED)
			return "mmap() of the mremap() source failed";
		r = mremap(src, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   (void *)span.start);
		if (r == MAP_FAILED)
			err = errno;
		break;
	}
	if (err != refused) {
		snprintf(why, sizeof(why), "%s over %#lx-%#lx: %s, not %s",
			 call_names[c], span.start, span.end,
			 err ? strerror(err) : "it succeeded",
			 strerror(refused));
		return why;
	}
	return vdso_works();
}

static int n, failed;

static void result(const char *name, const char *why)
{
	n++;
	if (why)
		failed++;
	printf("%sok %d %s%s%s\n", why ? "not " : "", n, name,
	       why ? " # " : "", why ? why : "");
	fflush(stdout);
}

/* Run refuse_and_check(@c) in a child: a broken vDSO may kill it. */
static void check(const char *name, enum call c)
{
	int fd[2], status;
	char why[200] = "";
	ssize_t got;
	pid_t pid;

	if (pipe(fd)) {
		result(name, "pipe() failed");
		return;
	}
	pid = fork();
	if (!pid) {
		const char *w = refuse_and_check(c);

		close(fd[0]);
		if (w && write(fd[1], w, strlen(w)) < 0)
			_exit(2);
		_exit(w ? 1 : 0);
	}
	close(fd[1]);
	got = pid > 0 ? read(fd[0], why, sizeof(why) - 1) : -1;
	if (got > 0)
		why[got] = '\0';
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		result(name, "fork() or waitpid() failed");
		return;
	}
	if (WIFSIGNALED(status)) {
		snprintf(why, sizeof(why), "the child died of signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
		result(name, why);
		return;
	}
	result(name, WEXITSTATUS(status) ? (why[0] ? why : "failed") : NULL);
}

/* A sealed page right after the vDSO's text, or else right before vvar. */
static int place_neighbour(void)
{
	unsigned long at[2] = { vdso.end, vvar.start - ps };
	int i;

	for (i = 0; i < 2; i++) {
		void *p = mmap((void *)at[i], ps, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS |
			       MAP_FIXED_NOREPLACE | map_flags, -1, 0);

		if (p == MAP_FAILED)
			continue;
		if ((unsigned long)p != at[i]) {
			munmap(p, ps);
			continue;
		}
		neighbour = p;
		memset(neighbour, 0x5a, ps);
		if (mprotect(neighbour, ps, PROT_READ) ||
		    mseal(neighbour, ps, 0)) {
			perror("mprotect or mseal of the neighbour page");
			return 0;
		}
		/* The span always holds the vDSO's first page. */
		span.start = i == 0 ? vdso.start : at[i];
		span.end = i == 0 ? vdso.end + ps : vdso.end;
		return 1;
	}
	return 0;
}

int main(void)
{
	int abi;

	ps = sysconf(_SC_PAGESIZE);
	printf("TAP version 13\n");
	if (!mseal_supported()) {
		printf("1..0 # SKIP mseal() is not implemented (ENOSYS)\n");
		return 4;
	}
	abi = mseal_abi();
	refused = mseal_errno();
	map_flags = abi == MSEAL_ABI_V6 ? MAP_SEALABLE : 0;
	if (!getauxval(AT_SYSINFO_EHDR) || !find_named("[vdso]", &vdso)) {
		printf("1..0 # SKIP this process has no vDSO\n");
		return 4;
	}
	if (!find_named("[vvar]", &vvar) || vvar.end > vdso.start) {
		printf("1..0 # SKIP no [vvar] right below [vdso]\n");
		return 4;
	}
	if (vdso.start != getauxval(AT_SYSINFO_EHDR)) {
		printf("Bail out! AT_SYSINFO_EHDR is not [vdso]'s start\n");
		return 1;
	}
	if (!place_neighbour()) {
		printf("Bail out! no room for a sealed page beside the vDSO\n");
		return 1;
	}
	printf("# mseal ABI %s, refused calls fail with %s; page size %ld\n",
	       abi == MSEAL_ABI_MAINLINE ? "mainline" : "v6",
	       strerror(refused), ps);
	printf("# [vvar] %#lx-%#lx, [vdso] %#lx-%#lx, sealed page %p; the calls span %#lx-%#lx\n",
	       vvar.start, vvar.end, vdso.start, vdso.end, (void *)neighbour,
	       span.start, span.end);
	if (!SIGRETURN_THROUGH_VDSO)
		printf("# signal handlers return through the C library's SA_RESTORER here, not the vDSO: that is not checked\n");
	printf("1..4\n");

	check("vdso_works_before_any_refusal", CALL_NONE);
	check("refused_munmap_over_vdso_changes_nothing", CALL_MUNMAP);
	check("refused_mmap_fixed_over_vdso_changes_nothing", CALL_MMAP_FIXED);
	check("refused_mremap_fixed_over_vdso_changes_nothing", CALL_MREMAP_FIXED);
	return failed ? 1 : 0;
}
