// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_race_test: mseal() racing the calls it must stop.
 *
 * usage: mseal_race_test [ROUNDS [PAIR...]]
 *	ROUNDS	rounds per racing pair (default 1000: ~30 s under TCG)
 *	PAIR	munmap mprotect mremap-move mremap-resize madvise mmap-fixed
 *		fork madvise-uffd (default: all of them)
 *
 * Each round, two threads lined up by a pthread barrier call, at the same
 * moment and with a random (self-balancing) delay, mseal() on a range S and
 * another call on a range O of the same fresh mapping: munmap(),
 * mprotect(PROT_READ | PROT_WRITE), mremap() moving O elsewhere,
 * mremap() shrinking or expanding O in place, madvise(MADV_DONTNEED) of the
 * read-only memory, mmap(MAP_FIXED) over O, or fork() with the child
 * checking its copy. S and O vary from round to round: they are equal,
 * nested, overlapping or disjoint, and S needs a VMA split at its start, its
 * end, both or neither.
 *
 * The calls hold mmap_lock, so the outcome must be that of one of the two
 * orders: mseal() then the other call, or the other call then mseal(). A
 * model computes both: the return values and, page by page, whether the
 * page is mapped, its protection, whether it is sealed and what it holds.
 * The round passes if what the calls returned and what the memory looks
 * like afterwards (mincore(), process_vm_readv/writev() probes, an
 * mprotect() to the same protection, which only a sealed page refuses, and
 * every word of every page) are exactly one of the two. This covers "no call
 * half-applies": a call that succeeded did all of its work, one that failed
 * did none, and mseal() either sealed all of S or none of it.
 *
 * When mseal() succeeded, the round then tries munmap, mprotect,
 * pkey_mprotect, mremap (move, shrink, grow), mmap(MAP_FIXED) and
 * madvise(MADV_DONTNEED) on S: all must fail with EACCES (EPERM in the
 * mainline ABI; madvise only where the memory is not writable) and change
 * nothing. At the end of each batch of rounds every range of the batch is
 * checked again (nothing about a sealed range may ever change) and against
 * /proc/self/smaps, where each sealed page must be in a VMA with "sl" in
 * VmFlags and no other page may be.
 *
 * Sealed memory cannot be unmapped, so each batch of rounds runs in a child
 * process that maps its rounds out of one reservation and then exits.
 *
 * madvise-uffd: the same race, but the mapping is registered with
 * userfaultfd (one registration of all of it, UFFDIO_REGISTER_MODE_MISSING,
 * UFFD_FEATURE_EVENT_REMOVE) and a third thread is its monitor. Then
 * madvise(MADV_DONTNEED or MADV_FREE) drops mmap_lock at the very start of
 * its walk, queues a UFFD_EVENT_REMOVE and waits until the monitor has read
 * it, which the monitor does after a random (self-balancing) delay; mseal()
 * may run meanwhile (after unregistering the mapping: read-only memory
 * cannot be sealed while a userfaultfd may fill it). The outcome must still be one of the two orders, and
 * if mseal() returned before the monitor began to read the event, the
 * madvise() in flight had not taken mmap_lock back yet when the range was
 * sealed: then only "mseal() first" is right (madvise() refused with EACCES
 * where it overlaps S, nothing discarded there). Without that rule, a
 * madvise() that discards what was sealed while it waited would look like
 * "madvise() first, then mseal()". Each round is counted as: no event
 * (madvise() came after mseal() and was refused before dropping the lock),
 * mseal() returned while madvise() waited (the window), or event read
 * first. The userfaultfd is closed before the memory is looked at (a page
 * wrongly discarded reads as zeroes instead of waiting for the monitor),
 * and after MADV_FREE the mapping is paged out (MADV_PAGEOUT, with the LRU
 * batches of every CPU drained first, and before the round too, so that
 * every page is on an LRU list when MADV_FREE runs), as lazily freed pages
 * only go at reclaim: what mseal() sealed afterwards must keep its contents,
 * the rest reads as zeroes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include <mseal.h>
#include "kselftest.h"

#define NPG	16	/* pages per round: the slot */
#define MPG	6	/* the mapping under test: slot pages [0, 6) */
#define DST	8	/* where mremap() moves to: [8, 14) */
#define BATCH	50	/* rounds per child process */
#define FORK_BATCH 10	/* fewer for fork: its cost grows with the VMAs */
#define MAXPRINT 5	/* failure reports per pair */

enum { P_NONE = 0, P_R = 1, P_RW = 3 };

enum pair {
	PR_MUNMAP, PR_MPROTECT, PR_MOVE, PR_RESIZE, PR_MADVISE, PR_MMAP_FIXED,
	PR_FORK, PR_MADVISE_UFFD, NPAIRS
};

static const char *const pair_arg[NPAIRS] = {
	"munmap", "mprotect", "mremap-move", "mremap-resize", "madvise",
	"mmap-fixed", "fork", "madvise-uffd",
};

static const char *const pair_name[NPAIRS] = {
	"munmap", "mprotect", "mremap (move)", "mremap (shrink/expand)",
	"madvise(MADV_DONTNEED)", "mmap(MAP_FIXED)", "fork",
	"madvise(MADV_DONTNEED/MADV_FREE) under userfaultfd",
};

struct range {
	int a, b;		/* slot pages [a, b) */
};

static const struct range seal_ranges[4] = { {1, 5}, {0, 6}, {0, 3}, {2, 6} };
static const struct range op_ranges[4] = { {1, 5}, {0, 6}, {0, 3}, {3, 6} };

/* mremap() in place: old range [a, a + old), new length. */
static const struct { int a, old, new; } resizes[4] = {
	{0, 6, 3}, {1, 4, 2}, {0, 6, 8}, {3, 3, 5},
};

