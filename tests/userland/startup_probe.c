// SPDX-License-Identifier: GPL-2.0
/*
 * startup_probe: the time from execve() to main(), sealed and not.
 *
 *   startup_probe ROUNDS LIB [MODE...]
 *	runs ROUNDS rounds of one child per MODE each, in turn (default:
 *	plain preload mseal-run):
 *	  plain     execve(startup_probe)
 *	  preload   the opt-in and LD_PRELOAD=LIB, then execve(startup_probe):
 *		    what sealing by the library costs (with STARTUP_PRELOAD_ENV
 *		    set to NAME=VALUE, that too, e.g.
 *		    GLIBC_TUNABLES=glibc.rtld.seal=0: the library alone)
 *	  ldso      the opt-in alone, then execve(startup_probe): what a
 *		    sealing ld.so (glibc/) costs, as mseal_exec=on starts programs
 *	  noseal    GLIBC_TUNABLES=glibc.rtld.seal=0, then execve(startup_probe):
 *		    a sealing ld.so told not to (under mseal_exec=on: what
 *		    execve()'s own sealing costs, ld.so's left out)
 *	  mseal-run execve(mseal-run startup_probe): that, and the wrapper's
 *		    own execve()
 *	each child's main() reports the time since its parent's last
 *	clock_gettime() before execve(), and its number of VMAs; prints one
 *	line "R<TAB>startup<TAB>MODE<TAB>VMAS<TAB>NS<TAB>ns" per child, and in
 *	the first round "R<TAB>sealed<TAB>MODE<TAB>N<TAB>vmas": the VMAs
 *	sealed at main() ("sl" in /proc/self/smaps).
 *   startup_probe --exit ROUNDS NAME MODE CMD [ARGS...]
 *	runs CMD ROUNDS times, each from fork() to its exit, and prints
 *	"R<TAB>exit<TAB>NAME<TAB>MODE<TAB>NS<TAB>ns" for each run; MODE ldso:
 *	the child opts in before execve(), as for the startup; MODE noseal:
 *	GLIBC_TUNABLES=glibc.rtld.seal=0.
 *   startup_probe  (with STARTUP_T0 in the environment)
 *	the child: prints "NS VMAS SEALED" on fd 3.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mseal.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int vmas(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* The VMAs sealed: "sl" among the VmFlags of /proc/self/smaps. */
static int sealed_vmas(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, "VmFlags:", 8) && strstr(line, " sl");
	fclose(f);
	return n;
}

static int child(const char *t0)
{
	long long ns = now() - atoll(t0);
	int v = vmas();

	dprintf(3, "%lld %d %d\n", ns, v, sealed_vmas());
	return 0;
}

static int one(const char *mode, const char *self, const char *lib, int first)
{
	char buf[64], *slot;
	int pfd[2], status;
	long long ns;
	int v, sl;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		if (dup2(pfd[1], 3) < 0)
			_exit(126);
		if (!strcmp(mode, "preload")) {
			const char *env = getenv("STARTUP_PRELOAD_ENV");

			mseal_set_sealable(1);
			setenv("LD_PRELOAD", lib, 1);
			if (env && strchr(env, '='))
				putenv(strdup(env));
		}
		if (!strcmp(mode, "ldso"))
			mseal_set_sealable(1);
		if (!strcmp(mode, "noseal"))
			setenv("GLIBC_TUNABLES", "glibc.rtld.seal=0", 1);
		/*
		 * Every change to the environment before the clock is read:
		 * the first setenv() reallocates environ and may fault in
		 * heap pages, which would otherwise count in the start of
		 * the modes that set nothing else (plain, ldso) and not in
		 * the others. The value is written in place.
		 */
		setenv("STARTUP_T0", "000000000000000000000000", 1);
		slot = getenv("STARTUP_T0");
		snprintf(slot, strlen(slot) + 1, "%lld", now());
		if (!strcmp(mode, "mseal-run"))
			execlp("mseal-run", "mseal-run", self, (char *)NULL);
		else
			execl(self, self, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status || n <= 0)
		return -1;
	buf[n] = 0;
	if (sscanf(buf, "%lld %d %d", &ns, &v, &sl) != 3)
		return -1;
	printf("R\tstartup\t%s\t%d\t%lld\tns\n", mode, v, ns);
	if (first)
		printf("R\tsealed\t%s\t%d\tvmas\n", mode, sl);
	return 0;
}

static int whole(int rounds, const char *name, const char *mode, char **cmd)
{
	for (int r = 0; r < rounds; r++) {
		long long t0 = now();
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			if (!strcmp(mode, "ldso"))
				mseal_set_sealable(1);
			if (!strcmp(mode, "noseal"))
				setenv("GLIBC_TUNABLES", "glibc.rtld.seal=0", 1);
			execvp(cmd[0], cmd);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status) {
			fprintf(stderr, "startup_probe: %s failed\n", cmd[0]);
			return 1;
		}
		printf("R\texit\t%s\t%s\t%lld\tns\n", name, mode, now() - t0);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *defaults[] = { "plain", "preload", "mseal-run" };
	const char *const *modes = defaults;
	int nmodes = 3;
	const char *t0 = getenv("STARTUP_T0");
	char self[4096];
	ssize_t n;
	int rounds;

	if (t0)
		return child(t0);
	if (argc >= 6 && !strcmp(argv[1], "--exit") && atoi(argv[2]) > 0)
		return whole(atoi(argv[2]), argv[3], argv[4], argv + 5);
	if (argc < 3 || (rounds = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: startup_probe ROUNDS LIB [MODE...]\n");
		return 2;
	}
	if (argc > 3) {
		modes = (const char *const *)argv + 3;
		nmodes = argc - 3;
	}
	for (int m = 0; m < nmodes; m++)
		if (strcmp(modes[m], "plain") && strcmp(modes[m], "preload") &&
		    strcmp(modes[m], "ldso") && strcmp(modes[m], "noseal") &&
		    strcmp(modes[m], "mseal-run")) {
			fprintf(stderr, "startup_probe: unknown mode '%s'\n", modes[m]);
			return 2;
		}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int r = 0; r < rounds; r++)
		for (int m = 0; m < nmodes; m++)
			if (one(modes[m], self, argv[2], r == 0)) {
				fprintf(stderr, "startup_probe: %s run failed\n", modes[m]);
				return 1;
			}
	return 0;
}
