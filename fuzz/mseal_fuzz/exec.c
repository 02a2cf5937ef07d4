// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_fuzz: the executor: sequences in a child, the real calls, the kernel's
 * view and its comparison with the model.
 */
#include "fuzz.h"

/* The VMA bounds the kernel showed after the previous call (page indices). */
int kvend[NPP], kvstart[NPP];

/* ------------------------------------------------------------------ */
/* The kernel's view                                                    */

struct kpage kp[NPP];
int kp_smaps;		/* the last observation read smaps */
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

int observe_maps(void)
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
		{ "um", FL_UM },
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
		if ((k->perm & PROT_READ) ||
		    ((k->perm & PROT_WRITE) && !wo_unreadable)) {
			k->val = *(volatile uint64_t *)(A + i * PG);
			k->vk = VK_VAL;
			continue;
		}
		uffd_prefill(i);
		if (pread(selfmem, &k->val, 8, A + i * PG) == 8)
			k->vk = VK_VAL;
		else
			k->vk = VK_BUS;
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

const char *prot_str(int prot, int shared, char *b)
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
					 "rr", "ac", "sl", "um" };

	b[0] = 0;
	for (int i = 0; i < 10; i++)
		if (f & (1U << i)) {
			strcat(b, n[i]);
			strcat(b, " ");
		}
}

static uint32_t model_fl(const struct mpage *p)
{
	return p->fl | (p->acct ? FL_AC : 0) | (p->sealed ? FL_SL : 0) |
	       (p->ureg ? FL_UM : 0);
}

