// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_fuzz - a model-based fuzzer for the memory sealing semantics.
 *
 * Random, seeded, reproducible sequences of mmap, munmap, mprotect,
 * pkey_mprotect, WRPKRU, mremap, madvise, mseal, brk, writes and fork run
 * in a bounded arena (NP pages starting at the page-aligned program break,
 * followed by one guard page that must stay unmapped). A reference model in
 * user space predicts each call's result (value or exact errno) and the
 * resulting state of every arena page; after every call the model is
 * compared with the kernel's view (/proc/self/maps, /proc/self/smaps,
 * and the first word of every mapped page).
 *
 * Every sequence runs in a forked child (sealed mappings can never be
 * removed); the parent never touches the arena, so it can re-run
 * subsequences to shrink a divergence into a minimal reproducer, printed as
 * a kselftest_harness TEST().
 *
 * usage: mseal_fuzz [--ops N] [--seed S] [--no-smaps] [--verbose]
 *                   [--baseline] [--smaps-every K] [--seq J] [--seq-len L]
 * The last line is "fuzz: N calls, M sequences, seed S, D divergences";
 * the exit status is 0 iff D == 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef PROT_SEAL
#define PROT_SEAL 0x04000000
#endif
#ifndef MAP_SEALABLE
#define MAP_SEALABLE 0x08000000
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef __NR_mseal
#define __NR_mseal 462
#endif
#ifndef PROT_SEM
#define PROT_SEM 0x8
#endif

/* madvise() behaviours, by number (the libc headers may lack some). */
enum {
	B_NORMAL = 0, B_RANDOM = 1, B_SEQUENTIAL = 2, B_WILLNEED = 3,
	B_DONTNEED = 4, B_FREE = 8, B_REMOVE = 9, B_DONTFORK = 10,
	B_DOFORK = 11, B_MERGEABLE = 12, B_UNMERGEABLE = 13, B_HUGEPAGE = 14,
	B_NOHUGEPAGE = 15, B_DONTDUMP = 16, B_DODUMP = 17, B_WIPEONFORK = 18,
	B_KEEPONFORK = 19, B_COLD = 20, B_PAGEOUT = 21, B_POPULATE_READ = 22,
	B_POPULATE_WRITE = 23, B_DONTNEED_LOCKED = 24, B_COLLAPSE = 25,
};

/* The kernel's LEGACY_MAP_MASK (include/linux/mman.h), x86-64 values. */
#define LEGACY_MAP_MASK (0x01UL | 0x02 | 0x10 | 0x20 | 0x800 | 0x1000 | \
			 0x4000000 | 0x100 | 0x2000 | 0x4000 | 0x8000 | \
			 0x10000 | 0x20000 | 0x40000 | 0x40 | (21UL << 26) | \
			 (30UL << 26))

#define PG 4096UL
#define NP 40			/* arena pages */
#define NPP (NP + 1)		/* the arena and its guard page */
#define TASK_SZ ((1UL << 47) - PG)
#define MEMFD_PAGES 128
#define SHM_PAGES 4		/* the SysV segment: object 2 */
#define OBJ_SHM 2
#define MAXOBJ 402
#define MAXSEQ 600
#define PA(x) (((x) + PG - 1) & ~(PG - 1))
#define MEMFD_VAL(o, i) (0xF11E000000000000ULL | ((uint64_t)(o) << 32) | (i))

/* ------------------------------------------------------------------ */
/* The model                                                            */

enum { C_VAL, C_FILE, C_FREED };	/* page contents: value, file, val or 0 */
enum {
	FL_DC = 1, FL_WF = 2, FL_DD = 4, FL_HG = 8, FL_NH = 16, FL_SR = 32,
	FL_RR = 64, FL_AC = 128, FL_SL = 256,
};

struct mpage {
	uint8_t mapped, prot, shared, pkey;
	uint8_t sealed, sealable, acct, cst;
	uint8_t av;		/* the VMA has an anon_vma (merge invariant) */
	uint8_t nomw;		/* MAP_SHARED of a read-only file: !VM_MAYWRITE,
				   !VM_SHARED (maps still shows 's') */
	uint16_t fl;		/* FL_DC..FL_RR */
	int16_t obj;		/* -1: private anonymous; else object */
	uint32_t off;		/* page offset in obj; anon: virtual pgoff */
	uint32_t gen;		/* the call that created the mapping */
	uint32_t fid;		/* the struct file: obj, or one per shmat() */
	uint64_t val;		/* C_VAL, C_FREED */
};

struct model {
	struct mpage p[NPP];
	unsigned long brk;
	int exec_key;
	uint32_t keymap, pkru;
	int nobj;
	uint32_t gen;
};

/*
 * Objects: memfd 0 and 1, the SysV shm segment (2), then the shmem objects
 * of MAP_SHARED anonymous maps.
 */
struct mobj {
	uint32_t npages;
	uint32_t ino_known;	/* else learnt from the first observation */
	uint64_t ino;
	uint64_t val[MEMFD_PAGES];
};
static struct mobj objs[MAXOBJ];

/* ------------------------------------------------------------------ */
/* Operations                                                           */

enum {
	OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_PKEY_MPROTECT, OP_WRPKRU,
	OP_MREMAP, OP_MADVISE, OP_MSEAL, OP_BRK, OP_WRITE, OP_FORK, OP_SHMAT,
	OP_REMAP, OP_NOP,
};

/* Address arguments are offsets from the arena unless their absm bit is set. */
struct op {
	uint8_t k;
	int8_t fdi;		/* mmap: -1 anon, 0/1 memfd, 2 bad fd */
	uint8_t absm;		/* bit n: a[n] is absolute */
	long a[5];
	uint64_t tag;		/* write: the value */
};

/* What the model expects of a call. */
struct exp {
	long ret;		/* value, or -errno */
	uint8_t outside;	/* success at an address outside the arena */
	uint8_t reject;		/* would leave the arena: do not run it */
};

/* Out-of-arena results: what to check and unmap after the call. */
static unsigned long out_len;
static int out_sealed;
static int out_n;
static struct mpage out_pages[NPP + 8];

/* ------------------------------------------------------------------ */
/* Globals                                                              */

static unsigned long A;		/* arena start */
static unsigned long B0;	/* program break at startup */
static int sealing = 1;		/* patched-kernel semantics (not --baseline) */
static int use_smaps = 1, seal_cmp = 1, smaps_every = 8, verbose;
static int key1 = -1, key2 = -1;
static int memfd[2] = { -1, -1 };
static int shmid = -1;
static int selfmem = -1;
static unsigned long long seed;

/* Parent <-> child communication (MAP_SHARED). */
struct shared {
	int status;		/* 0 ok, 1 divergence, 2 setup error */
	int fail_idx;		/* index of the diverging call */
	int nops;		/* calls generated / run */
	int executed;		/* calls actually executed (not skipped) */
	int emit;		/* print a reproducer while replaying */
	int replen, codelen;
	int cur;		/* the call being run */
	unsigned long long stat[OP_NOP][4];	/* ok, EACCES, other error, outside */
	struct op ops[MAXSEQ];
	char report[1 << 17];
	char code[1 << 17];	/* the reproducer's TEST() body */
};
static struct shared *sh;

/* ------------------------------------------------------------------ */
/* Output without malloc (the parent's brk must not move).              */

