// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_faults_dtest: memory allocation failures inside mseal() and inside
 * the calls that sealing refuses. For the debug kernel (tools/vm --debug):
 * it needs CONFIG_FAULT_INJECTION_DEBUG_FS, failslab and fail_page_alloc,
 * and skips as a whole (exit 4) without them.
 *
 * usage: mseal_faults_dtest [RANDOM_ROUNDS]	(default 40 per case)
 *
 * Systematic part: for k = 1, 2, 3... the k-th allocation of one call
 * fails (/proc/thread-self/fail-nth, which counts the allocations that
 * failslab and fail_page_alloc may fail; both are told not to spare
 * allocations that may sleep), until the call makes fewer than k
 * allocations. Random part: failslab and fail_page_alloc with task-filter,
 * /proc/self/make-it-fail set around the call only, probability 10-50%,
 * interval 1, space 0: several allocations of one call may fail.
 *
 * mseal() cases: a range that needs a VMA split at its start, at its end,
 * at both ends, none, a merge with a sealed neighbour, with two, a merge
 * and a split, a range across two VMAs; also mmap(PROT_SEAL). Each time:
 * the call succeeds and all of the range is sealed, or it fails with
 * ENOMEM and nothing is sealed (the design promise of the series: the only
 * steps that can fail come before the first VMA is sealed). Every page is
 * checked: mapped, protection, contents, sealed (an mprotect() to its own
 * protection, which only sealing refuses) and /proc/self/smaps "sl"; a
 * range that mseal() failed on must then unmap, one it sealed must not.
 *
 * Calls on sealed memory (munmap, mprotect, pkey_mprotect, mremap,
 * mmap(MAP_FIXED), madvise(MADV_DONTNEED)) under the same injection must
 * fail with EACCES (EPERM in the mainline ABI) or ENOMEM, and change
 * nothing.
 *
 * Last, kmemleak: cleared before the test, two scans after it, and
 * /sys/kernel/debug/kmemleak must list nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mseal.h>
#include "kselftest.h"

static int denied = EACCES;	/* a refused call's errno: EPERM in mainline's ABI */

#define DBG	"/sys/kernel/debug"
#define NPG	8		/* pages per case: [0,2) and [6,8) are guards */
#define MAXK	400		/* give up on a call that allocates more */

enum { P_NONE = 0, P_R = 1, P_RW = 3 };

struct region {
	char *base;
	int mapped[NPG], prot[NPG], sealed[NPG];
	unsigned int tag[NPG];	/* 0: zeroes; tags are never 0 */
};

static size_t page;
static unsigned int next_tag = 1;
static int nth_fd = -1, fail_fd = -1;	/* fail-nth, make-it-fail */
static char msg[512];
static long total_injected;

/* --- debugfs and /proc knobs ------------------------------------------------ */

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

static int read_str(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Saved settings, put back at the end. */
struct knob {
	const char *path;
	char old[64];
	int saved;
};

static struct knob knobs[] = {
	{ .path = DBG "/failslab/probability" }, { .path = DBG "/failslab/interval" },
	{ .path = DBG "/failslab/times" }, { .path = DBG "/failslab/space" },
	{ .path = DBG "/failslab/verbose" }, { .path = DBG "/failslab/task-filter" },
	{ .path = DBG "/failslab/ignore-gfp-wait" }, { .path = DBG "/failslab/cache-filter" },
	{ .path = DBG "/fail_page_alloc/probability" }, { .path = DBG "/fail_page_alloc/interval" },
	{ .path = DBG "/fail_page_alloc/times" }, { .path = DBG "/fail_page_alloc/space" },
	{ .path = DBG "/fail_page_alloc/verbose" }, { .path = DBG "/fail_page_alloc/task-filter" },
	{ .path = DBG "/fail_page_alloc/ignore-gfp-wait" },
	{ .path = DBG "/fail_page_alloc/ignore-gfp-highmem" },
	{ .path = DBG "/fail_page_alloc/min-order" },
};

static int set_knob(const char *path, const char *val)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		if (strcmp(knobs[i].path, path))
			continue;
		if (!knobs[i].saved && !read_str(path, knobs[i].old, sizeof(knobs[i].old)))
			knobs[i].saved = 1;
	}
	if (write_str(path, val)) {
		ksft_print_msg("cannot write %s to %s: %s\n", val, path, strerror(errno));
		return -1;
	}
	return 0;
}

