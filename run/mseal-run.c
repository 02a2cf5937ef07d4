// SPDX-License-Identifier: GPL-2.0
/*
 * mseal-run - run an unmodified dynamically linked program sealed: once the
 * loader has relocated it and before main(), the mappings of the program, of
 * ld.so and of every library loaded with it are sealed (see libmseal-run.c).
 *
 *	mseal-run PROG [ARGS...]
 *	mseal-run --system on|off|status [--root DIR]
 *	mseal-init [ARGS...]		(as init=: opt in, then exec /sbin/init)
 *
 * Running a program: the process opts in to sealing (the v6 ABI seals only
 * memory mapped sealable; PR_SET_MSEAL_SEALABLE makes every mapping it and
 * its children create sealable, and is kept over execve()), puts the library
 * first in LD_PRELOAD and executes PROG. Children inherit both.
 *
 * The system-wide switch: /etc/ld.so.preload names the library (every
 * dynamically linked program, set-user-ID ones too), and, for the v6 ABI,
 * the kernel command line gets init=/usr/sbin/mseal-init through a GRUB
 * drop-in, so that PID 1 opts in before anything is mapped.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mseal.h>

#ifndef MSEAL_RUN_LIB
#define MSEAL_RUN_LIB "/usr/lib/x86_64-linux-gnu/libmseal-run.so"
#endif
#ifndef MSEAL_RUN_VERSION
#define MSEAL_RUN_VERSION "1.0"
#endif
#define INIT_WRAPPER "/usr/sbin/mseal-init"
#define PRELOAD_FILE "/etc/ld.so.preload"
#define GRUB_DROPIN "/etc/default/grub.d/mseal-run.cfg"

static const char *prog = "mseal-run";

static void usage(void)
{
	fprintf(stderr,
		"usage: mseal-run PROG [ARGS...]\n"
		"       mseal-run --system on|off|status [--root DIR]\n");
	exit(2);
}

static int env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* The library: MSEAL_RUN_LIB in the environment (tests), or the installed one. */
static const char *library(void)
{
	const char *lib = getenv("MSEAL_RUN_LIB");

	return lib && *lib ? lib : MSEAL_RUN_LIB;
}

/* Where execvp() would find FILE, in BUF; NULL if nowhere. */
static const char *lookup(const char *file, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(file, '/'))
		return file;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, len, "%.*s%s%s", (int)n, path, n ? "/" : "", file);
		if (!access(buf, X_OK))
			return buf;
		path += n + (path[n] == ':');
	}
	return NULL;
}

/*
 * Why PROG cannot be sealed this way, or NULL: LD_PRELOAD does nothing for a
 * static program, and the loader ignores it for a set-user-ID one.
 */
static const char *cannot_seal(const char *file)
{
	char buf[PATH_MAX];
	const char *path = lookup(file, buf, sizeof(buf));
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;
	struct stat sb;
	const char *why = NULL;
	int fd;

	if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;	/* execvp() says what is wrong */
	if (fstat(fd, &sb))
		goto out;
	if (((sb.st_mode & S_ISUID) && sb.st_uid != geteuid()) ||
	    ((sb.st_mode & S_ISGID) && sb.st_gid != getegid())) {
		why = "it is set-user-ID or set-group-ID (the loader ignores LD_PRELOAD)";
		goto out;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		goto out;	/* a script, or another class: not ours to judge */
	why = "it is statically linked";
	for (int i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) != sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			why = NULL;
	}
out:
	close(fd);
	return why;
}

static int run(char **argv)
{
	const char *lib = library(), *old = getenv("LD_PRELOAD"), *why;
	char *preload;

	/* EINVAL: a kernel without the opt-in (no mseal(), or mainline's). */
	mseal_set_sealable(1);
	if (access(lib, R_OK)) {
		fprintf(stderr, "%s: %s: %s\n", prog, lib, strerror(errno));
		return 127;
	}
	if (old && *old && strstr(old, lib)) {
		preload = (char *)old;	/* already there: mseal-run in mseal-run */
	} else if (old && *old) {
		if (asprintf(&preload, "%s:%s", lib, old) < 0)
			return 127;
	} else {
		preload = (char *)lib;
	}
	if (setenv("LD_PRELOAD", preload, 1))
		return 127;
	why = cannot_seal(argv[0]);
	if (why && mseal_supported()) {
		fprintf(stderr, "%s: %s: %s: %s\n", prog,
			env_on("MSEAL_RUN_FATAL") ? "error" : "warning", argv[0], why);
		if (env_on("MSEAL_RUN_FATAL"))
			return 127;
	}
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/* As init=: opt PID 1 (and so every process) in, then the real init. */
static int init(char **argv)
{
	const char *real = getenv("MSEAL_INIT");

	if (!real || !*real)
		real = "/sbin/init";
	mseal_set_sealable(1);
	argv[0] = (char *)real;
	execv(real, argv);
	fprintf(stderr, "mseal-init: %s: %s\n", real, strerror(errno));
	/* PID 1 must not exit: the kernel's own fallbacks. */
	execv("/sbin/init", argv);
	execv("/bin/sh", (char *[]){ "sh", NULL });
	return 127;
}

/* --system: the system-wide switch, on ROOT ("" for /). */

static char *in_root(const char *root, const char *path)
{
	char *p;

	if (asprintf(&p, "%s%s", root, path) < 0) {
		perror(prog);
		exit(1);
	}
	return p;
}

/* The contents of FILE ("" if it does not exist), or exit. */
static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f) {
		if (errno == ENOENT)
			return strdup("");
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
		exit(1);
	}
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