static char obuf[1 << 14];

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void out(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(obuf, sizeof(obuf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(obuf) - 1)
		n = sizeof(obuf) - 1;
	if (n > 0 && write(1, obuf, n) < 0)
		_exit(3);
}

/* Append to the shared report (children). */
static void rep(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rep(const char *fmt, ...)
{
	va_list ap;
	int room = (int)sizeof(sh->report) - sh->replen - 1;
	int n;

	if (room <= 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sh->report + sh->replen, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sh->replen += n < room ? n : room - 1;
	sh->report[sh->replen] = 0;
}

/* Append to the reproducer (children). */
static void cde(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cde(const char *fmt, ...)
{
	va_list ap;
	int room = (int)sizeof(sh->code) - sh->codelen - 1;
	int n;

	if (room <= 0 || !sh->emit)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sh->code + sh->codelen, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	sh->codelen += n < room ? n : room - 1;
	sh->code[sh->codelen] = 0;
}

/* ------------------------------------------------------------------ */
/* PRNG (splitmix64)                                                    */

static uint64_t rs;
static uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static unsigned int rn(unsigned int n) { return n ? rnd() % n : 0; }
static int chance(unsigned int pct) { return rn(100) < pct; }

/* ------------------------------------------------------------------ */
/* PKRU                                                                 */

static inline uint32_t rdpkru(void)
{
	uint32_t eax, edx;

	asm volatile(".byte 0x0f,0x01,0xee" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}
static inline void wrpkru(uint32_t v)
{
	asm volatile(".byte 0x0f,0x01,0xef" : : "a"(v), "c"(0), "d"(0) : "memory");
}
static int pkru_allows(uint32_t pkru, int key, int wr)
{
	if (pkru & (1U << (2 * key)))
		return 0;
	if (wr && (pkru & (2U << (2 * key))))
		return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Model helpers                                                        */

static unsigned long opaddr(const struct op *o, int i)
{
	return (o->absm & (1 << i)) ? (unsigned long)o->a[i] : A + o->a[i];
}

/* [start, start + len) within the arena and its guard page? */
static int in_arena(unsigned long start, unsigned long len)
{
	return start >= A && len <= NPP * PG && start - A <= NPP * PG - len;
}
/* ... and within the arena proper, where pages may get mapped? */
static int in_np(unsigned long start, unsigned long len)
{
	return start >= A && len <= NP * PG && start - A <= NP * PG - len;
}
static long pgi(unsigned long addr) { return (long)(addr - A) / (long)PG; }

static int any_mapped(const struct model *m, long ps, long pe)
{
	for (long i = ps; i < pe; i++)
		if (m->p[i].mapped)
			return 1;
	return 0;
}
static int any_sealed(const struct model *m, long ps, long pe)
{
	for (long i = ps; i < pe; i++)
		if (m->p[i].mapped && m->p[i].sealed)
			return 1;
	return 0;
}
static void unmap_pages(struct model *m, long ps, long pe)
{
	for (long i = ps; i < pe; i++)
		memset(&m->p[i], 0, sizeof(m->p[i]));
}

/* Would touching the page raise SIGBUS (file page beyond EOF)? */
static int page_bus(const struct mpage *p)
{
	return p->obj >= 0 && p->cst == C_FILE && p->off >= objs[p->obj].npages;
}

static uint64_t file_val(const struct mpage *p)
{
	return objs[p->obj].val[p->off];
}

/* Expected first word: kind 0 = value v, 1 = v or 0, 2 = SIGBUS. */
static int exp_word(const struct mpage *p, uint64_t *v)
{
	if (p->cst == C_FILE) {
		if (page_bus(p))
			return 2;
		*v = file_val(p);
		return 0;
	}
	*v = p->val;
	return p->cst == C_FREED ? 1 : 0;
}

/* x86 __execute_only_pkey(): allocate (once) and deny access in PKRU. */
static int exec_key_get(struct model *m)
{
	int k = m->exec_key;

	if (k == -1) {
		for (k = 0; k < 16; k++)
			if (!(m->keymap & (1U << k)))
				break;
		if (k == 16)
			return 0;
		m->keymap |= 1U << k;
		m->exec_key = k;
	} else if (!pkru_allows(m->pkru, k, 0)) {
		return k;
	}
	m->pkru &= ~(3U << (2 * k));
	m->pkru |= 1U << (2 * k);
	return k;
}

static int key_allocated(const struct model *m, long k)
{
	if (k < 0 || k >= 16 || k == m->exec_key)
		return 0;
	return !!(m->keymap & (1U << k));
}

/* The VMA bounds the kernel showed after the previous call (page indices). */
static int kvend[NPP], kvstart[NPP];

/* A write fault in page i gives its whole (observed) VMA an anon_vma. */
static void give_anon_vma(struct model *m, long i)
{
	for (long j = kvstart[i] < 0 ? 0 : kvstart[i]; j < kvend[i] && j < NPP; j++)
		if (m->p[j].mapped)
			m->p[j].av = 1;
}

static struct exp R(long v)
{
	struct exp e = { .ret = v };

	return e;
}
static struct exp REJ(void)
{
	struct exp e = { .reject = 1 };

	return e;
}
static struct exp OUTSIDE(void)
{
	struct exp e = { .outside = 1 };

	return e;
}

static int new_obj(struct model *m, uint32_t npages)
{
	int o = m->nobj;

	if (o >= MAXOBJ)
		return -1;
	m->nobj++;
	objs[o].npages = npages;
	objs[o].ino = 0;
	objs[o].ino_known = 0;
	memset(objs[o].val, 0, sizeof(objs[o].val));
	return o;
}

/* ---- mmap ---- */
static struct exp m_mmap(struct model *m, const struct op *o)
{
	unsigned long addr = opaddr(o, 0), len = o->a[1], prot = o->a[2];
	unsigned long flags = o->a[3], off = o->a[4], a;
	int sealed = 0, sealable = 0, pkey = 0, shared, outside = 0, file;
	long ps;

	if (off & (PG - 1))
		return R(-EINVAL);
	file = !(flags & MAP_ANONYMOUS);
	if (file && (o->fdi < 0 || o->fdi > 1))
		return R(-EBADF);
	if (!len)
		return R(-EINVAL);
	if (sealing) {
		sealed = !!(prot & PROT_SEAL);
		sealable = sealed || (flags & MAP_SEALABLE);
		prot &= ~(unsigned long)PROT_SEAL;
	}
	if (flags & MAP_FIXED_NOREPLACE)
		flags |= MAP_FIXED;
	len = PA(len);
	if (!len || len > TASK_SZ)
		return R(-ENOMEM);
	if (flags & MAP_FIXED) {
		a = addr;
	} else {
		a = addr & ~(PG - 1);
		if (!a) {
			outside = 1;
		} else {
			if (!in_np(a, len))
				return REJ();
			if (any_mapped(m, pgi(a), pgi(a + len)))
				outside = 1;
		}
	}
	if (!outside) {
		if (a > TASK_SZ - len)
			return R(-ENOMEM);
		if (a & (PG - 1))
			return R(-EINVAL);
		if (!in_np(a, len))
			return REJ();
		if ((o->a[3] & MAP_FIXED_NOREPLACE) &&
		    any_mapped(m, pgi(a), pgi(a + len)))
			return R(-EEXIST);
	}
	if (prot == PROT_EXEC)
		pkey = exec_key_get(m);
	switch (flags & 0x0f) {
	case MAP_SHARED:
		shared = 1;
		break;
	case MAP_SHARED_VALIDATE:
		if (!file)
			return R(-EINVAL);
		if (flags & ~LEGACY_MAP_MASK)
			return R(-EOPNOTSUPP);
		shared = 1;
		break;
	case MAP_PRIVATE:
		shared = 0;
		break;
	default:
		return R(-EINVAL);
	}
	if (outside) {
		out_len = len;
		out_sealed = sealed;
		out_n = 0;
		return OUTSIDE();
	}
	ps = pgi(a);
	if (sealing && any_sealed(m, ps, ps + len / PG))
		return R(-EACCES);
	int obj = file ? o->fdi : -1;

	if (!file && shared) {
		obj = new_obj(m, len / PG);
		if (obj < 0)
			return REJ();
	}
	unmap_pages(m, ps, ps + len / PG);
	m->gen++;
	for (unsigned long i = 0; i < len / PG; i++) {
		struct mpage *p = &m->p[ps + i];

		p->mapped = 1;
		p->prot = prot & 7;
		p->shared = shared;
		p->pkey = pkey;
		p->sealed = sealed;
		p->sealable = sealable;
		p->acct = !shared && (prot & PROT_WRITE);
		p->fl = 0;
		p->obj = obj;
		p->off = file ? off / PG + i : shared ? i : ps + i;
		p->fid = obj;
		p->gen = m->gen;
		p->cst = obj < 0 ? C_VAL : C_FILE;
		p->val = 0;
	}
	return R(a);
}

/* The kernel's do_mas_munmap(); 0, -EINVAL, -EACCES, or 1 for "reject". */
static long do_munmap_m(struct model *m, unsigned long start, unsigned long len)
{
	unsigned long end;

	if ((start & (PG - 1)) || start > TASK_SZ || len > TASK_SZ - start)
		return -EINVAL;
	end = start + PA(len);
	if (end == start)
		return -EINVAL;
	if (!in_arena(start, end - start))
		return 1;
	if (!any_mapped(m, pgi(start), pgi(end)))
		return 0;
	if (sealing && any_sealed(m, pgi(start), pgi(end)))
		return -EACCES;
	unmap_pages(m, pgi(start), pgi(end));
	return 0;
}

static struct exp m_munmap(struct model *m, const struct op *o)
{
	long r = do_munmap_m(m, opaddr(o, 0), o->a[1]);

	return r == 1 ? REJ() : R(r);
}

/* ---- mprotect / pkey_mprotect ---- */
static struct exp m_mprotect(struct model *m, const struct op *o, long pkey)
{
	unsigned long start = opaddr(o, 0), len = o->a[1], prot = o->a[2], end;
	unsigned long grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);
	long ps, pe;

	prot &= ~grows;
	if (grows == (PROT_GROWSDOWN | PROT_GROWSUP))
		return R(-EINVAL);
	if (start & (PG - 1))
		return R(-EINVAL);
	if (!len)
		return R(0);
	len = PA(len);
	end = start + len;
	if (end <= start)
		return R(-ENOMEM);
	if (prot & ~(unsigned long)(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
		return R(-EINVAL);
	if (pkey != -1 && !key_allocated(m, pkey))
		return R(-EINVAL);
	if (!in_arena(start, len))
		return REJ();
	ps = pgi(start);
	pe = pgi(end);
	if (grows & PROT_GROWSDOWN)
		return R(any_mapped(m, ps, pe) ? -EINVAL : -ENOMEM);
	if (!m->p[ps].mapped)
		return R(-ENOMEM);
	if (grows & PROT_GROWSUP)
		return R(-EINVAL);
	if (sealing && any_sealed(m, ps, pe))
		return R(-EACCES);
	for (long i = ps; i < pe; i++) {
		struct mpage *p = &m->p[i];
		int nk;

		if (!p->mapped)
			return R(-ENOMEM);
		/* arch_override_mprotect_pkey() */
		if (pkey != -1) {
			nk = pkey;
		} else if (prot == PROT_EXEC) {
			nk = exec_key_get(m);
			if (nk <= 0)
				nk = p->pkey;
		} else if (p->prot == PROT_EXEC && p->pkey == m->exec_key) {
			nk = 0;
		} else {
			nk = p->pkey;
		}
		if ((prot & PROT_WRITE) && p->nomw)
			return R(-EACCES);
		if ((prot & PROT_WRITE) && !p->acct && !(p->prot & PROT_WRITE) &&
		    !p->shared)
			p->acct = 1;
		p->prot = prot & 7;
		p->pkey = nk;
	}
	return R(0);
}

/* ---- madvise ---- */
static int madv_valid(long b)
{
	switch (b) {
	case B_NORMAL: case B_RANDOM: case B_SEQUENTIAL: case B_WILLNEED:
	case B_DONTNEED: case B_FREE: case B_REMOVE: case B_DONTFORK:
	case B_DOFORK: case B_HUGEPAGE: case B_NOHUGEPAGE: case B_DONTDUMP:
	case B_DODUMP: case B_WIPEONFORK: case B_KEEPONFORK: case B_COLD:
	case B_PAGEOUT: case B_POPULATE_READ: case B_POPULATE_WRITE:
	case B_DONTNEED_LOCKED: case B_COLLAPSE:
		return 1;
	}
	return 0;	/* also MERGEABLE/UNMERGEABLE: no CONFIG_KSM */
}
static int madv_discard(long b)
{
	return b == B_FREE || b == B_DONTNEED || b == B_DONTNEED_LOCKED ||
	       b == B_REMOVE || b == B_DONTFORK || b == B_WIPEONFORK;
}

static void zap(struct mpage *p)
{
	if (p->obj < 0) {
		p->cst = C_VAL;
		p->val = 0;
	} else if (!p->shared) {
		p->cst = C_FILE;
	}
}

static long madv_page(struct model *m, long i, long b)
{
	struct mpage *p = &m->p[i];

	switch (b) {
	case B_NORMAL: p->fl &= ~(FL_SR | FL_RR); break;
	case B_RANDOM: p->fl = (p->fl & ~FL_SR) | FL_RR; break;
	case B_SEQUENTIAL: p->fl = (p->fl & ~FL_RR) | FL_SR; break;
	case B_WILLNEED:
		if (p->obj < 0)
			return -EBADF;	/* !CONFIG_SWAP */
		break;
	case B_DONTNEED:
	case B_DONTNEED_LOCKED:
		zap(p);
		break;
	case B_FREE:
		if (p->obj >= 0)
			return -EINVAL;
		if (p->cst == C_VAL && p->val)
			p->cst = C_FREED;
		break;
	case B_REMOVE:
		if (p->obj < 0)
			return -EINVAL;
		if (!p->shared || p->nomw)
			return -EACCES;
		if (p->off < objs[p->obj].npages)
			objs[p->obj].val[p->off] = 0;
		break;
	case B_DONTFORK: p->fl |= FL_DC; break;
	case B_DOFORK: p->fl &= ~FL_DC; break;
	case B_HUGEPAGE: p->fl = (p->fl & ~FL_NH) | FL_HG; break;
	case B_NOHUGEPAGE: p->fl = (p->fl & ~FL_HG) | FL_NH; break;
	case B_DONTDUMP: p->fl |= FL_DD; break;
	case B_DODUMP: p->fl &= ~FL_DD; break;
	case B_WIPEONFORK:
		if (p->obj >= 0 || p->shared)
			return -EINVAL;
		p->fl |= FL_WF;
		break;
	case B_KEEPONFORK: p->fl &= ~FL_WF; break;
	case B_COLD:
	case B_PAGEOUT:
		break;
	case B_POPULATE_READ:
		if (!(p->prot & PROT_READ) || !pkru_allows(m->pkru, p->pkey, 0))
			return -EINVAL;
		if (page_bus(p))
			return -EFAULT;
		break;
	case B_POPULATE_WRITE:
		if (!(p->prot & PROT_WRITE) || !pkru_allows(m->pkru, p->pkey, 1))
			return -EINVAL;
		if (page_bus(p))
			return -EFAULT;
		if (!p->shared)
			give_anon_vma(m, i);
		if (p->obj >= 0 && !p->shared && p->cst == C_FILE) {
			p->val = file_val(p);
			p->cst = C_VAL;
		}
		break;
	case B_COLLAPSE:
		return -EINVAL;	/* no VMA here can hold an aligned 2MB page */
	}
	return 0;
}

static struct exp m_madvise(struct model *m, const struct op *o)
{
	unsigned long start = opaddr(o, 0), len_in = o->a[1], len, end;
	long b = o->a[2], ps, pe;
	int unmapped = 0;

	if (!madv_valid(b))
		return R(-EINVAL);
	if (start & (PG - 1))
		return R(-EINVAL);
	len = PA(len_in);
	if (len_in && !len)
		return R(-EINVAL);
	end = start + len;
	if (end < start)
		return R(-EINVAL);
	if (end == start)
		return R(0);
	if (!in_arena(start, len))
		return REJ();
	ps = pgi(start);
	pe = pgi(end);
	if (sealing && madv_discard(b)) {
		for (long i = ps; i < pe; i++) {
			struct mpage *p = &m->p[i];

			if (p->mapped && p->sealed && p->obj < 0 &&
			    (!(p->prot & PROT_WRITE) ||
			     !pkru_allows(m->pkru, p->pkey, 1)))
				return R(-EACCES);
		}
	}
	for (long i = ps; i < pe; i++) {
		long r;

		if (!m->p[i].mapped) {
			unmapped = 1;
			continue;
		}
		r = madv_page(m, i, b);
		if (r)
			return R(r);
	}
	return R(unmapped ? -ENOMEM : 0);
}

/* ---- mseal ---- */
static struct exp m_mseal(struct model *m, const struct op *o)
{
	unsigned long start = opaddr(o, 0), len_in = o->a[1], len, end;
	long ps, pe;

	if (!sealing)
		return R(-ENOSYS);
	if (o->a[2])
		return R(-EINVAL);
	if (start & (PG - 1))
		return R(-EINVAL);
	len = PA(len_in);
	if (len_in && !len)
		return R(-EINVAL);
	end = start + len;
	if (end < start)
		return R(-EINVAL);
	if (end == start)
		return R(0);
	if (!in_arena(start, len))
		return REJ();
	ps = pgi(start);
	pe = pgi(end);
	for (long i = ps; i < pe; i++) {
		if (!m->p[i].mapped)
			return R(-ENOMEM);
		if (!m->p[i].sealable)
			return R(-EACCES);
	}
	for (long i = ps; i < pe; i++)
		m->p[i].sealed = 1;
	return R(0);
}

/* ---- brk ---- */
static struct exp m_brk(struct model *m, const struct op *o)
{
	unsigned long b = opaddr(o, 0), nb, ob, cur = m->brk;

	if (b < B0 && b < A - 4 * PG)	/* below start_brk (we only use 0) */
		return R(cur);
	nb = PA(b);
	ob = PA(cur);
	if (nb == ob) {
		m->brk = b;
		return R(b);
	}
	if (b <= cur) {
		if (!in_arena(nb, ob - nb))
			return REJ();
		if (!any_mapped(m, pgi(nb), pgi(ob)))
			return R(cur);
		if (sealing && any_sealed(m, pgi(nb), pgi(ob)))
			return R(cur);
		unmap_pages(m, pgi(nb), pgi(ob));
		m->brk = b;
		return R(b);
	}
	if (!in_arena(ob, nb + PG - ob))
		return REJ();
	if (any_mapped(m, pgi(ob), pgi(nb + PG)))
		return R(cur);
	m->gen++;
	for (long i = pgi(ob); i < pgi(nb); i++) {
		struct mpage *p = &m->p[i];

		memset(p, 0, sizeof(*p));
		p->mapped = 1;
		p->prot = PROT_READ | PROT_WRITE;
		p->acct = 1;
		p->obj = -1;
		p->off = i;
		p->gen = m->gen;
		p->cst = C_VAL;
	}
	m->brk = b;
	return R(b);
}

/* ---- write ---- */
static struct exp m_write(struct model *m, const struct op *o)
{
	struct mpage *p = &m->p[o->a[0]];

	if (!p->mapped || !(p->prot & PROT_WRITE) ||
	    !pkru_allows(m->pkru, p->pkey, 1) || page_bus(p))
		return R(1);
	if (p->shared) {
		objs[p->obj].val[p->off] = o->tag;
	} else {
		p->cst = C_VAL;
		p->val = o->tag;
		give_anon_vma(m, o->a[0]);
	}
	return R(0);
}

/* ---- mremap ---- */

/*
 * move_vma(): the pages [ps, ps + oldn) move to dest (an arena page index,
 * or -1 for a kernel-chosen address outside it), growing to newn pages.
 */
static void move_pages(struct model *m, long ps, long oldn, long newn,
		       long dest, int dontunmap)
{
	struct mpage np[NPP + 8], proto = m->p[ps];

	for (long i = 0; i < newn; i++) {
		if (i < oldn) {
			np[i] = m->p[ps + i];
		} else {
			np[i] = proto;
			np[i].off = proto.off + i;
			np[i].cst = proto.obj < 0 ? C_VAL : C_FILE;
			np[i].val = 0;
		}
	}
	if (dontunmap) {
		/* The old VMA may get a new pgoff and no anon_vma: new gen. */
		m->gen++;
		for (long i = ps; i < ps + oldn; i++) {
			zap(&m->p[i]);
			m->p[i].gen = m->gen;
		}
	} else {
		unmap_pages(m, ps, ps + oldn);
	}
	if (dest < 0) {
		memcpy(out_pages, np, newn * sizeof(np[0]));
		out_n = newn;
		out_len = newn * PG;
		out_sealed = 0;
	} else {
		memcpy(&m->p[dest], np, newn * sizeof(np[0]));
	}
}

static struct exp m_mremap(struct model *m, const struct op *o)
{
	unsigned long addr = opaddr(o, 0), old_len = o->a[1], new_len = o->a[2];
	unsigned long flags = o->a[3], new_addr = opaddr(o, 4);
	long ps, oldn, newn, vend, dest;

	if (flags & ~(unsigned long)(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP))
		return R(-EINVAL);
	if ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE))
		return R(-EINVAL);
	if ((flags & MREMAP_DONTUNMAP) &&
	    (!(flags & MREMAP_MAYMOVE) || old_len != new_len))
		return R(-EINVAL);
	if (addr & (PG - 1))
		return R(-EINVAL);
	old_len = PA(old_len);
	new_len = PA(new_len);
	if (!new_len)
		return R(-EINVAL);
	if (!in_arena(addr, old_len ? old_len : PG))
		return REJ();
	ps = pgi(addr);
	if (!m->p[ps].mapped)
		return R(-EFAULT);
	if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
		if (new_addr & (PG - 1))
			return R(-EINVAL);
		if (new_len > TASK_SZ || new_addr > TASK_SZ - new_len)
			return R(-EINVAL);
		if (addr + old_len > new_addr && new_addr + new_len > addr)
			return R(-EINVAL);
		if (sealing && any_sealed(m, ps, ps + (old_len ? old_len / PG : 1)))
			return R(-EACCES);
		if (flags & MREMAP_FIXED) {
			long r;

			if (!in_np(new_addr, new_len))
				return REJ();
			r = do_munmap_m(m, new_addr, new_len);

			if (r == 1)
				return REJ();
			if (r)
				return R(r);
		}
		if (old_len > new_len) {
			long r = do_munmap_m(m, addr + new_len, old_len - new_len);

			if (r)
				return r == 1 ? REJ() : R(r);
			old_len = new_len;
		}
		/* vma_to_resize(): the VMA at addr, after the unmappings */
		if (!m->p[ps].mapped)
			return R(-EFAULT);
		for (vend = ps; vend < kvend[ps] && m->p[vend].mapped; vend++)
			;
		if (!old_len && !m->p[ps].shared)
			return R(-EINVAL);
		if ((long)(old_len / PG) > vend - ps)
			return R(-EFAULT);
		oldn = old_len / PG;
		newn = new_len / PG;
		if (flags & MREMAP_FIXED) {
			dest = pgi(new_addr);
		} else if (!new_addr) {
			dest = -1;
		} else {
			if (!in_np(new_addr, new_len))
				return REJ();
			dest = any_mapped(m, pgi(new_addr), pgi(new_addr) + newn) ?
			       -1 : pgi(new_addr);
		}
		move_pages(m, ps, oldn, newn, dest, !!(flags & MREMAP_DONTUNMAP));
		return dest < 0 ? OUTSIDE() : R(A + dest * PG);
	}
	if (sealing && any_sealed(m, ps, ps + (old_len ? old_len / PG : 1)))
		return R(-EACCES);
	if (old_len >= new_len) {
		if (old_len != new_len) {
			long r = do_munmap_m(m, addr + new_len, old_len - new_len);

			if (r == 1)
				return REJ();
			if (r)
				return R(r);
		}
		return R(addr);
	}
	vend = kvend[ps];
	if (!old_len && !m->p[ps].shared)
		return R(-EINVAL);
	if ((long)(old_len / PG) > vend - ps)
		return R(-EFAULT);
	oldn = old_len / PG;
	newn = new_len / PG;
	if (oldn == vend - ps) {
		long d = newn - oldn;

		if (vend + d > NPP)
			return REJ();
		if (!any_mapped(m, vend, vend + d)) {
			if (vend + d > NP)
				return REJ();	/* would grow into the guard */
			struct mpage proto = m->p[ps];

			for (long i = oldn; i < newn; i++) {
				struct mpage *p = &m->p[ps + i];

				*p = proto;
				p->off = proto.off + i;
				p->cst = proto.obj < 0 ? C_VAL : C_FILE;
				p->val = 0;
			}
			return R(addr);
		}
	}
	if (!(flags & MREMAP_MAYMOVE))
		return R(-ENOMEM);
	move_pages(m, ps, oldn, newn, -1, 0);
	return OUTSIDE();
}

/* Map npg pages of object obj (offset off) MAP_SHARED|MAP_FIXED at ps. */
static void map_shared_file(struct model *m, long ps, long npg, int obj,
			    unsigned long off, int prot, int pkey, int sealable,
			    int nomw, long fid)
{
	m->gen++;
	if (fid < 0)
		fid = 1000 + m->gen;
	for (long i = 0; i < npg; i++) {
		struct mpage *p = &m->p[ps + i];

		memset(p, 0, sizeof(*p));
		p->mapped = 1;
		p->prot = prot & 7;
		p->shared = 1;
		p->pkey = pkey;
		p->sealable = sealable;
		p->obj = obj;
		p->off = off + i;
		p->gen = m->gen;
		p->cst = C_FILE;
		p->nomw = nomw;
		p->fid = fid;
	}
}

/* ---- shmat ---- */
static struct exp m_shmat(struct model *m, const struct op *o)
{
	unsigned long addr = opaddr(o, 0), flg = o->a[1];
	unsigned long size = SHM_PAGES * PG;
	int prot;
	long ps;

	if (addr) {
		if (addr & (PG - 1)) {
			if (!(flg & SHM_RND))
				return R(-EINVAL);
			addr &= ~(PG - 1);
		}
	} else if (flg & SHM_REMAP) {
		return R(-EINVAL);
	}
	prot = flg & SHM_RDONLY ? PROT_READ : PROT_READ | PROT_WRITE;
	if (flg & SHM_EXEC)
		prot |= PROT_EXEC;
	if (!addr) {
		out_len = size;
		out_sealed = 0;
		out_n = 0;
		return OUTSIDE();
	}
	if (!in_np(addr, size))
		return REJ();
	ps = pgi(addr);
	if (!(flg & SHM_REMAP) && any_mapped(m, ps, ps + SHM_PAGES))
		return R(-EINVAL);
	if (sealing && any_sealed(m, ps, ps + SHM_PAGES))
		return R(-EACCES);
	map_shared_file(m, ps, SHM_PAGES, OBJ_SHM, 0, prot, 0, 0,
			!!(flg & SHM_RDONLY), -1);
	return R(addr);
}

/* ---- remap_file_pages ---- */
static struct exp m_remap(struct model *m, const struct op *o)
{
	unsigned long start = opaddr(o, 0), size = o->a[1], pgoff = o->a[3];
	struct mpage f;
	long ps, npg;
	int pkey = 0;

	if (o->a[2])
		return R(-EINVAL);
	start &= ~(PG - 1);
	size &= ~(PG - 1);
	if (start + size <= start)
		return R(-EINVAL);
	if (!in_arena(start, size))
		return REJ();
	ps = pgi(start);
	npg = size / PG;
	f = m->p[ps];
	if (!f.mapped || !f.shared || f.nomw)
		return R(-EINVAL);
	for (long i = ps + 1; i < ps + npg; i++) {
		const struct mpage *q = &m->p[i];

		if (!q->mapped || q->fid != f.fid || q->prot != f.prot ||
		    q->pkey != f.pkey || q->fl != f.fl || q->sealed != f.sealed ||
		    q->sealable != f.sealable || q->nomw != f.nomw || !q->shared)
			return R(-EINVAL);
	}
	/* do_mmap(vm_file, start, size, prot, MAP_SHARED | MAP_FIXED ...) */
	if (!in_np(start, size))
		return REJ();
	if (f.prot == PROT_EXEC)
		pkey = exec_key_get(m);
	if (sealing && any_sealed(m, ps, ps + npg))
		return R(-EACCES);
	map_shared_file(m, ps, npg, f.obj, pgoff, f.prot, pkey,
			sealing && f.sealable, 0, f.fid);
	return R(0);
}

static struct exp predict(struct model *m, const struct op *o)
{
	switch (o->k) {
	case OP_MMAP: return m_mmap(m, o);
	case OP_MUNMAP: return m_munmap(m, o);
	case OP_MPROTECT: return m_mprotect(m, o, -1);
	case OP_PKEY_MPROTECT: return m_mprotect(m, o, o->a[3]);
	case OP_WRPKRU:
		m->pkru ^= 2U << (2 * (o->a[0] ? key2 : key1));
		return R(0);
	case OP_MREMAP: return m_mremap(m, o);
	case OP_MADVISE: return m_madvise(m, o);
	case OP_MSEAL: return m_mseal(m, o);
	case OP_BRK: return m_brk(m, o);
	case OP_WRITE: return m_write(m, o);
	case OP_FORK: return R(0);
	case OP_SHMAT: return m_shmat(m, o);
	case OP_REMAP: return m_remap(m, o);
	}
	return R(0);
}

/* ------------------------------------------------------------------ */
/* The kernel's view                                                    */

enum { VK_NONE, VK_VAL, VK_BUS, VK_SEGV };

struct kpage {
	uint8_t mapped, perm, s, vk;
	int pkey;
	uint32_t vf;
	uint64_t ino, off, val;
};
static struct kpage kp[NPP];
static int kp_smaps;		/* the last observation read smaps */
static char fbuf[1 << 18];

static int read_file(const char *path)
{
	int fd = open(path, O_RDONLY), n = 0, r;

	if (fd < 0)
		return -1;
	while ((r = read(fd, fbuf + n, sizeof(fbuf) - 1 - n)) > 0)
		n += r;
	close(fd);
	fbuf[n] = 0;
	return n;
}

static unsigned long hex(const char **s)
{
	unsigned long v = 0;

	for (;; (*s)++) {
		char c = **s;

		if (c >= '0' && c <= '9')
			v = v * 16 + c - '0';
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + c - 'a' + 10;
		else
			return v;
	}
}

/* Parse a maps/smaps VMA header line; 0 if it is not one. */
static int vma_line(const char *s, unsigned long *st, unsigned long *en,
		    uint8_t *perm, uint8_t *shr, unsigned long *off,
		    unsigned long *ino)
{
	const char *p = s;

	if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
		return 0;
	*st = hex(&p);
	if (*p != '-')
		return 0;
	p++;
	*en = hex(&p);
	if (*p++ != ' ')
		return 0;
	*perm = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		(p[2] == 'x' ? PROT_EXEC : 0);
	*shr = p[3] == 's';
	p += 5;
	*off = hex(&p);
	p++;
	while (*p && *p != ' ')
		p++;
	p++;
	*ino = strtoul(p, NULL, 10);
	return 1;
}

/* Clip a VMA to the arena: page indices [*a, *b); 0 if disjoint. */
static int clip(unsigned long st, unsigned long en, long *a, long *b)
{
	unsigned long lo = A, hi = A + NPP * PG;

	if (en <= lo || st >= hi)
		return 0;
	*a = st < lo ? 0 : pgi(st);
	*b = en > hi ? NPP : pgi(en);
	return 1;
}

static int observe_maps(void)
{
	const char *s;

	memset(kp, 0, sizeof(kp));
	kp_smaps = 0;
	if (read_file("/proc/self/maps") < 0)
		return -1;
	for (s = fbuf; *s; ) {
		unsigned long st, en, off, ino;
		uint8_t perm, shr;
		long a, b;

		if (vma_line(s, &st, &en, &perm, &shr, &off, &ino) &&
		    clip(st, en, &a, &b)) {
			for (long i = a; i < b; i++) {
				kp[i].mapped = 1;
				kp[i].perm = perm;
				kp[i].s = shr;
				kp[i].ino = ino;
				kp[i].off = off / PG + (i - pgi(st));
				kvstart[i] = pgi(st);
				kvend[i] = en > A + NPP * PG ? NPP : pgi(en);
			}
		}
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	return 0;
}

static uint32_t vmflags(const char *p)
{
	static const struct { char n[3]; uint32_t f; } t[] = {
		{ "dc", FL_DC }, { "wf", FL_WF }, { "dd", FL_DD },
		{ "hg", FL_HG }, { "nh", FL_NH }, { "sr", FL_SR },
		{ "rr", FL_RR }, { "ac", FL_AC }, { "sl", FL_SL },
	};
	uint32_t f = 0;

	while (*p && *p != '\n') {
		while (*p == ' ')
			p++;
		for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++)
			if (p[0] == t[i].n[0] && p[1] == t[i].n[1] &&
			    (p[2] == ' ' || p[2] == '\n' || !p[2]))
				f |= t[i].f;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	return f;
}

static int observe_smaps(void)
{
	const char *s;
	long a = 0, b = 0;
	int in = 0;

	if (read_file("/proc/self/smaps") < 0)
		return -1;
	for (s = fbuf; *s; ) {
		unsigned long st, en, off, ino;
		uint8_t perm, shr;

		if (vma_line(s, &st, &en, &perm, &shr, &off, &ino)) {
			in = clip(st, en, &a, &b);
		} else if (in && !strncmp(s, "ProtectionKey:", 14)) {
			int k = atoi(s + 14);

			for (long i = a; i < b; i++)
				kp[i].pkey = k;
		} else if (in && !strncmp(s, "VmFlags:", 8)) {
			uint32_t f = vmflags(s + 8);

			for (long i = a; i < b; i++)
				kp[i].vf = f;
		}
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	kp_smaps = 1;
	return 0;
}

/* Faults during the direct accesses come back here. */
static sigjmp_buf fjb;
static void on_fault(int sig)
{
	siglongjmp(fjb, sig);
}

static void observe_contents(void)
{
	static volatile long i;
	uint32_t pk = rdpkru();
	int sig;

	i = 0;
	sig = sigsetjmp(fjb, 0);
	if (sig) {
		wrpkru(pk);
		kp[i].vk = sig == SIGBUS ? VK_BUS : VK_SEGV;
		i++;
	}
	for (; i < NPP; i++) {
		struct kpage *k = &kp[i];

		if (!k->mapped)
			continue;
		if (k->perm & (PROT_READ | PROT_WRITE)) {
			k->val = *(volatile uint64_t *)(A + i * PG);
			k->vk = VK_VAL;
		} else if (pread(selfmem, &k->val, 8, A + i * PG) == 8) {
			k->vk = VK_VAL;
		} else {
			k->vk = VK_BUS;
		}
	}
}

/* A protected write: 0, or 1 if it faulted. */
static int try_write(unsigned long addr, uint64_t v)
{
	uint32_t pk = rdpkru();

	if (sigsetjmp(fjb, 0)) {
		wrpkru(pk);
		return 1;
	}
	*(volatile uint64_t *)addr = v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Comparison                                                           */

static const char *prot_str(int prot, int shared, char *b)
{
	b[0] = prot & PROT_READ ? 'r' : '-';
	b[1] = prot & PROT_WRITE ? 'w' : '-';
	b[2] = prot & PROT_EXEC ? 'x' : '-';
	b[3] = shared ? 's' : 'p';
	b[4] = 0;
	return b;
}

static void fl_str(uint32_t f, char *b)
{
	static const char *const n[] = { "dc", "wf", "dd", "hg", "nh", "sr",
					 "rr", "ac", "sl" };

	b[0] = 0;
	for (int i = 0; i < 9; i++)
		if (f & (1U << i)) {
			strcat(b, n[i]);
			strcat(b, " ");
		}
}

static uint32_t model_fl(const struct mpage *p)
{
	return p->fl | (p->acct ? FL_AC : 0) | (p->sealed ? FL_SL : 0);
}

static uint32_t fl_mask(void)
{
	return 0x7f | FL_AC | (seal_cmp ? FL_SL : 0);
}

static void show_model_page(const struct model *m, long i)
{
	const struct mpage *p = &m->p[i];
	char b[8], f[64];
	uint64_t v = 0;
	int k;

	if (!p->mapped) {
		rep("    model : page %2ld A+0x%05lx unmapped\n", i, i * PG);
		return;
	}
	k = exp_word(p, &v);
	fl_str(model_fl(p), f);
	rep("    model : page %2ld A+0x%05lx %s %s off %u pkey %d %s%s"
	    "gen %u word %s0x%llx\n", i, i * PG, prot_str(p->prot, p->shared, b),
	    p->obj < 0 ? "anon" : p->obj < 2 ? (p->obj ? "memfd1" : "memfd0") :
	    p->obj == OBJ_SHM ? (p->nomw ? "sysv(ro)" : "sysv") : "shmem", p->off, p->pkey, p->sealable ? "sealable " : "", f, p->gen,
	    k == 2 ? "SIGBUS " : k == 1 ? "0 or " : "", (unsigned long long)v);
	(void)m;
}

static void show_kernel_page(long i)
{
	const struct kpage *k = &kp[i];
	char b[8], f[64];

	if (!k->mapped) {
		rep("    kernel: page %2ld A+0x%05lx unmapped\n", i, i * PG);
		return;
	}
	fl_str(k->vf, f);
	rep("    kernel: page %2ld A+0x%05lx %s ino %lu off %lu vma [%d,%d) ",
	    i, i * PG, prot_str(k->perm, k->s, b), (unsigned long)k->ino,
	    (unsigned long)k->off, kvstart[i], kvend[i]);
	if (kp_smaps)
		rep("pkey %d %s", k->pkey, f);
	rep("word %s0x%llx\n", k->vk == VK_BUS ? "SIGBUS " :
	    k->vk == VK_SEGV ? "SIGSEGV " : "", (unsigned long long)k->val);
}

/* First difference of page i, as a short string; NULL if none. */
static const char *page_diff(const struct model *m, long i)
{
	const struct mpage *p = &m->p[i];
	const struct kpage *k = &kp[i];
	uint64_t v = 0;
	int kind;

	if (p->mapped != k->mapped)
		return "mapped";
	if (!p->mapped)
		return NULL;
	if (p->prot != k->perm || p->shared != k->s)
		return "prot";
	if (p->obj >= 0) {
		if (!objs[p->obj].ino_known) {
			for (int o = 0; o < m->nobj; o++)
				if (o != p->obj && objs[o].ino_known &&
				    objs[o].ino == k->ino)
					return "backing";
			objs[p->obj].ino = k->ino;
			objs[p->obj].ino_known = 1;
		}
		if (objs[p->obj].ino != k->ino)
			return "backing";
		if (p->off != k->off)
			return "offset";
	} else if (k->ino) {
		return "backing";
	}
	if (kp_smaps) {
		if (p->pkey != k->pkey)
			return "pkey";
		if ((model_fl(p) ^ k->vf) & fl_mask())
			return (model_fl(p) ^ k->vf) & FL_SL ? "sealed" : "vmflags";
	}
	kind = exp_word(p, &v);
	if (kind == 2)
		return k->vk == VK_BUS ? NULL : "contents";
	if (k->vk != VK_VAL)
		return "contents";
	if (k->val == v || (kind == 1 && !k->val))
		return NULL;
	return "contents";
}

/* Two pages that must be in one VMA (sealed anon from one mmap). */
static int must_merge(const struct model *m, long i)
{
	const struct mpage *p = &m->p[i], *q = &m->p[i + 1];

	return p->mapped && q->mapped && p->sealed && q->sealed &&
	       p->obj < 0 && q->obj < 0 && p->gen == q->gen &&
	       p->off + 1 == q->off && p->prot == q->prot &&
	       p->pkey == q->pkey && p->fl == q->fl && p->acct == q->acct &&
	       !p->av && !q->av;
}

static int diff_page = -1, diff_merge;
static const char *diff_what;

/* Compare the model with kp[]; report up to a few pages. */
static int compare(const struct model *m, const char *who)
{
	int nd = 0;

	diff_page = -1;
	diff_merge = 0;
	for (long i = 0; i < NPP; i++) {
		const char *d = page_diff(m, i);

		if (!d)
			continue;
		if (!nd++) {
			diff_page = i;
			diff_what = d;
			rep("  %s: state differs (%s) at page %ld\n", who, d, i);
		}
		if (nd <= 8) {
			rep("   [%s]\n", d);
			show_model_page(m, i);
			show_kernel_page(i);
		}
	}
	if (nd)
		return nd;
	for (long i = 0; i + 1 < NP; i++) {
		if (must_merge(m, i) && kvstart[i] != kvstart[i + 1]) {
			rep("  %s: merge invariant: sealed anon pages %ld and %ld "
			    "of one mmap are in different VMAs\n", who, i, i + 1);
			show_model_page(m, i);
			show_kernel_page(i);
			show_model_page(m, i + 1);
			show_kernel_page(i + 1);
			diff_page = i;
			diff_merge = 1;
			diff_what = "merge";
			return 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Running calls                                                        */

static long sc(long r)
{
	return r == -1 ? -errno : r;
}

static long exec_op(const struct op *o)
{
	unsigned long a0 = opaddr(o, 0);
	int fd;

	switch (o->k) {
	case OP_MMAP:
		fd = o->fdi < 0 ? -1 : o->fdi < 2 ? memfd[o->fdi] : 1000;
		return sc(syscall(SYS_mmap, a0, o->a[1], o->a[2], o->a[3], fd,
				  o->a[4]));
	case OP_MUNMAP:
		return sc(syscall(SYS_munmap, a0, o->a[1]));
	case OP_MPROTECT:
		return sc(syscall(SYS_mprotect, a0, o->a[1], o->a[2]));
	case OP_PKEY_MPROTECT:
		return sc(syscall(SYS_pkey_mprotect, a0, o->a[1], o->a[2],
				  o->a[3]));
	case OP_WRPKRU:
		wrpkru(rdpkru() ^ (2U << (2 * (o->a[0] ? key2 : key1))));
		return 0;
	case OP_MREMAP:
		return sc(syscall(SYS_mremap, a0, o->a[1], o->a[2], o->a[3],
				  opaddr(o, 4)));
	case OP_MADVISE:
		return sc(syscall(SYS_madvise, a0, o->a[1], o->a[2]));
	case OP_MSEAL:
		return sc(syscall(__NR_mseal, a0, o->a[1], o->a[2]));
	case OP_BRK:
		return syscall(SYS_brk, a0);
	case OP_WRITE:
		return try_write(A + o->a[0] * PG, o->tag);
	case OP_SHMAT:
		return sc(syscall(SYS_shmat, shmid, a0, o->a[1]));
	case OP_REMAP:
		return sc(syscall(SYS_remap_file_pages, a0, o->a[1], o->a[2],
				  o->a[3], o->a[4]));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Calls as C                                                           */

static const char *errname(long e)
{
	static char b[16];

	switch (e) {
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EEXIST: return "EEXIST";
	case EFAULT: return "EFAULT";
	case EBADF: return "EBADF";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EAGAIN: return "EAGAIN";
	case EPERM: return "EPERM";
	case ENODEV: return "ENODEV";
	case EOVERFLOW: return "EOVERFLOW";
	}
	snprintf(b, sizeof(b), "%ld", e);
	return b;
}

static char *addr_str(unsigned long v, char *b)
{
	if (v >= A - 64 * PG && v <= A + 4 * NPP * PG)
		sprintf(b, "A + 0x%lx", v - A);
	else
		sprintf(b, "0x%lx", v);
	return b;
}

static char *arg_addr(const struct op *o, int i, char *b)
{
	return addr_str(opaddr(o, i), b);
}

static char *val_str(const struct op *o, long v, char *b)
{
	if (v < 0 && v > -4096)
		sprintf(b, "-%s", errname(-v));
	else if (o->k == OP_BRK && (unsigned long)v == B0)
		sprintf(b, "(long)brk0");
	else if ((unsigned long)v >= A - 64 * PG && (unsigned long)v <= A + 4 * NPP * PG)
		sprintf(b, "(long)(A + 0x%lx)", v - A);
	else
		sprintf(b, "%ld", v);
	return b;
}

static char *key_str(long k, char *b)
{
	if (k == key1 && k >= 0)
		sprintf(b, "key[0]");
	else if (k == key2 && k >= 0)
		sprintf(b, "key[1]");
	else
		sprintf(b, "%ld", k);
	return b;
}

/* The call, as an expression of the reproducer. */
static char *call_str(const struct op *o, char *b)
{
	char x[48], y[48], z[16];

	switch (o->k) {
	case OP_MMAP:
		sprintf(b, "SC(SYS_mmap, %s, 0x%lx, 0x%lx, 0x%lx, %s, 0x%lx)",
			arg_addr(o, 0, x), o->a[1], o->a[2], o->a[3],
			o->fdi < 0 ? "-1" : o->fdi == 0 ? "fd[0]" :
			o->fdi == 1 ? "fd[1]" : "1000", o->a[4]);
		break;
	case OP_MUNMAP:
	case OP_MPROTECT:
	case OP_MADVISE:
	case OP_MSEAL:
		sprintf(b, "SC(%s, %s, 0x%lx, %ld)",
			o->k == OP_MUNMAP ? "SYS_munmap" : o->k == OP_MPROTECT ?
			"SYS_mprotect" : o->k == OP_MADVISE ? "SYS_madvise" :
			"__NR_mseal", arg_addr(o, 0, x), o->a[1], o->a[2]);
		if (o->k == OP_MUNMAP)
			sprintf(b, "SC(SYS_munmap, %s, 0x%lx)", x, o->a[1]);
		break;
	case OP_PKEY_MPROTECT:
		sprintf(b, "SC(SYS_pkey_mprotect, %s, 0x%lx, 0x%lx, %s)",
			arg_addr(o, 0, x), o->a[1], o->a[2], key_str(o->a[3], z));
		break;
	case OP_MREMAP:
		sprintf(b, "SC(SYS_mremap, %s, 0x%lx, 0x%lx, %ld, %s)",
			arg_addr(o, 0, x), o->a[1], o->a[2], o->a[3],
			arg_addr(o, 4, y));
		break;
	case OP_BRK:
		sprintf(b, "syscall(SYS_brk, %s)", arg_addr(o, 0, x));
		break;
	case OP_WRITE:
		sprintf(b, "try_write(A + 0x%lx, 0x%llxULL)", o->a[0] * PG,
			(unsigned long long)o->tag);
		break;
	case OP_WRPKRU:
		sprintf(b, "wrpkru(rdpkru() ^ (2U << (2 * key[%ld])))", o->a[0]);
		break;
	case OP_FORK:
		sprintf(b, "fork()");
		break;
	case OP_SHMAT:
		sprintf(b, "SC(SYS_shmat, shm, %s, 0x%lx)", arg_addr(o, 0, x),
			o->a[1]);
		break;
	case OP_REMAP:
		sprintf(b, "SC(SYS_remap_file_pages, %s, 0x%lx, %ld, %ld, 0x%lx)",
			arg_addr(o, 0, x), o->a[1], o->a[2], o->a[3], o->a[4]);
		break;
	default:
		sprintf(b, "0");
	}
	return b;
}

/* The reproducer's lines for call i (its expected result e). */
static void emit_call(int i, const struct op *o, const struct exp *e,
		      long fork_s, long fork_u)
{
	char c[256], v[64];

	call_str(o, c);
	if (o->k == OP_WRPKRU) {
		cde("\t/* %d */ %s;\n", i, c);
	} else if (o->k == OP_FORK) {
		cde("\t/* %d */ ASSERT_EQ(0, fork_munmap(%s%lx, %s%lx));\n", i,
		    fork_s < 0 ? "0x" : "A + 0x", fork_s < 0 ? 0 : fork_s * PG,
		    fork_u < 0 ? "0x" : "A + 0x", fork_u < 0 ? 0 : fork_u * PG);
	} else if (e->outside) {
		cde("\t/* %d */ r = %s;\n", i, c);
		cde("\tASSERT_TRUE(r > 0 && (r + 0x%lx <= A || r >= A + ARENA));\n",
		    out_len);
		if (!out_sealed)
			cde("\tASSERT_EQ(0, SC(SYS_munmap, r, 0x%lx));\n", out_len);
	} else {
		cde("\t/* %d */ ASSERT_EQ(%s, %s);\n", i, val_str(o, e->ret, v), c);
	}
}

/* The reproducer's check of a state difference at page i. */
static void emit_state_check(const struct model *m, long i)
{
	const struct mpage *p = &m->p[i];
	char b[8];
	uint64_t v = 0;
	int kind;

	if (diff_merge) {
		cde("\tASSERT_EQ(vma_start(A + 0x%lx), vma_start(A + 0x%lx));\n",
		    i * PG, (i + 1) * PG);
		return;
	}
	cde("\tASSERT_STREQ(\"%s\", perms(A + 0x%lx));\n",
	    p->mapped ? prot_str(p->prot, p->shared, b) : "none", i * PG);
	if (!p->mapped)
		return;
	if (kp_smaps) {
		cde("\tASSERT_EQ(%d, smaps_pkey(A + 0x%lx));\n", p->pkey, i * PG);
		if (seal_cmp)
			cde("\tASSERT_EQ(%d, smaps_flag(A + 0x%lx, \"sl\"));\n",
			    p->sealed, i * PG);
		cde("\tASSERT_EQ(%d, smaps_flag(A + 0x%lx, \"ac\"));\n", p->acct,
		    i * PG);
	}
	kind = exp_word(p, &v);
	if (kind == 2)
		cde("\tASSERT_EQ(BUS, word(A + 0x%lx));\n", i * PG);
	else if (kind == 1)
		cde("\tw = word(A + 0x%lx); ASSERT_TRUE(w == 0x%llxULL || !w);\n",
		    i * PG, (unsigned long long)v);
	else
		cde("\tASSERT_EQ(0x%llxULL, word(A + 0x%lx));\n",
		    (unsigned long long)v, i * PG);
}

/* ------------------------------------------------------------------ */
/* Generating calls                                                     */

static long pick_page(const struct model *m)
{
	if (chance(75)) {
		long c[NP], n = 0;

		for (long i = 0; i < NP; i++)
			if (m->p[i].mapped)
				c[n++] = i;
		if (n)
			return c[rn(n)];
	}
	return rn(NP);
}

static long pick_npages(void)
{
	unsigned int r = rn(100);

	if (r < 45)
		return 1 + rn(3);
	if (r < 85)
		return 1 + rn(8);
	return 1 + rn(16);
}

/* A range [a[0], a[0] + a[1]) in the arena, sometimes deliberately off. */
static void pick_range(const struct model *m, struct op *o, int wrap_ok)
{
	long s = pick_page(m), n = pick_npages();
	unsigned int r = rn(100);

	if (chance(50) && m->p[s].mapped && kvstart[s] >= 0 && chance(50))
		s = kvstart[s];		/* VMA-aligned start */
	if (s + n > NPP)
		n = NPP - s;
	o->a[0] = s * PG;
	o->a[1] = n * PG;
	if (r < 3)
		o->a[0] += 1 + rn(PG - 1);		/* unaligned */
	else if (r < 6)
		o->a[1] = 0;
	else if (r < 10)
		o->a[1] = n * PG - rn(PG - 1);		/* rounded up */
	else if (r < 12 && wrap_ok)
		o->a[1] = -(long)PG * (1 + rn(2));	/* wraps */
}

static void gen_op(const struct model *m, struct op *o, int idx, int seqno)
{
	unsigned int r = rn(100), q = rn(100);

	memset(o, 0, sizeof(*o));
	o->fdi = -1;
	if (q < 2) {
		long s = pick_page(m);

		o->k = OP_SHMAT;
		if (s + SHM_PAGES > NP)
			s = NP - SHM_PAGES;
		o->a[0] = s * PG;
		o->a[1] = (chance(50) ? SHM_REMAP : 0) |
			  (chance(30) ? SHM_RDONLY : 0) | (chance(10) ? SHM_EXEC : 0);
		if (chance(8)) {
			o->a[0] += 1 + rn(PG - 1);
			if (chance(70))
				o->a[1] |= SHM_RND;
		} else if (chance(7)) {
			o->a[0] = 0;
			o->absm = 1;
		}
		return;
	}
	if (q < 4) {
		long s = pick_page(m), n = 1 + rn(4);

		o->k = OP_REMAP;
		if (m->p[s].mapped && chance(50) && kvstart[s] >= 0)
			s = kvstart[s];
		if (s + n > NPP)
			n = NPP - s;
		o->a[0] = s * PG;
		o->a[1] = n * PG;
		if (chance(5))
			o->a[1] = rn(PG);
		else if (chance(5))
			o->a[1] += rn(PG);
		o->a[2] = chance(5) ? PROT_READ : 0;
		o->a[3] = m->p[s].obj == OBJ_SHM || m->p[s].obj > OBJ_SHM ?
			  rn(6) : rn(70);
		o->a[4] = chance(10) ? MAP_NONBLOCK : 0;
		return;
	}
	if (r < 17) {
		unsigned int t = rn(100), pl = rn(100);
		long s = pick_page(m), n = 1 + rn(chance(70) ? 4 : 8);

		o->k = OP_MMAP;
		if (s + n > NP)
			n = NP - s;
		if (n < 1)
			n = 1, s = NP - 1;
		o->a[0] = s * PG;
		o->a[1] = n * PG;
		o->a[2] = rn(8);
		if (chance(15))
			o->a[2] |= PROT_SEAL;
		if (chance(2))
			o->a[2] |= PROT_SEM;
		if (t < 45) {
			o->a[3] = MAP_PRIVATE | MAP_ANONYMOUS;
		} else if (t < 58) {
			o->a[3] = MAP_SHARED | MAP_ANONYMOUS;
		} else if (t < 94) {
			o->fdi = rn(2);
			o->a[3] = chance(50) ? MAP_SHARED : MAP_PRIVATE;
			if (chance(10))
				o->a[3] = MAP_SHARED_VALIDATE;
			o->a[4] = rn(64) * PG;
			if (chance(3))
				o->a[4] += 512;
		} else {
			switch (rn(4)) {
			case 0:
				o->fdi = 2;
				o->a[3] = MAP_PRIVATE;
				break;
			case 1:
				o->a[3] = MAP_SHARED_VALIDATE | MAP_ANONYMOUS;
				break;
			case 2:
				o->a[3] = MAP_ANONYMOUS;
				break;
			default:
				o->a[3] = MAP_PRIVATE | MAP_ANONYMOUS;
				break;
			}
		}
		if (chance(55))
			o->a[3] |= MAP_SEALABLE;
		if (pl < 58) {
			o->a[3] |= MAP_FIXED;
		} else if (pl < 73) {
			o->a[3] |= MAP_FIXED_NOREPLACE;
		} else if (pl < 95) {
			if (chance(10))
				o->a[0] += 1 + rn(PG - 1);	/* hint: rounded */
		} else {
			o->a[0] = 0;
			o->absm = 1;
		}
		if (pl < 73 && chance(2))
			o->a[0] += 8;
		if (chance(2))
			o->a[1] = 0;
		else if (chance(5))
			o->a[1] -= rn(PG - 1);
	} else if (r < 24) {
		o->k = OP_MUNMAP;
		pick_range(m, o, 1);
	} else if (r < 32) {
		unsigned int t = rn(100);

		o->k = OP_MPROTECT;
		pick_range(m, o, 1);
		o->a[2] = rn(8);
		if (t < 5)
			o->a[2] |= PROT_SEAL;
		else if (t < 7)
			o->a[2] |= PROT_SEM;
		else if (t < 9)
			o->a[2] |= PROT_GROWSDOWN;
		else if (t < 10)
			o->a[2] |= PROT_GROWSUP;
		else if (t < 11)
			o->a[2] |= 0x100;
	} else if (r < 37) {
		static const long keys[] = { 0, -1, 3, 15, 16, -2 };

		o->k = OP_PKEY_MPROTECT;
		pick_range(m, o, 0);
		o->a[2] = rn(8);
		if (chance(35))
			o->a[3] = key1;
		else if (chance(50))
			o->a[3] = key2;
		else
			o->a[3] = keys[rn(6)];
		if (o->a[3] == -1 && m->exec_key >= 0 && chance(50))
			o->a[3] = m->exec_key;
	} else if (r < 39) {
		o->k = OP_WRPKRU;
		o->a[0] = rn(2);
	} else if (r < 52) {
		static const long fl[] = {
			0, MREMAP_MAYMOVE, MREMAP_MAYMOVE | MREMAP_FIXED,
			MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
			MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
		};
		long s = pick_page(m), vend, oldn, newn, t = rn(100);

		o->k = OP_MREMAP;
		if (m->p[s].mapped && chance(60) && kvstart[s] >= 0)
			s = kvstart[s];
		vend = m->p[s].mapped ? kvend[s] : s + 1;
		if (t < 8 || (m->p[s].shared && t < 20))
			oldn = 0;
		else if (t < 88)
			oldn = 1 + rn(vend - s > 0 ? vend - s : 1);
		else
			oldn = vend - s + 1 + rn(3);
		switch (rn(3)) {
		case 0: newn = oldn > 1 ? 1 + rn(oldn - 1) : 1; break;
		case 1: newn = oldn ? oldn : 1; break;
		default: newn = oldn + 1 + rn(4); break;
		}
		t = rn(100);
		if (t < 20)
			o->a[3] = fl[0];
		else if (t < 38)
			o->a[3] = fl[1];
		else if (t < 62)
			o->a[3] = fl[2];
		else if (t < 78)
			o->a[3] = fl[3];
		else if (t < 90)
			o->a[3] = fl[4];
		else if (t < 93)
			o->a[3] = MREMAP_FIXED;
		else if (t < 95)
			o->a[3] = MREMAP_DONTUNMAP;
		else if (t < 97)
			o->a[3] = 8 | MREMAP_MAYMOVE;
		else
			o->a[3] = MREMAP_MAYMOVE | MREMAP_DONTUNMAP | 0x100000;
		if (o->a[3] == (MREMAP_MAYMOVE | MREMAP_DONTUNMAP | 0x100000)) {
			o->a[3] = MREMAP_MAYMOVE | MREMAP_DONTUNMAP;
			newn = oldn + 1;		/* invalid: resizes */
		} else if (o->a[3] & MREMAP_DONTUNMAP) {
			if (!oldn)
				oldn = 1;
			newn = oldn;
		}
		o->a[0] = s * PG;
		o->a[1] = oldn * PG;
		o->a[2] = newn * PG;
		o->a[4] = rn(NP) * PG;
		if ((o->a[3] & MREMAP_DONTUNMAP) && !(o->a[3] & MREMAP_FIXED) &&
		    chance(25)) {
			o->a[4] = 0;
			o->absm = 1 << 4;
		}
		if (chance(3))
			o->a[4] += 16;
		if (chance(2))
			o->a[0] += 16;
		if (chance(4))
			o->a[1] -= rn(100);
	} else if (r < 67) {
		static const long bad[] = { 5, 6, 7, 12, 13, 26, 27, 99, -1, 1000 };
		static const long disc[] = { B_DONTNEED, B_FREE, B_REMOVE,
			B_DONTFORK, B_WIPEONFORK, B_DONTNEED_LOCKED };

		o->k = OP_MADVISE;
		pick_range(m, o, 1);
		if (chance(10))
			o->a[2] = bad[rn(10)];
		else if (chance(45))
			o->a[2] = disc[rn(6)];
		else
			o->a[2] = rn(26);
	} else if (r < 80) {
		o->k = OP_MSEAL;
		pick_range(m, o, 1);
		if (chance(6))
			o->a[2] = chance(50) ? 1 : (long)0x80000000UL;
	} else if (r < 85) {
		long cur = pgi(PA(m->brk));

		o->k = OP_BRK;
		if (chance(5)) {
			o->a[0] = 0;
			o->absm = 1;
		} else {
			long k = chance(50) ? cur + (long)rn(9) - 4 : (long)rn(NP + 1);

			if (k < 0)
				k = 0;
			if (k > NP)
				k = NP;
			o->a[0] = k * PG;
			if (chance(25) && k < NP)
				o->a[0] += rn(PG);
		}
	} else if (r < 99) {
		o->k = OP_WRITE;
		o->a[0] = pick_page(m);
		o->tag = 0x7A90000000000000ULL | ((uint64_t)seqno << 24) | idx;
	} else {
		o->k = OP_FORK;
	}
}

/* ------------------------------------------------------------------ */
/* A sequence, in a child                                               */

static struct model M;
static int cur_seq;

static void fail(int i) __attribute__((noreturn));
static void fail(int i)
{
	sh->status = 1;
	sh->fail_idx = i;
	_exit(1);
}

static int need_smaps(int i, int n, const struct op *o)
{
	if (!use_smaps)
		return 0;
	return i % smaps_every == 0 || i == n - 1 || o->k == OP_MSEAL ||
	       o->k == OP_PKEY_MPROTECT ||
	       (o->k == OP_MMAP && (o->a[2] & PROT_SEAL));
}

static void observe(int smaps)
{
	observe_maps();
	if (smaps)
		observe_smaps();
	observe_contents();
}

/* fork(): the child checks the model against its own view. */
static long fork_check(const struct model *m, long *fs, long *fu)
{
	static struct model cm;
	int st;
	pid_t pid;

	cm = *m;
	*fs = *fu = -1;
	for (long i = 0; i < NP; i++) {
		struct mpage *p = &cm.p[i];

		if (!p->mapped)
			continue;
		if (p->fl & FL_DC) {
			memset(p, 0, sizeof(*p));
			continue;
		}
		if ((p->fl & FL_WF) && p->obj < 0) {
			p->cst = C_VAL;
			p->val = 0;
		}
		if (p->sealed && *fs < 0)
			*fs = i;
		if (!p->sealed && *fu < 0)
			*fu = i;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int bad = 0;
		long r;

		/* /proc/self/mem stays bound to the mm it was opened in */
		close(selfmem);
		selfmem = open("/proc/self/mem", O_RDONLY);
		observe(use_smaps);
		if (compare(&cm, "fork child")) {
			bad = 1;
		} else {
			if (*fs >= 0 && sealing) {
				r = sc(syscall(SYS_munmap, A + *fs * PG, PG));
				if (r != -EACCES) {
					rep("  fork child: munmap(sealed page %ld) = %ld, "
					    "expected -EACCES\n", *fs, r);
					bad = 1;
				}
			}
			if (*fu >= 0) {
				r = sc(syscall(SYS_munmap, A + *fu * PG, PG));
				if (r) {
					rep("  fork child: munmap(unsealed page %ld) = "
					    "%ld, expected 0\n", *fu, r);
					bad = 1;
				}
			}
		}
		_exit(bad);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* After a success outside the arena: check moved pages, then unmap. */
static int post_outside(unsigned long r)
{
	int bad = 0;

	for (int j = 0; j < out_n; j++) {
		uint64_t v = 0, got;
		int kind = exp_word(&out_pages[j], &v);
		int ok = pread(selfmem, &got, 8, r + j * PG) == 8;

		if (kind == 2 ? ok : (!ok || (got != v && !(kind == 1 && !got)))) {
			rep("  moved page %d (at 0x%lx): model %s0x%llx, kernel %s0x%llx\n",
			    j, r + j * PG, kind == 2 ? "SIGBUS " : "",
			    (unsigned long long)v, ok ? "" : "unreadable ",
			    (unsigned long long)got);
			bad = 1;
		}
	}
	if (!out_sealed) {
		long e = sc(syscall(SYS_munmap, r, out_len));

		if (e) {
			rep("  munmap of the moved/new mapping at 0x%lx = %ld\n", r, e);
			bad = 1;
		}
	}
	return bad;
}

static void describe(int i, const struct op *o, const struct exp *e, long r)
{
	char c[256], v1[64], v2[64];

	rep("DIVERGENCE: seed %llu, sequence %d, call #%d\n", seed, cur_seq, i);
	rep("  call  : %s\n", call_str(o, c));
	if (e->outside)
		sprintf(v1, "an address outside the arena");
	else
		val_str(o, e->ret, v1);
	rep("  model : %s\n  kernel: %s\n", v1, val_str(o, r, v2));
}

static void step(int i, int n, const struct op *o, const struct exp *e)
{
	long r, fs = -1, fu = -1;
	int ok;

	sh->cur = i;
	if (o->k == OP_FORK)
		r = fork_check(&M, &fs, &fu);
	else
		r = exec_op(o);
	sh->executed++;
	emit_call(i, o, e, fs, fu);
	if (verbose) {
		char c[256], v1[64], v2[64];

		out("[%d.%d] %s = %s (model %s)\n", cur_seq, i, call_str(o, c),
		    val_str(o, r, v1), e->outside ? "outside" : val_str(o, e->ret, v2));
	}
	if (!sh->emit && o->k < OP_NOP)
		sh->stat[o->k][e->outside ? 3 : e->ret == -EACCES ? 1 :
			       (e->ret < 0 && e->ret > -4096) ||
			       (o->k == OP_WRITE && e->ret) ||
			       (o->k == OP_BRK && e->ret != (long)opaddr(o, 0)) ?
			       2 : 0]++;
	if (e->outside)
		ok = r > 0 && ((unsigned long)r + out_len <= A ||
			       (unsigned long)r >= A + NPP * PG);
	else
		ok = r == e->ret;
	if (!ok) {
		describe(i, o, e, r);
		if (o->k != OP_FORK) {
			observe(use_smaps);
			compare(&M, "after the call (model: as predicted)");
		}
		fail(i);
	}
	if (e->outside && post_outside(r)) {
		describe(i, o, e, r);
		fail(i);
	}
	observe(need_smaps(i, n, o));
	if (compare(&M, "after the call")) {
		char c[256];

		rep("DIVERGENCE: seed %llu, sequence %d, call #%d: %s\n", seed,
		    cur_seq, i, call_str(o, c));
		if (diff_page >= 0)
			emit_state_check(&M, diff_page);
		fail(i);
	}
	/* An anon_vma belongs to the whole VMA, however it was merged. */
	for (long j = 0; j < NP; j++)
		if (M.p[j].mapped && M.p[j].av)
			give_anon_vma(&M, j);
}

static void child_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	memset(&M, 0, sizeof(M));
	for (int f = 0; f < 2; f++) {
		struct stat st;

		memfd[f] = syscall(SYS_memfd_create, "mseal_fuzz", 0);
		if (memfd[f] < 0 || ftruncate(memfd[f], MEMFD_PAGES * PG) ||
		    fstat(memfd[f], &st)) {
			rep("setup: memfd: %s\n", strerror(errno));
			sh->status = 2;
			_exit(2);
		}
		objs[f].npages = MEMFD_PAGES;
		objs[f].ino = st.st_ino;
		objs[f].ino_known = 1;
		for (uint64_t j = 0; j < MEMFD_PAGES; j++) {
			uint64_t v = MEMFD_VAL(f, j);

			objs[f].val[j] = v;
			if (pwrite(memfd[f], &v, 8, j * PG) != 8)
				_exit(2);
		}
	}
	/* The SysV segment lives while its attachment outside the arena does. */
	shmid = shmget(IPC_PRIVATE, SHM_PAGES * PG, IPC_CREAT | 0600);
	if (shmid >= 0) {
		uint64_t *sp = shmat(shmid, NULL, 0);

		if (sp == (void *)-1) {
			shmid = -1;
		} else {
			for (uint64_t j = 0; j < SHM_PAGES; j++)
				sp[j * PG / 8] = objs[OBJ_SHM].val[j] = MEMFD_VAL(2, j);
			shmctl(shmid, IPC_RMID, NULL);
		}
	}
	if (shmid < 0) {
		rep("setup: shmget/shmat: %s\n", strerror(errno));
		sh->status = 2;
		_exit(2);
	}
	objs[OBJ_SHM].npages = SHM_PAGES;
	objs[OBJ_SHM].ino = shmid;	/* newseg(): i_ino = the id */
	objs[OBJ_SHM].ino_known = 1;
	selfmem = open("/proc/self/mem", O_RDONLY);
	M.brk = B0;
	M.exec_key = -1;
	M.keymap = 1U | (1U << key1) | (1U << key2);
	M.pkru = rdpkru();
	M.nobj = 3;
	observe(use_smaps);
	if (compare(&M, "at start")) {
		rep("setup: the arena is not empty\n");
		sh->status = 2;
		_exit(2);
	}
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t save = rs, v;

	rs = a ^ (b * 0xD6E8FEB86659FD93ULL);
	v = rnd();
	rs = save;
	return v;
}

static void run_seq(int gen, int n)
{
	child_setup();
	rs = mix(seed, 2 * cur_seq + 1);
	if (sh->emit)
		cde("\tsetup();\n\tASSERT_EQ(%d, key[0]);\n\tASSERT_EQ(%d, key[1]);\n",
		    key1, key2);
	for (int i = 0; i < n; i++) {
		struct model bk = M;
		struct op o;
		struct exp e;

		if (gen) {
			for (int tries = 0;; tries++) {
				gen_op(&M, &o, i, cur_seq);
				e = predict(&M, &o);
				if (!e.reject)
					break;
				M = bk;
				if (tries > 40) {
					memset(&o, 0, sizeof(o));
					o.k = OP_NOP;
					break;
				}
			}
			sh->ops[i] = o;
			sh->nops = i + 1;
		} else {
			o = sh->ops[i];
			if (o.k == OP_NOP)
				continue;
			e = predict(&M, &o);
			if (e.reject) {
				M = bk;
				continue;
			}
		}
		if (o.k == OP_NOP)
			continue;
		step(i, n, &o, &e);
	}
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* The parent                                                           */

/* Run a sequence (generated, or sh->ops replayed) in a child. */
static int run_child(int gen, int n)
{
	int st;
	pid_t pid;

	sh->status = 0;
	sh->replen = 0;
	sh->codelen = 0;
	sh->report[0] = 0;
	sh->code[0] = 0;
	sh->executed = 0;
	sh->cur = 0;
	sh->fail_idx = -1;
	if (gen)
		sh->nops = 0;
	pid = fork();
	if (pid < 0) {
		out("fork: %s\n", strerror(errno));
		exit(2);
	}
	if (!pid)
		run_seq(gen, n);
	if (waitpid(pid, &st, 0) < 0)
		exit(2);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
		out("%s", sh->report);
		exit(2);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 1) {
		int l = snprintf(sh->report + sh->replen,
				 sizeof(sh->report) - sh->replen,
				 "DIVERGENCE: seed %llu, sequence %d: the child died "
				 "(%s %d) at call #%d\n", seed, cur_seq,
				 WIFSIGNALED(st) ? "signal" : "status",
				 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
				 sh->cur);

		if (l > 0)
			sh->replen += l;
		sh->fail_idx = sh->cur;
	}
	return 1;
}

static struct op best[MAXSEQ], cand[MAXSEQ];

static int replay(const struct op *ops, int n, int emit)
{
	memcpy(sh->ops, ops, n * sizeof(ops[0]));
	sh->nops = n;
	sh->emit = emit;
	return run_child(0, n);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Delta debugging: the shortest call list that still diverges. */
static int minimize(int n, int *runs)
{
	int nb = n, gran = 2;
	double t0 = now();

	memcpy(best, sh->ops, n * sizeof(best[0]));
	/* Drop the no-ops first. */
	for (int i = 0, j = 0; i < nb; i++)
		if (best[i].k != OP_NOP)
			cand[j++] = best[i];
	*runs = 0;
	while (nb >= 2 && *runs < 2000 && now() - t0 < 600) {
		int chunk = (nb + gran - 1) / gran, reduced = 0;

		for (int s = 0; s < nb; s += chunk) {
			int m = 0;

			for (int i = 0; i < nb; i++)
				if (i < s || i >= s + chunk)
					cand[m++] = best[i];
			if (!m)
				continue;
			++*runs;
			if (replay(cand, m, 0)) {
				nb = sh->fail_idx >= 0 && sh->fail_idx < m ?
				     sh->fail_idx + 1 : m;
				memcpy(best, cand, nb * sizeof(best[0]));
				gran = gran > 2 ? gran - 1 : 2;
				reduced = 1;
				break;
			}
		}
		if (!reduced) {
			if (gran >= nb)
				break;
			gran = gran * 2 < nb ? gran * 2 : nb;
		}
	}
	return nb;
}

static const char preamble[] =
"#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n"
"#include <errno.h>\n#include <fcntl.h>\n#include <setjmp.h>\n"
"#include <signal.h>\n#include <stdint.h>\n#include <stdio.h>\n"
"#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n"
"#include <sys/mman.h>\n#include <sys/shm.h>\n#include <sys/syscall.h>\n#include <sys/wait.h>\n"
"#include \"kselftest_harness.h\"\n\n"
"#ifndef __NR_mseal\n#define __NR_mseal 462\n#endif\n"
"#define PG 4096UL\n#define ARENA (%d * PG)\n#define MEMFD_PAGES %d\n"
"#define BUS 0xdeadbeefdeadbeefULL\n#define UNUSED __attribute__((unused))\n"
"#define SC(...) ({ long __r = syscall(__VA_ARGS__); __r == -1 ? -errno : __r; })\n\n"
"/* The arena starts at the page-aligned break; no malloc() after setup(). */\n"
"static unsigned long A, brk0;\nstatic int fd[2], key[2], shm;\n"
"static char buf[1 << 18];\n\n"
"static UNUSED uint32_t rdpkru(void)\n{\n\tuint32_t a, d;\n\n"
"\tasm volatile(\".byte 0x0f,0x01,0xee\" : \"=a\"(a), \"=d\"(d) : \"c\"(0));\n"
"\treturn a;\n}\n\n"
"static UNUSED void wrpkru(uint32_t v)\n{\n"
"\tasm volatile(\".byte 0x0f,0x01,0xef\" : : \"a\"(v), \"c\"(0), \"d\"(0) : \"memory\");\n}\n\n"
"static sigjmp_buf jb;\nstatic void fault(int s)\n{\n\tsiglongjmp(jb, s);\n}\n\n"
"/* 0, or 1 if the write faulted */\n"
"static UNUSED int try_write(unsigned long a, uint64_t v)\n{\n"
"\tstruct sigaction sa = { .sa_handler = fault, .sa_flags = SA_NODEFER };\n"
"\tuint32_t pk = rdpkru();\n\n"
"\tsigaction(SIGSEGV, &sa, NULL);\n\tsigaction(SIGBUS, &sa, NULL);\n"
"\tif (sigsetjmp(jb, 0)) {\n\t\twrpkru(pk);\n\t\treturn 1;\n\t}\n"
"\t*(volatile uint64_t *)a = v;\n\treturn 0;\n}\n\n"
"/* The first word of a page, through /proc/self/mem (reads PROT_NONE too) */\n"
"static UNUSED uint64_t word(unsigned long a)\n{\n"
"\tint f = open(\"/proc/self/mem\", O_RDONLY);\n\tuint64_t v;\n"
"\tssize_t n = pread(f, &v, 8, a);\n\n\tclose(f);\n\treturn n == 8 ? v : BUS;\n}\n\n"
"/* The maps/smaps header line of the VMA that contains a */\n"
"static char *vma_of(const char *path, unsigned long a)\n{\n"
"\tint f = open(path, O_RDONLY), n = 0, r;\n\tchar *l;\n\n"
"\twhile (f >= 0 && (r = read(f, buf + n, sizeof(buf) - 1 - n)) > 0)\n"
"\t\tn += r;\n\tif (f >= 0)\n\t\tclose(f);\n\tbuf[n] = 0;\n"
"\tfor (l = buf; l && *l; l = strchr(l, '\\n') ? strchr(l, '\\n') + 1 : NULL) {\n"
"\t\tunsigned long s, e;\n\n"
"\t\tif (sscanf(l, \"%%lx-%%lx \", &s, &e) == 2 && s <= a && a < e)\n"
"\t\t\treturn l;\n\t}\n\treturn NULL;\n}\n\n"
"static UNUSED const char *perms(unsigned long a)\n{\n\tstatic char p[5];\n"
"\tchar *l = vma_of(\"/proc/self/maps\", a);\n\n"
"\tif (!l)\n\t\treturn \"none\";\n\tmemcpy(p, strchr(l, ' ') + 1, 4);\n\treturn p;\n}\n\n"
"static UNUSED unsigned long vma_start(unsigned long a)\n{\n"
"\tchar *l = vma_of(\"/proc/self/maps\", a);\n\n"
"\treturn l ? strtoul(l, NULL, 16) : 0;\n}\n\n"
"static UNUSED int smaps_pkey(unsigned long a)\n{\n"
"\tchar *l = vma_of(\"/proc/self/smaps\", a);\n\n"
"\tl = l ? strstr(l, \"ProtectionKey:\") : NULL;\n"
"\treturn l ? atoi(l + 14) : -1;\n}\n\n"
"static UNUSED int smaps_flag(unsigned long a, const char *flag)\n{\n"
"\tchar *l = vma_of(\"/proc/self/smaps\", a), *t;\n\n"
"\tl = l ? strstr(l, \"VmFlags:\") : NULL;\n\tif (!l)\n\t\treturn -1;\n"
"\t*strchrnul(l, '\\n') = 0;\n"
"\tfor (t = strtok(l + 8, \" \"); t; t = strtok(NULL, \" \"))\n"
"\t\tif (!strcmp(t, flag))\n\t\t\treturn 1;\n\treturn 0;\n}\n\n"
"/* fork(): in the child, munmap(sealed page) fails, munmap(unsealed) works */\n"
"static UNUSED int fork_munmap(unsigned long s, unsigned long u)\n{\n"
"\tpid_t p = fork();\n\tint st;\n\n\tif (!p) {\n"
"\t\tif (s && SC(SYS_munmap, s, PG) != -EACCES)\n\t\t\t_exit(1);\n"
"\t\tif (u && SC(SYS_munmap, u, PG) != 0)\n\t\t\t_exit(2);\n\t\t_exit(0);\n\t}\n"
"\twaitpid(p, &st, 0);\n"
"\treturn WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);\n}\n\n"
"static void setup(void)\n{\n"
"\tbrk0 = syscall(SYS_brk, 0);\n\tA = (brk0 + PG - 1) & ~(PG - 1);\n"
"\tfor (int i = 0; i < 2; i++) {\n"
"\t\tfd[i] = memfd_create(\"mseal_fuzz\", 0);\n"
"\t\tif (fd[i] < 0 || ftruncate(fd[i], MEMFD_PAGES * PG))\n\t\t\tabort();\n"
"\t\tfor (uint64_t j = 0; j < MEMFD_PAGES; j++) {\n"
"\t\t\tuint64_t v = 0xF11E000000000000ULL | ((uint64_t)i << 32) | j;\n\n"
"\t\t\tif (pwrite(fd[i], &v, 8, j * PG) != 8)\n\t\t\t\tabort();\n\t\t}\n\t}\n"
"\t/* a SysV segment that lives while an attachment outside the arena does */\n"
"\tshm = shmget(IPC_PRIVATE, %d * PG, IPC_CREAT | 0600);\n"
"\tuint64_t *sp = shmat(shm, NULL, 0);\n\n"
"\tif (sp == (void *)-1)\n\t\tabort();\n"
"\tfor (uint64_t j = 0; j < %d; j++)\n"
"\t\tsp[j * PG / 8] = 0xF11E000000000000ULL | (2ULL << 32) | j;\n"
"\tshmctl(shm, IPC_RMID, NULL);\n"
"\tkey[0] = syscall(SYS_pkey_alloc, 0, 0);\n"
"\tkey[1] = syscall(SYS_pkey_alloc, 0, 0);\n}\n\n";

static void print_repro(int n, int runs)
{
	out("\n---- minimal reproducer: %d calls (%d delta-debugging runs); "
	    "build with -I tools/testing/selftests ----\n", n, runs);
	out("/* mseal_fuzz reproducer: seed %llu, sequence %d%s */\n", seed,
	    cur_seq, sealing ? "" : " (baseline)");
	out(preamble, NPP, MEMFD_PAGES, SHM_PAGES, SHM_PAGES);
	out("TEST(mseal_fuzz_%llu_%d)\n{\n\tlong r = 0;\n\tuint64_t w = 0;\n\n",
	    seed, cur_seq);
	/* out() is limited to its buffer: write the body directly */
	if (write(1, sh->code, sh->codelen) < 0)
		exit(3);
	out("\t(void)r;\n\t(void)w;\n}\n\nTEST_HARNESS_MAIN\n---- end of reproducer ----\n");
}

/* Does smaps show "sl" for a PROT_SEAL mapping? (in a child) */
static int smaps_has_sl(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		unsigned long p = syscall(SYS_mmap, 0, PG, PROT_READ | PROT_SEAL,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		const char *s;

		if ((long)p < 0 || read_file("/proc/self/smaps") < 0)
			_exit(1);
		for (s = fbuf; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
			unsigned long st2, en, off, ino;
			uint8_t perm, shr;

			if (vma_line(s, &st2, &en, &perm, &shr, &off, &ino) &&
			    st2 == p) {
				const char *f = strstr(s, "VmFlags:");

				_exit(f && (vmflags(f + 8) & FL_SL) ? 0 : 1);
			}
		}
		_exit(1);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void usage(void)
{
	out("usage: mseal_fuzz [--ops N] [--seed S] [--no-smaps] [--verbose] "
	    "[--baseline] [--smaps-every K] [--seq J] [--seq-len L]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long nops = 200000, total = 0;
	int have_seed = 0, only_seq = -1, seq_len = 0, nseq = 0, div = 0;
	double t0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--ops") && i + 1 < argc)
			nops = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0), have_seed = 1;
		else if (!strcmp(a, "--no-smaps"))
			use_smaps = 0;
		else if (!strcmp(a, "--verbose"))
			verbose = 1;
		else if (!strcmp(a, "--baseline"))
			sealing = 0;
		else if (!strcmp(a, "--smaps-every") && i + 1 < argc)
			smaps_every = atoi(argv[++i]);
		else if (!strcmp(a, "--seq") && i + 1 < argc)
			only_seq = atoi(argv[++i]);
		else if (!strcmp(a, "--seq-len") && i + 1 < argc)
			seq_len = atoi(argv[++i]);
		else
			usage();
	}
	if (smaps_every < 1)
		smaps_every = 1;
	if (seq_len > MAXSEQ)
		seq_len = MAXSEQ;
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned long long)ts.tv_sec * 1000003ULL ^ ts.tv_nsec ^
		       ((unsigned long long)getpid() << 20);
	}
	out("mseal_fuzz: seed %llu\n", seed);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		out("mmap: %s\n", strerror(errno));
		return 2;
	}
	key1 = syscall(SYS_pkey_alloc, 0, 0);
	key2 = syscall(SYS_pkey_alloc, 0, 0);
	if (key1 < 0 || key2 < 0) {
		out("pkey_alloc: %s (the fuzzer needs protection keys)\n",
		    strerror(errno));
		return 2;
	}
	B0 = syscall(SYS_brk, 0);
	A = PA(B0);
	observe_maps();
	for (int i = 0; i < NPP; i++)
		if (kp[i].mapped) {
			out("the arena [0x%lx, 0x%lx) is not free\n", A, A + NPP * PG);
			return 2;
		}
	if (sealing && use_smaps && !smaps_has_sl()) {
		seal_cmp = 0;
		out("mseal_fuzz: smaps shows no \"sl\" for sealed VMAs: the seal "
		    "state is only inferred from later calls\n");
	}
	if (!sealing)
		seal_cmp = 0;
	out("mseal_fuzz: %s semantics, arena 0x%lx (%d pages + guard), break "
	    "0x%lx, keys %d %d, smaps %s\n", sealing ? "sealing" : "baseline",
	    A, NP, B0, key1, key2, !use_smaps ? "off" : seal_cmp ?
	    "on (with sl)" : "on (without sl)");

	t0 = now();
	for (int j = only_seq >= 0 ? only_seq : 0; total < nops; j++) {
		int len;

		rs = mix(seed, 2 * j + 2);
		len = seq_len ? seq_len : 200 + (int)rn(301);
		if ((unsigned long long)len > nops - total)
			len = nops - total;
		cur_seq = j;
		sh->emit = 0;
		if (run_child(1, len)) {
			int runs, nb, nfail = sh->fail_idx;

			total += sh->executed;
			nseq++;
			div = 1;
			out("%s", sh->report);
			out("(%d calls into the sequence; minimizing...)\n", nfail + 1);
			if (nfail < 0)
				nfail = sh->nops - 1;
			nb = minimize(nfail + 1, &runs);
			replay(best, nb, 1);
			out("\nminimized divergence:\n%s", sh->report);
			print_repro(nb, runs);
			break;
		}
		total += sh->executed;
		nseq++;
		if (verbose || nseq % 50 == 0)
			out("mseal_fuzz: %d sequences, %llu calls, %.0f s\n", nseq,
			    total, now() - t0);
		if (only_seq >= 0)
			break;
	}
	if (verbose || !div) {
		static const char *const name[] = { "mmap", "munmap", "mprotect",
			"pkey_mprotect", "wrpkru", "mremap", "madvise", "mseal",
			"brk", "write", "fork", "shmat", "remap_file_pages" };

		out("mseal_fuzz: calls by expected result: ok / EACCES / other "
		    "error (write: fault, brk: refused) / outside the arena\n");
		for (int k = 0; k < OP_NOP; k++)
			out("  %-16s %7llu %7llu %7llu %7llu\n", name[k],
			    sh->stat[k][0], sh->stat[k][1], sh->stat[k][2],
			    sh->stat[k][3]);
	}
	out("mseal_fuzz: %.1f s, %.0f calls/s\n", now() - t0,
	    total / (now() - t0 > 0 ? now() - t0 : 1));
	out("fuzz: %llu calls, %d sequences, seed %llu, %d divergences\n", total,
	    nseq, seed, div);
	return div ? 1 : 0;
}
