// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_force_test: the bytes of sealed read-only memory cannot be rewritten
 * behind the seal (issue 27).
 *
 * - FOLL_FORCE writes (/proc/PID/mem, ptrace(PTRACE_POKEDATA)) into sealed
 *   memory that its process cannot write obey mseal_force=, read from
 *   /proc/sys/vm/mseal_force: "ptracer" (the default) lets only a process
 *   that ptraces a task of that memory write there, "never" no one, "always"
 *   everyone, as without sealing. Refused writes fail with EIO and leave
 *   the bytes as they were; reads always work. Root, unprivileged, self,
 *   another process, the tracer.
 * - Writes that never override protections (process_vm_writev()) fail with
 *   EFAULT there, whatever mseal_force says.
 * - A userfaultfd never supplies nor changes the contents of sealed memory
 *   that its process cannot write: mseal() refuses such memory while it is
 *   registered, UFFDIO_REGISTER refuses it once sealed, and no fill
 *   (UFFDIO_COPY, UFFDIO_ZEROPAGE, UFFDIO_CONTINUE, UFFDIO_WRITEPROTECT)
 *   reaches it, even racing mseal(). Writable sealed memory still works with
 *   a userfaultfd.
 * Each test checks the memory's bytes afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mseal.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

enum { FORCE_PTRACER, FORCE_NEVER, FORCE_ALWAYS, FORCE_UNKNOWN };

static size_t ps;
static int abi, refused, map_flags, force = FORCE_UNKNOWN;

__attribute__((constructor)) static void setup(void)
{
	char buf[32] = "";
	int fd;

	ps = (size_t)sysconf(_SC_PAGESIZE);
	abi = mseal_abi();
	refused = mseal_errno();
	map_flags = abi == MSEAL_ABI_V6 ? MAP_SEALABLE : 0;
	fd = open("/proc/sys/vm/mseal_force", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
	}
	if (!strncmp(buf, "ptracer", 7))
		force = FORCE_PTRACER;
	else if (!strncmp(buf, "never", 5))
		force = FORCE_NEVER;
	else if (!strncmp(buf, "always", 6))
		force = FORCE_ALWAYS;
}

#define REQUIRE_FORCE() do {						\
	if (abi == MSEAL_ABI_NONE)					\
		SKIP(return, "mseal() is not implemented (ENOSYS)");	\
	ASSERT_NE(FORCE_UNKNOWN, force) TH_LOG("no /proc/sys/vm/mseal_force"); \
} while (0)

static void fill(char *p, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (char)(i * 7 + seed);
}

static bool same(const char *p, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != (char)(i * 7 + seed))
			return false;
	return true;
}

static bool all(const char *p, size_t len, char c)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != c)
			return false;
	return true;
}

/* A page holding pattern @seed, made read-only, and sealed if @seal. */
static char *ro_page(int seed, bool seal)
{
	char *p = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | map_flags, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	fill(p, ps, seed);
	if (mprotect(p, ps, PROT_READ) || (seal && mseal(p, ps, 0)))
		return NULL;
	return p;
}

/* pwrite() @len bytes of @c at @addr of /proc/@pid/mem: 0 or an errno. */
static int mem_write(pid_t pid, void *addr, char c, size_t len)
{
	char path[64], buf[64];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return errno;
	memset(buf, c, sizeof(buf));
	n = pwrite(fd, buf, len, (off_t)(unsigned long)addr);
	err = n == (ssize_t)len ? 0 : n < 0 ? errno : EIO;
	close(fd);
	return err;
}

/* pread() of /proc/@pid/mem: @len bytes at @addr into @buf, or false. */
static bool mem_read(pid_t pid, void *addr, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = pread(fd, buf, len, (off_t)(unsigned long)addr);
	close(fd);
	return n == (ssize_t)len;
}

/* Did the @who write go through, as mseal_force says it should? */
static int expected(bool tracer)
{
	if (force == FORCE_ALWAYS || (force == FORCE_PTRACER && tracer))
		return 0;
	return EIO;
}

/* Become nobody, still dumpable (so that /proc/PID/mem opens as usual) */
static int unprivileged(void)
{
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* Without sealing, FOLL_FORCE writes through read-only memory: the control */
TEST(proc_self_mem_writes_unsealed_read_only_memory)
{
	char *p;

	REQUIRE_FORCE();
	p = ro_page(1, false);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, mem_write(getpid(), p, 'X', 16));
	ASSERT_TRUE(all(p, 16, 'X'));
	ASSERT_TRUE(same(p + 16, ps - 16, 1 + 16 * 7));
}

