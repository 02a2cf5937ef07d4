// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_exec_test: sealing at execve() (mseal_exec=on|off, issue 28).
 *
 * Runs exec_probe (tests/exec/) built five ways: static, static-pie, dynamic
 * PIE, dynamic non-PIE, and dynamic PIE with text relocations; each checks,
 * from its own /proc/self/smaps, that the code and read-only data of the
 * executable and of its interpreter are sealed and their data are not when
 * /proc/sys/vm/mseal_exec says "on", and that nothing is when it says
 * "off"; the one with text relocations runs, its relocation applied, with
 * its own segments unsealed. Then busybox, the guest's static shell: its
 * code is sealed in a process it runs, or not, the same way.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mseal.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#define BIN "/opt/mseal/bin/"

static char mode[8];		/* "on" or "off", or "" without the file */

__attribute__((constructor)) static void setup(void)
{
	int fd = open("/proc/sys/vm/mseal_exec", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, mode, sizeof(mode) - 1);

	if (fd >= 0)
		close(fd);
	mode[n > 0 ? n : 0] = '\0';
	mode[strcspn(mode, "\n")] = '\0';
}

#define REQUIRE_MSEAL_EXEC() do {					\
	if (!mseal_supported())						\
		SKIP(return, "mseal() is not implemented (ENOSYS)");	\
	ASSERT_TRUE(!strcmp(mode, "on") || !strcmp(mode, "off"))	\
		TH_LOG("/proc/sys/vm/mseal_exec says '%s'", mode);	\
} while (0)

/* Run @argv with its output in @out (@size bytes): its exit status */
static int run(char *const argv[], char *out, size_t size)
{
	int fd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while (len < size - 1 && (n = read(fd[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void probe(struct __test_metadata *_metadata, const char *name)
{
	static char out[1 << 16];
	char path[128];
	char *argv[] = { path, mode, NULL };
	int rc;

	snprintf(path, sizeof(path), BIN "%s", name);
	rc = run(argv, out, sizeof(out));
	TH_LOG("%s %s:\n%s", name, mode, out);
	ASSERT_EQ(0, rc);
}

TEST(static_program)
{
	REQUIRE_MSEAL_EXEC();
	probe(_metadata, "exec_probe_static");
}

TEST(static_pie_program)
{
	REQUIRE_MSEAL_EXEC();
	/* guest/Makefile builds it where the C library can link it */
	if (access(BIN "exec_probe_static_pie", X_OK))
		SKIP(return, "no static-pie exec_probe: this architecture's C library has no rcrt1.o (Debian builds glibc without static-pie here)");
	probe(_metadata, "exec_probe_static_pie");
}

TEST(dynamic_pie_program)
{
	REQUIRE_MSEAL_EXEC();
	probe(_metadata, "exec_probe_pie");
}

TEST(dynamic_non_pie_program)
{
	REQUIRE_MSEAL_EXEC();
	probe(_metadata, "exec_probe_nopie");
}

TEST(program_with_text_relocations_runs)
{
	REQUIRE_MSEAL_EXEC();
	probe(_metadata, "exec_probe_textrel");
}

/* busybox-static's code, in a process it runs */
TEST(busybox_code)
{
	static char out[1 << 18];
	char *argv[] = { "/bin/busybox", "cat", "/proc/self/smaps", NULL };
	bool in_code = false, seen = false, sealed = false;
	char *line, real[PATH_MAX];

	REQUIRE_MSEAL_EXEC();
	/* smaps names the file by its own path: /usr/bin/busybox on Debian */
	ASSERT_NE(NULL, realpath(argv[0], real));
	ASSERT_EQ(0, run(argv, out, sizeof(out)));
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char perms[8], path[256] = "";
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &s, &e, perms,
			   path) >= 3 && strchr(line, ' ')) {
			in_code = !strcmp(path, real) && perms[2] == 'x';
			seen |= in_code;
		} else if (in_code && !strncmp(line, "VmFlags:", 8)) {
			sealed = strstr(line, " sl") != NULL;
			ASSERT_EQ(!strcmp(mode, "on"), sealed)
				TH_LOG("busybox's code: %s", line);
		}
	}
	ASSERT_TRUE(seen) TH_LOG("no executable mapping of %s", real);
}

TEST_HARNESS_MAIN