struct pg {
	unsigned char mapped, prot, sealable, sealed;
	unsigned char lazy;	/* freed by MADV_FREE: goes at reclaim */
	uint32_t tag;		/* contents: 0 = zeroes, RES = not readable */
};

#define RES	0xffffffffu
#define BAD	0xfffffffeu	/* observed contents match no tag */

struct state {
	struct pg p[NPG];
};

struct round {
	enum pair pair;
	int variant;
	unsigned long id;
	char *base;
	struct range S, O;
	int sealable;		/* mmap(MAP_FIXED) with MAP_SEALABLE */
	struct state init, A, B; /* A: mseal() first, B: the other call first */
	int sA, rA, sB, rB;
	unsigned long seal_delay, op_delay;
	int r, child;		/* the other call's result, fork child's verdict */
	double op_t0, op_t1;	/* when the other call ran */
	int stop;
	/* madvise-uffd */
	int advice;		/* MADV_DONTNEED or MADV_FREE */
	int uffd, done_fd;	/* the userfaultfd; madvise() has returned */
	unsigned long mon_delay; /* before the monitor reads the first event */
	int events;		/* UFFD_EVENT_REMOVEs the monitor read */
	double read_t;		/* just before it read the first one */
	char mon_err[128];	/* what went wrong in the monitor */
};

struct pair_stats {
	long rounds, seal_first, op_first, either, fails, printed;
	long overlapped;	/* rounds where the two calls overlapped in time */
	long bias;
	/* madvise-uffd: how the rounds went, see the top of the file */
	long no_event, window, window_differ, read_first, window_fails;
	long mon_bias;
};

static size_t page;
static unsigned long jitter;		/* spin loops */
static struct pair_stats *stats;	/* shared with the batch children */
static struct round cur;
static volatile unsigned long seal_done; /* id of the round mseal() succeeded in */
static pthread_barrier_t start_b, done_b;
static uint64_t rng;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__asm__ volatile("pause" ::: "memory");
#else
		__asm__ volatile("" ::: "memory");
#endif
	}
}

static char *pg_addr(char *base, int k)
{
	return base + (size_t)k * page;
}

static size_t rlen(struct range r)
{
	return (size_t)(r.b - r.a) * page;
}

static int prot_bits(int prot)
{
	return prot == P_RW ? PROT_READ | PROT_WRITE :
	       prot == P_R ? PROT_READ : PROT_NONE;
}

static uint64_t word(uint32_t tag, size_t i)
{
	return tag ? (uint64_t)tag << 32 | i : 0;
}