static void restore_knobs(void)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (knobs[i].saved)
			write_str(knobs[i].path, knobs[i].old);
}

/* Both fault types: the given probability, every allocation eligible. */
static int set_both(const char *name, const char *val)
{
	char path[128];
	int ret = 0;

	snprintf(path, sizeof(path), DBG "/failslab/%s", name);
	ret |= set_knob(path, val);
	snprintf(path, sizeof(path), DBG "/fail_page_alloc/%s", name);
	ret |= set_knob(path, val);
	return ret;
}

static int setup_injection(void)
{
	int ret = 0;

	ret |= set_both("verbose", "0");
	ret |= set_both("task-filter", "Y");
	ret |= set_both("probability", "0");
	ret |= set_both("interval", "1");
	ret |= set_both("times", "1000000000");	/* counts down: the faults injected */
	ret |= set_both("space", "0");
	ret |= set_both("ignore-gfp-wait", "N");
	ret |= set_knob(DBG "/failslab/cache-filter", "N");
	ret |= set_knob(DBG "/fail_page_alloc/ignore-gfp-highmem", "N");
	ret |= set_knob(DBG "/fail_page_alloc/min-order", "0");
	return ret;
}

static long read_times(const char *which)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), DBG "/%s/times", which);
	if (read_str(path, buf, sizeof(buf)))
		return 0;
	return strtol(buf, NULL, 0);
}

/*
 * One call with its k-th allocation failing. Returns whether a failure
 * was injected; *ret and *err get the call's result.
 */
struct call {
	const char *name;
	long (*fn)(struct region *r, const void *arg);
	const void *arg;
};

/*
 * Each attempt runs in a child process: a fresh address space, so that the
 * sealed leftovers of earlier attempts do not pile up (and slow down every
 * read of /proc/self/smaps). The child reports here, in shared memory.
 */
struct attempt {
	long ret;
	int err;
	long injected;		/* faults injected into the call */
	int bad;		/* the check failed: msg says why */
	char msg[512];
};

static struct attempt *att;

static void child_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void child_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(att->msg, sizeof(att->msg), fmt, ap);
	va_end(ap);
	att->bad = 1;
	_exit(1);
}

static int call_nth(const struct call *c, struct region *r, unsigned int k,
		    long *ret, int *err)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%u", k);
	ssize_t got;

	if (pwrite(nth_fd, buf, len, 0) != len)
		child_fail("write fail-nth: %s", strerror(errno));
	errno = 0;
	*ret = c->fn(r, c->arg);
	*err = errno;
	got = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	if (got <= 0)
		child_fail("read fail-nth: %s", strerror(errno));
	buf[got] = 0;
	if (atoi(buf) == 0)
		return 1;
	if (pwrite(nth_fd, "0", 1, 0) != 1)	/* not reached: cancel it */
		child_fail("write fail-nth: %s", strerror(errno));
	return 0;
}

/* One call with random failures; returns how many were injected. */
static long call_random(const struct call *c, struct region *r, long *ret, int *err)
{
	long before = read_times("failslab") + read_times("fail_page_alloc");

	if (pwrite(fail_fd, "1", 1, 0) != 1)
		child_fail("write make-it-fail: %s", strerror(errno));
	errno = 0;
	*ret = c->fn(r, c->arg);
	*err = errno;
	if (pwrite(fail_fd, "0", 1, 0) != 1)
		child_fail("write make-it-fail: %s", strerror(errno));
	return before - read_times("failslab") - read_times("fail_page_alloc");
}

/* --- the memory under test ---------------------------------------------------- */

static char *pg(struct region *r, int k)
{
	return r->base + (size_t)k * page;
}

static int prot_bits(int prot)
{
	return prot == P_RW ? PROT_READ | PROT_WRITE :
	       prot == P_R ? PROT_READ : PROT_NONE;
}

