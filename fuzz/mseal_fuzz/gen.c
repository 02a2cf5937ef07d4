// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_fuzz: the PRNG and the generation of random calls.
 */
#include "fuzz.h"

/* ------------------------------------------------------------------ */
/* PRNG (splitmix64)                                                    */

uint64_t rs;
uint64_t rnd(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
unsigned int rn(unsigned int n) { return n ? rnd() % n : 0; }
static int chance(unsigned int pct) { return rn(100) < pct; }

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

/* A range of sealed pages in one VMA, for the advice b; o unchanged if none. */
static void pick_sealed(const struct model *m, struct op *o, long b)
{
	long c[NP], n = 0, s, e;

	for (long i = 0; i < NP; i++)
		if (m->p[i].mapped && m->p[i].sealed)
			c[n++] = i;
	if (!n)
		return;
	s = c[rn(n)];
	for (e = s + 1; e < NP && e < kvend[s] && m->p[e].sealed; e++)
		;
	o->a[0] = s * PG;
	o->a[1] = (1 + rn(e - s)) * PG;
	o->a[2] = b;
}

/* A registered, writable, sealable private anonymous range in one VMA. */
static int race_page(const struct model *m, long i)
{
	const struct mpage *p = &m->p[i];

	return p->mapped && p->ureg && p->obj < 0 && !p->shared &&
	       !p->sealed && p->sealable && (p->prot & PROT_WRITE) &&
	       !(p->fl & (FL_WF | FL_DC));
}

static void pick_race(const struct model *m, struct op *o)
{
	static const long adv[] = { B_DONTNEED, B_FREE, B_DONTNEED_LOCKED };
	long c[NP], n = 0, s, e;

	for (long i = 0; i < NP; i++)
		if (race_page(m, i))
			c[n++] = i;
	if (!n)
		return;
	s = c[rn(n)];
	for (e = s + 1; e < NP && e < kvend[s] && race_page(m, e); e++)
		;
	o->a[0] = s * PG;
	o->a[1] = (1 + rn(e - s)) * PG;
	o->a[2] = adv[rn(3)];
	o->a[3] = 1;
}

/*
 * Where colours count (fuzz.h), the arena page nearest s (below it, else
 * above) where a shared mapping of file page pgoff may be placed; s if
 * there is none. Only called there: elsewhere the calls stay as they were.
 */
static long colour_fit(long s, unsigned long pgoff)
{
	long cp = (colour_mask + 1) / PG;
	long d = ((A + s * PG - pgoff * PG) & colour_mask) / PG;

	if (s - d >= 0)
		return s - d;
	if (s - d + cp < NP)
		return s - d + cp;
	return s;
}

/* ... and the first arena page aligned to SHMLBA, or -1 */
static long shmlba_page(void)
{
	long k = (long)(((shm_lba - (A & (shm_lba - 1))) & (shm_lba - 1)) / PG);

	return k + SHM_PAGES <= NP ? k : -1;
}

void gen_op(const struct model *m, struct op *o, int idx, int seqno)
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
		/* mostly where shmat() can attach, if the arena has such a page */
		if (shm_lba > PG && o->a[0] && shmlba_page() >= 0 && chance(60)) {
			o->a[0] = shmlba_page() * PG;
			if (chance(30)) {
				o->a[0] += rn(shm_lba / PG) * PG + rn(PG);
				if (chance(80))
					o->a[1] |= SHM_RND;
			}
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
		/* mostly an offset of the colour of the address */
		if (colour_mask >= PG && chance(60)) {
			long cp = (colour_mask + 1) / PG;
			long want = ((A + s * PG) & colour_mask) / PG;

			o->a[3] += (want - o->a[3] % cp + cp) % cp;
		}
		o->a[4] = chance(10) ? MAP_NONBLOCK : 0;
		return;
	}
	if (q < 7 && use_uffd) {
		o->k = OP_UFFD;
		pick_range(m, o, 0);
		o->a[2] = chance(30);		/* unregister */
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
		/* at a fixed address, shared memory mostly of its colour */
		if (colour_mask >= PG && pl < 73 && (o->a[3] & MAP_SHARED) &&
		    chance(60)) {
			s = colour_fit(s, o->fdi >= 0 ? o->a[4] / PG : 0);
			o->a[0] = s * PG;
			if (s + n > NP)
				o->a[1] = (NP - s) * PG;
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
	} else if (r < 39 && have_pkeys) {
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
		/* a shared mapping mostly moved to its colour */
		if (colour_mask >= PG && (o->a[3] & MREMAP_FIXED) &&
		    m->p[s].mapped && m->p[s].shared && chance(60))
			o->a[4] = colour_fit(o->a[4] / PG, m->p[s].off) * PG;
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
		if (have_ksm && (o->a[2] == B_MERGEABLE || o->a[2] == B_UNMERGEABLE))
			o->a[2] = B_NORMAL;
		/* discarding advice on sealed memory, any kind of it */
		if (sealing && chance(8))
			pick_sealed(m, o, disc[rn(6)]);
		/* the monitor seals the range while madvise() waits for it */
		if (use_uffd && uffd_race && sealing && chance(10))
			pick_race(m, o);
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

uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t save = rs, v;

	rs = a ^ (b * 0xD6E8FEB86659FD93ULL);
	v = rnd();
	rs = save;
	return v;
}
