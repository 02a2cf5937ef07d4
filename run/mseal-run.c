// SPDX-License-Identifier: GPL-2.0
/*
 * mseal-run - run an unmodified dynamically linked program sealed: once the
 * loader has relocated it and before main(), the mappings of the program, of
 * ld.so and of every library loaded with it are sealed (see libmseal-run.c).
 *
 *	mseal-run PROG [ARGS...]
 *	mseal-run --system on|enforce|off|status [--root DIR]
 *	mseal-init [ARGS...]		(as init=: opt in, then exec /sbin/init)
 *
 * Running a program: the process opts in to sealing (the v6 ABI seals only
 * memory mapped sealable; PR_SET_MSEAL_SEALABLE makes every mapping it and
 * its children create sealable, and is kept over execve()), puts the library
 * first in LD_PRELOAD and executes PROG. Children inherit both. On x86-64
 * the plain case of this is done before glibc starts (mseal-run-fast.c),
 * and main() runs only when that gives up: then it does the whole work, and
 * says what is wrong.
 *
 * The system-wide switch: /etc/ld.so.preload names the library (every
 * dynamically linked program, set-user-ID ones too), as /usr/$LIB/..., which
 * each loader expands to its own directory (a 32-bit program's loader finds
 * the 32-bit build); and the kernel command line gets mseal_exec=on through
 * a GRUB drop-in: from the next boot the kernel seals every program's code
 * and read-only data at execve() and opts every process in to sealable
 * mappings. "enforce" is "on", and MSEAL_RUN=0 is ignored (a marker file the
 * library looks at only when that variable is set).
 *
 * Every file is written as root in a directory only root can write: created
 * with its final mode (O_EXCL, O_NOFOLLOW, 0644 whatever the umask), then
 * renamed over the old one.
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/openat2.h>

#include <mseal.h>

#ifndef MSEAL_RUN_LIB
#define MSEAL_RUN_LIB "/usr/lib/x86_64-linux-gnu/libmseal-run.so"
#endif
/* The same library, as ld.so.preload and LD_PRELOAD name it. */
#ifndef MSEAL_RUN_PRELOAD
#define MSEAL_RUN_PRELOAD "/usr/$LIB/libmseal-run.so"
#endif
#ifndef MSEAL_RUN_VERSION
#define MSEAL_RUN_VERSION "1.0"
#endif
#define INIT_WRAPPER "/usr/sbin/mseal-init"
#define PRELOAD_FILE "/etc/ld.so.preload"
#define GRUB_DIR "/etc/default/grub.d"
#define GRUB_DROPIN GRUB_DIR "/mseal-run.cfg"
#define GRUB_CFG "/boot/grub/grub.cfg"
#define UPDATE_GRUB "/usr/sbin/update-grub"
#define ENFORCE_DIR "/etc/mseal-run"
#define ENFORCE_FILE ENFORCE_DIR "/enforce"
#define BOOT_PARAM "mseal_exec=on"
/* The loader, and the tunable only an ld.so that seals has (glibc/). */
#ifdef __x86_64__
#define LDSO "/lib64/ld-linux-x86-64.so.2"
#endif
#define LDSO_TUNABLE "glibc.rtld.seal"

static const char *prog = "mseal-run";

static void usage(void)
{
	fprintf(stderr,
		"usage: mseal-run PROG [ARGS...]\n"
		"       mseal-run --system on|enforce|off|status [--root DIR]\n");
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
 * Would executing the file open on FD give this process capabilities it
 * does not have (file capabilities: the kernel then runs the loader in
 * secure mode, which ignores LD_PRELOAD, as for set-user-ID programs)? For
 * a user other than root: the new permitted set is (fI & pI) | fP (within
 * the bounding set), and any capability in it makes the exec secure.
 */
static int gains_caps(int fd)
{
	struct vfs_ns_cap_data cap;
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct cur[2];
	ssize_t n = fgetxattr(fd, "security.capability", &cap, sizeof(cap));
	unsigned int w;

	if (n < (ssize_t)XATTR_CAPS_SZ_2 || geteuid() == 0)
		return 0;
	if (syscall(SYS_capget, &hdr, cur))
		return 1;
	for (w = 0; w < 2; w++) {
		unsigned int fp = cap.data[w].permitted, fi = cap.data[w].inheritable;

		if (fp || (fi & cur[w].inheritable))
			return 1;
	}
	return 0;
}

/*
 * Why PROG cannot be sealed this way, or NULL: LD_PRELOAD does nothing for a
 * static program, and the loader ignores it for a set-user-ID one or one
 * with file capabilities.
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

	if (!path || (fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return NULL;	/* execvp() says what is wrong */
	if (fstat(fd, &sb))
		goto out;
	if (((sb.st_mode & S_ISUID) && sb.st_uid != geteuid()) ||
	    ((sb.st_mode & S_ISGID) && sb.st_gid != getegid())) {
		why = "it is set-user-ID or set-group-ID (the loader ignores LD_PRELOAD)";
		goto out;
	}
	if (gains_caps(fd)) {
		why = "it has file capabilities (the loader ignores LD_PRELOAD)";
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

/*
 * Is ENTRY one of the entries of LIST (LD_PRELOAD, or a line of
 * ld.so.preload), separated by colons or white space? Whole entries only:
 * /opt/x/libmseal-run.so.old is not /opt/x/libmseal-run.so.
 */
static int has_entry(const char *list, const char *entry)
{
	size_t len = strlen(entry);

	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ": \t\n");

		if (n == len && !strncmp(p, entry, n))
			return 1;
		p += n + (p[n] != '\0');
	}
	return 0;
}

