// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_holes_test: the kernel holes the third review found (issue 26), each
 * a test that failed before its fix.
 *
 * - Punching a hole in a hugetlbfs file (fallocate(), or MADV_REMOVE through
 *   a shared mapping) keeps the pages that a sealed private mapping of it
 *   copied on write, as shmem does; the file's own pages follow the file.
 * - MADV_DONTFORK and MADV_WIPEONFORK are refused on every sealed mapping
 *   (the sealed vDSO and vvar, sealed code, sealed writable memory), and
 *   memory that carries either cannot be sealed.
 * - A secure exec (set-user-ID, file capabilities) starts opted in to
 *   sealable mappings whatever the caller's prctl(PR_SET_MSEAL_SEALABLE).
 * - shmdt() of a sealed attachment and io_destroy() of a context whose ring
 *   is sealed fail with the ABI's error and leave everything attached and
 *   alive.
 * - mprotect() over memory that maps the zero page keeps it the zero page
 *   (Debian's 6.1 for mips dropped _PAGE_SPECIAL there, so the unmapping
 *   "freed" the zero page: "BUG: Bad page map"; issue 30). Not a seal
 *   check, but the fuzzer's sealed read-only memory is such memory.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <mseal.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB	0x0004U
#endif

static size_t ps;
static int abi, refused, map_flags;
static const char *self;

__attribute__((constructor)) static void setup(void)
{
	ps = (size_t)sysconf(_SC_PAGESIZE);
	abi = mseal_abi();
	refused = mseal_errno();
	map_flags = abi == MSEAL_ABI_V6 ? MAP_SEALABLE : 0;
}

#define REQUIRE_MSEAL() do {						\
	if (abi == MSEAL_ABI_NONE)					\
		SKIP(return, "mseal() is not implemented (ENOSYS)");	\
} while (0)

static bool all(const char *p, size_t len, char c)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != c)
			return false;
	return true;
}

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

/* The [start, end) of the mapping named @name in /proc/self/maps */
static bool find_mapping(const char *name, unsigned long *start,
			 unsigned long *end)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, name) &&
			sscanf(line, "%lx-%lx", start, end) == 2;
	fclose(f);
	return found;
}

/* Is [p, p + len) mapped, every page of it? */
static bool mapped(void *p, size_t len)
{
	unsigned char vec[64];

	return len / ps <= sizeof(vec) && !mincore(p, len, vec);
}

/* hugetlbfs */

/*
 * A 2 MiB hugetlb memfd, with @pages huge pages free for it (the test
 * reserves them as root): its fd, or -1.
 */
static int huge_memfd(size_t *hps, int pages)
{
	char n[16];
	int fd;

	*hps = 2UL << 20;
	snprintf(n, sizeof(n), "%d\n", pages);
	write_file("/proc/sys/vm/nr_hugepages", n);
	fd = memfd_create("mseal_holes_test", MFD_HUGETLB);
	if (fd >= 0 && ftruncate(fd, *hps)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void punch_keeps_private_copies(struct __test_metadata *_metadata,
				       bool through_madvise)
{
	size_t hps;
	char *priv, *shared;
	int fd = huge_memfd(&hps, 4);

	if (fd < 0)
		SKIP(return, "no 2 MiB hugetlb memfd: %s", strerror(errno));
	shared = mmap(NULL, hps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, shared);
	memset(shared, 'F', 4096);
	priv = mmap(NULL, hps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | map_flags, fd, 0);
	ASSERT_NE(MAP_FAILED, priv);
	memset(priv, 'P', 4096);		/* a private copy of its own */
	ASSERT_EQ(0, mprotect(priv, hps, PROT_READ));
	ASSERT_EQ(0, mseal(priv, hps, 0));
	ASSERT_EQ(-1, madvise(priv, hps, MADV_DONTNEED));
	ASSERT_EQ(refused, errno);
	if (through_madvise) {
		ASSERT_EQ(0, madvise(shared, hps, MADV_REMOVE));
	} else {
		ASSERT_EQ(0, fallocate(fd, FALLOC_FL_PUNCH_HOLE |
					   FALLOC_FL_KEEP_SIZE, 0, hps));
	}
	ASSERT_TRUE(all(shared, 4096, 0));	/* the hole is there */
	ASSERT_TRUE(all(priv, 4096, 'P'));	/* the sealed copy too */
}

TEST(hugetlb_punch_hole_keeps_sealed_private_copies)
{
	REQUIRE_MSEAL();
	punch_keeps_private_copies(_metadata, false);
}

TEST(hugetlb_madv_remove_keeps_sealed_private_copies)
{
	REQUIRE_MSEAL();
	punch_keeps_private_copies(_metadata, true);
}

/* What a sealed private mapping has not written follows the file, as shmem */
TEST(hugetlb_punch_hole_unmaps_the_files_pages_from_sealed_mappings)
{
	size_t hps;
	char *priv, *shared;
	int fd;

	REQUIRE_MSEAL();
	fd = huge_memfd(&hps, 4);
	if (fd < 0)
		SKIP(return, "no 2 MiB hugetlb memfd: %s", strerror(errno));
	shared = mmap(NULL, hps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, shared);
	memset(shared, 'F', 4096);
	priv = mmap(NULL, hps, PROT_READ, MAP_PRIVATE | map_flags, fd, 0);
	ASSERT_NE(MAP_FAILED, priv);
	ASSERT_TRUE(all(priv, 4096, 'F'));	/* the file's page, mapped */
	ASSERT_EQ(0, mseal(priv, hps, 0));
	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       0, hps));
	ASSERT_TRUE(all(priv, 4096, 0));
}