static void fill(struct region *r, int k)
{
	unsigned int *q = (unsigned int *)pg(r, k);

	r->tag[k] = next_tag++;
	for (size_t i = 0; i < page / sizeof(*q); i++)
		q[i] = r->tag[k] ^ (unsigned int)i;
}

/* A reservation of NPG PROT_NONE pages: not sealable, nothing merges across it. */
static int map_region(struct region *r)
{
	memset(r, 0, sizeof(*r));
	r->base = mmap(NULL, NPG * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->base == MAP_FAILED)
		return -1;
	for (int k = 0; k < NPG; k++)
		r->mapped[k] = 1;
	return 0;
}

/* Pages [a, b) mapped sealable over the reservation, filled, with @prot. */
static int map_pages(struct region *r, int a, int b, int prot)
{
	if (mmap(pg(r, a), (b - a) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		 MAP_ANONYMOUS | MAP_FIXED | MAP_SEALABLE, -1, 0) != pg(r, a))
		return -1;
	for (int k = a; k < b; k++) {
		fill(r, k);
		r->prot[k] = prot;
	}
	return mprotect(pg(r, a), (b - a) * page, prot_bits(prot));
}

static int seal_pages(struct region *r, int a, int b)
{
	if (mseal(pg(r, a), (b - a) * page, 0))
		return -1;
	for (int k = a; k < b; k++)
		r->sealed[k] = 1;
	return 0;
}

/* Is the memory what @r says? Sets msg if not. */
static int check_region(struct region *r, const char *when)
{
	pid_t self = getpid();

	for (int k = 0; k < NPG; k++) {
		char *p = pg(r, k);
		struct iovec local, remote;
		unsigned char vec;
		int mapped, prot = P_NONE, sealed;
		unsigned int w;

		mapped = !mincore(p, page, &vec);
		if (mapped != r->mapped[k]) {
			snprintf(msg, sizeof(msg), "%s: page %d is %smapped", when, k,
				 mapped ? "" : "not ");
			return 1;
		}
		if (!mapped)
			continue;
		local.iov_base = &w;
		local.iov_len = sizeof(w);
		remote.iov_base = p;
		remote.iov_len = sizeof(w);
		if (process_vm_readv(self, &local, 1, &remote, 1, 0) == sizeof(w)) {
			prot = P_R;
			if (process_vm_writev(self, &local, 1, &remote, 1, 0) == sizeof(w))
				prot = P_RW;
		}
		sealed = mprotect(p, page, prot_bits(prot)) ? errno == denied ? 1 : 2 : 0;
		if (prot != r->prot[k] || sealed != r->sealed[k]) {
			snprintf(msg, sizeof(msg), "%s: page %d has protection %d%s, expected %d%s",
				 when, k, prot, sealed ? sealed == 1 ? " sealed" : " (mprotect error)" : "",
				 r->prot[k], r->sealed[k] ? " sealed" : "");
			return 1;
		}
		if (prot) {
			const unsigned int *q = (const unsigned int *)p;

			for (size_t i = 0; i < page / sizeof(*q); i++)
				if (q[i] != (r->tag[k] ? r->tag[k] ^ (unsigned int)i : 0)) {
					snprintf(msg, sizeof(msg), "%s: page %d changed at word %zu",
						 when, k, i);
					return 1;
				}
		}
	}
	return 0;
}

static char smaps[4 << 20];

