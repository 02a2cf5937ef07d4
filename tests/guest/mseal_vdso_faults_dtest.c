// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_vdso_faults_dtest: x86's map_vdso() takes back a sealed vDSO text
 * when its vvar pages cannot be mapped (issue 26, item 4).
 *
 * With mseal_system_mappings=on, map_vdso() maps the vDSO text sealed, then
 * vvar; if vvar fails, it unmapped the text with do_munmap(), which sealing
 * refused: the call failed and left a sealed [vdso] behind that the process
 * did not know of. Reached after exec through arch_prctl(ARCH_MAP_VDSO_64),
 * which maps a vDSO into a process that has none (CHECKPOINT_RESTORE, a
 * kernel booted with vdso=0). For the debug kernel (fault injection): for
 * k = 1, 2, ... the k-th fault-injection point of arch_prctl() fails
 * (/proc/thread-self/fail-nth), each in a new child. Not every point
 * fails the call (some are passed over: the call then succeeds), and the
 * vvar mapping's come after the first success, so every k is tried until
 * QUIET successes in a row show that the call has no more: every failure
 * must leave neither [vdso] nor [vvar] mapped, every success both.
 *
 * Skips as a whole (exit 4) without x86-64, CONFIG_CHECKPOINT_RESTORE,
 * fault injection, sealed system mappings, or with a vDSO mapped at exec
 * (boot with vdso=0 mseal_system_mappings=on: tests/run --debug does).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"

#define ARCH_MAP_VDSO_64	0x2003
#define DBG			"/sys/kernel/debug"
#define MAXK			200
#define QUIET			30

#ifdef __x86_64__
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static bool read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n >= 0;
}

/* Bit 0: [vdso] is mapped, bit 1: [vvar] */
static int mapped(void)
{
	static char maps[1 << 16];
	int m = 0;

	if (!read_file("/proc/self/maps", maps, sizeof(maps)))
		return -1;
	if (strstr(maps, "[vdso]"))
		m |= 1;
	if (strstr(maps, "[vvar]"))
		m |= 2;
	return m;
}

/* In a child: arch_prctl() with its k-th allocation failing */
static int attempt(int k)
{
	char nth[16];
	long r;
	int m;

	snprintf(nth, sizeof(nth), "%d", k);
	if (write_file("/proc/thread-self/fail-nth", nth))
		return 10;
	/* On success it returns the size of the vDSO image, not 0. */
	r = syscall(SYS_arch_prctl, ARCH_MAP_VDSO_64, 0x10000000UL);
	write_file("/proc/thread-self/fail-nth", "0");
	m = mapped();
	if (r >= 0)
		return m == 3 ? 0 : 2;	/* 0: mapped, both */
	if (errno != ENOMEM && errno != EINTR)
		return 11;
	return m == 0 ? 1 : 3;		/* 1: failed, nothing left; 3: orphan */
}
#endif /* __x86_64__ */

int main(void)
{
#ifndef __x86_64__
	ksft_print_header();
	ksft_exit_skip("x86-64 only (map_vdso())\n");
#else
	char buf[16], at[256] = "";
	int k, status, fails = 0, quiet = 0;

	ksft_print_header();
	if (!read_file("/proc/sys/vm/mseal_system_mappings", buf, sizeof(buf)) ||
	    buf[0] != '1')
		ksft_exit_skip("system mappings are not sealed (boot with mseal_system_mappings=on)\n");
	if (mapped() != 0)
		ksft_exit_skip("a vDSO is mapped at exec (boot with vdso=0)\n");
	if (access("/proc/thread-self/fail-nth", W_OK) ||
	    write_file(DBG "/failslab/ignore-gfp-wait", "N") ||
	    write_file(DBG "/fail_page_alloc/ignore-gfp-wait", "N"))
		ksft_exit_skip("no fault injection (the debug kernel has it)\n");
	ksft_set_plan(1);
	for (k = 1; k <= MAXK; k++) {
		pid_t pid = fork();

		if (!pid)
			_exit(attempt(k));
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
			ksft_test_result_fail("child %d\n", k);
			ksft_finished();
		}
		status = WEXITSTATUS(status);
		if (status == 0) {
			if (++quiet == QUIET)
				break;
			continue;
		}
		if (status == 1) {
			fails++;
			quiet = 0;
			snprintf(at + strlen(at), sizeof(at) - strlen(at), " %d", k);
			continue;
		}
		if (status == 11 && k == 1)
			ksft_exit_skip("arch_prctl(ARCH_MAP_VDSO_64) fails: no CONFIG_CHECKPOINT_RESTORE\n");
		ksft_test_result_fail("allocation %d failing: %s\n", k,
				      status == 3 ? "arch_prctl() failed and left a vDSO or vvar mapped" :
				      status == 2 ? "arch_prctl() succeeded without both mappings" :
				      "the test could not run the call");
		ksft_finished();
	}
	if (k > MAXK)
		ksft_test_result_fail("arch_prctl() still failing after %d tries\n", MAXK);
	else if (!fails)
		ksft_test_result_fail("no fault-injection point failed arch_prctl()\n");
	else
		ksft_test_result_pass("arch_prctl(ARCH_MAP_VDSO_64): %d failures (at k =%s) left nothing mapped, every success both\n",
				      fails, at);
	ksft_finished();
#endif
}
