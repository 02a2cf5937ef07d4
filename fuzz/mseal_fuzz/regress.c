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

/* Replay every regression; the number of those that fail. */
int regress(void)
{
	int nr = sizeof(regressions) / sizeof(regressions[0]), bad = 0;

	smaps_every = 1;
	for (int j = 0; j < nr; j++) {
		const struct regression *r = &regressions[j];

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
	out("fuzz: regress: %d sequences, %d divergences\n", nr, bad);
	return bad;
}