/* /proc/self/smaps: "sl" on exactly the sealed pages of @r. */
static int check_smaps(struct region *r, const char *when)
{
	unsigned long lo = (unsigned long)r->base, hi = lo + NPG * page;
	unsigned long start = 0, end = 0;
	size_t len = 0;
	ssize_t got;
	char *line;
	int fd = open("/proc/self/smaps", O_RDONLY);

	if (fd < 0) {
		snprintf(msg, sizeof(msg), "open smaps: %s", strerror(errno));
		return 1;
	}
	while ((got = read(fd, smaps + len, sizeof(smaps) - 1 - len)) > 0)
		len += got;
	close(fd);
	smaps[len] = 0;
	for (line = smaps; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned long s, e;
		char perms[8];

		if (sscanf(line, "%lx-%lx %4s", &s, &e, perms) == 3) {
			start = s;
			end = e;
		} else if (!strncmp(line, "VmFlags:", 8) && end > lo && start < hi) {
			char *nl = strchr(line, '\n'), *sl;
			int sealed;

			if (nl)
				*nl = 0;
			sl = strstr(line, " sl");
			sealed = sl && (sl[3] == ' ' || sl[3] == 0);
			if (nl)
				*nl = '\n';
			for (unsigned long a = start > lo ? start : lo; a < end && a < hi; a += page) {
				int k = (a - lo) / page;

				if (sealed != r->sealed[k]) {
					snprintf(msg, sizeof(msg), "%s: smaps shows page %d %s",
						 when, k, sealed ? "sealed" : "not sealed");
					return 1;
				}
			}
		}
	}
	return 0;
}

/* --- the cases ------------------------------------------------------------------ */

struct seal_case {
	const char *name;
	int pre[2][2];		/* sealed before the call (b == 0: none) */
	int a, b;		/* mseal(pages [a, b)) */
	int mmap_seal;		/* mmap(PROT_SEAL) of [a, b) instead */
	int two_vmas;		/* [2,4) read-write, [4,6) read-only */
};

static const struct seal_case seal_cases[] = {
	{ "split at the start", {{0}}, 3, 6, 0, 0 },
	{ "split at the end", {{0}}, 2, 5, 0, 0 },
	{ "split at both ends", {{0}}, 3, 5, 0, 0 },
	{ "whole VMA, no split", {{0}}, 2, 6, 0, 0 },
	{ "merge with the sealed VMA before", {{2, 4}}, 4, 6, 0, 0 },
	{ "merge with the sealed VMA after", {{4, 6}}, 2, 4, 0, 0 },
	{ "merge with sealed VMAs on both sides", {{2, 3}, {5, 6}}, 3, 5, 0, 0 },
	{ "merge before and split at the end", {{2, 3}}, 3, 5, 0, 0 },
	{ "two VMAs, split at both ends", {{0}}, 3, 5, 0, 1 },
	{ "range over sealed and unsealed", {{3, 4}}, 2, 6, 0, 0 },
	{ "mmap(PROT_SEAL)", {{0}}, 2, 6, 1, 0 },
};

#define NSEAL (sizeof(seal_cases) / sizeof(seal_cases[0]))