static uint32_t fl_mask(void)
{
	return 0x7f | FL_AC | FL_UM | (seal_cmp ? FL_SL : 0);
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
			/*
			 * A new object has an inode of its own; but the SysV
			 * segment's i_ino is its id (newseg()), which another
			 * shmem file of the same mount may have too.
			 */
			for (int o = 0; o < m->nobj; o++)
				if (o != p->obj && o != OBJ_SHM &&
				    objs[o].ino_known &&
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
	       !p->av && !q->av && !p->uever && !q->uever;
}

int diff_page = -1, diff_merge;
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
		return sc(sys_mmap(a0, o->a[1], o->a[2], o->a[3], fd,
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
		if (o->a[3])
			return uffd_madvise_race(a0, o->a[1], o->a[2]);
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
	case OP_UFFD:
		return uffd_range(o->a[2], a0, o->a[1]);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* A sequence, in a child                                               */

struct model M;
int in_fork_child;
int cur_seq;

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
		p->ureg = 0;	/* no UFFD_FEATURE_EVENT_FORK */
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
		in_fork_child = 1;	/* its VMAs are not registered */
		if (uffd >= 0)
			close(uffd);
		selfmem = open("/proc/self/mem", O_RDONLY);
		observe(use_smaps);
		if (compare(&cm, "fork child")) {
			bad = 1;
		} else {
			if (*fs >= 0 && sealing) {
				r = sc(syscall(SYS_munmap, A + *fs * PG, PG));
				if (r != -seal_err) {
					rep("  fork child: munmap(sealed page %ld) = %ld, "
					    "expected -%s\n", *fs, r,
					    seal_err == EPERM ? "EPERM" : "EACCES");
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
	uffd_pre = NULL;	/* faults from now on: after the call */
	sh->executed++;
	emit_call(i, o, e, fs, fu);
	if (verbose) {
		char c[256], v1[64], v2[64];

		out("[%d.%d] %s = %s (model %s)\n", cur_seq, i, call_str(o, c),
		    val_str(o, r, v1), e->outside ? "outside" : val_str(o, e->ret, v2));
	}
	if (!sh->emit && o->k < OP_NOP)
		sh->stat[o->k][e->outside ? 3 : e->ret == -seal_err ? 1 :
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
			moved_unregister(&M);
			compare(&M, "after the call (model: as predicted)");
		}
		fail(i);
	}
	if (e->outside && post_outside(r)) {
		describe(i, o, e, r);
		fail(i);
	}
	observe(need_smaps(i, n, o));
	moved_unregister(&M);
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
	/* powerpc without keys has none allocated, not even key 0 */
	M.keymap = have_pkeys ? 1U | (1U << key1) | (1U << key2) :
		   pkey_syscalls ? 0 : 1U;
	M.pkru = rdpkru();
	M.nobj = 3;
	M.mv_dest = -1;
	if (use_uffd)
		uffd_setup();
	alarm(120);		/* a call waiting for a monitor that never comes */
	observe(use_smaps);
	if (compare(&M, "at start")) {
		rep("setup: the arena is not empty\n");
		sh->status = 2;
		_exit(2);
	}
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
		if (use_uffd && !sh->emit && uffd_touches(&bk, &o))
			sh->ustat[o.k]++;
		uffd_pre = &bk;		/* faults during the call: before it */
		step(i, n, &o, &e);
	}
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* The parent's side                                                    */

/* Run a sequence (generated, or sh->ops replayed) in a child. */
int run_child(int gen, int n)
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

/* Does smaps show "sl" for a PROT_SEAL mapping? (in a child) */
int smaps_has_sl(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		unsigned long p = sys_mmap(0, PG, PROT_READ | PROT_SEAL,
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

/*
 * Does the kernel have a rule of the coming series? (in a child: what it
 * seals stays) 1 if the call that the rule refuses fails with seal_err.
 *  PROBE_FORK_ADVICE: mseal() of writable anonymous memory that carries
 *	MADV_DONTFORK (refused since fork-time advice is refused on every
 *	sealed mapping);
 *  PROBE_FILE_ANON: MADV_DONTNEED on a sealed read-only private file
 *	mapping whose page was written (it has an anon_vma).
 */
int probe_rule(int which)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		unsigned long seal = abi == ABI_MAINLINE ? 0 : MAP_SEALABLE;
		long r;
		char *p;
		int fd;

		if (which == PROBE_FORK_ADVICE) {
			p = mmap(NULL, PG, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | seal, -1, 0);
			if (p == MAP_FAILED || madvise(p, PG, B_DONTFORK))
				_exit(2);
			r = sc(syscall(__NR_mseal, p, PG, 0));
		} else {
			fd = syscall(SYS_memfd_create, "mseal_fuzz_probe", 0);
			if (fd < 0 || ftruncate(fd, PG))
				_exit(2);
			p = mmap(NULL, PG, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | seal, fd, 0);
			if (p == MAP_FAILED)
				_exit(2);
			*(volatile char *)p = 1;
			if (mprotect(p, PG, PROT_READ) ||
			    syscall(__NR_mseal, p, PG, 0))
				_exit(2);
			r = sc(syscall(SYS_madvise, p, PG, B_DONTNEED));
		}
		_exit(r == -seal_err ? 0 : r ? 2 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st) == 0 ? 1 : WEXITSTATUS(st) == 1 ? 0 : -1;
}

/*
 * The cache colours (fuzz.h), asked of the kernel by the parent before any
 * sequence, in a PROT_NONE range aligned to 4 MiB, far more than either
 * can be: the colour is the first power-of-two offset from there where
 * mmap(MAP_SHARED | MAP_FIXED) of anonymous memory (pgoff 0) is accepted,
 * the others failing with EINVAL; SHMLBA the first where shmat(SHM_RND)
 * keeps the address instead of rounding it down to the aligned start;
 * forced if shmat() without SHM_RND refuses a page-aligned address below
 * it. 0, or -1 with errno set.
 */
int probe_colours(void)
{
	const unsigned long span = 4UL << 20;
	unsigned long base, c;
	char *r;
	void *p;
	int id, e, ret = -1;

	r = mmap(NULL, 2 * span, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return -1;
	base = ((unsigned long)r + span - 1) & ~(span - 1);
	for (c = PG; c < span; c <<= 1) {
		p = mmap((void *)(base + c), PG, PROT_READ,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == (void *)(base + c))
			break;
		if (p != MAP_FAILED || errno != EINVAL)
			goto out;
	}
	if (c >= span) {
		errno = ERANGE;
		goto out;
	}
	colour_mask = c - 1;
	id = shmget(IPC_PRIVATE, PG, IPC_CREAT | 0600);
	if (id < 0)
		goto out;
	for (c = PG; c < span; c <<= 1) {
		p = shmat(id, (void *)(base + c), SHM_RND | SHM_REMAP);
		if (p == (void *)-1)
			goto rm;
		shmdt(p);
		if (p == (void *)(base + c))
			break;
		if (p != (void *)base) {
			errno = ERANGE;
			goto rm;
		}
	}
	if (c >= span) {
		errno = ERANGE;
		goto rm;
	}
	shm_lba = c;
	if (c > PG) {
		p = shmat(id, (void *)(base + PG), SHM_REMAP);
		if (p != (void *)-1)
			shmdt(p);
		else if (errno == EINVAL)
			shm_lba_force = 1;
		else
			goto rm;
	}
	ret = 0;
rm:
	e = errno;
	shmctl(id, IPC_RMID, NULL);
	errno = e;
out:
	e = errno;
	munmap(r, 2 * span);
	errno = e;
	return ret;
}

/*
 * Does a load from an untouched PROT_WRITE-only page hang (fuzz.h:
 * wo_unreadable)? In a child, which SIGALRM ends if it does. 1 if so.
 */
int probe_wo_read(void)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		volatile uint64_t *p = mmap(NULL, PG, PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(2);
		alarm(2);
		(void)*p;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return 0;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM;
}