/* The failure report of a pair, if it still has some to print. */
static void report(struct pair_stats *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void report(struct pair_stats *st, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (__atomic_fetch_add(&st->printed, 1, __ATOMIC_RELAXED) >= MAXPRINT)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dprintf(STDOUT_FILENO, "# %s\n", buf);
}

/* --- the model ----------------------------------------------------------- */

/* The ABI: mainline's seals memory mapped without MAP_SEALABLE too. */
static int mainline;
static int denied = EACCES;	/* errno of a refused call: EPERM in mainline's */

static int any_sealed(const struct state *st, struct range r)
{
	for (int k = r.a; k < r.b; k++)
		if (st->p[k].mapped && st->p[k].sealed)
			return 1;
	return 0;
}

static int model_seal(struct state *st, struct range S)
{
	for (int k = S.a; k < S.b; k++) {
		if (!st->p[k].mapped)
			return ENOMEM;
		if (!st->p[k].sealable && !mainline)
			return denied;
	}
	for (int k = S.a; k < S.b; k++) {
		st->p[k].sealed = 1;
		/* No one may discard it now: lazily freed pages are kept. */
		if (st->p[k].prot != P_RW)
			st->p[k].lazy = 0;
	}
	return 0;
}

/* Reclaim: pages lazily freed go. */
static void model_reclaim(struct state *st)
{
	for (int k = 0; k < NPG; k++)
		if (st->p[k].lazy) {
			st->p[k].lazy = 0;
			st->p[k].tag = 0;
		}
}

static void model_unmap(struct state *st, int a, int b)
{
	for (int k = a; k < b; k++)
		memset(&st->p[k], 0, sizeof(st->p[k]));
}

static int model_op(struct state *st, const struct round *rd)
{
	struct range O = rd->O;
	struct pg moved[NPG];
	int n;

	switch (rd->pair) {
	case PR_MUNMAP:
		if (any_sealed(st, O))
			return denied;
		model_unmap(st, O.a, O.b);
		return 0;
	case PR_MPROTECT:
		if (any_sealed(st, O))
			return denied;
		for (int k = O.a; k < O.b; k++)
			st->p[k].prot = P_RW;
		return 0;
	case PR_MOVE:
		if (any_sealed(st, O))
			return denied;
		n = O.b - O.a;
		memcpy(moved, &st->p[O.a], n * sizeof(moved[0]));
		model_unmap(st, O.a, O.b);
		memcpy(&st->p[DST], moved, n * sizeof(moved[0]));
		return 0;
	case PR_RESIZE: {
		int a = resizes[rd->variant].a, old = resizes[rd->variant].old;
		int new = resizes[rd->variant].new;

		if (any_sealed(st, O))
			return denied;
		if (new < old) {
			model_unmap(st, a + new, a + old);
		} else {
			for (int k = a + old; k < a + new; k++) {
				st->p[k] = st->p[a + old - 1];
				st->p[k].tag = 0;
			}
		}
		return 0;
	}
	case PR_MADVISE:
	case PR_MADVISE_UFFD:
		for (int k = O.a; k < O.b; k++)
			if (st->p[k].sealed && st->p[k].prot != P_RW)
				return denied;
		for (int k = O.a; k < O.b; k++) {
			if (rd->pair == PR_MADVISE_UFFD && rd->advice == MADV_FREE)
				st->p[k].lazy = 1;
			else
				st->p[k].tag = 0;
		}
		return 0;
	case PR_MMAP_FIXED:
		if (any_sealed(st, O))
			return denied;
		for (int k = O.a; k < O.b; k++)
			st->p[k] = (struct pg){ .mapped = 1, .prot = P_RW,
						.sealable = rd->sealable };
		return 0;
	case PR_FORK:
	case NPAIRS:
		break;
	}
	return 0;
}

/* --- looking at the memory ----------------------------------------------- */

static void observe(char *base, struct state *obs)
{
	pid_t self = getpid();

	memset(obs, 0, sizeof(*obs));
	for (int k = 0; k < NPG; k++) {
		char *p = pg_addr(base, k);
		struct pg *o = &obs->p[k];
		struct iovec local, remote;
		unsigned char vec;
		uint64_t w;

		if (mincore(p, page, &vec))
			continue;	/* ENOMEM: not mapped */
		o->mapped = 1;
		local.iov_base = &w;
		local.iov_len = sizeof(w);
		remote.iov_base = p;
		remote.iov_len = sizeof(w);
		if (process_vm_readv(self, &local, 1, &remote, 1, 0) == sizeof(w)) {
			o->prot = P_R;
			/* Writes back what is there: changes nothing. */
			if (process_vm_writev(self, &local, 1, &remote, 1, 0) == sizeof(w))
				o->prot = P_RW;
		}
		/* Only a sealed page refuses its own protection. */
		if (mprotect(p, page, prot_bits(o->prot)))
			o->sealed = errno == denied ? 1 : 2;
		o->tag = RES;
		if (o->prot) {
			const uint64_t *q = (const uint64_t *)p;
			uint32_t tag = q[0] >> 32;

			o->tag = tag;
			for (size_t i = 0; i < page / sizeof(*q); i++)
				if (q[i] != word(tag, i)) {
					o->tag = BAD;
					break;
				}
		}
	}
}

static void state_str(const struct state *st, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (int k = 0; k < NPG && len + 8 < n; k++) {
		const struct pg *p = &st->p[k];
		char c = !p->mapped ? '.' : p->prot == P_RW ? 'w' :
			 p->prot == P_R ? 'r' : 'n';
		char t = !p->mapped || p->tag == RES ? '-' : p->tag == BAD ? '?' :
			 p->tag == 0 ? 'z' : "0123456789abcdef"[(p->tag - 1) % NPG];

		if (p->mapped && p->sealed == 1)
			c -= 'a' - 'A';
		else if (p->mapped && p->sealed)
			c = '!';
		len += snprintf(buf + len, n - len, "%c%c ", c, t);
	}
}

/* 0 if @got is @want as far as it can be seen. */
static int state_diff(const struct state *want, const struct state *got)
{
	for (int k = 0; k < NPG; k++) {
		const struct pg *w = &want->p[k], *g = &got->p[k];

		if (w->mapped != g->mapped)
			return 1;
		if (!w->mapped)
			continue;
		if (w->prot != g->prot || w->sealed != g->sealed)
			return 1;
		if (w->prot && w->tag != g->tag)
			return 1;
	}
	return 0;
}

static char smaps_buf[8 << 20];
static unsigned char seen[BATCH * NPG];

/*
 * /proc/self/smaps against @want for the @nslots slots from @base: every
 * page that should be mapped is, with the right protection, and in a VMA
 * with "sl" in VmFlags exactly if it should be sealed.
 */
static int check_smaps(char *base, int nslots, const struct state *want,
		       char *msg, size_t n)
{
	unsigned long lo = (unsigned long)base, hi = lo + nslots * NPG * page;
	unsigned long start = 0, end = 0;
	char perms[8] = "";
	size_t len = 0;
	ssize_t got;
	char *line;
	int fd;

	fd = open("/proc/self/smaps", O_RDONLY);
	if (fd < 0) {
		snprintf(msg, n, "open /proc/self/smaps: %s", strerror(errno));
		return 1;
	}
	while ((got = read(fd, smaps_buf + len, sizeof(smaps_buf) - 1 - len)) > 0)
		len += got;
	close(fd);
	if (got < 0 || len >= sizeof(smaps_buf) - 1) {
		snprintf(msg, n, "reading /proc/self/smaps failed or it is too big");
		return 1;
	}
	smaps_buf[len] = 0;
	memset(seen, 0, nslots * NPG);

	for (line = smaps_buf; *line; ) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = 0;
		unsigned long s, e;
		char pm[8];

		/* A VMA header (sscanf() may set s on lines like "Anonymous:"). */
		if (sscanf(line, "%lx-%lx %4s", &s, &e, pm) == 3) {
			start = s;
			end = e;
			memcpy(perms, pm, sizeof(perms));
		} else if (!strncmp(line, "VmFlags:", 8) && end > lo && start < hi) {
			char *sl = strstr(line, " sl");
			int sealed = sl && (sl[3] == ' ' || sl[3] == 0);
			int prot = perms[1] == 'w' ? P_RW : perms[0] == 'r' ? P_R : P_NONE;

			for (unsigned long a = start > lo ? start : lo;
			     a < end && a < hi; a += page) {
				int k = (a - lo) / page;
				const struct pg *w = &want[k / NPG].p[k % NPG];

				seen[k] = 1;
				if (!w->mapped || w->prot != prot || w->sealed != sealed) {
					snprintf(msg, n, "smaps: round %d page %d is %s %s, expected %s",
						 k / NPG, k % NPG, perms, sealed ? "sl" : "not sl",
						 !w->mapped ? "unmapped" : w->sealed ? "sealed" : "not sealed");
					return 1;
				}
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	for (int k = 0; k < nslots * NPG; k++)
		if (want[k / NPG].p[k % NPG].mapped && !seen[k]) {
			snprintf(msg, n, "smaps: round %d page %d missing", k / NPG, k % NPG);
			return 1;
		}
	return 0;
}

/* --- fork -------------------------------------------------------------- */

/*
 * In the child of a fork() that raced mseal(): its copy must be the parent's
 * memory before mseal() or after it, never in between, and after it if the
 * parent saw mseal() return before fork() copied its memory (seal_done is
 * written after mseal() returns, and fork() copies memory under mmap_lock,
 * so a copy that has the write ran after mseal() had finished).
 * Exit status: 0 saw it sealed, 1 saw it unsealed, 2 failed.
 */
static int child_check(struct round *rd)
{
	struct pair_stats *st = &stats[rd->pair];
	int sealed_before = seal_done == rd->id;
	char a[128], b[128], o[128];
	struct state obs, want;
	int sealed;

	observe(rd->base, &obs);
	if (!state_diff(&rd->A, &obs)) {
		sealed = 1;
	} else if (!state_diff(&rd->B, &obs) && !sealed_before) {
		sealed = 0;
	} else {
		state_str(&rd->A, a, sizeof(a));
		state_str(&rd->B, b, sizeof(b));
		state_str(&obs, o, sizeof(o));
		report(st, "round %lu: fork child (mseal %s before fork) sees [%s], expected [%s]%s%s%s",
		       rd->id, sealed_before ? "returned" : "maybe not returned", o, a,
		       sealed_before ? "" : " or [", sealed_before ? "" : b,
		       sealed_before ? "" : "]");
		return 2;
	}
	if (sealed) {
		if (munmap(pg_addr(rd->base, 0), MPG * page) != -1 || errno != denied ||
		    mprotect(pg_addr(rd->base, rd->S.a), rlen(rd->S), PROT_READ | PROT_WRITE) != -1 ||
		    errno != denied ||
		    madvise(pg_addr(rd->base, rd->S.a), rlen(rd->S), MADV_DONTNEED) != -1 ||
		    errno != denied) {
			report(st, "round %lu: fork child: a call on its sealed copy did not fail with %s",
			       rd->id, denied == EPERM ? "EPERM" : "EACCES");
			return 2;
		}
	} else if (mseal(pg_addr(rd->base, rd->S.a), rlen(rd->S), 0)) {
		report(st, "round %lu: fork child: mseal() of its unsealed copy: %s",
		       rd->id, strerror(errno));
		return 2;
	}
	want = rd->A;
	observe(rd->base, &obs);
	if (state_diff(&want, &obs)) {
		state_str(&want, a, sizeof(a));
		state_str(&obs, o, sizeof(o));
		report(st, "round %lu: fork child: after the checks [%s], expected [%s]",
		       rd->id, o, a);
		return 2;
	}
	if (rd->id % 8 == 0 && check_smaps(rd->base, 1, &want, o, sizeof(o))) {
		report(st, "round %lu: fork child: %s", rd->id, o);
		return 2;
	}
	return !sealed;
}

/* --- the racing calls ------------------------------------------------------ */

static int do_op(struct round *rd)
{
	char *o = pg_addr(rd->base, rd->O.a);
	size_t len = rlen(rd->O);
	int status;
	void *p;
	pid_t pid;

	switch (rd->pair) {
	case PR_MUNMAP:
		return munmap(o, len) ? errno : 0;
	case PR_MPROTECT:
		return mprotect(o, len, PROT_READ | PROT_WRITE) ? errno : 0;
	case PR_MOVE:
		p = mremap(o, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
			   pg_addr(rd->base, DST));
		return p == MAP_FAILED ? errno : p == pg_addr(rd->base, DST) ? 0 : EPROTO;
	case PR_RESIZE:
		p = mremap(o, len, resizes[rd->variant].new * page, 0);
		return p == MAP_FAILED ? errno : p == o ? 0 : EPROTO;
	case PR_MADVISE:
		return madvise(o, len, MADV_DONTNEED) ? errno : 0;
	case PR_MADVISE_UFFD:
		return madvise(o, len, rd->advice) ? errno : 0;
	case PR_MMAP_FIXED:
		p = mmap(o, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED | (rd->sealable ? MAP_SEALABLE : 0), -1, 0);
		return p == MAP_FAILED ? errno : p == o ? 0 : EPROTO;
	case PR_FORK:
		pid = fork();
		if (pid < 0)
			return errno;
		if (pid == 0)
			_exit(child_check(rd));
		if (waitpid(pid, &status, 0) != pid)
			rd->child = 2;
		else
			rd->child = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
		return 0;
	case NPAIRS:
		break;
	}
	return EINVAL;
}

static void *op_thread(void *arg)
{
	struct round *rd = arg;

	for (;;) {
		pthread_barrier_wait(&start_b);
		if (rd->stop)
			break;
		spin(rd->op_delay);
		rd->op_t0 = now_ns();
		rd->r = do_op(rd);
		rd->op_t1 = now_ns();
		if (rd->pair == PR_MADVISE_UFFD &&
		    eventfd_write(rd->done_fd, 1))
			snprintf(rd->mon_err, sizeof(rd->mon_err),
				 "eventfd_write: %s", strerror(errno));
		pthread_barrier_wait(&done_b);
	}
	return NULL;
}

/*
 * The userfaultfd monitor of madvise-uffd: reads the UFFD_EVENT_REMOVEs
 * that madvise() queues, the first after rd->mon_delay, until madvise() has
 * returned. madvise() cannot return while an event of its own is unread.
 */
static void monitor(struct round *rd)
{
	struct pollfd pfd[2] = {
		{ .fd = rd->uffd, .events = POLLIN },
		{ .fd = rd->done_fd, .events = POLLIN },
	};
	struct uffd_msg msg;
	eventfd_t v;
	int waited = 0;

	rd->events = 0;
	rd->read_t = 0;
	for (;;) {
		int n = poll(pfd, 2, 1000);

		if (n < 0 && errno != EINTR) {
			snprintf(rd->mon_err, sizeof(rd->mon_err), "poll: %s",
				 strerror(errno));
			return;
		}
		if (n == 0 && ++waited == 10)
			report(&stats[rd->pair],
			       "round %lu: madvise() neither queued an event nor returned in 10 s",
			       rd->id);
		if (n <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			if (!rd->events) {
				spin(rd->mon_delay);
				rd->read_t = now_ns();
			}
			if (read(rd->uffd, &msg, sizeof(msg)) != sizeof(msg)) {
				if (errno == EAGAIN)
					continue;
				snprintf(rd->mon_err, sizeof(rd->mon_err),
					 "read of the userfaultfd: %s",
					 strerror(errno));
				return;
			}
			if (msg.event != UFFD_EVENT_REMOVE)
				snprintf(rd->mon_err, sizeof(rd->mon_err),
					 "unexpected userfaultfd event %#x",
					 msg.event);
			rd->events++;
			continue;
		}
		if (pfd[0].revents & ~POLLIN) {
			snprintf(rd->mon_err, sizeof(rd->mon_err),
				 "poll of the userfaultfd: revents %#x",
				 pfd[0].revents);
			return;
		}
		if (pfd[1].revents & POLLIN) {
			/* madvise() returned: nothing more can come. */
			if (eventfd_read(rd->done_fd, &v))
				snprintf(rd->mon_err, sizeof(rd->mon_err),
					 "eventfd_read: %s", strerror(errno));
			return;
		}
	}
}

static void *monitor_thread(void *arg)
{
	struct round *rd = arg;

	for (;;) {
		pthread_barrier_wait(&start_b);
		if (rd->stop)
			break;
		monitor(rd);
		pthread_barrier_wait(&done_b);
	}
	return NULL;
}

/* Register all of the mapping under test with a new userfaultfd. */
static int uffd_arm(struct round *rd, char *msg, size_t n)
{
	struct uffdio_api api = {
		.api = UFFD_API, .features = UFFD_FEATURE_EVENT_REMOVE,
	};
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)rd->base, .len = MPG * page },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	rd->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (rd->uffd < 0) {
		snprintf(msg, n, "userfaultfd: %s", strerror(errno));
		return -1;
	}
	if (ioctl(rd->uffd, UFFDIO_API, &api) ||
	    !(api.features & UFFD_FEATURE_EVENT_REMOVE)) {
		snprintf(msg, n, "UFFDIO_API with UFFD_FEATURE_EVENT_REMOVE: %s",
			 strerror(errno));
		close(rd->uffd);
		return -1;
	}
	if (ioctl(rd->uffd, UFFDIO_REGISTER, &reg)) {
		snprintf(msg, n, "UFFDIO_REGISTER: %s", strerror(errno));
		close(rd->uffd);
		return -1;
	}
	return 0;
}

/*
 * Pages go to the LRU lists, and lazily freed ones to theirs, through
 * per-CPU batches that only a drain on that CPU empties. MADV_FREE frees
 * lazily only pages that are on an LRU list already, which freshly written
 * ones are not, and reclaim frees only pages that made it to the list of
 * lazily freed ones. madvise(MADV_PAGEOUT) drains the batches of its CPU
 * first: run it on an untouched scratch page (which has no pages to take
 * off a list) on every CPU in turn.
 */
static char *scratch;

static int lru_drain_all(char *msg, size_t n)
{
	cpu_set_t all, one;
	int ret = 0;

	if (sched_getaffinity(0, sizeof(all), &all)) {
		snprintf(msg, n, "sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE && !ret; cpu++) {
		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) ||
		    madvise(scratch, page, MADV_PAGEOUT)) {
			snprintf(msg, n, "draining the LRU batches of CPU %d: %s",
				 cpu, strerror(errno));
			ret = -1;
		}
	}
	if (sched_setaffinity(0, sizeof(all), &all) && !ret) {
		snprintf(msg, n, "sched_setaffinity: %s", strerror(errno));
		ret = -1;
	}
	return ret;
}