static long do_seal_call(struct region *r, const void *arg)
{
	const struct seal_case *c = arg;
	void *p;

	if (!c->mmap_seal)
		return mseal(pg(r, c->a), (c->b - c->a) * page, 0);
	p = mmap(pg(r, c->a), (c->b - c->a) * page, PROT_READ | PROT_SEAL,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	return p == MAP_FAILED ? -1 : p == pg(r, c->a) ? 0 : -2;
}

static int setup_seal_case(const struct seal_case *c, struct region *r)
{
	if (map_region(r))
		return -1;
	if (c->mmap_seal)
		return 0;
	if (c->two_vmas) {
		if (map_pages(r, 2, 4, P_RW) || map_pages(r, 4, 6, P_R))
			return -1;
	} else if (map_pages(r, 2, 6, P_R)) {
		return -1;
	}
	for (int i = 0; i < 2; i++)
		if (c->pre[i][1] && seal_pages(r, c->pre[i][0], c->pre[i][1]))
			return -1;
	return 0;
}

struct counts {
	long calls, injected, failed, succeeded;
};

/*
 * After one mseal()/mmap(PROT_SEAL) call: all sealed or nothing sealed.
 * Returns 0 if so.
 */
static int judge_seal(const struct seal_case *c, struct region *r, long ret,
		      int err, struct counts *n)
{
	n->calls++;
	if (ret == 0) {
		n->succeeded++;
		if (c->mmap_seal) {
			for (int k = c->a; k < c->b; k++) {
				r->prot[k] = P_R;
				r->tag[k] = 0;
			}
		}
		for (int k = c->a; k < c->b; k++)
			r->sealed[k] = 1;
	} else {
		n->failed++;
		if (ret != -1 || err != ENOMEM) {
			snprintf(msg, sizeof(msg), "returned %ld, errno %s (expected ENOMEM)",
				 ret, strerrorname_np(err) ?: "?");
			return 1;
		}
		if (c->mmap_seal) {
			/* A failed MAP_FIXED may have unmapped the old pages. */
			unsigned char vec;

			for (int k = c->a; k < c->b; k++)
				r->mapped[k] = !mincore(pg(r, k), page, &vec);
		}
	}
	if (check_region(r, ret ? "after a failed call" : "after a successful call") ||
	    check_smaps(r, ret ? "after a failed call" : "after a successful call"))
		return 1;

	/* The proof: a range that is not sealed can be unmapped, a sealed one not. */
	if (ret == 0) {
		if (munmap(pg(r, c->a), (c->b - c->a) * page) != -1 || errno != denied ||
		    mprotect(pg(r, c->a), (c->b - c->a) * page, PROT_READ | PROT_WRITE) != -1 ||
		    errno != denied) {
			snprintf(msg, sizeof(msg), "the sealed range could be changed");
			return 1;
		}
		return check_region(r, "after munmap/mprotect of the sealed range");
	}
	for (int k = c->a; k < c->b; k++) {
		if (r->sealed[k] || !r->mapped[k])
			continue;
		if (munmap(pg(r, k), page)) {
			snprintf(msg, sizeof(msg), "after the failed call, page %d cannot be unmapped: %s",
				 k, strerror(errno));
			return 1;
		}
		r->mapped[k] = 0;
	}
	return check_region(r, "after unmapping what the failed call left unsealed");
}

/* Run @body(@arg, @k) in a child; the outcome is in *att. */
static void in_child(void (*body)(const void *, unsigned int), const void *arg, unsigned int k)
{
	int status;
	pid_t pid;

	memset(att, 0, sizeof(*att));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid == 0) {
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
		fail_fd = open("/proc/self/make-it-fail", O_RDWR);
		if (nth_fd < 0 || fail_fd < 0)
			child_fail("open fail-nth or make-it-fail: %s", strerror(errno));
		body(arg, k);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!att->bad)
			snprintf(att->msg, sizeof(att->msg), "the child died (status %#x)", status);
		att->bad = 1;
	}
}

static void count(struct counts *n)
{
	n->calls++;
	n->injected += att->injected;
	if (att->ret)
		n->failed++;
	else
		n->succeeded++;
}

/* k > 0: the k-th allocation fails; k == 0: random failures. */
static void seal_attempt(const void *arg, unsigned int k)
{
	const struct seal_case *c = arg;
	struct call call = { c->name, do_seal_call, c };
	struct counts unused = { 0 };
	struct region r;

	if (setup_seal_case(c, &r))
		child_fail("setup: %s", strerror(errno));
	if (k)
		att->injected = call_nth(&call, &r, k, &att->ret, &att->err);
	else
		att->injected = call_random(&call, &r, &att->ret, &att->err);
	if (judge_seal(c, &r, att->ret, att->err, &unused))
		child_fail("%s", msg);
}

static void run_seal_case(const struct seal_case *c, int rounds)
{
	struct counts sys = { 0 }, rnd = { 0 };
	int failed = 0, last_ret = -1;
	unsigned int k;

	for (k = 1; k <= MAXK && !failed; k++) {
		in_child(seal_attempt, c, k);
		count(&sys);
		if (att->bad) {
			ksft_print_msg("%s: allocation %u failing: %s\n", c->name, k, att->msg);
			failed = 1;
		}
		if (!att->injected) {
			last_ret = att->ret;
			break;
		}
	}
	if (!failed && last_ret != 0) {
		ksft_print_msg("%s: %s\n", c->name, k > MAXK ? "more than MAXK allocations" :
			       "fails without an injected fault");
		failed = 1;
	}

	for (int i = 0; i < rounds && !failed; i++) {
		char prob[8];

		snprintf(prob, sizeof(prob), "%d", 10 + 10 * (i % 5));
		set_both("probability", prob);
		in_child(seal_attempt, c, 0);
		set_both("probability", "0");
		count(&rnd);
		if (att->bad) {
			ksft_print_msg("%s: random failures (%s%%): %s\n", c->name, prob, att->msg);
			failed = 1;
		}
	}
	total_injected += sys.injected + rnd.injected;
	ksft_print_msg("%s: %u allocations in the call; one failing: %ld calls, %ld faults injected, "
		       "%ld failed (ENOMEM), %ld succeeded; random: %ld calls, %ld faults injected, "
		       "%ld failed, %ld succeeded\n", c->name, k - 1, sys.calls, sys.injected,
		       sys.failed, sys.succeeded, rnd.calls, rnd.injected, rnd.failed, rnd.succeeded);
	ksft_test_result(!failed, "mseal under allocation failures: %s\n", c->name);
}