/* Write TEXT to FILE atomically (mode 0644), or remove FILE if TEXT is "". */
static void put(const char *file, const char *text)
{
	char *tmp;
	FILE *f;

	if (!*text) {
		if (unlink(file) && errno != ENOENT)
			goto fail;
		return;
	}
	tmp = in_root(file, ".mseal-run.tmp");
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fchmod(fileno(f), 0644) || fclose(f) ||
	    rename(tmp, file)) {
		unlink(tmp);
		goto fail;
	}
	free(tmp);
	return;
fail:
	fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
	exit(1);
}

/* Does TEXT (ld.so.preload) name LIB, as a whole word? */
static int names(const char *text, const char *lib)
{
	size_t n = strlen(lib);

	for (const char *p = text; (p = strstr(p, lib)); p += n)
		if ((p == text || strchr(" \t\n:", p[-1])) && strchr(" \t\n:", p[n]))
			return 1;
	return 0;
}

/* TEXT without the lines that hold only LIB. */
static char *without(const char *text, const char *lib)
{
	char *out = calloc(1, strlen(text) + 2), *o = out;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		const char *s = p, *e = p + n;

		while (s < e && strchr(" \t", *s))
			s++;
		while (e > s && strchr(" \t", e[-1]))
			e--;
		if ((size_t)(e - s) != strlen(lib) || strncmp(s, lib, e - s)) {
			memcpy(o, p, n);
			o += n;
			*o++ = '\n';
		}
		p += n + (p[n] == '\n');
	}
	*o = '\0';
	return out;
}

static void update_grub(const char *root)
{
	int status;

	if (*root || access("/usr/sbin/update-grub", X_OK))
		return;
	status = system("/usr/sbin/update-grub >/dev/null 2>&1");
	if (status)
		fprintf(stderr, "%s: update-grub failed: run it yourself\n", prog);
}

static const char *abi_name(void)
{
	switch (mseal_abi()) {
	case MSEAL_ABI_V6:
		return "v6 (memory must be mapped sealable)";
	case MSEAL_ABI_MAINLINE:
		return "mainline (every mapping sealable)";
	}
	return "none (no mseal(): programs run unsealed)";
}

static int system_switch(const char *what, const char *root)
{
	const char *lib = MSEAL_RUN_LIB;
	char *preload = in_root(root, PRELOAD_FILE), *dropin = in_root(root, GRUB_DROPIN);
	char *text = slurp(preload), *rooted_lib = in_root(root, lib);
	int on = names(text, lib), init_on = !access(dropin, F_OK);

	if (!strcmp(what, "status")) {
		int sealable = prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0);

		printf("system-wide sealing: %s (%s %s %s)\n", on ? "on" : "off",
		       preload, on ? "names" : "does not name", lib);
		printf("init wrapper: %s (%s)\n", init_on ? "on" : "off", dropin);
		if (!*root) {
			printf("kernel ABI: %s\n", abi_name());
			printf("this process: %s\n", sealable == 1 ? "maps sealable" :
			       sealable == 0 ? "does not map sealable (boot with the init wrapper)" :
			       "no opt-in in this kernel");
		}
		return on ? 0 : 3;
	}
	if (!strcmp(what, "on")) {
		char *grub_dir = in_root(root, "/etc/default/grub.d");

		if (access(rooted_lib, R_OK)) {
			fprintf(stderr, "%s: %s: %s\n", prog, rooted_lib, strerror(errno));
			return 1;
		}
		if (!on) {
			char *next;

			if (asprintf(&next, "%s%s%s\n", text,
				     *text && text[strlen(text) - 1] != '\n' ? "\n" : "", lib) < 0)
				return 1;
			put(preload, next);
		}
		for (char *slash = strchr(grub_dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			if (mkdir(grub_dir, 0755) && errno != EEXIST) {
				fprintf(stderr, "%s: %s: %s\n", prog, grub_dir, strerror(errno));
				return 1;
			}
			*slash = '/';
		}
		if (mkdir(grub_dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "%s: %s: %s\n", prog, grub_dir, strerror(errno));
			return 1;
		}
		put(dropin,
		    "# Written by mseal-run --system on: PID 1 opts in to sealing (the\n"
		    "# v6 ABI seals only memory mapped sealable), then runs /sbin/init.\n"
		    "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT init=" INIT_WRAPPER "\"\n");
		update_grub(root);
		printf("system-wide sealing on: programs started from now on are sealed;\n"
		       "reboot so that init opts in (needed by kernels with the v6 ABI)\n");
		return 0;
	}
	if (!strcmp(what, "off")) {
		put(preload, without(text, lib));
		if (init_on) {
			put(dropin, "");
			update_grub(root);
		}
		printf("system-wide sealing off: programs started from now on are not sealed\n");
		return 0;
	}
	usage();
	return 2;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	int i = 1;

	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "mseal-init"))
		return init(argv);
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "--system")) {
		const char *root = "";

		if (argc == 5 && !strcmp(argv[3], "--root"))
			root = strcmp(argv[4], "/") ? argv[4] : "";
		else if (argc != 3)
			usage();
		return system_switch(argv[2], root);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: mseal-run PROG [ARGS...]\n"
		       "       mseal-run --system on|off|status [--root DIR]\n"
		       "See mseal-run(1).\n");
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("mseal-run %s\n", MSEAL_RUN_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--"))
		i = 2;
	else if (argv[1][0] == '-')
		usage();
	if (i >= argc)
		usage();
	return run(argv + i);
}