static void self_write(struct __test_metadata *_metadata, bool as_nobody)
{
	char buf[16], *p = ro_page(2, true);

	ASSERT_NE(NULL, p);
	if (as_nobody)
		ASSERT_EQ(0, unprivileged());
	ASSERT_EQ(expected(false), mem_write(getpid(), p, 'X', 16));
	if (expected(false)) {
		ASSERT_TRUE(same(p, ps, 2));
	} else {
		ASSERT_TRUE(all(p, 16, 'X'));
	}
	/* Reads are never affected */
	ASSERT_TRUE(mem_read(getpid(), p + 16, buf, sizeof(buf)));
	ASSERT_EQ(0, memcmp(buf, p + 16, sizeof(buf)));
}

TEST(proc_self_mem_write_into_sealed_read_only_memory_as_root)
{
	REQUIRE_FORCE();
	self_write(_metadata, false);
}

TEST(proc_self_mem_write_into_sealed_read_only_memory_unprivileged)
{
	REQUIRE_FORCE();
	self_write(_metadata, true);
}

/* Writable sealed memory stays writable, through /proc/self/mem too */
TEST(proc_self_mem_write_into_sealed_writable_memory)
{
	char *p;

	REQUIRE_FORCE();
	p = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | map_flags, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	fill(p, ps, 3);
	ASSERT_EQ(0, mseal(p, ps, 0));
	ASSERT_EQ(0, mem_write(getpid(), p, 'W', 8));
	ASSERT_TRUE(all(p, 8, 'W'));
}

/*
 * A child holding a sealed read-only page, waiting for the write end of
 * its pipe (*@wfd) to close; it exits 0 if the page then still holds its
 * pattern, 1 if it holds 'X' over its first 16 bytes, 2 otherwise. It
 * keeps no other descriptor open, and has dropped its privileges (with
 * @as_nobody) by the time holder() returns.
 */
static pid_t holder(char *p, int seed, int *wfd, bool as_nobody)
{
	int fd[2], ready[2];
	pid_t pid;
	char c;

	if (pipe(fd) || pipe(ready))
		return -1;
	pid = fork();
	if (pid) {
		close(fd[0]);
		close(ready[1]);
		*wfd = fd[1];
		if (pid < 0 || read(ready[0], &c, 1) != 1)
			pid = -1;
		close(ready[0]);
		return pid;
	}
	for (int i = 3; i < 1024; i++)
		if (i != fd[0] && i != ready[1])
			close(i);
	if (as_nobody && unprivileged())
		_exit(3);
	if (write(ready[1], "r", 1) != 1)
		_exit(3);
	close(ready[1]);
	if (read(fd[0], &c, 1) < 0)
		_exit(3);
	if (same(p, ps, seed))
		_exit(0);
	_exit(all(p, 16, 'X') && same(p + 16, ps - 16, seed + 16 * 7) ? 1 : 2);
}

static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void other_write(struct __test_metadata *_metadata, bool as_nobody)
{
	char *p = ro_page(4, true);
	int wfd;
	pid_t pid;

	ASSERT_NE(NULL, p);
	pid = holder(p, 4, &wfd, as_nobody);
	ASSERT_LT(0, pid);
	if (as_nobody)
		ASSERT_EQ(0, unprivileged());
	/* Not its tracer: root or its own user, refused but under "always" */
	ASSERT_EQ(expected(false), mem_write(pid, p, 'X', 16));
	close(wfd);
	ASSERT_EQ(expected(false) ? 0 : 1, reap(pid));
}

TEST(proc_pid_mem_write_by_root_not_a_tracer)
{
	REQUIRE_FORCE();
	other_write(_metadata, false);
}

TEST(proc_pid_mem_write_by_same_user_not_a_tracer)
{
	REQUIRE_FORCE();
	other_write(_metadata, true);
}

