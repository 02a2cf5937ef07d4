// SPDX-License-Identifier: GPL-2.0
/*
 * The wrapper's fast path (x86-64): "mseal-run PROG [ARGS...]" in the
 * common case, before the C library starts.
 *
 * mseal-run is a static PIE, and glibc's start of one (relocating itself,
 * resolving its IFUNCs, setting up TLS and stdio) costs about as much as
 * the whole start of the program it runs: -icount, the wrapper made
 * "mseal-run PROG" cost x1.92 a plain start, against x1.16 for the preload
 * (issue 29). Here the process entry point is mseal_run_start: it looks at
 * the stack the kernel built (argc, argv, envp), and when the run is the
 * plain case -- PROG found on PATH, a dynamically linked ELF program of this
 * class, nothing that mseal-run would warn about or refuse -- it opts in,
 * puts the library first in LD_PRELOAD and executes PROG with raw system
 * calls, touching a few pages. In every other case, and whenever anything
 * fails, it returns and glibc's _start runs main() in mseal-run.c, which
 * does the whole work again and says what is wrong: the messages, the
 * exit statuses and execvp()'s search stay main()'s.
 *
 * Nothing here may need the C library or a relocation: the file is built
 * freestanding, without the stack protector (no TLS yet), and the build
 * checks that it has no undefined symbol and only PC-relative relocations
 * (the static PIE is not yet relocated when this runs).
 */
#include <elf.h>
#include <stddef.h>
#include <asm/stat.h>
#include <asm/unistd.h>
#include <linux/capability.h>
#include <linux/fcntl.h>
#include <linux/limits.h>

#ifndef PR_SET_MSEAL_SEALABLE
#define PR_SET_MSEAL_SEALABLE	0x4d534c53	/* as include/mseal.h */
#endif
#ifndef MSEAL_RUN_LIB
#define MSEAL_RUN_LIB "/usr/lib/x86_64-linux-gnu/libmseal-run.so"
#endif
#ifndef MSEAL_RUN_PRELOAD
#define MSEAL_RUN_PRELOAD "/usr/$LIB/libmseal-run.so"
#endif

#define MAX_ENV		4096	/* more variables: main() does it */
#define PRELOAD_MAX	8192	/* a longer LD_PRELOAD: main() does it */

/*
 * The entry point: the stack as the kernel left it in %rdi, and %rdx
 * (rtld_fini, 0 for a static program) kept for glibc's _start in %rbx,
 * which the call preserves.
 */
__asm__(".text\n"
	".globl mseal_run_start\n"
	".type mseal_run_start, @function\n"
	"mseal_run_start:\n"
	"	mov %rdx, %rbx\n"
	"	mov %rsp, %rdi\n"
	"	call mseal_run_fast\n"
	"	mov %rbx, %rdx\n"
	"	jmp _start\n"
	".size mseal_run_start, .-mseal_run_start\n");

static long sys(long nr, long a, long b, long c, long d, long e)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}

static size_t len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static int same(const char *a, const char *b, size_t n)
{
	while (n--)
		if (*a++ != *b++)
			return 0;
	return 1;
}

/* Append S to BUF at *POS (of SIZE, with room for the NUL), or fail. */
static int add(char *buf, size_t *pos, size_t size, const char *s, size_t n)
{
	if (*pos + n >= size)
		return -1;
	while (n--)
		buf[(*pos)++] = *s++;
	buf[*pos] = '\0';
	return 0;
}

/* The value of NAME in ENVP, its slot in *SLOT; NULL if not set. */
static const char *env(char **envp, const char *name, char ***slot)
{
	size_t n = len(name);

	for (char **e = envp; *e; e++) {
		if (same(*e, name, n) && (*e)[n] == '=') {
			if (slot)
				*slot = e;
			return *e + n + 1;
		}
	}
	return NULL;
}

/* As has_entry() in mseal-run.c: ENTRY a whole entry of LIST. */
static int has_entry(const char *list, const char *entry)
{
	size_t n = len(entry);

	for (const char *p = list; p && *p;) {
		size_t m = 0;

		while (p[m] && p[m] != ':' && p[m] != ' ' && p[m] != '\t' && p[m] != '\n')
			m++;
		if (m == n && same(p, entry, n))
			return 1;
		p += m + (p[m] != '\0');
	}
	return 0;
}

/* As lookup() in mseal-run.c; NULL also when a name does not fit. */
static const char *lookup(const char *file, const char *path, char *buf)
{
	const char *f;

	for (f = file; *f; f++)
		if (*f == '/')
			return file;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = 0, pos = 0;

		while (path[n] && path[n] != ':')
			n++;
		if (add(buf, &pos, PATH_MAX, path, n) ||
		    add(buf, &pos, PATH_MAX, "/", n ? 1 : 0) ||
		    add(buf, &pos, PATH_MAX, file, len(file)))
			return NULL;
		if (!sys(__NR_access, (long)buf, 1 /* X_OK */, 0, 0, 0))
			return buf;
		path += n + (path[n] == ':');
	}
	return NULL;
}

