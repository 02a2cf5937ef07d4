// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_fuzz --regress: fixed call sequences where the model once went
 * wrong, replayed against the kernel like the shrinker's replays, with
 * smaps read after every call. Each must run every call (none rejected by
 * the model) without a divergence.
 */
#include "fuzz.h"

#define MF (MREMAP_MAYMOVE | MREMAP_FIXED)
#define ANON_FIXED (MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED)
#define RW (PROT_READ | PROT_WRITE)

struct regression {
	const char *name;
	int n;
	struct op ops[12];
};

/* Address arguments are arena offsets (struct op). */
static const struct regression regressions[] = {
	{
		/*
		 * Seed 1796407227106352, sequence 22 (mainline ABI): the page
		 * moved by call 7 (registered by call 6) merges into page 0's
		 * VMA (registered by call 5; copy_vma() gives the moved VMA,
		 * which has no anon_vma, the pgoff of its new place), and
		 * mremap_userfaultfd_prep() unregisters the merged VMA: page 0
		 * is no longer registered ("um" gone from smaps), and a
		 * MADV_FREE there sends no UFFD_EVENT_REMOVE.
		 */
		"mremap merges into a registered neighbour", 8, {
			{ .k = OP_BRK, .a = { 0x1d000 } },
			{ .k = OP_MPROTECT, .a = { 0, PG, PROT_WRITE } },
			{ .k = OP_MREMAP, .a = { PG, 2 * PG, PG, MF, 0x1c000 } },
			{ .k = OP_BRK, .a = { 0x1e000 } },
			{ .k = OP_MPROTECT, .a = { 0x1d000, 2 * PG, PROT_WRITE } },
			{ .k = OP_UFFD, .a = { 0, PG, 0 } },
			{ .k = OP_UFFD, .a = { 0x1a000, 5 * PG, 0 } },
			{ .k = OP_MREMAP, .a = { 0x1d000, PG, PG, MF, PG } },
		},
	},
	{
		/*
		 * The last page of a registered anonymous VMA without an
		 * anon_vma moves right after it: copy_vma() merges it with
		 * its own VMA, mremap_userfaultfd_prep() unregisters all of
		 * it, and the unmapping of the old page splits it again:
		 * pages 0-2 lose their registration, though no VMA of theirs
		 * borders the moved page after the call.
		 */
		"mremap self-merge, source before the destination", 3, {
			{ .k = OP_MMAP, .fdi = -1, .a = { 0, 4 * PG, RW, ANON_FIXED } },
			{ .k = OP_UFFD, .a = { 0, 4 * PG, 0 } },
			{ .k = OP_MREMAP, .a = { 3 * PG, PG, PG, MF, 4 * PG } },
		},
	},
	{
		/* The same with the destination before the source VMA. */
		"mremap self-merge, source after the destination", 3, {
			{ .k = OP_MMAP, .fdi = -1, .a = { 4 * PG, 4 * PG, RW, ANON_FIXED } },
			{ .k = OP_UFFD, .a = { 4 * PG, 4 * PG, 0 } },
			{ .k = OP_MREMAP, .a = { 5 * PG, PG, PG, MF, 3 * PG } },
		},
	},
	{
		/*
		 * With an anon_vma the moved VMA keeps its pgoff and does not
		 * merge with its own: pages 0-2 stay registered.
		 */
		"mremap next to its VMA with an anon_vma: no self-merge", 4, {
			{ .k = OP_MMAP, .fdi = -1, .a = { 0, 4 * PG, RW, ANON_FIXED } },
			{ .k = OP_WRITE, .a = { 0 }, .tag = 0x5eed },
			{ .k = OP_UFFD, .a = { 0, 4 * PG, 0 } },
			{ .k = OP_MREMAP, .a = { 3 * PG, PG, PG, MF, 4 * PG } },
		},
	},
	{
		/*
		 * MREMAP_DONTUNMAP keeps the source: copy_vma() does not merge
		 * the destination with it, and the source stays registered.
		 */
		"mremap DONTUNMAP next to its VMA: no self-merge", 3, {
			{ .k = OP_MMAP, .fdi = -1, .a = { 0, 4 * PG, RW, ANON_FIXED } },
			{ .k = OP_UFFD, .a = { 0, 4 * PG, 0 } },
			{ .k = OP_MREMAP, .a = { 3 * PG, PG, PG,
						 MF | MREMAP_DONTUNMAP, 4 * PG } },
		},
	},
};

/*
 * The colour rules (fuzz.h), found on mips64el: seed 20261206 stopped at
 * its 33rd call, a shmat() at a page that is not SHMLBA-aligned, over a
 * sealed page, which the kernel refuses with EINVAL before it looks for a
 * seal. Where the colours are the pages' the same calls meet the seal, or
 * succeed: the sequences hold everywhere. They depend on where the arena
 * lies, so they are made at run time: k0 is its first page of colour 0,
 * cp the pages of a colour period (1 but where the cache aliases).
 */