/* The tracer writes: PTRACE_POKEDATA, then /proc/PID/mem */
static void tracer_write(struct __test_metadata *_metadata, bool use_mem)
{
	char *p = ro_page(5, true);
	int wfd, status;
	long word;
	pid_t pid;

	ASSERT_NE(NULL, p);
	pid = holder(p, 5, &wfd, false);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, ptrace(PTRACE_ATTACH, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	if (use_mem) {
		ASSERT_EQ(expected(true), mem_write(pid, p, 'X', 16));
	} else {
		memset(&word, 'X', sizeof(word));
		for (size_t i = 0; i < 16; i += sizeof(word)) {
			errno = 0;
			ptrace(PTRACE_POKEDATA, pid, p + i, word);
			ASSERT_EQ(expected(true), errno);
		}
	}
	/* The tracer reads what is there */
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, pid, p, 0);
	ASSERT_EQ(0, errno);
	ASSERT_EQ(expected(true) ? (char)5 : 'X', (char)word);
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, pid, 0, 0));
	close(wfd);
	ASSERT_EQ(expected(true) ? 0 : 1, reap(pid));
}

TEST(ptrace_pokedata_by_the_tracer)
{
	REQUIRE_FORCE();
	tracer_write(_metadata, false);
}

TEST(proc_pid_mem_write_by_the_tracer)
{
	REQUIRE_FORCE();
	tracer_write(_metadata, true);
}

/* Tracing one process does not let it write into another one's memory */
TEST(proc_pid_mem_write_by_the_tracer_of_another_process)
{
	char *p;
	int wfd, wfd2, status;
	pid_t traced, other;

	REQUIRE_FORCE();
	p = ro_page(6, true);
	ASSERT_NE(NULL, p);
	traced = holder(p, 6, &wfd, false);
	ASSERT_LT(0, traced);
	other = holder(p, 6, &wfd2, false);
	ASSERT_LT(0, other);
	ASSERT_EQ(0, ptrace(PTRACE_ATTACH, traced, 0, 0));
	ASSERT_EQ(traced, waitpid(traced, &status, 0));
	ASSERT_EQ(expected(false), mem_write(other, p, 'X', 16));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, traced, 0, 0));
	close(wfd);
	close(wfd2);
	ASSERT_EQ(0, reap(traced));
	ASSERT_EQ(expected(false) ? 0 : 1, reap(other));
}

/* process_vm_writev() never overrides protections: EFAULT, in every mode */
TEST(process_vm_writev_into_sealed_read_only_memory)
{
	char buf[16], *p;
	struct iovec local = { buf, sizeof(buf) }, remote;

	REQUIRE_FORCE();
	p = ro_page(7, true);
	ASSERT_NE(NULL, p);
	remote.iov_base = p;
	remote.iov_len = sizeof(buf);
	memset(buf, 'X', sizeof(buf));
	ASSERT_EQ(-1, process_vm_writev(getpid(), &local, 1, &remote, 1, 0));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_TRUE(same(p, ps, 7));
}

/* userfaultfd */

static int uffd_open(struct __test_metadata *_metadata)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);

	if (fd < 0)
		fd = syscall(__NR_userfaultfd, O_CLOEXEC);
	EXPECT_LE(0, fd) TH_LOG("userfaultfd: %s", strerror(errno));
	if (fd >= 0)
		EXPECT_EQ(0, ioctl(fd, UFFDIO_API, &api));
	return fd;
}

static int uffd_register(int fd, void *p, size_t len, __u64 mode)
{
	struct uffdio_register reg = {
		.range = { (unsigned long)p, len }, .mode = mode,
	};

	return ioctl(fd, UFFDIO_REGISTER, &reg) ? errno : 0;
}

static int uffd_unregister(int fd, void *p, size_t len)
{
	struct uffdio_range range = { (unsigned long)p, len };

	return ioctl(fd, UFFDIO_UNREGISTER, &range) ? errno : 0;
}

static int uffd_copy(int fd, void *dst, const void *src, size_t len)
{
	struct uffdio_copy copy = {
		.dst = (unsigned long)dst, .src = (unsigned long)src, .len = len,
	};

	return ioctl(fd, UFFDIO_COPY, &copy) ? errno : 0;
}