/* --- calls on sealed memory ---------------------------------------------------------- */

struct op_case {
	const char *name;
	int op, a, b;
};

enum { OP_MUNMAP, OP_MPROTECT, OP_PKEY_MPROTECT, OP_MOVE, OP_SHRINK, OP_EXPAND,
       OP_MMAP_FIXED, OP_MADVISE, OP_MOVE_ONTO };

static const struct op_case op_cases[] = {
	{ "munmap(sealed)", OP_MUNMAP, 3, 5 },
	{ "munmap(sealed + unsealed)", OP_MUNMAP, 2, 6 },
	{ "mprotect(sealed)", OP_MPROTECT, 3, 5 },
	{ "mprotect(unsealed + sealed)", OP_MPROTECT, 2, 4 },
	{ "pkey_mprotect(sealed)", OP_PKEY_MPROTECT, 3, 5 },
	{ "mremap(sealed) to elsewhere", OP_MOVE, 3, 5 },
	{ "mremap(sealed) shrink", OP_SHRINK, 3, 5 },
	{ "mremap(sealed) expand, may move", OP_EXPAND, 3, 5 },
	{ "mremap(unsealed) onto sealed", OP_MOVE_ONTO, 3, 5 },
	{ "mmap(MAP_FIXED) over sealed", OP_MMAP_FIXED, 3, 5 },
	{ "mmap(MAP_FIXED) over unsealed + sealed", OP_MMAP_FIXED, 2, 4 },
	{ "madvise(MADV_DONTNEED) of read-only sealed", OP_MADVISE, 3, 5 },
};

#define NOPS (sizeof(op_cases) / sizeof(op_cases[0]))

static char *spare;	/* pages to move to and from, outside the regions */

static long do_op_call(struct region *r, const void *arg)
{
	const struct op_case *c = arg;
	char *p = pg(r, c->a);
	size_t len = (c->b - c->a) * page;
	void *q;

	switch (c->op) {
	case OP_MUNMAP:
		return munmap(p, len);
	case OP_MPROTECT:
		return mprotect(p, len, PROT_READ | PROT_WRITE);
	case OP_PKEY_MPROTECT:
		return syscall(SYS_pkey_mprotect, p, len, PROT_READ | PROT_WRITE, 0);
	case OP_MOVE:
		q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, spare);
		return q == MAP_FAILED ? -1 : 0;
	case OP_SHRINK:
		q = mremap(p, len, page, 0);
		return q == MAP_FAILED ? -1 : 0;
	case OP_EXPAND:
		q = mremap(p, len, len + 2 * page, MREMAP_MAYMOVE);
		return q == MAP_FAILED ? -1 : 0;
	case OP_MOVE_ONTO:
		q = mremap(spare + 4 * page, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, p);
		return q == MAP_FAILED ? -1 : 0;
	case OP_MMAP_FIXED:
		q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED, -1, 0);
		return q == MAP_FAILED ? -1 : 0;
	case OP_MADVISE:
		return madvise(p, len, MADV_DONTNEED);
	}
	errno = EINVAL;
	return -1;
}

/* [2, 6) read-only, [3, 5) sealed. */
static int setup_op_case(struct region *r)
{
	return map_region(r) || map_pages(r, 2, 6, P_R) || seal_pages(r, 3, 5);
}

