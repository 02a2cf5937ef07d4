/* SPDX-License-Identifier: GPL-2.0 */
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
 * With --uffd (the default), ranges are sometimes registered with a
 * userfaultfd (UFFDIO_REGISTER_MODE_MISSING, UFFD_FEATURE_EVENT_REMOVE): a
 * monitor thread resolves the missing-page faults with zeroes (as the model
 * expects) and reads the UFFD_EVENT_REMOVE that MADV_DONTNEED, MADV_FREE
 * and MADV_REMOVE send after dropping mmap_lock. Sealing does not depend on
 * it: the model's predictions are the same; the kernel's paths are not.
 *
 * The files (one program, built from every .c file of this directory):
 *   fuzz.h    what they share: the model's and the kernel's page state,
 *             the calls, the parent <-> child area
 *   model.c   the model: what the kernel must do with each call (predict())
 *   gen.c     the PRNG and the generation of random calls (gen_op())
 *   exec.c    the executor: runs a sequence in a child, issues the real
 *             calls, reads the kernel's view and compares it with the model
 *   shrink.c  the shrinker (delta debugging over replays) and the
 *             reproducer printer (calls as C, the TEST() around them)
 *   uffd.c    the userfaultfd: registration, the monitor thread
 *   regress.c fixed sequences where the model once went wrong (--regress)
 *   main.c    options, output, the parent's loop over sequences
 *
 * usage: mseal_fuzz [--ops N] [--seed S] [--no-smaps] [--verbose]
 *                   [--baseline] [--smaps-every K] [--seq J] [--seq-len L]
 *                   [--no-uffd] [--no-uffd-race] [--abi v6|mainline]
 *                   [--new-rules yes|no|probe]  (default: probe)
 *                   [--regress]
 * The last line is "fuzz: N calls, M sequences, seed S, D divergences";
 * the exit status is 0 iff D == 0. With --regress, the fixed sequences of
 * regress.c run instead of random ones: "fuzz: regress: N sequences, D
 * divergences".
 */
#ifndef MSEAL_FUZZ_H
#define MSEAL_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
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
/* The kernel's: the C library may not say (mips's is its own) */
#ifndef PROT_SEM
#ifdef __mips__
#define PROT_SEM 0x10
#else
#define PROT_SEM 0x8
#endif
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

/*
 * The kernel's LEGACY_MAP_MASK (include/linux/mman.h): x86-64 values, with
 * MAP_32BIT (0x40), which arm64 lacks.
 */
#ifdef __x86_64__
#define MAP_32BIT_BIT 0x40
#else
#define MAP_32BIT_BIT 0
#endif
#define LEGACY_MAP_MASK (0x01UL | 0x02 | 0x10 | 0x20 | 0x800 | 0x1000 | \
			 0x4000000 | 0x100 | 0x2000 | 0x4000 | 0x8000 | \
			 0x10000 | 0x20000 | 0x40000 | MAP_32BIT_BIT | \
			 (21UL << 26) | (30UL << 26))

/*
 * The page size: 4K, but 64K on ppc64el, as Debian's kernels and
 * configs/ppc64el.config have it. main.c checks it against the kernel's.
 */
#ifdef __powerpc64__
#define PG 65536UL
#else
#define PG 4096UL
#endif
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
	FL_RR = 64, FL_AC = 128, FL_SL = 256, FL_UM = 512,
};