/* Never touched, read-only: its pages read zeroes, unless a fill comes */
static char *untouched_ro(size_t pages)
{
	char *p = mmap(NULL, pages * ps, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | map_flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void registered_then_sealed(struct __test_metadata *_metadata,
				   bool as_nobody)
{
	char *p, *src;
	int fd;

	if (as_nobody)
		ASSERT_EQ(0, unprivileged());
	fd = uffd_open(_metadata);
	ASSERT_LE(0, fd);
	p = untouched_ro(2);
	src = malloc(ps);
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, src);
	memset(src, 'U', ps);
	ASSERT_EQ(0, uffd_register(fd, p, 2 * ps, UFFDIO_REGISTER_MODE_MISSING));
	ASSERT_EQ(-1, mseal(p, 2 * ps, 0));
	ASSERT_EQ(refused, errno);
	/* Nothing was sealed: the handler still fills it, as it may */
	ASSERT_EQ(0, uffd_copy(fd, p, src, ps));
	ASSERT_TRUE(all(p, ps, 'U'));
	/* Unregistered, it can be sealed, and the handler has no say */
	ASSERT_EQ(0, uffd_unregister(fd, p, 2 * ps));
	ASSERT_EQ(0, mseal(p, 2 * ps, 0));
	ASSERT_EQ(ENOENT, uffd_copy(fd, p + ps, src, ps));
	ASSERT_TRUE(all(p + ps, ps, 0));
	ASSERT_TRUE(all(p, ps, 'U'));
}

TEST(userfaultfd_registered_read_only_memory_cannot_be_sealed)
{
	REQUIRE_FORCE();
	registered_then_sealed(_metadata, false);
}

TEST(userfaultfd_registered_read_only_memory_cannot_be_sealed_unprivileged)
{
	REQUIRE_FORCE();
	registered_then_sealed(_metadata, true);
}

static void sealed_then_registered(struct __test_metadata *_metadata,
				   bool as_nobody)
{
	char *p, *src;
	int fd;
	struct uffdio_zeropage zero;
	struct uffdio_writeprotect wp;

	if (as_nobody)
		ASSERT_EQ(0, unprivileged());
	fd = uffd_open(_metadata);
	ASSERT_LE(0, fd);
	p = untouched_ro(3);
	src = malloc(ps);
	ASSERT_NE(NULL, p);
	ASSERT_NE(NULL, src);
	memset(src, 'U', ps);
	ASSERT_EQ(0, mseal(p + ps, ps, 0));
	/* Any mode, and nothing registered: the unsealed page neither */
	ASSERT_EQ(refused, uffd_register(fd, p, 3 * ps,
					 UFFDIO_REGISTER_MODE_MISSING));
	ASSERT_EQ(refused, uffd_register(fd, p + ps, ps,
					 UFFDIO_REGISTER_MODE_WP));
	ASSERT_EQ(refused, uffd_register(fd, p + ps, ps,
					 UFFDIO_REGISTER_MODE_MISSING |
					 UFFDIO_REGISTER_MODE_WP));
	ASSERT_EQ(ENOENT, uffd_copy(fd, p, src, ps));
	/* No fill reaches the sealed page */
	ASSERT_EQ(ENOENT, uffd_copy(fd, p + ps, src, ps));
	zero.range.start = (unsigned long)p + ps;
	zero.range.len = ps;
	zero.mode = 0;
	ASSERT_EQ(-1, ioctl(fd, UFFDIO_ZEROPAGE, &zero));
	ASSERT_EQ(ENOENT, errno);
	wp.range.start = (unsigned long)p + ps;
	wp.range.len = ps;
	wp.mode = 0;
	ASSERT_EQ(-1, ioctl(fd, UFFDIO_WRITEPROTECT, &wp));
	ASSERT_TRUE(all(p, 3 * ps, 0));
}

TEST(sealed_read_only_memory_cannot_be_registered)
{
	REQUIRE_FORCE();
	sealed_then_registered(_metadata, false);
}

TEST(sealed_read_only_memory_cannot_be_registered_unprivileged)
{
	REQUIRE_FORCE();
	sealed_then_registered(_metadata, true);
}

/* shmem, minor mode: UFFDIO_CONTINUE would map the file's page */
TEST(sealed_read_only_shmem_cannot_be_registered_for_minor_faults)
{
	struct uffdio_continue cont;
	char *p, *w;
	int fd, mfd;

	REQUIRE_FORCE();
	fd = uffd_open(_metadata);
	ASSERT_LE(0, fd);
	mfd = memfd_create("mseal_force_test", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, ps));
	w = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, w);
	memset(w, 'F', ps);
	p = mmap(NULL, ps, PROT_READ, MAP_SHARED | map_flags, mfd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, mseal(p, ps, 0));
	ASSERT_EQ(refused, uffd_register(fd, p, ps,
					 UFFDIO_REGISTER_MODE_MINOR));
	cont.range.start = (unsigned long)p;
	cont.range.len = ps;
	cont.mode = 0;
	ASSERT_EQ(-1, ioctl(fd, UFFDIO_CONTINUE, &cont));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_TRUE(all(p, ps, 'F'));
}