#define SH_FIXED (MAP_SHARED | MAP_FIXED)
#define SEALABLE MAP_SEALABLE
#define OPS(...) ((const struct op[]){ __VA_ARGS__ })
#define ADD(nm, ...) add(r, &n, nm, OPS(__VA_ARGS__), \
			 sizeof(OPS(__VA_ARGS__)) / sizeof(struct op))

static void add(struct regression *r, int *n, const char *name,
		const struct op *ops, int len)
{
	r[*n].name = name;
	r[*n].n = len;
	memcpy(r[*n].ops, ops, len * sizeof(*ops));
	++*n;
}

static int colour_sequences(struct regression *r)
{
	long cp = (colour_mask + 1) / PG, k, s;
	long k0 = ((colour_mask + 1 - (A & colour_mask)) & colour_mask) / PG;
	int n = 0;

	if (k0 + 9 * cp + 1 > NP) {
		out("regress: colours %lu KiB apart: too far for the arena, "
		    "their sequences skipped\n", (colour_mask + 1) >> 10);
		return 0;
	}
	ADD("colours: MAP_SHARED | MAP_FIXED of another colour is EINVAL "
	    "before the seal",
	    { .k = OP_MMAP, .fdi = -1, .a = { (k0 + 1) * PG, PG, RW,
					       ANON_FIXED | SEALABLE } },
	    { .k = OP_MSEAL, .a = { (k0 + 1) * PG, PG, 0 } },
	    /* offset 0 at colour 1: EINVAL where colours count */
	    { .k = OP_MMAP, .fdi = 0, .a = { (k0 + 1) * PG, PG, RW, SH_FIXED, 0 } },
	    { .k = OP_MMAP, .fdi = -1, .a = { (k0 + 1) * PG, PG, RW,
					       SH_FIXED | MAP_ANONYMOUS } },
	    /* ... before MAP_FIXED_NOREPLACE's EEXIST */
	    { .k = OP_MMAP, .fdi = 0, .a = { (k0 + 1) * PG, PG, RW,
					      MAP_SHARED | MAP_FIXED_NOREPLACE, 0 } },
	    /* its colour, or a private mapping: the seal refuses */
	    { .k = OP_MMAP, .fdi = 0, .a = { (k0 + 1) * PG, PG, RW, SH_FIXED, PG } },
	    { .k = OP_MMAP, .fdi = 0, .a = { (k0 + 1) * PG, PG, RW,
					      MAP_PRIVATE | MAP_FIXED, 0 } },
	    /* where the colours match, unsealed: mapped */
	    { .k = OP_MMAP, .fdi = 1, .a = { k0 * PG, PG, RW, SH_FIXED, 0 } },
	    { .k = OP_MMAP, .fdi = 1, .a = { (k0 + cp + 1) * PG, 2 * PG, RW,
					      SH_FIXED, PG } });

	/* a page that is not SHMLBA-aligned (any page if SHMLBA is PG) */
	for (s = 0; shm_lba > PG && !((A + s * PG) & (shm_lba - 1)); s++)
		;
	ADD("colours: shmat() off SHMLBA is EINVAL before the seal",
	    { .k = OP_MMAP, .fdi = -1, .a = { s * PG, SHM_PAGES * PG, RW,
					       ANON_FIXED | SEALABLE } },
	    { .k = OP_MSEAL, .a = { s * PG, SHM_PAGES * PG, 0 } },
	    { .k = OP_SHMAT, .a = { s * PG, SHM_REMAP } },
	    { .k = OP_SHMAT, .a = { s * PG, 0 } },
	    { .k = OP_SHMAT, .a = { s * PG + 5, SHM_REMAP } });

	/* the first SHMLBA-aligned page, with room for the segment */
	k = (long)(((shm_lba - (A & (shm_lba - 1))) & (shm_lba - 1)) / PG);
	if (k + SHM_PAGES + 2 > NP) {
		out("regress: no page aligned to SHMLBA (%lu KiB) in the arena: "
		    "the SHM_RND sequence skipped\n", shm_lba >> 10);
	} else {
		ADD("colours: shmat(SHM_RND) rounds down to SHMLBA",
		    { .k = OP_MMAP, .fdi = -1, .a = { k * PG, PG, RW,
						       ANON_FIXED | SEALABLE } },
		    { .k = OP_MSEAL, .a = { k * PG, PG, 0 } },
		    /* onto the sealed page, or two pages above it */
		    { .k = OP_SHMAT, .a = { k * PG + 2 * PG + 123,
					    SHM_RND | SHM_REMAP } },
		    { .k = OP_SHMAT, .a = { k * PG + PG, SHM_RND } });
	}

	ADD("colours: remap_file_pages() to another offset's colour is EINVAL "
	    "before the seal",
	    { .k = OP_MMAP, .fdi = 0, .a = { k0 * PG, 2 * cp * PG, RW,
					      SH_FIXED | SEALABLE, 0 } },
	    { .k = OP_MSEAL, .a = { k0 * PG, 2 * cp * PG, 0 } },
	    { .k = OP_REMAP, .a = { k0 * PG, PG, 0, 1, 0 } },
	    { .k = OP_REMAP, .a = { k0 * PG, PG, 0, cp, 0 } },
	    { .k = OP_MMAP, .fdi = 1, .a = { (k0 + 2 * cp) * PG, 2 * cp * PG,
					      RW, SH_FIXED | SEALABLE, 0 } },
	    { .k = OP_REMAP, .a = { (k0 + 2 * cp) * PG, PG, 0, 1, 0 } },
	    { .k = OP_REMAP, .a = { (k0 + 2 * cp) * PG, PG, 0, 2 * cp, 0 } });

	ADD("colours: mremap() of shared memory to another colour unmaps, "
	    "then fails",
	    { .k = OP_MMAP, .fdi = 0, .a = { k0 * PG, PG, RW, SH_FIXED, 0 } },
	    { .k = OP_MMAP, .fdi = -1, .a = { (k0 + 2 * cp + 1) * PG, PG, RW,
					       ANON_FIXED } },
	    { .k = OP_WRITE, .a = { k0 + 2 * cp + 1 }, .tag = 0xc010 },
	    /* the destination unmapped, then EINVAL */
	    { .k = OP_MREMAP, .a = { k0 * PG, PG, PG, MF, (k0 + 2 * cp + 1) * PG } },
	    { .k = OP_MMAP, .fdi = 1, .a = { (k0 + 4 * cp) * PG, 2 * PG, RW,
					      SH_FIXED, 0 } },
	    /* the shrunk tail unmapped, then EINVAL */
	    { .k = OP_MREMAP, .a = { (k0 + 4 * cp) * PG, 2 * PG, PG, MF,
				     (k0 + 6 * cp + 1) * PG } });

	ADD("colours: mremap() of a sealed source is refused first",
	    { .k = OP_MMAP, .fdi = 0, .a = { k0 * PG, PG, RW,
					      SH_FIXED | SEALABLE, 0 } },
	    { .k = OP_MSEAL, .a = { k0 * PG, PG, 0 } },
	    { .k = OP_MMAP, .fdi = -1, .a = { (k0 + cp + 1) * PG, PG, RW,
					       ANON_FIXED } },
	    { .k = OP_MREMAP, .a = { k0 * PG, PG, PG, MF, (k0 + cp + 1) * PG } },
	    { .k = OP_MREMAP, .a = { k0 * PG, PG, PG,
				     MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
				     (k0 + cp + 1) * PG } });

	ADD("colours: a hint for file or shared memory goes up to its colour",
	    { .k = OP_MMAP, .fdi = 0, .a = { (k0 + 1) * PG, PG, RW, MAP_SHARED, 0 } },
	    { .k = OP_MMAP, .fdi = -1, .a = { (k0 + 2 * cp + 1) * PG, PG, RW,
					       MAP_SHARED | MAP_ANONYMOUS } },
	    { .k = OP_MMAP, .fdi = 1, .a = { (k0 + 4 * cp + 1) * PG, PG, RW,
					      MAP_PRIVATE, PG } },
	    /* private anonymous memory: no colour */
	    { .k = OP_MMAP, .fdi = -1, .a = { (k0 + 6 * cp + 1) * PG, PG, RW,
					       MAP_PRIVATE | MAP_ANONYMOUS } },
	    { .k = OP_MMAP, .fdi = 0, .a = { (k0 + 7 * cp) * PG, PG, RW,
					      SH_FIXED, 0 } },
	    { .k = OP_MREMAP, .a = { (k0 + 7 * cp) * PG, PG, PG,
				     MREMAP_MAYMOVE | MREMAP_DONTUNMAP,
				     (k0 + 8 * cp + 1) * PG } });
	return n;
}

/* Replay every regression; the number of those that fail. */
int regress(void)
{
	static struct regression colour[8];
	int nr = sizeof(regressions) / sizeof(regressions[0]), bad = 0;
	int nc = colour_sequences(colour);

	smaps_every = 1;
	for (int j = 0; j < nr + nc; j++) {
		const struct regression *r = j < nr ? &regressions[j] :
					     &colour[j - nr];

		cur_seq = -1 - j;
		sh->emit = 0;
		if (replay(r->ops, r->n, 0)) {
			out("%s", sh->report);
			out("regress: %s: DIVERGENCE at call #%d\n", r->name,
			    sh->fail_idx);
			bad++;
		} else if (sh->executed != r->n) {
			out("regress: %s: the model rejected %d of %d calls\n",
			    r->name, r->n - sh->executed, r->n);
			bad++;
		} else {
			out("regress: %s: ok (%d calls)\n", r->name, r->n);
		}
	}
	out("fuzz: regress: %d sequences, %d divergences\n", nr + nc, bad);
	return bad;
}