/*
 * Lazily freed pages go at reclaim: page the mapping out. The others stay
 * (there is no swap; if there were, they would come back as they were).
 */
static int page_out(struct round *rd, char *msg, size_t n)
{
	if (lru_drain_all(msg, n))
		return -1;
	if (madvise(rd->base, MPG * page, MADV_PAGEOUT)) {
		snprintf(msg, n, "MADV_PAGEOUT: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* --- one round ------------------------------------------------------------ */

/* Map the slot's test mapping: sealable, read-only, every word tagged. */
static int setup(struct round *rd)
{
	char *base = rd->base;
	struct state *st = &rd->init;

	if (mmap(base, MPG * page, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		 MAP_ANONYMOUS | MAP_FIXED | MAP_SEALABLE, -1, 0) != base)
		return -1;
	for (int k = 0; k < NPG; k++) {
		st->p[k] = (struct pg){ .mapped = 1, .prot = P_NONE, .tag = RES };
		if (k < MPG) {
			uint64_t *q = (uint64_t *)pg_addr(base, k);
			uint32_t tag = (uint32_t)(rd->id * NPG + k + 1);

			for (size_t i = 0; i < page / sizeof(*q); i++)
				q[i] = word(tag, i);
			st->p[k] = (struct pg){ .mapped = 1, .prot = P_R,
						.sealable = 1, .tag = tag };
		} else if (k < DST) {
			st->p[k].mapped = 0;
		}
	}
	if (mprotect(base, MPG * page, PROT_READ) ||
	    munmap(pg_addr(base, MPG), (DST - MPG) * page))
		return -1;
	return 0;
}

static const char *ename(int e)
{
	static char buf[16];
	const char *s = e ? strerrorname_np(e) : "0";

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "%d", e);
	return buf;
}

/*
 * With mseal() successful: every call that would change S must fail with
 * EACCES (EPERM in the mainline ABI) and change nothing. Updates @st with
 * what madvise() may discard.
 */
static int post_checks(struct round *rd, struct state *st, char *msg, size_t n)
{
	char *s = pg_addr(rd->base, rd->S.a), *d = pg_addr(rd->base, DST);
	size_t len = rlen(rd->S);
	struct round mad = *rd;
	int want, ret;

#define EXPECT_EACCES(what, failed) do {					\
		int e_ = (failed) ? errno : 0;					\
		if (e_ != denied) {						\
			snprintf(msg, n, "on sealed S: %s returned %s", what, ename(e_)); \
			return 1;						\
		}								\
	} while (0)

	if (mseal(s, len, 0)) {
		snprintf(msg, n, "sealing sealed S again: %s", ename(errno));
		return 1;
	}
	EXPECT_EACCES("munmap", munmap(s, len));
	EXPECT_EACCES("mprotect", mprotect(s, len, PROT_READ | PROT_WRITE));
	ret = syscall(SYS_pkey_mprotect, s, len, PROT_READ | PROT_WRITE, 0);
	if (!(ret == -1 && (errno == ENOSYS || errno == EINVAL)))
		EXPECT_EACCES("pkey_mprotect", ret);
	EXPECT_EACCES("mremap (move)", mremap(s, len, len, MREMAP_MAYMOVE |
					       MREMAP_FIXED, d) == MAP_FAILED);
	EXPECT_EACCES("mremap (shrink)", mremap(s, len, page, 0) == MAP_FAILED);
	EXPECT_EACCES("mremap (expand)", mremap(s, len, len + page, MREMAP_MAYMOVE) == MAP_FAILED);
	EXPECT_EACCES("mmap(MAP_FIXED)", mmap(s, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
					      MAP_FIXED | MAP_SEALABLE, -1, 0) == MAP_FAILED);
	mad.pair = PR_MADVISE;
	mad.O = rd->S;
	want = model_op(st, &mad);
	ret = madvise(s, len, MADV_DONTNEED) ? errno : 0;
	if (ret != want) {
		snprintf(msg, n, "on sealed S: madvise(MADV_DONTNEED) returned %s, expected %s",
			 ename(ret), ename(want));
		return 1;
	}
#undef EXPECT_EACCES
	return 0;
}

static void run_round(struct round *rd, struct pair_stats *st, struct state *final)
{
	char a[128], b[128], o[128], msg[256], why[128] = "";
	int uffd = rd->pair == PR_MADVISE_UFFD, window = 0;
	struct state obs;
	double t0, t1;
	int s, okA, okB;
	long step = jitter / 4 + 1;

	rd->A = rd->init;
	rd->sA = model_seal(&rd->A, rd->S);
	rd->rA = model_op(&rd->A, rd);
	rd->B = rd->init;
	rd->rB = model_op(&rd->B, rd);
	rd->sB = model_seal(&rd->B, rd->S);
	if (rd->pair == PR_FORK) {
		/* For the child: its copy before (B) or after (A) mseal(). */
		rd->B = rd->init;
	}
	if (uffd) {
		model_reclaim(&rd->A);
		model_reclaim(&rd->B);
	}

	rd->seal_delay = rnd() % jitter + (st->bias > 0 ? st->bias : 0);
	rd->op_delay = rnd() % jitter + (st->bias < 0 ? -st->bias : 0);
	rd->mon_delay = rnd() % jitter + st->mon_bias;
	rd->mon_err[0] = 0;
	rd->child = 0;

	pthread_barrier_wait(&start_b);
	spin(rd->seal_delay);
	if (uffd) {
		/*
		 * Read-only memory cannot be sealed while it is registered
		 * (the userfaultfd would choose its contents): the sealer
		 * unregisters the mapping first, all of it, so that no VMA
		 * boundary appears before madvise() starts. (A madvise() that
		 * starts on a registered VMA that ends before S, and waits
		 * there while S is sealed, discards that VMA once it has
		 * the lock back and is refused at S: mseal.rst.)
		 */
		struct uffdio_range ur = {
			.start = (unsigned long)rd->base, .len = MPG * page,
		};

		ioctl(rd->uffd, UFFDIO_UNREGISTER, &ur);
	}
	t0 = now_ns();
	s = mseal(pg_addr(rd->base, rd->S.a), rlen(rd->S), 0) ? errno : 0;
	if (!s)
		seal_done = rd->id;
	t1 = now_ns();
	pthread_barrier_wait(&done_b);
	if ((t0 > rd->op_t0 ? t0 : rd->op_t0) < (t1 < rd->op_t1 ? t1 : rd->op_t1))
		st->overlapped++;

	if (uffd) {
		/* Unregisters the mapping: a missing page now reads as zeroes. */
		close(rd->uffd);
		st->rounds++;
		if (rd->mon_err[0]) {
			st->fails++;
			report(st, "round %lu: userfaultfd monitor: %s", rd->id, rd->mon_err);
			observe(rd->base, final);
			return;
		}
		/*
		 * mseal() returned before the monitor began to read the first
		 * event: madvise() was waiting, without mmap_lock, all the time
		 * the range was being sealed, and must find it sealed.
		 */
		window = rd->events && t1 < rd->read_t;
		if (!rd->events) {
			st->no_event++;
		} else if (window) {
			st->window++;
			if (rd->sA != rd->sB || rd->rA != rd->rB || state_diff(&rd->A, &rd->B))
				st->window_differ++;
			snprintf(why, sizeof(why),
				 "; mseal returned %.1f us before the event was read: only mseal first is right",
				 (rd->read_t - t1) / 1e3);
		} else {
			st->read_first++;
		}
		if (window)
			st->mon_bias = st->mon_bias > step ? st->mon_bias - step : 0;
		else if (rd->events)
			st->mon_bias += step;
		if (st->mon_bias > 64 * (long)jitter)
			st->mon_bias = 64 * (long)jitter;
		if (rd->advice == MADV_FREE && page_out(rd, msg, sizeof(msg))) {
			st->fails++;
			report(st, "round %lu: %s", rd->id, msg);
			observe(rd->base, final);
			return;
		}
	} else {
		st->rounds++;
	}
	observe(rd->base, &obs);
	if (rd->pair == PR_FORK) {
		okA = !s && !rd->r && !state_diff(&rd->A, &obs) && rd->child < 2;
		okB = 0;
		if (okA && rd->child == 1)
			okA = 0, okB = 1;
		if (rd->child >= 2)
			report(st, "round %lu: the fork child failed (status %d)", rd->id, rd->child);
	} else {
		okA = s == rd->sA && rd->r == rd->rA && !state_diff(&rd->A, &obs);
		okB = s == rd->sB && rd->r == rd->rB && !state_diff(&rd->B, &obs);
		/* In the window, madvise() first would be the bug. */
		if (window && !okA)
			okB = 0;
	}
	if (!okA && !okB) {
		st->fails++;
		if (window)
			st->window_fails++;
		state_str(&rd->A, a, sizeof(a));
		state_str(&rd->B, b, sizeof(b));
		state_str(&obs, o, sizeof(o));
		report(st, "round %lu: S=[%d,%d) O=[%d,%d)%s%s: mseal %s, %s %s; memory [%s]; "
		       "mseal first: mseal %s, %s %s, [%s]; %s first: %s %s, mseal %s, [%s]%s",
		       rd->id, rd->S.a, rd->S.b, rd->O.a, rd->O.b,
		       rd->pair == PR_MMAP_FIXED && rd->sealable ? " MAP_SEALABLE" : "",
		       !uffd ? "" : rd->advice == MADV_FREE ? " MADV_FREE" : " MADV_DONTNEED",
		       ename(s), pair_arg[rd->pair], ename(rd->r), o,
		       ename(rd->sA), pair_arg[rd->pair], ename(rd->rA), a,
		       pair_arg[rd->pair], pair_arg[rd->pair], ename(rd->rB), ename(rd->sB), b,
		       why);
		*final = obs;
		return;
	}
	if (okA && okB) {
		st->either++;
	} else if (okA) {
		st->seal_first++;
		st->bias += step;
	} else {
		st->op_first++;
		st->bias -= step;
	}
	if (st->bias > 64 * (long)jitter)
		st->bias = 64 * (long)jitter;
	if (st->bias < -64 * (long)jitter)
		st->bias = -64 * (long)jitter;

	*final = okA ? rd->A : rd->B;
	if (rd->pair == PR_FORK)
		*final = rd->A;
	if (s)
		return;
	if (post_checks(rd, final, msg, sizeof(msg))) {
		st->fails++;
		report(st, "round %lu (%s): %s", rd->id, pair_arg[rd->pair], msg);
		return;
	}
	observe(rd->base, &obs);
	if (state_diff(final, &obs)) {
		st->fails++;
		state_str(final, a, sizeof(a));
		state_str(&obs, o, sizeof(o));
		report(st, "round %lu (%s): after the calls on sealed S: [%s], expected [%s]",
		       rd->id, pair_arg[rd->pair], o, a);
	}
}

/* A child process: rounds [first, first + n) of @pair, then checks them all. */
static int run_batch(enum pair pair, unsigned long first, int n)
{
	struct pair_stats *st = &stats[pair];
	static struct state finals[BATCH];
	char a[128], o[128], msg[256];
	int uffd = pair == PR_MADVISE_UFFD;
	pthread_t thr, mon;
	char *resv;

	resv = mmap(NULL, (size_t)n * NPG * page, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (resv == MAP_FAILED) {
		report(st, "mmap of the reservation: %s", strerror(errno));
		return 1;
	}
	memset(&cur, 0, sizeof(cur));
	cur.pair = pair;
	if (uffd) {
		cur.done_fd = eventfd(0, EFD_CLOEXEC);
		scratch = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (cur.done_fd < 0 || scratch == MAP_FAILED) {
			report(st, "eventfd or mmap: %s", strerror(errno));
			return 1;
		}
	}
	/* madvise-uffd: the monitor lines up too. */
	if (pthread_barrier_init(&start_b, NULL, 2 + uffd) ||
	    pthread_barrier_init(&done_b, NULL, 2 + uffd) ||
	    pthread_create(&thr, NULL, op_thread, &cur) ||
	    (uffd && pthread_create(&mon, NULL, monitor_thread, &cur))) {
		report(st, "cannot start the racing threads");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		unsigned long id = first + i;

		cur.pair = pair;
		cur.id = id;
		cur.base = resv + (size_t)i * NPG * page;
		cur.variant = id % 4;
		cur.S = seal_ranges[(id / 4) % 4];
		cur.O = op_ranges[cur.variant];
		cur.sealable = (id / 16) % 2;
		cur.advice = (id / 16) % 2 ? MADV_FREE : MADV_DONTNEED;
		if (pair == PR_RESIZE)
			cur.O = (struct range){ resizes[cur.variant].a,
						resizes[cur.variant].a + resizes[cur.variant].old };
		if (setup(&cur)) {
			report(st, "round %lu: setting up the mapping: %s", id, strerror(errno));
			st->fails++;
			finals[i] = cur.init;
			continue;
		}
		/* MADV_FREE frees lazily only pages on an LRU list. */
		if (uffd && ((cur.advice == MADV_FREE && lru_drain_all(msg, sizeof(msg))) ||
			     uffd_arm(&cur, msg, sizeof(msg)))) {
			report(st, "round %lu: %s", id, msg);
			st->fails++;
			finals[i] = cur.init;
			continue;
		}
		run_round(&cur, st, &finals[i]);
	}
	cur.stop = 1;
	pthread_barrier_wait(&start_b);
	pthread_join(thr, NULL);
	if (uffd)
		pthread_join(mon, NULL);

	/* Nothing about a sealed range may have changed since its round. */
	for (int i = 0; i < n; i++) {
		struct state obs;

		observe(resv + (size_t)i * NPG * page, &obs);
		if (state_diff(&finals[i], &obs)) {
			st->fails++;
			state_str(&finals[i], a, sizeof(a));
			state_str(&obs, o, sizeof(o));
			report(st, "round %lu (%s): at the end of its batch [%s], expected [%s]",
			       first + i, pair_arg[pair], o, a);
			finals[i] = obs;
		}
	}
	if (check_smaps(resv, n, finals, msg, sizeof(msg))) {
		st->fails++;
		report(st, "rounds %lu-%lu (%s): %s", first, first + n - 1, pair_arg[pair], msg);
	}
	return 0;
}

/* Random delays of up to a few syscalls' length, in spin loops. */
static void calibrate(void)
{
	char *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0, loop_ns, sys_ns;
	int i;

	t0 = now_ns();
	spin(200000);
	loop_ns = (now_ns() - t0) / 200000;
	t0 = now_ns();
	for (i = 0; i < 200; i++)
		mprotect(p, page, PROT_READ);
	sys_ns = (now_ns() - t0) / 200;
	munmap(p, page);
	if (loop_ns <= 0)
		loop_ns = 1;
	jitter = (unsigned long)(4 * sys_ns / loop_ns);
	if (jitter < 16)
		jitter = 16;
	ksft_print_msg("calibration: a syscall takes %.0f ns, a spin loop %.1f ns: delays up to %lu loops\n",
		       sys_ns, loop_ns, jitter);
}

int main(int argc, char **argv)
{
	long rounds = 1000;
	int want[NPAIRS] = { 0 }, any = 0;

	page = sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1) {
		char *end;

		rounds = strtol(argv[1], &end, 0);
		if (*end || rounds <= 0) {
			fprintf(stderr, "usage: %s [ROUNDS [PAIR...]]\n", argv[0]);
			return 2;
		}
	}
	for (int i = 2; i < argc; i++) {
		int j;

		for (j = 0; j < NPAIRS && strcmp(argv[i], pair_arg[j]); j++)
			;
		if (j == NPAIRS) {
			fprintf(stderr, "%s: unknown pair '%s'\n", argv[0], argv[i]);
			return 2;
		}
		want[j] = any = 1;
	}

	ksft_print_header();
	if (!mseal_supported())
		ksft_exit_skip("mseal() is not implemented (ENOSYS)\n");
	mainline = mseal_abi() == MSEAL_ABI_MAINLINE;
	denied = mseal_errno();
	ksft_print_msg("mseal() ABI: %s\n", mainline ? "mainline" : "v6");
	if (any) {
		unsigned int plan = 0;

		for (int j = 0; j < NPAIRS; j++)
			plan += want[j];
		ksft_set_plan(plan);
	} else {
		ksft_set_plan(NPAIRS);
	}
	ksft_print_msg("iterations: %ld\n", rounds);
	rng = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);
	if (!rng)
		rng = 1;
	ksft_print_msg("seed: %#llx\n", (unsigned long long)rng);
	calibrate();

	stats = mmap(NULL, sizeof(*stats) * NPAIRS, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));

	for (int pair = 0; pair < NPAIRS; pair++) {
		struct pair_stats *st = &stats[pair];
		double t0 = now_ns();

		if (any && !want[pair])
			continue;
		long batch = pair == PR_FORK ? FORK_BATCH : BATCH;

		for (long done = 0; done < rounds; done += batch) {
			int n = rounds - done < batch ? rounds - done : batch;
			int status;
			pid_t pid;

			fflush(stdout);
			rnd();
			pid = fork();
			if (pid < 0)
				ksft_exit_fail_msg("fork: %s\n", strerror(errno));
			if (pid == 0)
				_exit(run_batch(pair, pair * 1000000UL + done, n));
			if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			    WEXITSTATUS(status)) {
				st->fails++;
				report(st, "the batch child of rounds %ld-%ld died (status %#x)",
				       done, done + n - 1, status);
			}
		}
		ksft_print_msg("%s: %ld rounds in %.1f s: mseal() first %ld, %s first %ld, "
			       "either order %ld; calls overlapping in time %ld; failed %ld\n",
			       pair_name[pair], st->rounds, (now_ns() - t0) / 1e9,
			       st->seal_first, pair_arg[pair], st->op_first, st->either,
			       st->overlapped, st->fails);
		if (pair == PR_MADVISE_UFFD)
			ksft_print_msg("%s: no event (refused before dropping mmap_lock) %ld; mseal() returned before the event was read %ld (orders differ %ld, failed %ld); event read first %ld\n",
				       pair_arg[pair], st->no_event, st->window,
				       st->window_differ, st->window_fails, st->read_first);
		ksft_test_result(st->fails == 0 && st->rounds == rounds,
				 "mseal() racing %s\n", pair_name[pair]);
	}
	ksft_finished();
}