/* Make @n default-sized huge pages available (root): 0, or -1 */
static int reserve_huge_pages(int n)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%d\n", n) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* hugetlb: the same */
TEST(sealed_read_only_hugetlb_cannot_be_registered)
{
	size_t hps = 2UL << 20;
	char *p;
	int fd;

	REQUIRE_FORCE();
	fd = uffd_open(_metadata);
	ASSERT_LE(0, fd);
	/* MAP_SEALABLE is part of the page size with MAP_HUGETLB: opt in */
	ASSERT_EQ(0, mseal_set_sealable(1));
	p = mmap(NULL, hps, PROT_READ,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED && !reserve_huge_pages(2))
		p = mmap(NULL, hps, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED)
		SKIP(return, "no 2 MiB huge page: %s", strerror(errno));
	ASSERT_EQ(0, mseal(p, hps, 0));
	ASSERT_EQ(refused, uffd_register(fd, p, hps,
					 UFFDIO_REGISTER_MODE_MISSING));
	ASSERT_EQ(refused, uffd_register(fd, p, hps,
					 UFFDIO_REGISTER_MODE_MINOR));
	ASSERT_TRUE(all(p, 4096, 0));
}

/* Writable sealed memory: a userfaultfd writes what the process could */
TEST(sealed_writable_memory_works_with_userfaultfd)
{
	char *p, *src;
	int fd;

	REQUIRE_FORCE();
	fd = uffd_open(_metadata);
	ASSERT_LE(0, fd);
	p = mmap(NULL, ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | map_flags, -1, 0);
	src = malloc(ps);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_NE(NULL, src);
	memset(src, 'U', ps);
	ASSERT_EQ(0, uffd_register(fd, p, ps, UFFDIO_REGISTER_MODE_MISSING));
	ASSERT_EQ(0, mseal(p, ps, 0));
	ASSERT_EQ(0, uffd_copy(fd, p, src, ps));
	ASSERT_TRUE(all(p, ps, 'U'));
}

/*
 * A fill racing mseal(): a thread registers the range, fills its pages one
 * after the other, and unregisters it, over and over, while the main thread
 * tries to seal it. Once mseal() has succeeded, the range's bytes never
 * change again.
 */
struct racer {
	int fd;
	char *p, *src;
	size_t pages;
	volatile int stop;
};

static void *fill_loop(void *arg)
{
	struct racer *r = arg;

	while (!r->stop) {
		if (uffd_register(r->fd, r->p, r->pages * ps,
				  UFFDIO_REGISTER_MODE_MISSING))
			continue;
		for (size_t i = 0; i < r->pages && !r->stop; i++) {
			r->src[0] = (char)('a' + i % 26);
			uffd_copy(r->fd, r->p + i * ps, r->src, ps);
		}
		uffd_unregister(r->fd, r->p, r->pages * ps);
	}
	return NULL;
}

TEST(fill_racing_mseal)
{
	struct racer r = { .pages = 16 };
	char *snap;
	pthread_t t;
	int round, sealed_after = 0;

	REQUIRE_FORCE();
	r.fd = uffd_open(_metadata);
	ASSERT_LE(0, r.fd);
	r.src = calloc(1, ps);
	snap = malloc(r.pages * ps);
	ASSERT_NE(NULL, r.src);
	ASSERT_NE(NULL, snap);
	for (round = 0; round < 50; round++) {
		int tries = 0;

		r.p = untouched_ro(r.pages);
		ASSERT_NE(NULL, r.p);
		r.stop = 0;
		ASSERT_EQ(0, pthread_create(&t, NULL, fill_loop, &r));
		while (mseal(r.p, r.pages * ps, 0)) {
			ASSERT_EQ(refused, errno);
			tries++;
		}
		memcpy(snap, r.p, r.pages * ps);
		usleep(1000);
		r.stop = 1;
		pthread_join(t, NULL);
		sealed_after += tries > 0;
		ASSERT_EQ(0, memcmp(snap, r.p, r.pages * ps));
		ASSERT_EQ(refused, uffd_register(r.fd, r.p, r.pages * ps,
						 UFFDIO_REGISTER_MODE_MISSING));
	}
	TH_LOG("%d of 50 rounds sealed after mseal() had been refused", sealed_after);
}

TEST_HARNESS_MAIN