static int judge_op(const struct op_case *c, struct region *r, long ret, int err,
		    struct counts *n)
{
	n->calls++;
	if (ret == 0) {
		n->succeeded++;
		snprintf(msg, sizeof(msg), "succeeded");
		return 1;
	}
	n->failed++;
	if (err != denied && err != ENOMEM &&
	    !(c->op == OP_PKEY_MPROTECT && (err == EINVAL || err == ENOSYS))) {
		snprintf(msg, sizeof(msg), "failed with %s, not %s or ENOMEM",
			 strerrorname_np(err) ?: "?", strerrorname_np(denied));
		return 1;
	}
	return check_region(r, "after the refused call") || check_smaps(r, "after the refused call");
}

static void op_attempt(const void *arg, unsigned int k)
{
	const struct op_case *c = arg;
	struct call call = { c->name, do_op_call, c };
	struct counts unused = { 0 };
	struct region r;

	if (setup_op_case(&r))
		child_fail("setup: %s", strerror(errno));
	if (k)
		att->injected = call_nth(&call, &r, k, &att->ret, &att->err);
	else
		att->injected = call_random(&call, &r, &att->ret, &att->err);
	if (judge_op(c, &r, att->ret, att->err, &unused))
		child_fail("%s", msg);
}

static void run_op_cases(int rounds)
{
	struct counts sys = { 0 }, rnd = { 0 };
	long eacces = 0, enomem = 0;
	int failed = 0;

	for (size_t i = 0; i < NOPS && !failed; i++) {
		const struct op_case *c = &op_cases[i];
		unsigned int k, allocs = 0;

		for (k = 1; k <= MAXK && !failed; k++) {
			in_child(op_attempt, c, k);
			count(&sys);
			if (att->bad) {
				ksft_print_msg("%s: allocation %u failing: %s\n", c->name, k, att->msg);
				failed = 1;
			}
			eacces += att->ret && att->err == denied;
			enomem += att->ret && att->err == ENOMEM;
			if (!att->injected)
				break;
			allocs = k;
		}
		for (int j = 0; j < rounds && !failed; j++) {
			char prob[8];

			snprintf(prob, sizeof(prob), "%d", 10 + 10 * (j % 5));
			set_both("probability", prob);
			in_child(op_attempt, c, 0);
			set_both("probability", "0");
			count(&rnd);
			if (att->bad) {
				ksft_print_msg("%s: random failures (%s%%): %s\n", c->name, prob, att->msg);
				failed = 1;
			}
			eacces += att->ret && att->err == denied;
			enomem += att->ret && att->err == ENOMEM;
		}
		ksft_print_msg("%s: %u allocations before it is refused\n", c->name, allocs);
	}
	total_injected += sys.injected + rnd.injected;
	ksft_print_msg("calls on sealed memory: one failing: %ld calls, %ld faults injected; "
		       "random: %ld calls, %ld faults injected; %ld %s, %ld ENOMEM, %ld succeeded\n",
		       sys.calls, sys.injected, rnd.calls, rnd.injected, eacces,
		       strerrorname_np(denied), enomem,
		       sys.succeeded + rnd.succeeded);
	ksft_test_result(!failed, "calls on sealed memory under allocation failures fail and change nothing\n");
}

/* --- kmemleak ---------------------------------------------------------------------- */

#define KMEMLEAK DBG "/kmemleak"

static int kmemleak_ok;