/* Fork-time advice */

static bool sysmap_sealed(void)
{
	char buf[8] = "";
	int fd = open("/proc/sys/vm/mseal_system_mappings", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return buf[0] == '1';
}

/* Each fork-time advice is refused on [p, p + len), sealed */
static void fork_advice_refused(struct __test_metadata *_metadata,
				void *p, size_t len)
{
	ASSERT_EQ(-1, madvise(p, len, MADV_DONTFORK));
	ASSERT_EQ(refused, errno);
	ASSERT_EQ(-1, madvise(p, len, MADV_WIPEONFORK));
	ASSERT_EQ(refused, errno);
}

TEST(fork_advice_refused_on_the_sealed_vdso_and_vvar)
{
	unsigned long s, e;
	struct timespec ts;
	int status;
	pid_t pid;

	REQUIRE_MSEAL();
	if (!sysmap_sealed())
		SKIP(return, "system mappings are not sealed (mseal_system_mappings=off)");
	ASSERT_TRUE(find_mapping("[vdso]", &s, &e));
	fork_advice_refused(_metadata, (void *)s, e - s);
	ASSERT_TRUE(find_mapping("[vvar]", &s, &e));
	fork_advice_refused(_metadata, (void *)s, e - s);
	/* A child has its vDSO where its parent had it, and it works */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(find_mapping("[vdso]", &s, &e) &&
		      !clock_gettime(CLOCK_MONOTONIC, &ts) ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
}

TEST(fork_advice_refused_on_sealed_code_and_writable_memory)
{
	char *x, *w;

	REQUIRE_MSEAL();
	x = mmap(NULL, ps, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | map_flags, -1, 0);
	w = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | map_flags, -1, 0);
	ASSERT_NE(MAP_FAILED, x);
	ASSERT_NE(MAP_FAILED, w);
	w[0] = 'W';
	ASSERT_EQ(0, mseal(x, ps, 0));
	ASSERT_EQ(0, mseal(w, ps, 0));
	fork_advice_refused(_metadata, x, ps);
	fork_advice_refused(_metadata, w, ps);
	/* Withdrawing advice takes nothing away */
	ASSERT_EQ(0, madvise(w, ps, MADV_DOFORK));
	ASSERT_EQ(0, madvise(w, ps, MADV_KEEPONFORK));
}

TEST(memory_with_fork_advice_cannot_be_sealed)
{
	char *w;

	REQUIRE_MSEAL();
	w = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | map_flags, -1, 0);
	ASSERT_NE(MAP_FAILED, w);
	ASSERT_EQ(0, madvise(w, ps, MADV_DONTFORK));
	ASSERT_EQ(0, madvise(w + ps, ps, MADV_WIPEONFORK));
	ASSERT_EQ(-1, mseal(w, ps, 0));
	ASSERT_EQ(refused, errno);
	ASSERT_EQ(-1, mseal(w + ps, ps, 0));
	ASSERT_EQ(refused, errno);
	/* Nothing sealed; once withdrawn, it can be */
	ASSERT_EQ(0, madvise(w, ps, MADV_DOFORK));
	ASSERT_EQ(0, madvise(w + ps, ps, MADV_KEEPONFORK));
	ASSERT_EQ(0, mseal(w, 2 * ps, 0));
}

