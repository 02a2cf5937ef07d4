// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_fuzz: the model: what the kernel must do with each call.
 */
#include "fuzz.h"

struct mobj objs[MAXOBJ];

/* Out-of-arena results: what to check and unmap after the call. */
unsigned long out_len;
int out_sealed;
int out_n;
struct mpage out_pages[NPP + 8];

/* ------------------------------------------------------------------ */
/* Model helpers                                                        */

unsigned long opaddr(const struct op *o, int i)
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
long pgi(unsigned long addr) { return (long)(addr - A) / (long)PG; }

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

/*
 * The colour rules (fuzz.h; arch/mips/mm/mmap.c, where get_unmapped_area()
 * applies them, before do_mmap() or mremap() gets to any seal): a shared
 * mapping at a fixed address whose colour is not its file offset's is
 * refused with EINVAL; a hint for a file or shared mapping goes up to the
 * next address of that colour. Nothing happens where colour_mask is PG - 1.
 */
static int colour_bad(unsigned long addr, unsigned long pgoff)
{
	return !!((addr - pgoff * PG) & colour_mask);
}

static unsigned long colour_align(unsigned long addr, unsigned long pgoff)
{
	return ((addr + colour_mask) & ~colour_mask) +
	       ((pgoff * PG) & colour_mask);
}

/*
 * Where a hint that colour_align() moved goes: its page in the arena, or
 * -1 outside it (past the arena and its guard page, where the kernel may
 * place it as well as anywhere); -2 (reject) if it would straddle the
 * arena's end.
 */
