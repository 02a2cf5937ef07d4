// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_fuzz: options, output, and the parent's loop over sequences.
 */
#include "fuzz.h"

/* ------------------------------------------------------------------ */
/* Globals                                                              */

unsigned long A;		/* arena start */
unsigned long B0;	/* program break at startup */
int sealing = 1;		/* patched-kernel semantics (not --baseline) */
int use_smaps = 1, seal_cmp = 1, smaps_every = 8, verbose, have_ksm, have_swap;
int key1 = -1, key2 = -1;
int have_pkeys = 1;	/* see fuzz.h: arm64 has no protection keys */
int pkey_syscalls = 1;	/* see fuzz.h: nor do arm64 and s390x their calls */
int memfd[2] = { -1, -1 };
int shmid = -1;
int selfmem = -1;
int use_uffd = 1, uffd_race = 1;
int abi = ABI_V6, seal_err = EACCES;
int rule_fork_advice, rule_file_anon;
unsigned long colour_mask = PG - 1, shm_lba = PG;
int shm_lba_force, wo_unreadable;
unsigned long long seed;

struct shared *sh;

/* ------------------------------------------------------------------ */
/* Output without malloc (the parent's brk must not move).              */

static char obuf[1 << 14];

void out(const char *fmt, ...)
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
void rep(const char *fmt, ...)
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

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* /proc/sys/vm/mseal_abi: ABI_V6, ABI_MAINLINE, or -1 (no such file). */
static int kernel_abi(void)
{
	char b[16] = "";
	int fd = open("/proc/sys/vm/mseal_abi", O_RDONLY), n;

	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n > 0 && !strncmp(b, "mainline", 8))
		return ABI_MAINLINE;
	if (n > 0 && !strncmp(b, "v6", 2))
		return ABI_V6;
	out("mseal_fuzz: /proc/sys/vm/mseal_abi says \"%.*s\"\n",
	    n > 0 ? n : 0, b);
	exit(2);
}

/*
 * The ABI: the kernel's (--abi only checks it). The rules of the coming
 * series are asked of the kernel, one probe each, since they land one by
 * one (--new-rules yes|no decides instead: yes expects them all); the
 * header line says which ones the run models.
 */
static void choose_abi(const char *want, const char *rules)
{
	int k = kernel_abi(), r;

	if (!sealing)
		return;
	abi = k < 0 ? ABI_V6 : k;
	if (want && strcmp(want, abi == ABI_MAINLINE ? "mainline" : "v6")) {
		out("mseal_fuzz: --abi %s, but the kernel's mseal() ABI is %s%s\n",
		    want, abi == ABI_MAINLINE ? "mainline" : "v6",
		    k < 0 ? " (no /proc/sys/vm/mseal_abi: boot a kernel with the "
		    "ABI switch)" : "");
		exit(2);
	}
	seal_err = abi == ABI_MAINLINE ? EPERM : EACCES;
	if (!strcmp(rules, "yes")) {
		rule_fork_advice = rule_file_anon = 1;
	} else if (strcmp(rules, "no")) {
		r = probe_rule(PROBE_FORK_ADVICE);
		rule_fork_advice = r > 0;
		if (r < 0)
			out("mseal_fuzz: the probe of the fork-advice rule failed\n");
		r = probe_rule(PROBE_FILE_ANON);
		rule_file_anon = r > 0;
		if (r < 0)
			out("mseal_fuzz: the probe of the file anon_vma rule failed\n");
	}
	out("mseal_fuzz: mseal() ABI %s (%s), refused calls fail with %s; "
	    "rules: fork advice refuses mseal() %s, sealed private file "
	    "copies discard-protected %s (%s)\n",
	    abi == ABI_MAINLINE ? "mainline" : "v6",
	    k < 0 ? "no /proc/sys/vm/mseal_abi" : "/proc/sys/vm/mseal_abi",
	    seal_err == EPERM ? "EPERM" : "EACCES",
	    rule_fork_advice ? "on" : "off", rule_file_anon ? "on" : "off",
	    strcmp(rules, "yes") && strcmp(rules, "no") ?
	    "asked of the kernel" : "--new-rules");
}

static void usage(void)
{
	out("usage: mseal_fuzz [--ops N] [--seed S] [--no-smaps] [--verbose] "
	    "[--baseline] [--smaps-every K] [--seq J] [--seq-len L] "
	    "[--no-uffd] [--no-uffd-race] [--abi v6|mainline] "
	    "[--new-rules yes|no|probe] [--regress]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long nops = 200000, total = 0;
	int have_seed = 0, only_seq = -1, seq_len = 0, nseq = 0, div = 0;
	int regression = 0;
	const char *want_abi = NULL, *rules = "probe";
	unsigned long libc_lba;
	double t0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--ops") && i + 1 < argc)
			nops = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0), have_seed = 1;
		else if (!strcmp(a, "--no-smaps"))
			use_smaps = 0;
		else if (!strcmp(a, "--no-uffd"))
			use_uffd = 0;
		else if (!strcmp(a, "--no-uffd-race"))
			uffd_race = 0;
		else if (!strcmp(a, "--abi") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "v6") ||
			  !strcmp(argv[i + 1], "mainline")))
			want_abi = argv[++i];
		else if (!strcmp(a, "--new-rules") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "yes") || !strcmp(argv[i + 1], "no") ||
			  !strcmp(argv[i + 1], "probe")))
			rules = argv[++i];
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
		else if (!strcmp(a, "--regress"))
			regression = 1;
		else
			usage();
	}
	if (regression && (!use_uffd || !use_smaps)) {
		out("mseal_fuzz: --regress needs the userfaultfd and smaps\n");
		exit(2);
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
	/*
	 * With CONFIG_KSM (Debian's kernels), MADV_MERGEABLE and
	 * MADV_UNMERGEABLE are valid and change VMA flags, which the model
	 * does not follow: the generator leaves them out there.
	 */
	have_ksm = !access("/sys/kernel/mm/ksm", F_OK);
	/* /proc/swaps exists with CONFIG_SWAP only (mm/swapfile.c) */
	have_swap = !access("/proc/swaps", F_OK);

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		out("mmap: %s\n", strerror(errno));
		return 2;
	}
	key1 = syscall(SYS_pkey_alloc, 0, 0);
	key2 = syscall(SYS_pkey_alloc, 0, 0);