struct mpage {
	uint8_t mapped, prot, shared, pkey;
	uint8_t sealed, sealable, acct, cst;
	uint8_t av;		/* the VMA has an anon_vma (merge invariant) */
	uint8_t nomw;		/* MAP_SHARED of a read-only file: !VM_MAYWRITE,
				   !VM_SHARED (maps still shows 's') */
	uint8_t ureg;		/* registered with the userfaultfd (MISSING):
				   smaps' "um" */
	uint8_t uever;		/* was registered since it was mapped: its
				   VMA may have been split and not merged */
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
	int mv_dest;		/* the last call moved pages there (page index),
				   or -1: see moved_unregister() */
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

/* ------------------------------------------------------------------ */
/* Operations                                                           */

enum {
	OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_PKEY_MPROTECT, OP_WRPKRU,
	OP_MREMAP, OP_MADVISE, OP_MSEAL, OP_BRK, OP_WRITE, OP_FORK, OP_SHMAT,
	OP_REMAP, OP_UFFD, OP_NOP,
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

/* What the userfaultfd monitor counts. */
enum {
	UEV_FAULT,	/* missing-page faults read */
	UEV_ZEROPAGE,	/* ... resolved with UFFDIO_ZEROPAGE */
	UEV_COPY,	/* ... resolved with UFFDIO_COPY of zeroes */
	UEV_LOST,	/* ... where the model expects contents: a lost page */
	UEV_REMOVE,	/* UFFD_EVENT_REMOVE (madvise dropped mmap_lock) */
	UEV_PREFILL,	/* UFFDIO_ZEROPAGE before a read through /proc/self/mem */
	UEV_RACE,	/* madvise raced: the range sealed while it waited */
	UEV_MERGED,	/* mremap: registered neighbours merged into the moved
			   VMA, and lost their registration with it */
	UEV_SELFMERGE,	/* ... the rest of the source VMA (a self-merge) */
	UEV_OTHER,	/* other events, failed ioctls */
	UEV_N,
};

/* ------------------------------------------------------------------ */
/* Parent <-> child communication (MAP_SHARED)                          */

struct shared {
	int status;		/* 0 ok, 1 divergence, 2 setup error */
	int fail_idx;		/* index of the diverging call */
	int nops;		/* calls generated / run */
	int executed;		/* calls actually executed (not skipped) */
	int emit;		/* print a reproducer while replaying */
	int replen, codelen;
	int cur;		/* the call being run */
	unsigned long long stat[OP_NOP][4];	/* ok, EACCES, other error, outside */
	unsigned long long ustat[OP_NOP];	/* calls on registered ranges */
	unsigned long long uev[UEV_N];		/* userfaultfd events, by kind */
	struct op ops[MAXSEQ];
	char report[1 << 17];
	char code[1 << 17];	/* the reproducer's TEST() body */
};

/* ------------------------------------------------------------------ */
/* PKRU                                                                 */

/*
 * Protection keys: x86_64 has them (and the fuzzer requires them there);
 * arm64 in 6.1 has none (no CONFIG_ARCH_HAS_PKEYS): pkey_alloc() and
 * pkey_mprotect() do not exist (ENOSYS), PROT_EXEC gets no execute-only
 * key, and PKRU reads as 0 (all allowed); so on s390x. powerpc has the
 * calls (CONFIG_PPC_MEM_KEYS) but, with the radix MMU or on QEMU's pseries,
 * no key to allocate: pkey_alloc() fails with ENOSPC, pkey_mprotect() with
 * key -1 is mprotect(), with any other key EINVAL. main.c sets have_pkeys
 * and pkey_syscalls.
 */
extern int have_pkeys, pkey_syscalls;

/*
 * mmap() as the system call, unfiltered by the C library: s390's takes one
 * pointer to its six arguments (old_mmap), every other architecture's the
 * six.
 */
static inline long sys_mmap(unsigned long addr, unsigned long len,
			    unsigned long prot, unsigned long flags, long fd,
			    unsigned long off)
{
#ifdef __s390x__
	unsigned long args[6] = { addr, len, prot, flags, fd, off };

	return syscall(SYS_mmap, args);
#else
	return syscall(SYS_mmap, addr, len, prot, flags, fd, off);
#endif
}

#ifdef __x86_64__
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
#else
static inline uint32_t rdpkru(void) { return 0; }
static inline void wrpkru(uint32_t v) { (void)v; }
#endif
static inline int pkru_allows(uint32_t pkru, int key, int wr)
{
	if (pkru & (1U << (2 * key)))
		return 0;
	if (wr && (pkru & (2U << (2 * key))))
		return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* The kernel's view of a page (exec.c)                                 */

enum { VK_NONE, VK_VAL, VK_BUS, VK_SEGV };

struct kpage {
	uint8_t mapped, perm, s, vk;
	int pkey;
	uint32_t vf;
	uint64_t ino, off, val;
};

/* ------------------------------------------------------------------ */
/* main.c: options and globals, output                                 */

extern unsigned long A;		/* arena start */
extern unsigned long B0;	/* program break at startup */
extern int sealing;		/* patched-kernel semantics (not --baseline) */
extern int use_smaps, seal_cmp, smaps_every, verbose, have_ksm, have_swap;
extern int key1, key2;
extern int memfd[2];
extern int shmid;
extern int selfmem;
extern unsigned long long seed;
extern struct shared *sh;
/* The ABI of mseal() (/proc/sys/vm/mseal_abi), and the rules it has. */
enum { ABI_V6, ABI_MAINLINE };
extern int abi;
extern int seal_err;		/* what sealing refuses with: EACCES, EPERM */
extern int rule_fork_advice;	/* mseal() refuses WIPEONFORK/DONTFORK */
extern int rule_file_anon;	/* private file copies are discard-protected */
extern int use_uffd;		/* register ranges with a userfaultfd */
extern int uffd_race;		/* ... and race madvise() against mseal() */
/*
 * Cache colours (probe_colours()). Where the data cache aliases (mips: QEMU's
 * malta has an 8 KiB way), a MAP_SHARED mapping placed at a fixed address
 * must have the colour of its file offset, (addr - pgoff * PG) &
 * colour_mask == 0 (arch/mips/mm/mmap.c; colour_mask is the kernel's
 * shm_align_mask), and a hint for a file or shared mapping is moved to that
 * colour (COLOUR_ALIGN()); shmat() takes only addresses aligned to its
 * SHMLBA (256 KiB on mips), which SHM_RND rounds down to, and with
 * __ARCH_FORCE_SHMLBA (mips) refuses any other page too. Elsewhere all
 * three are the page's: colour_mask is PG - 1, shm_lba PG, and no rule
 * fires.
 */
extern unsigned long colour_mask, shm_lba;
extern int shm_lba_force;
/*
 * Set where a load from a PROT_WRITE-only page that was never written
 * faults forever: Debian's 6.1 on MIPS without RI/XI (QEMU's
 * MIPS64R2-generic), the unpatched kernel as well. Such a PTE carries
 * _PAGE_NO_READ, which keeps pte_mkyoung() from setting the valid bit; the
 * read fault returns with nothing to do and the load faults again. The
 * observer reads such pages through /proc/self/mem instead of hanging.
 * Not a rule of the model: what the page holds is the same.
 */
extern int wo_unreadable;

void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rep(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double now(void);

/* ------------------------------------------------------------------ */
/* model.c: the model                                                  */

extern struct mobj objs[MAXOBJ];
/* Out-of-arena results: what to check and unmap after the call. */
extern unsigned long out_len;
extern int out_sealed;
extern int out_n;
extern struct mpage out_pages[NPP + 8];

unsigned long opaddr(const struct op *o, int i);
long pgi(unsigned long addr);
int exp_word(const struct mpage *p, uint64_t *v);
void give_anon_vma(struct model *m, long i);
void moved_unregister(struct model *m);
struct exp predict(struct model *m, const struct op *o);

/* ------------------------------------------------------------------ */
/* gen.c: random calls                                                 */

extern uint64_t rs;		/* the PRNG's state */
uint64_t rnd(void);
unsigned int rn(unsigned int n);
uint64_t mix(uint64_t a, uint64_t b);
void gen_op(const struct model *m, struct op *o, int idx, int seqno);

/* ------------------------------------------------------------------ */
/* exec.c: the executor                                                */

/* The VMA bounds the kernel showed after the previous call (page indices). */
extern int kvend[NPP], kvstart[NPP];
extern struct kpage kp[NPP];
extern int kp_smaps;		/* the last observation read smaps */
extern int diff_page, diff_merge;	/* the last compare()'s first difference */
extern int cur_seq;		/* the sequence being run */
extern struct model M;		/* the model of the running sequence */
extern int in_fork_child;	/* in fork_check()'s child */

int observe_maps(void);
int smaps_has_sl(void);
enum { PROBE_FORK_ADVICE, PROBE_FILE_ANON };
int probe_rule(int which);
int probe_colours(void);
int probe_wo_read(void);
const char *prot_str(int prot, int shared, char *b);
int run_child(int gen, int n);

/* ------------------------------------------------------------------ */
/* uffd.c: the userfaultfd                                             */

extern int uffd;
extern const struct model *uffd_pre;	/* the model before the running call */

void uffd_setup(void);
long uffd_range(int unregister, unsigned long start, unsigned long len);
long uffd_madvise_race(unsigned long start, unsigned long len, long behavior);
void uffd_prefill(long i);
int uffd_touches(const struct model *m, const struct op *o);

/* ------------------------------------------------------------------ */
/* shrink.c: the shrinker and the reproducer                           */

extern struct op best[MAXSEQ];

void cde(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *val_str(const struct op *o, long v, char *b);
char *call_str(const struct op *o, char *b);
void emit_call(int i, const struct op *o, const struct exp *e, long fork_s,
	       long fork_u);
void emit_state_check(const struct model *m, long i);
int replay(const struct op *ops, int n, int emit);
int minimize(int n, int *runs);
void print_repro(int n, int runs);

/* ------------------------------------------------------------------ */
/* regress.c: fixed sequences where the model once went wrong          */

int regress(void);

#endif /* MSEAL_FUZZ_H */