static int run(char **argv)
{
	const char *lib = library(), *old = getenv("LD_PRELOAD"), *why;
	/* ld.so expands $LIB: a 32-bit child finds the 32-bit build. */
	const char *entry = getenv("MSEAL_RUN_LIB") && *getenv("MSEAL_RUN_LIB") ?
			    lib : MSEAL_RUN_PRELOAD;
	char *preload;

	/* EINVAL: a kernel without the opt-in (no mseal(), or mainline's). */
	mseal_set_sealable(1);
	if (access(lib, R_OK)) {
		fprintf(stderr, "%s: %s: %s\n", prog, lib, strerror(errno));
		return 127;
	}
	if (has_entry(old, entry) || has_entry(old, lib)) {
		preload = (char *)old;	/* already there: mseal-run in mseal-run */
	} else if (old && *old) {
		if (asprintf(&preload, "%s:%s", entry, old) < 0)
			return 127;
	} else {
		preload = (char *)entry;
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
	FILE *f = fopen(file, "re");
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

static void fail(const char *file)
{
	fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
	exit(1);
}

/*
 * The directory of FILE must be writable by its owner only, and owned by
 * this user (root): anyone else who can write there could swap the file
 * between our writing and the loader's reading.
 */
static void check_dir(const char *file)
{
	char *dir = strdup(file), *slash = strrchr(dir, '/');
	struct stat sb;

	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (stat(slash ? dir : ".", &sb))
		fail(dir);
	if (sb.st_uid != geteuid() || (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		fprintf(stderr, "%s: %s: not writing there: the directory is writable by "
			"other users than %s\n", prog, file, geteuid() ? "this one" : "root");
		exit(1);
	}
	free(dir);
}

/*
 * Write TEXT to FILE (mode 0644), or remove FILE if TEXT is "". The new file
 * is created with its final mode, whatever the umask (a file created 0666
 * and chmod()ed later can be opened for writing in between, and stays
 * writable through that descriptor), never through a symbolic link, then
 * renamed over FILE.
 */
static void put(const char *file, const char *text)
{
	size_t len = strlen(text), off = 0;
	char *tmp;
	int fd;

	if (!*text) {
		if (unlink(file) && errno != ENOENT)
			fail(file);
		return;
	}
	check_dir(file);
	tmp = in_root(file, ".mseal-run.tmp");
	/* A leftover of an interrupted run (only root can write here). */
	if (unlink(tmp) && errno != ENOENT)
		fail(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		fail(tmp);
	if (fchmod(fd, 0644))
		goto fail;
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += n;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, file))
		goto fail;
	free(tmp);
	return;
fail:
	{
		int err = errno;

		if (fd >= 0)
			close(fd);
		unlink(tmp);
		errno = err;
		fail(file);
	}
}

/* Is LIB (either of its names) an entry of TEXT (ld.so.preload)? */
static int is_ours(const char *p, size_t n)
{
	return (n == strlen(MSEAL_RUN_PRELOAD) && !strncmp(p, MSEAL_RUN_PRELOAD, n)) ||
	       (n == strlen(MSEAL_RUN_LIB) && !strncmp(p, MSEAL_RUN_LIB, n));
}

/*
 * ld.so.preload as ld.so reads it: entries separated by white space or
 * colons, '#' to the end of the line a comment. The length of the line P
 * (N bytes) without its comment.
 */
static size_t code_len(const char *p, size_t n)
{
	const char *hash = memchr(p, '#', n);

	return hash ? (size_t)(hash - p) : n;
}

/* 2: TEXT names the library as MSEAL_RUN_PRELOAD, 1: otherwise, 0: not. */
static int names(const char *text)
{
	int found = 0;

	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n"), c = code_len(l, n);

		for (const char *p = l; p < l + c;) {
			size_t m = strcspn(p, ": \t");

			if (p + m > l + c)
				m = l + c - p;
			if (m && is_ours(p, m))
				found = found == 2 || (m == strlen(MSEAL_RUN_PRELOAD) &&
						       !strncmp(p, MSEAL_RUN_PRELOAD, m)) ? 2 : 1;
			p += m + 1;
		}
		l += n + (l[n] == '\n');
	}
	return found;
}

/*
 * TEXT without the library's entries. A line that names it beside other
 * entries keeps them (separated by a space) and its comment; a line left
 * with nothing goes.
 */
static char *without(const char *text)
{
	char *out = calloc(1, strlen(text) + 2), *o = out;

	if (!out) {
		perror(prog);
		exit(1);
	}
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n"), c = code_len(l, n), kept = 0, ours = 0;
		char *start = o;

		for (const char *p = l; p < l + c;) {
			size_t m = strcspn(p, ": \t");

			if (p + m > l + c)
				m = l + c - p;
			ours += m && is_ours(p, m);
			p += m + 1;
		}
		if (!ours) {
			memcpy(o, l, n);
			o += n;
			*o++ = '\n';
		} else {
			for (const char *p = l; p < l + c;) {
				size_t m = strcspn(p, ": \t");

				if (p + m > l + c)
					m = l + c - p;
				if (m && !is_ours(p, m)) {
					if (kept++)
						*o++ = ' ';
					memcpy(o, p, m);
					o += m;
				}
				p += m + 1;
			}
			if (c < n) {	/* the comment */
				if (kept)
					*o++ = ' ';
				memcpy(o, l + c, n - c);
				o += n - c;
			}
			if (o != start)		/* nothing left: no line */
				*o++ = '\n';
		}
		l += n + (l[n] == '\n');
	}
	*o = '\0';
	return out;
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

/* /proc/sys/vm/mseal_exec: 1 on, 0 off, -1 no such policy in this kernel. */
static int mseal_exec_now(void)
{
	char buf[8] = "";
	int fd = open("/proc/sys/vm/mseal_exec", O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 && !strncmp(buf, "on", 2);
}

/*
 * Does this kernel seal every dynamically linked program started from now
 * on with the preload alone, without the boot parameter? With the mainline
 * ABI (every mapping sealable), or when it already runs with mseal_exec=on;
 * without mseal() the library is silent. The v6 ABI without mseal_exec would
 * refuse the libraries of every program, and each would warn.
 */
static int preload_works_alone(void)
{
	return mseal_abi() != MSEAL_ABI_V6 || mseal_exec_now() == 1;
}

/*
 * Does the system's ld.so (under ROOT) seal every process opted in by
 * itself, as the rebuilt glibc's does (glibc/)? Its tunable's name is in its
 * read-only data. LDSO is an absolute symbolic link: looked up inside ROOT
 * (RESOLVE_IN_ROOT), not on this system. Any doubt: no.
 */
static int ldso_seals(const char *root)
{
#ifdef LDSO
	struct open_how how = { .flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	int dir = open(*root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC), fd, yes = 0;
	struct stat sb;
	char *buf;

	if (dir < 0)
		return 0;
	fd = syscall(SYS_openat2, dir, LDSO + 1, &how, sizeof(how));
	close(dir);
	if (fd < 0)
		return 0;
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0 && sb.st_size < (64 << 20)) {
		buf = malloc(sb.st_size);
		if (buf && pread(fd, buf, sb.st_size, 0) == sb.st_size)
			yes = !!memmem(buf, sb.st_size, LDSO_TUNABLE, sizeof(LDSO_TUNABLE));
		free(buf);
	}
	close(fd);
	return yes;
#else
	(void)root;
	return 0;
#endif
}

static int mkdirs(const char *root, const char *dir)
{
	char *path = in_root(root, dir);

	for (char *slash = strchr(path + strlen(root) + 1, '/'); ; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
			return -1;
		}
		if (!slash)
			break;
		*slash = '/';
	}
	free(path);
	return 0;
}

/* Run update-grub: NULL, or what went wrong (static). */
static const char *update_grub(void)
{
	static char why[128];
	int status;

	if (access(UPDATE_GRUB, X_OK)) {
		snprintf(why, sizeof(why), "no %s (is GRUB this system's boot loader?)", UPDATE_GRUB);
		return why;
	}
	status = system(UPDATE_GRUB " >/dev/null 2>&1");
	if (status) {
		snprintf(why, sizeof(why), "%s failed (%s %d)", UPDATE_GRUB,
			 WIFEXITED(status) ? "exit status" : "status", WIFEXITED(status) ?
			 WEXITSTATUS(status) : status);
		return why;
	}
	return NULL;
}

/* Does GRUB's configuration boot with the parameter? */
static int grub_has_param(void)
{
	char *cfg = slurp(GRUB_CFG);
	int yes = !!strstr(cfg, BOOT_PARAM);

	free(cfg);
	return yes;
}

static const char dropin_text[] =
	"# Written by mseal-run --system on: the kernel seals every program's code\n"
	"# and read-only data at execve() and opts every process in to sealable\n"
	"# mappings (the v6 ABI seals only memory mapped sealable). See mseal-run(1).\n"
	"GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT " BOOT_PARAM "\"\n";

static const char enforce_text[] =
	"# Written by mseal-run --system enforce: while this file exists,\n"
	"# libmseal-run.so ignores MSEAL_RUN=0. See mseal-run(1).\n";

/*
 * The boot part of --system on: the GRUB drop-in, update-grub, and
 * grub.cfg checked. NULL, or what could not be done (and the drop-in is
 * not left behind). On an image (--root), the files only: the image's own
 * update-grub makes them effective.
 */
static const char *boot_on(const char *root)
{
	char *dropin = in_root(root, GRUB_DROPIN);
	const char *why;

	if (*root) {
		if (mkdirs(root, GRUB_DIR))
			exit(1);
		put(dropin, dropin_text);
		return NULL;
	}
	if (access(UPDATE_GRUB, X_OK)) {
		put(dropin, "");
		return update_grub();
	}
	/* Already there, and in grub.cfg: nothing to do (the dpkg trigger). */
	if (!strcmp(slurp(dropin), dropin_text) && grub_has_param())
		return NULL;
	if (mkdirs(root, GRUB_DIR))
		exit(1);
	put(dropin, dropin_text);
	why = update_grub();
	if (!why && !grub_has_param())
		why = "update-grub did not put " BOOT_PARAM " in " GRUB_CFG
		      " (does it read " GRUB_DIR "/*.cfg? does a later drop-in set"
		      " GRUB_CMDLINE_LINUX_DEFAULT?)";
	if (why)
		put(dropin, "");	/* grub.cfg: unchanged, or already without it */
	return why;
}

static int system_switch(const char *what, const char *root)
{
	char *preload = in_root(root, PRELOAD_FILE), *dropin = in_root(root, GRUB_DROPIN);
	char *enforce = in_root(root, ENFORCE_FILE);
	char *text = slurp(preload), *rooted_lib = in_root(root, MSEAL_RUN_LIB);
	char *old_dropin = slurp(dropin);
	int on = names(text) != 0, boot = *old_dropin != '\0';
	int enforced = !access(enforce, F_OK);
	/* On without the preload: mseal_exec=on and an ld.so that seals. */
	int by_ldso = !on && strstr(old_dropin, BOOT_PARAM) && ldso_seals(root);

	if (strcmp(what, "status") && strcmp(what, "on") && strcmp(what, "enforce") &&
	    strcmp(what, "off"))
		usage();
	if (!strcmp(what, "status")) {
		int sealable = prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0);
		int now = mseal_exec_now();

		if (by_ldso)
			printf("system-wide sealing: on (ld.so seals: %s%s has %s; %s does not name %s)\n",
			       root, LDSO, LDSO_TUNABLE, preload, MSEAL_RUN_PRELOAD);
		else
			printf("system-wide sealing: %s (%s %s %s)\n", on ? "on" : "off",
			       preload, on ? "names" : "does not name", MSEAL_RUN_PRELOAD);
		printf("enforced: %s (%s%s)\n", enforced ? "yes" : "no", enforce,
		       enforced ? ": MSEAL_RUN=0 is ignored" : " does not exist");
		printf("boot parameter: %s (%s)\n",
		       strstr(old_dropin, BOOT_PARAM) ? BOOT_PARAM :
		       boot ? "other (an older mseal-run's drop-in: run mseal-run --system on)" :
		       "not set", dropin);
		if (!*root) {
			printf("kernel ABI: %s\n", abi_name());
			printf("mseal_exec in this boot: %s\n", now == 1 ? "on" : now == 0 ?
			       (boot ? "off (on from the next boot)" : "off") :
			       "not supported by this kernel");
			printf("this process: %s\n", sealable == 1 ? "maps sealable" :
			       sealable == 0 ? "does not map sealable (boot with mseal_exec=on)" :
			       "no opt-in in this kernel");
		}
		return on || by_ldso ? 0 : 3;
	}
	if (!strcmp(what, "on") || !strcmp(what, "enforce")) {
		const char *why;
		int ldso;

		if (access(rooted_lib, R_OK)) {
			fprintf(stderr, "%s: %s: %s\n", prog, rooted_lib, strerror(errno));
			return 1;
		}
		why = boot_on(root);
		if (why && !preload_works_alone()) {
			fprintf(stderr,
				"%s: could not install " BOOT_PARAM " on the kernel command line: %s\n"
				"%s: not changed: %s (this kernel speaks the v6 ABI and runs without "
				BOOT_PARAM ": every program would fail to seal its libraries, and warn)\n"
				"%s: system-wide sealing stays %s; add " BOOT_PARAM
				" to the kernel command line yourself, reboot, and run this again\n",
				prog, why, prog, preload, prog, on ? "on" : "off");
			return 1;
		}
		/*
		 * "on" with an ld.so that seals (and mseal_exec=on installed,
		 * which opts every process in): nothing to preload, every
		 * program is spared loading one more object (issue 29). The
		 * library stays for "enforce" (it is what ignores MSEAL_RUN=0)
		 * and wherever ld.so does not seal; the package's dpkg trigger
		 * runs this again when ld.so changes.
		 */
		ldso = !why && !strcmp(what, "on") && ldso_seals(root);
		if (ldso) {
			if (on)
				put(preload, without(text));
		} else if (names(text) != 2) {
			char *rest = without(text), *next;

			if (asprintf(&next, "%s%s%s\n", rest,
				     *rest && rest[strlen(rest) - 1] != '\n' ? "\n" : "",
				     MSEAL_RUN_PRELOAD) < 0)
				return 1;
			put(preload, next);
		}
		if (!strcmp(what, "enforce")) {
			if (mkdirs(root, ENFORCE_DIR))
				return 1;
			put(enforce, enforce_text);
		} else {
			put(enforce, "");
		}
		if (why) {
			fprintf(stderr,
				"%s: could not install " BOOT_PARAM " on the kernel command line: %s\n"
				"%s: installed: %s names %s (this kernel seals without it);"
				" programs that ld.so.preload does not reach (static ones) stay"
				" unsealed: add " BOOT_PARAM " to the kernel command line yourself\n",
				prog, why, prog, preload, MSEAL_RUN_PRELOAD);
			return 1;
		}
		if (ldso) {
			printf("system-wide sealing on: %s;\n"
			       "ld.so seals every program (%s%s has %s): nothing preloaded;\n"
			       "the kernel seals every program at execve() from the next boot (" BOOT_PARAM ")\n",
			       *root ? "from the image's next boot" : mseal_exec_now() == 1 ?
			       "programs started from now on are sealed" :
			       "from the next boot (" BOOT_PARAM " opts every process in)",
			       root, LDSO, LDSO_TUNABLE);
			return 0;
		}
		printf("system-wide sealing %s%s: %s;\n"
		       "the kernel seals every program at execve() from the next boot (" BOOT_PARAM ")\n",
		       strcmp(what, "enforce") ? "on" : "enforced",
		       strcmp(what, "enforce") ? "" : " (MSEAL_RUN=0 is ignored)",
		       *root ? "from the image's next boot" : preload_works_alone() ?
		       "programs started from now on are sealed" :
		       "until the reboot, this kernel (v6 ABI) seals only the programs started"
		       " with mseal-run");
		return 0;
	}
	if (!strcmp(what, "off")) {
		const char *why = NULL;

		if (on)
			put(preload, without(text));
		put(enforce, "");
		rmdir(in_root(root, ENFORCE_DIR));	/* if empty */
		if (boot) {
			put(dropin, "");
			if (!*root && !access(UPDATE_GRUB, X_OK))
				why = update_grub();
			else if (!*root)
				why = "no " UPDATE_GRUB;
		}
		if (why) {
			fprintf(stderr, "%s: removed %s, but %s: the next boot may still have "
				BOOT_PARAM "; run update-grub yourself\n", prog, dropin, why);
			return 1;
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
		       "       mseal-run --system on|enforce|off|status [--root DIR]\n"
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