/*
 * Is the program at PATH one mseal-run runs without a word: a dynamically
 * linked ELF program of this class (or not ELF of this class at all: a
 * script, which main() would run as well), not set-user-ID or set-group-ID
 * to someone else, without file capabilities for a user other than root?
 * Anything else, or an error, is main()'s to judge.
 */
static int plain(const char *path)
{
	union {
		Elf64_Phdr ph[64];
		struct vfs_ns_cap_data cap;
	} u;
	Elf64_Ehdr eh;
	struct stat sb;
	long fd, n, euid;
	int ok = 0;

	fd = sys(__NR_open, (long)path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return 0;
	if (sys(__NR_fstat, fd, (long)&sb, 0, 0, 0))
		goto out;
	euid = sys(__NR_geteuid, 0, 0, 0, 0, 0);
	if (((sb.st_mode & 04000) && sb.st_uid != euid) ||
	    ((sb.st_mode & 02000) && sb.st_gid != sys(__NR_getegid, 0, 0, 0, 0, 0)))
		goto out;
	if (euid != 0) {
		n = sys(__NR_fgetxattr, fd, (long)"security.capability",
			(long)&u.cap, sizeof(u.cap), 0);
		if (n >= (long)XATTR_CAPS_SZ_2)
			goto out;
	}
	n = sys(__NR_pread64, fd, (long)&eh, sizeof(eh), 0, 0);
	if (n != sizeof(eh) || !same((const char *)eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		ok = 1;		/* a script, or another class */
		goto out;
	}
	if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64)
		goto out;
	n = (long)eh.e_phnum * sizeof(Elf64_Phdr);
	if (sys(__NR_pread64, fd, (long)u.ph, n, eh.e_phoff, 0) != n)
		goto out;
	for (int i = 0; i < eh.e_phnum; i++)
		if (u.ph[i].p_type == PT_INTERP)
			ok = 1;
out:
	sys(__NR_close, fd, 0, 0, 0, 0);
	return ok;
}

__attribute__((visibility("hidden"))) void mseal_run_fast(long *sp);

void mseal_run_fast(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
	char *newenv[MAX_ENV + 2], preload[PRELOAD_MAX], buf[PATH_MAX];
	const char *lib, *entry, *old, *file, *base = argv[0];
	char **slot = NULL;
	size_t pos = 0, n = 0;
	int i = 1;

	if (argc < 2 || !base)
		return;
	for (const char *p = argv[0]; *p; p++)
		if (*p == '/')
			base = p + 1;
	if (same(base, "mseal-init", sizeof("mseal-init")))
		return;
	if (argv[1][0] == '-') {
		if (!same(argv[1], "--", 3))
			return;
		i = 2;
	}
	if (i >= argc)
		return;

	lib = env(envp, "MSEAL_RUN_LIB", NULL);
	entry = lib && *lib ? lib : MSEAL_RUN_PRELOAD;
	if (!lib || !*lib)
		lib = MSEAL_RUN_LIB;
	/* Opted in first, as main() does (EINVAL: a kernel without it). */
	sys(__NR_prctl, PR_SET_MSEAL_SEALABLE, 1, 0, 0, 0);
	if (sys(__NR_access, (long)lib, 4 /* R_OK */, 0, 0, 0))
		return;
	file = lookup(argv[i], env(envp, "PATH", NULL), buf);
	if (!file || !plain(file))
		return;

	/* LD_PRELOAD as main() sets it: the library first, once. */
	old = env(envp, "LD_PRELOAD", &slot);
	if (add(preload, &pos, sizeof(preload), "LD_PRELOAD=", 11))
		return;
	if (has_entry(old, entry) || has_entry(old, lib)) {
		if (add(preload, &pos, sizeof(preload), old, len(old)))
			return;
	} else {
		if (add(preload, &pos, sizeof(preload), entry, len(entry)))
			return;
		if (old && *old &&
		    (add(preload, &pos, sizeof(preload), ":", 1) ||
		     add(preload, &pos, sizeof(preload), old, len(old))))
			return;
	}
	for (char **e = envp; *e; e++) {
		if (n == MAX_ENV)
			return;
		newenv[n++] = e == slot ? preload : *e;
	}
	if (!slot)
		newenv[n++] = preload;
	newenv[n] = NULL;
	sys(__NR_execve, (long)file, (long)(argv + i), (long)newenv, 0, 0);
	/* Failed: main() executes it again with execvp() and says why. */
}