/* Secure exec */

#define PROBE_ARG "--print-sealable"

/*
 * Run a copy of this program that is set-user-ID root (@how 's'), has a
 * file capability ('c') or neither ('-'), as nobody, after
 * prctl(PR_SET_MSEAL_SEALABLE, 0): what PR_GET_MSEAL_SEALABLE says in it,
 * or -1 (-2 if the file capability could not be set).
 */
static int sealable_after_exec(char how)
{
	/*
	 * VFS_CAP_REVISION_2, CAP_NET_BIND_SERVICE permitted and effective:
	 * little-endian on disk, whatever the CPU (s390x is big-endian).
	 */
	const uint32_t cap[5] = { htole32(0x02000001), htole32(1 << 10) };
	char path[64], buf[4];
	int fd[2], status, n;
	pid_t pid;

	snprintf(path, sizeof(path), "/tmp/mseal_holes_probe_%c", how);
	unlink(path);
	if (!self || pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { path, PROBE_ARG, NULL };
		int in = open(self, O_RDONLY), out;
		char chunk[65536];
		ssize_t r;

		out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0755);
		if (in < 0 || out < 0)
			_exit(1);
		while ((r = read(in, chunk, sizeof(chunk))) > 0)
			if (write(out, chunk, r) != r)
				_exit(1);
		close(in);
		close(out);
		if (how == 's' && (chown(path, 0, 0) || chmod(path, 04755)))
			_exit(1);
		if (how == 'c' && setxattr(path, "security.capability", cap,
					   sizeof(cap), 0))
			_exit(2);
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) ||
		    mseal_set_sealable(0))
			_exit(1);
		dup2(fd[1], 1);
		execv(path, argv);
		_exit(1);
	}
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	close(fd[0]);
	waitpid(pid, &status, 0);
	unlink(path);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		return -2;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