/* How many objects /sys/kernel/debug/kmemleak lists. */
static int kmemleak_count(void)
{
	static char buf[1 << 16];
	int fd = open(KMEMLEAK, O_RDONLY), n = 0;
	ssize_t got;

	if (fd < 0)
		return 0;
	while ((got = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[got] = 0;
		for (char *p = buf; (p = strstr(p, "unreferenced object")); p++)
			n++;
	}
	close(fd);
	return n;
}

/*
 * One scan, announced: it is one write() that takes minutes on the debug
 * kernel under TCG on a busy machine, and tests/run counts a guest that
 * prints nothing for long as hung (issue 19).
 */
static int kmemleak_scan(const char *when, int n)
{
	ksft_print_msg("kmemleak: scan %d of 2 %s\n", n, when);
	return !write_str(KMEMLEAK, "scan");
}

/*
 * Forget what was unreferenced before the test (the debug kernel has
 * leaks from boot). "clear" only forgets what has been reported, and an
 * object is reported at the second scan that finds it unreferenced and
 * unchanged, so: scan, scan, clear. The scans announce what they find on
 * the console ("N new suspected memory leaks"), which tools/vm would take
 * for a splat of this test: the console's log level is lowered to 5
 * (warnings and worse still show) meanwhile.
 */
static void kmemleak_start(void)
{
	char old[64] = "";
	int found;

	if (read_str("/proc/sys/kernel/printk", old, sizeof(old)) == 0) {
		old[strcspn(old, " \t")] = 0;
		write_str("/proc/sys/kernel/printk", "5");
	}
	kmemleak_ok = kmemleak_scan("before the test", 1) &&
		      kmemleak_scan("before the test", 2);
	found = kmemleak_ok ? kmemleak_count() : 0;
	kmemleak_ok = kmemleak_ok && !write_str(KMEMLEAK, "clear");
	sleep(1);	/* let the console catch up before the level goes back */
	if (*old)
		write_str("/proc/sys/kernel/printk", old);
	if (!kmemleak_ok)
		ksft_print_msg("kmemleak is not available: %s\n", strerror(errno));
	else
		ksft_print_msg("kmemleak: %d objects unreferenced before the test, cleared\n", found);
}

static void kmemleak_end(void)
{
	static char report[1 << 16];
	int fd;
	ssize_t n;

	if (!kmemleak_ok) {
		ksft_test_result_skip("kmemleak: not available\n");
		return;
	}
	/* Objects are reported once unreferenced for 5 s. */
	sleep(6);
	kmemleak_scan("after the test", 1);
	sleep(6);
	kmemleak_scan("after the test", 2);
	fd = open(KMEMLEAK, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, report, sizeof(report) - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		ksft_test_result_fail("kmemleak: cannot read %s: %s\n", KMEMLEAK, strerror(errno));
		return;
	}
	report[n] = 0;
	if (n) {
		char *line = report;
		int lines = 0;

		while (line && *line && lines++ < 40) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = 0;
			ksft_print_msg("kmemleak: %s\n", line);
			line = nl ? nl + 1 : NULL;
		}
	}
	ksft_test_result(n == 0, "kmemleak: no leaks after the test\n");
}

int main(int argc, char **argv)
{
	int rounds = 40;
	char path[64];

	page = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		rounds = atoi(argv[1]);

	ksft_print_header();
	if (!mseal_supported())
		ksft_exit_skip("mseal() is not implemented (ENOSYS)\n");
	denied = mseal_errno();
	ksft_print_msg("mseal() ABI: %s\n", denied == EPERM ? "mainline" : "v6");
	if (access(DBG "/failslab/probability", W_OK) ||
	    access(DBG "/fail_page_alloc/probability", W_OK))
		ksft_exit_skip("no failslab and fail_page_alloc in debugfs (CONFIG_FAULT_INJECTION_DEBUG_FS, "
			       "CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, debugfs at " DBG ")\n");
	if (access("/proc/thread-self/fail-nth", W_OK) || access("/proc/self/make-it-fail", W_OK))
		ksft_exit_skip("no /proc/thread-self/fail-nth or /proc/self/make-it-fail\n");
	att = mmap(NULL, sizeof(*att), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (att == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));

	ksft_set_plan(NSEAL + 2);
	kmemleak_start();
	if (setup_injection()) {
		restore_knobs();
		ksft_exit_fail_msg("cannot configure fault injection\n");
	}
	spare = mmap(NULL, 16 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (spare == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	snprintf(path, sizeof(path), "%d", rounds);
	ksft_print_msg("random rounds per case: %s\n", path);

	for (size_t i = 0; i < NSEAL; i++)
		run_seal_case(&seal_cases[i], rounds);
	run_op_cases(rounds);
	restore_knobs();
	ksft_print_msg("faults injected in all: %ld\n", total_injected);
	kmemleak_end();
	ksft_finished();
}