#ifndef __x86_64__
	if (key1 < 0 && key2 < 0 && errno == ENOSYS) {
		/* No protection keys: pkey_mprotect() must fail too. */
		out("mseal_fuzz: no protection keys (pkey_alloc: %s): "
		    "pkey_mprotect() must fail with ENOSYS\n",
		    strerror(errno));
		have_pkeys = 0;
		pkey_syscalls = 0;
		key1 = 1;
		key2 = 2;
	} else if (key1 < 0 && key2 < 0 && errno == ENOSPC) {
		/* powerpc's radix MMU: the calls, but no key to allocate. */
		out("mseal_fuzz: no protection keys (pkey_alloc: %s): "
		    "pkey_mprotect() is mprotect() with key -1, EINVAL with any other\n",
		    strerror(errno));
		have_pkeys = 0;
		key1 = 1;
		key2 = 2;
	}
#endif
	if (sysconf(_SC_PAGESIZE) != (long)PG) {
		out("the page size is %ld, the fuzzer's %lu (fuzz.h: PG)\n",
		    sysconf(_SC_PAGESIZE), PG);
		return 2;
	}
	if (key1 < 0 || key2 < 0) {
		out("pkey_alloc: %s (the fuzzer needs protection keys)\n",
		    strerror(errno));
		return 2;
	}
	if (probe_colours()) {
		out("mseal_fuzz: the probe of the cache colours failed: %s\n",
		    strerror(errno));
		return 2;
	}
	out("mseal_fuzz: shared mappings' cache colours %lu KiB apart, "
	    "shmat() at SHMLBA %lu KiB%s%s\n", (colour_mask + 1) >> 10,
	    shm_lba >> 10, shm_lba_force ? " (forced)" : "",
	    colour_mask >= PG || shm_lba > PG ? ": the colour rules apply" : "");
	libc_lba = SHMLBA;
	if (shm_lba != (libc_lba > PG ? libc_lba : PG))
		out("mseal_fuzz: (the C library's SHMLBA is %lu KiB)\n",
		    libc_lba >> 10);
	wo_unreadable = probe_wo_read();
	if (wo_unreadable)
		out("mseal_fuzz: a load from a write-only page never returns here "
		    "(the kernel's bug, not sealing's): the observer reads those "
		    "through /proc/self/mem\n");
	B0 = syscall(SYS_brk, 0);
	A = PA(B0);
	observe_maps();
	for (int i = 0; i < NPP; i++)
		if (kp[i].mapped) {
			out("the arena [0x%lx, 0x%lx) is not free\n", A, A + NPP * PG);
			return 2;
		}
	choose_abi(want_abi, rules);
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

	if (regression)
		return regress() ? 1 : 0;
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
			if (!replay(best, nb, 1))
				out("\nthe divergence did not happen again when "
				    "replayed: the reproducer may not fail\n");
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
			"brk", "write", "fork", "shmat", "remap_file_pages",
			"uffd_(un)register" };
		unsigned long long on = 0;

		out("mseal_fuzz: calls by expected result: ok / %s / other "
		    "error (write: fault, brk: refused) / outside the arena%s\n",
		    seal_err == EPERM ? "EPERM" : "EACCES",
		    use_uffd ? " / on userfaultfd-registered pages" : "");
		for (int k = 0; k < OP_NOP; k++) {
			if (k == OP_UFFD && !use_uffd)
				continue;
			out("  %-17s %7llu %7llu %7llu %7llu", name[k],
			    sh->stat[k][0], sh->stat[k][1], sh->stat[k][2],
			    sh->stat[k][3]);
			if (use_uffd)
				out(" %7llu", sh->ustat[k]);
			out("\n");
			on += sh->ustat[k];
		}
		if (use_uffd)
			out("mseal_fuzz: userfaultfd: %llu calls on registered "
			    "pages; %llu missing-page faults (%llu zeropage, %llu "
			    "copy, %llu lost pages), %llu remove events, %llu "
			    "prefills, %llu madvise/mseal races, %llu other; "
			    "%llu mremap() moves unregistered merged neighbours, "
			    "%llu the rest of a self-merged source VMA\n", on,
			    sh->uev[UEV_FAULT], sh->uev[UEV_ZEROPAGE],
			    sh->uev[UEV_COPY], sh->uev[UEV_LOST],
			    sh->uev[UEV_REMOVE], sh->uev[UEV_PREFILL],
			    sh->uev[UEV_RACE], sh->uev[UEV_OTHER],
			    sh->uev[UEV_MERGED], sh->uev[UEV_SELFMERGE]);
	}
	out("mseal_fuzz: %.1f s, %.0f calls/s\n", now() - t0,
	    total / (now() - t0 > 0 ? now() - t0 : 1));
	out("fuzz: %llu calls, %d sequences, seed %llu, %d divergences\n", total,
	    nseq, seed, div);
	return div ? 1 : 0;
}