/* mseal_exec=on: every exec starts opted in */
static bool exec_opts_in(void)
{
	char buf[8] = "";
	int fd = open("/proc/sys/vm/mseal_exec", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	return !strncmp(buf, "on", 2);
}

TEST(secure_exec_starts_opted_in)
{
	REQUIRE_MSEAL();
	/* An ordinary exec keeps the caller's withdrawal */
	ASSERT_EQ(exec_opts_in() ? 1 : 0, sealable_after_exec('-'));
	ASSERT_EQ(1, sealable_after_exec('s'));
}

TEST(file_capability_exec_starts_opted_in)
{
	int ret;

	REQUIRE_MSEAL();
	ret = sealable_after_exec('c');
	if (ret == -2)
		SKIP(return, "cannot set security.capability here (no xattrs on /tmp)");
	ASSERT_EQ(1, ret);
}

/* shmdt() and io_destroy() */

TEST(shmdt_of_a_sealed_attachment_is_refused)
{
	struct shmid_ds ds;
	shmatt_t nattch;
	char *p;
	int id;

	REQUIRE_MSEAL();
	ASSERT_EQ(0, mseal_set_sealable(1));	/* shmat() has no MAP_SEALABLE */
	id = shmget(IPC_PRIVATE, 2 * ps, IPC_CREAT | 0600);
	ASSERT_LE(0, id);
	p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	ASSERT_NE((void *)-1, p);
	p[0] = 'S';
	ASSERT_EQ(0, mprotect(p + ps, ps, PROT_READ));	/* two VMAs */
	ASSERT_EQ(0, mseal(p + ps, ps, 0));
	ASSERT_EQ(0, shmctl(id, IPC_STAT, &ds));
	nattch = ds.shm_nattch;		/* one per VMA */
	ASSERT_EQ(-1, shmdt(p));
	ASSERT_EQ(refused, errno);
	/* Nothing detached, not even the unsealed fragment */
	ASSERT_TRUE(mapped(p, 2 * ps));
	ASSERT_EQ('S', p[0]);
	ASSERT_EQ(0, shmctl(id, IPC_STAT, &ds));
	ASSERT_EQ(nattch, ds.shm_nattch);
}

TEST(shmdt_of_an_unsealed_attachment_works)
{
	char *p;
	int id;

	REQUIRE_MSEAL();
	ASSERT_EQ(0, mseal_set_sealable(1));
	id = shmget(IPC_PRIVATE, ps, IPC_CREAT | 0600);
	ASSERT_LE(0, id);
	p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	ASSERT_NE((void *)-1, p);
	ASSERT_EQ(0, shmdt(p));
	ASSERT_FALSE(mapped(p, ps));
}

TEST(io_destroy_of_a_context_with_a_sealed_ring_is_refused)
{
	aio_context_t ctx = 0;
	struct io_event ev;
	struct timespec zero = { 0, 0 };
	unsigned long s, e;
	char name[64];

	REQUIRE_MSEAL();
	ASSERT_EQ(0, mseal_set_sealable(1));	/* the ring has no MAP_SEALABLE */
	ASSERT_EQ(0, syscall(__NR_io_setup, 8, &ctx));
	snprintf(name, sizeof(name), "%lx-", (unsigned long)ctx);
	ASSERT_TRUE(find_mapping(name, &s, &e));
	ASSERT_EQ(0, mseal((void *)s, e - s, 0));
	ASSERT_EQ(-1, syscall(__NR_io_destroy, ctx));
	ASSERT_EQ(refused, errno);
	/* The context is alive, its ring mapped */
	ASSERT_EQ(0, syscall(__NR_io_getevents, ctx, 0, 1, &ev, &zero));
	ASSERT_TRUE(mapped((void *)s, e - s));
}

/* mprotect() and the zero page */

/*
 * Read the kernel log records from @fd (opened at its end before the calls)
 * and tell whether one contains @what.
 */
static bool kmsg_has(int fd, const char *what)
{
	char rec[1024];
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n < 0)
			continue;	/* overwritten records */
		rec[n] = '\0';
		if (strstr(rec, what))
			return true;
	}
	return false;
}

TEST(mprotect_over_the_zero_page_keeps_it_special)
{
	volatile char *p;
	int fd, i;

	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		SKIP(return, "no /dev/kmsg: %s", strerror(errno));
	ASSERT_EQ(0, (int)lseek(fd, 0, SEEK_END));
	for (i = 0; i < 2; i++) {
		if (i && abi == MSEAL_ABI_NONE)
			break;
		p = mmap(NULL, 2 * ps, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | map_flags,
			 -1, 0);
		ASSERT_NE(MAP_FAILED, p);
		/* Read faults map the zero page */
		ASSERT_EQ(0, p[0]);
		ASSERT_EQ(0, p[ps]);
		if (i) {
			/* Sealed: refused, and the zero page stays mapped */
			ASSERT_EQ(0, mseal((void *)p, 2 * ps, 0));
			ASSERT_EQ(-1, mprotect((void *)p, 2 * ps, PROT_READ | PROT_WRITE));
			ASSERT_EQ(refused, errno);
			ASSERT_EQ(0, p[ps]);
			continue;
		}
		ASSERT_EQ(0, mprotect((void *)p, 2 * ps, PROT_READ | PROT_WRITE));
		ASSERT_EQ(0, p[0]);
		p[ps] = 'W';	/* copy on write from the zero page */
		ASSERT_EQ('W', p[ps]);
		ASSERT_EQ(0, munmap((void *)p, 2 * ps));
	}
	ASSERT_FALSE(kmsg_has(fd, "Bad page"));
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], PROBE_ARG)) {
		printf("%d\n", (int)prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0));
		return 0;
	}
	self = "/proc/self/exe";
	return test_harness_run(argc, argv);
}