static long hint_page(unsigned long a, unsigned long len)
{
	if (in_np(a, len))
		return pgi(a);
	if (a >= A + NPP * PG)
		return -1;
	return -2;
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
int exp_word(const struct mpage *p, uint64_t *v)
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

	if (!have_pkeys)
		return 0;
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

/* A write fault in page i gives its whole (observed) VMA an anon_vma. */
void give_anon_vma(struct model *m, long i)
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
	unsigned long flags = o->a[3], off = o->a[4], a, pgoff;
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
		/* mainline: every mapping; MAP_SEALABLE accepted, ignored */
		sealable = sealed || (flags & MAP_SEALABLE) ||
			   abi == ABI_MAINLINE;
		prot &= ~(unsigned long)PROT_SEAL;
	}
	if (flags & MAP_FIXED_NOREPLACE)
		flags |= MAP_FIXED;
	len = PA(len);
	if (!len || len > TASK_SZ)
		return R(-ENOMEM);
	/* get_unmapped_area(): shared anonymous memory has pgoff 0 there */
	pgoff = file ? off / PG : 0;
	if (flags & MAP_FIXED) {
		a = addr;
	} else {
		a = addr & ~(PG - 1);	/* round_hint_to_min() */
		if (a && (file || (flags & MAP_SHARED)))
			a = colour_align(a, pgoff);
		if (!a) {
			outside = 1;
		} else {
			ps = hint_page(a, len);
			if (ps == -2)
				return REJ();
			if (ps == -1 || any_mapped(m, ps, ps + len / PG))
				outside = 1;
		}
	}
	if (!outside) {
		if (a > TASK_SZ - len)
			return R(-ENOMEM);
		if (a & (PG - 1))
			return R(-EINVAL);
		/* MAP_SHARED_VALIDATE too: the type is checked later */
		if ((flags & MAP_SHARED) && colour_bad(a, pgoff))
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
		return R(-seal_err);
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

/* The kernel's do_mas_munmap(); 0, -EINVAL, -seal_err, or 1 for "reject". */
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
		return -seal_err;
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
		return R(-seal_err);
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
/*
 * Pages whose contents madvise() may not discard once sealed: private
 * anonymous memory that the calling thread cannot write (no PROT_WRITE, or
 * its pkey denies writes in PKRU) and, with rule_file_anon, such private
 * file mappings that hold private copies (the VMA has an anon_vma).
 */
static int discard_protectable(const struct model *m, const struct mpage *p)
{
	if (!p->mapped || p->shared)
		return 0;
	if ((p->prot & PROT_WRITE) && pkru_allows(m->pkru, p->pkey, 1))
		return 0;
	return p->obj < 0 || (rule_file_anon && p->av);
}

static int discard_protected(const struct model *m, const struct mpage *p)
{
	return p->sealed && discard_protectable(m, p);
}

/*
 * rule_fork_advice: mseal() refuses memory that carries MADV_WIPEONFORK or
 * MADV_DONTFORK (fork() would wipe or drop it in the child), whatever it
 * is, and madvise() refuses that advice on sealed memory. mseal() also
 * refuses read-only memory registered with the userfaultfd, which would
 * choose its contents (and UFFDIO_REGISTER refuses sealed read-only memory).
 */
static int fork_advice_refused(const struct model *m, const struct mpage *p)
{
	(void)m;
	return rule_fork_advice && (p->fl & (FL_WF | FL_DC)) && !p->sealed;
}

static int uffd_refused(const struct mpage *p)
{
	return p->ureg && !(p->prot & PROT_WRITE) && !p->sealed;
}

static int madv_fork(long b)
{
	return b == B_DONTFORK || b == B_WIPEONFORK;
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
		/* anonymous memory: swap-in with CONFIG_SWAP, else EBADF */
		if (p->obj < 0 && !have_swap)
			return -EBADF;
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

/*
 * madvise() raced by the userfaultfd monitor (a[3] set): MADV_DONTNEED,
 * MADV_DONTNEED_LOCKED and MADV_FREE on a registered range drop mmap_lock
 * and wait until the monitor reads UFFD_EVENT_REMOVE; meanwhile the monitor
 * makes the range read-only and seals it. mseal() has returned before any
 * page is discarded, so the discard must be refused as if the seal had
 * come first. Modelled only where that is unambiguous (else rejected): the
 * range lies in one VMA, registered, private anonymous, writable (by the
 * thread too), sealable and not sealed, so that madvise() passes its own
 * checks and waits in its first VMA, and the monitor's calls succeed.
 */
static struct exp m_madvise_race(struct model *m, const struct op *o)
{
	unsigned long start = opaddr(o, 0), len = o->a[1];
	long b = o->a[2], ps, pe;

	if (b != B_DONTNEED && b != B_DONTNEED_LOCKED && b != B_FREE)
		return REJ();
	if (!sealing || (start & (PG - 1)) || !len || (len & (PG - 1)) ||
	    !in_np(start, len))
		return REJ();
	ps = pgi(start);
	pe = pgi(start + len);
	if (kvstart[ps] < 0 || kvend[ps] < pe)
		return REJ();
	for (long i = ps; i < pe; i++) {
		const struct mpage *p = &m->p[i];

		if (!p->mapped || !p->ureg || p->obj >= 0 || p->shared ||
		    p->sealed || !p->sealable || !(p->prot & PROT_WRITE) ||
		    (p->fl & (FL_WF | FL_DC)) ||
		    !pkru_allows(m->pkru, p->pkey, 1) ||
		    kvstart[i] != kvstart[ps])
			return REJ();
	}
	for (long i = ps; i < pe; i++) {
		m->p[i].ureg = 0;
		m->p[i].prot = PROT_READ;
		m->p[i].sealed = 1;
	}
	return R(-seal_err);
}

static struct exp m_madvise(struct model *m, const struct op *o)
{
	unsigned long start = opaddr(o, 0), len_in = o->a[1], len, end;
	long b = o->a[2], ps, pe;
	int unmapped = 0;

	if (o->a[3])
		return m_madvise_race(m, o);
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
		for (long i = ps; i < pe; i++)
			if (discard_protected(m, &m->p[i]) ||
			    (rule_fork_advice && madv_fork(b) && m->p[i].sealed))
				return R(-seal_err);
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
	if (abi == ABI_MAINLINE) {
		/* a hole anywhere first, then what refuses sealing */
		for (long i = ps; i < pe; i++)
			if (!m->p[i].mapped)
				return R(-ENOMEM);
		for (long i = ps; i < pe; i++)
			if (fork_advice_refused(m, &m->p[i]) ||
			    uffd_refused(&m->p[i]))
				return R(-EPERM);
	} else {
		/* VMA by VMA, in address order: whichever comes first */
		for (long i = ps; i < pe; i++) {
			if (!m->p[i].mapped)
				return R(-ENOMEM);
			if (!m->p[i].sealable ||
			    fork_advice_refused(m, &m->p[i]) ||
			    uffd_refused(&m->p[i]))
				return R(-EACCES);
		}
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
		p->sealable = sealing && abi == ABI_MAINLINE;
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
 *
 * Without UFFD_FEATURE_EVENT_REMAP, mremap_userfaultfd_prep() unregisters
 * the new VMA: the one copy_vma() returned, which vma_merge() may have made
 * of the moved range and its neighbours at the destination (registered with
 * the same userfaultfd, as the moved range was, or they could not merge).
 * All of it is unregistered, the neighbours included. Which neighbours
 * merged, the model learns from the kernel's VMA bounds after the call
 * (moved_unregister(), called by the executor before it compares): it does
 * not know the anonymous VMAs' vm_pgoff and anon_vma well enough to tell
 * in advance. One merge leaves no trace in them: an anonymous VMA without
 * an anon_vma that is moved next to itself merges with itself (copy_vma()
 * gives it the destination's pgoff), and the unmapping of the old range
 * splits it again. Then the rest of the source VMA is unregistered too,
 * and that the model predicts here, from the anon_vma it tracks (av).
 */
static void move_pages(struct model *m, long ps, long oldn, long newn,
		       long dest, int dontunmap)
{
	struct mpage np[NPP + 8], proto = m->p[ps];
	long vs, ve;

	for (long i = 0; i < newn; i++) {
		if (i < oldn) {
			np[i] = m->p[ps + i];
		} else {
			np[i] = proto;
			np[i].off = proto.off + i;
			np[i].cst = proto.obj < 0 ? C_VAL : C_FILE;
			np[i].val = 0;
		}
		/* no UFFD_FEATURE_EVENT_REMAP: the new VMA is unregistered */
		np[i].ureg = 0;
	}
	/*
	 * The source VMA when copy_vma() runs: the observed one, less what
	 * the unmapping of the destination and of the shrunk tail took.
	 */
	for (vs = ps; vs > 0 && vs > kvstart[ps] && m->p[vs - 1].mapped; vs--)
		;
	for (ve = ps; ve < NPP && ve < kvend[ps] && m->p[ve].mapped; ve++)
		;
	if (dest >= 0 && !dontunmap && proto.obj < 0 && !proto.shared &&
	    !proto.av && (dest == ve || dest + newn == vs)) {
		int lost = 0;

		for (long i = vs; i < ve; i++) {
			if (i >= ps && i < ps + oldn)
				continue;
			lost |= m->p[i].ureg;
			m->p[i].ureg = 0;
		}
		if (lost && !sh->emit)
			sh->uev[UEV_SELFMERGE]++;
	}
	m->mv_dest = dest;
	if (dontunmap) {
		/*
		 * The old VMA may get a new pgoff and no anon_vma: new gen. It
		 * loses its anon_vma when the move took all of it (move_vma()
		 * unlinks it then): no private copies are left to protect.
		 */
		int whole = kvstart[ps] == ps && kvend[ps] == ps + oldn;

		m->gen++;
		for (long i = ps; i < ps + oldn; i++) {
			zap(&m->p[i]);
			m->p[i].gen = m->gen;
			if (whole)
				m->p[i].av = 0;
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
			return R(-seal_err);
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
		/*
		 * get_unmapped_area(vm_file, new_addr, ..., MAP_SHARED if
		 * VM_MAYSHARE): after the unmappings above, a shared mapping
		 * moved to another colour is refused; a hint for a file or
		 * shared mapping goes to its colour.
		 */
		if (flags & MREMAP_FIXED) {
			if (m->p[ps].shared && colour_bad(new_addr, m->p[ps].off))
				return R(-EINVAL);
			dest = pgi(new_addr);
		} else if (!new_addr) {
			dest = -1;
		} else {
			unsigned long a = new_addr;

			if (m->p[ps].obj >= 0)
				a = colour_align(a, m->p[ps].off);
			dest = hint_page(a, new_len);
			if (dest == -2)
				return REJ();
			if (dest >= 0 && any_mapped(m, dest, dest + newn))
				dest = -1;
		}
		move_pages(m, ps, oldn, newn, dest, !!(flags & MREMAP_DONTUNMAP));
		return dest < 0 ? OUTSIDE() : R(A + dest * PG);
	}
	if (sealing && any_sealed(m, ps, ps + (old_len ? old_len / PG : 1)))
		return R(-seal_err);
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

	/* do_shmat(): SHMLBA, then the mapping (shm_lba: fuzz.h) */
	if (addr) {
		if (addr & (shm_lba - 1)) {
			if (flg & SHM_RND) {
				addr &= ~(shm_lba - 1);
				if (!addr && (flg & SHM_REMAP))
					return R(-EINVAL);
			} else if (shm_lba_force || (addr & (PG - 1))) {
				return R(-EINVAL);
			}
		}
		if (!addr)
			return REJ();	/* MAP_FIXED at 0 */
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
	/* do_mmap(MAP_SHARED | MAP_FIXED, pgoff 0): SHMLBA has the colour */
	if (colour_bad(addr, 0))
		return R(-EINVAL);
	if (sealing && any_sealed(m, ps, ps + SHM_PAGES))
		return R(-seal_err);
	map_shared_file(m, ps, SHM_PAGES, OBJ_SHM, 0, prot, 0,
			sealing && abi == ABI_MAINLINE, !!(flg & SHM_RDONLY), -1);
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
		    q->sealable != f.sealable || q->nomw != f.nomw ||
		    q->ureg != f.ureg || !q->shared)
			return R(-EINVAL);
	}
	/*
	 * do_mmap(vm_file, start, size, prot, MAP_SHARED | MAP_FIXED ...):
	 * another offset's colour is refused before the seal is looked at.
	 */
	if (colour_bad(start, pgoff))
		return R(-EINVAL);
	if (!in_np(start, size))
		return REJ();
	if (f.prot == PROT_EXEC)
		pkey = exec_key_get(m);
	if (sealing && any_sealed(m, ps, ps + npg))
		return R(-seal_err);
	map_shared_file(m, ps, npg, f.obj, pgoff, f.prot, pkey,
			sealing && f.sealable, 0, f.fid);
	return R(0);
}

/* ---- userfaultfd: UFFDIO_REGISTER (MISSING) / UFFDIO_UNREGISTER ---- */
static struct exp m_uffd(struct model *m, const struct op *o)
{
	unsigned long start = opaddr(o, 0), len = o->a[1];
	int unreg = !!o->a[2], found = 0;
	long ps, pe;

	if (!use_uffd)
		return REJ();
	/* validate_range() */
	if ((start & (PG - 1)) || (len & (PG - 1)) || !len)
		return R(-EINVAL);
	if (start >= TASK_SZ + PG || len > TASK_SZ + PG - start)
		return R(-EINVAL);
	if (!in_arena(start, len))
		return REJ();
	ps = pgi(start);
	pe = pgi(start + len);
	/* Every VMA in the range, in order; holes do not matter. */
	for (long i = ps; i < pe; i++) {
		const struct mpage *p = &m->p[i];

		if (!p->mapped)
			continue;
		found = 1;
		/* vma_can_userfault(): SysV shm is not shmem_vm_ops */
		if (p->obj == OBJ_SHM)
			return R(-EINVAL);
		if (!unreg && p->nomw)
			return R(-EPERM);
		/* sealed memory that the process cannot write */
		if (!unreg && p->sealed && !(p->prot & PROT_WRITE))
			return R(-seal_err);
	}
	if (!found)
		return R(-EINVAL);	/* the first VMA starts past the end */
	for (long i = ps; i < pe; i++) {
		struct mpage *p = &m->p[i];

		if (!p->mapped)
			continue;
		p->ureg = !unreg;
		if (!unreg)
			p->uever = 1;
	}
	return R(0);
}

/*
 * After a move to dest (move_pages()), with the kernel's VMA bounds of
 * after the call: the VMA the moved pages are in now is unregistered.
 */
void moved_unregister(struct model *m)
{
	long d = m->mv_dest;
	int lost = 0;

	m->mv_dest = -1;
	if (d < 0 || d >= NPP || !m->p[d].mapped || kvstart[d] > d ||
	    kvend[d] <= d)
		return;
	for (long j = kvstart[d] < 0 ? 0 : kvstart[d]; j < kvend[d] && j < NPP; j++) {
		if (!m->p[j].mapped)
			continue;
		lost |= m->p[j].ureg;
		m->p[j].ureg = 0;
	}
	if (lost && !sh->emit)
		sh->uev[UEV_MERGED]++;
}

struct exp predict(struct model *m, const struct op *o)
{
	m->mv_dest = -1;
	switch (o->k) {
	case OP_MMAP: return m_mmap(m, o);
	case OP_MUNMAP: return m_munmap(m, o);
	case OP_MPROTECT: return m_mprotect(m, o, -1);
	case OP_PKEY_MPROTECT:
		if (!pkey_syscalls)
			return R(-ENOSYS);
		return m_mprotect(m, o, o->a[3]);
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
	case OP_UFFD: return m_uffd(m, o);
	}
	return R(0);
}
