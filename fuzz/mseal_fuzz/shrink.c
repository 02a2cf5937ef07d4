// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_fuzz: the shrinker (delta debugging) and the reproducer printer.
 */
#include "fuzz.h"

/* ------------------------------------------------------------------ */
/* The reproducer                                                       */

/* Append to the reproducer (children). */
void cde(const char *fmt, ...)
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
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
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

char *val_str(const struct op *o, long v, char *b)
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
char *call_str(const struct op *o, char *b)
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
		if (o->k == OP_MADVISE && o->a[3])
			sprintf(b, "madvise_race(%s, 0x%lx, %ld)", x, o->a[1],
				o->a[2]);
		break;
	case OP_UFFD:
		sprintf(b, "uffd_range(%s, %s, 0x%lx)", o->a[2] ?
			"UFFDIO_UNREGISTER" : "UFFDIO_REGISTER",
			arg_addr(o, 0, x), o->a[1]);
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
void emit_call(int i, const struct op *o, const struct exp *e,
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
void emit_state_check(const struct model *m, long i)
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
		cde("\tASSERT_EQ(%d, smaps_flag(A + 0x%lx, \"um\"));\n",
		    p->ureg, i * PG);
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
/* The shrinker                                                         */

struct op best[MAXSEQ];
static struct op cand[MAXSEQ];

int replay(const struct op *ops, int n, int emit)
{
	memcpy(sh->ops, ops, n * sizeof(ops[0]));
	sh->nops = n;
	sh->emit = emit;
	return run_child(0, n);
}

/* Delta debugging: the shortest call list that still diverges. */
int minimize(int n, int *runs)
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
"#include <errno.h>\n#include <fcntl.h>\n#include <poll.h>\n#include <pthread.h>\n#include <setjmp.h>\n"
"#include <signal.h>\n#include <stdint.h>\n#include <stdio.h>\n"
"#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n"
"#include <linux/userfaultfd.h>\n#include <sys/ioctl.h>\n#include <sys/mman.h>\n#include <sys/shm.h>\n#include <sys/syscall.h>\n#include <sys/wait.h>\n"
"#include \"kselftest_harness.h\"\n\n"
"#ifndef __NR_mseal\n#define __NR_mseal 462\n#endif\n"
"#define PG %luUL\n#define ARENA (%d * PG)\n#define MEMFD_PAGES %d\n"
"#define SEAL_ERR %s\t/* what sealing refuses with */\n"
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
"\t\tif (s && SC(SYS_munmap, s, PG) != -SEAL_ERR)\n\t\t\t_exit(1);\n"
"\t\tif (u && SC(SYS_munmap, u, PG) != 0)\n\t\t\t_exit(2);\n\t\t_exit(0);\n\t}\n"
"\twaitpid(p, &st, 0);\n"
"\treturn WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);\n}\n\n"
"/*\n * The userfaultfd: a monitor thread fills missing pages with zeroes and reads\n"
" * UFFD_EVENT_REMOVE; armed by madvise_race(), it first makes the range\n"
" * read-only and seals it, while madvise() waits for it with mmap_lock dropped.\n */\n"
"static int uffd;\nstatic volatile int race;\nstatic unsigned long race_s, race_l;\n\n"
"static void *monitor(void *arg)\n{\n"
"\tstruct pollfd pfd = { .fd = uffd, .events = POLLIN };\n\tstruct uffd_msg msg;\n\n"
"\t(void)arg;\n\tfor (;;) {\n\t\tif (poll(&pfd, 1, -1) < 1)\n\t\t\tcontinue;\n"
"\t\tif (race) {\n\t\t\tmprotect((void *)race_s, race_l, PROT_READ);\n"
"\t\t\tsyscall(__NR_mseal, race_s, race_l, 0);\n\t\t\trace = 0;\n\t\t}\n"
"\t\tif (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||\n"
"\t\t    msg.event != UFFD_EVENT_PAGEFAULT)\n\t\t\tcontinue;\n"
"\t\tstruct uffdio_zeropage z = { .range = {\n"
"\t\t\t.start = msg.arg.pagefault.address & ~(PG - 1), .len = PG } };\n\n"
"\t\tif (ioctl(uffd, UFFDIO_ZEROPAGE, &z))\n"
"\t\t\tioctl(uffd, UFFDIO_WAKE, &z.range);\n\t}\n\treturn NULL;\n}\n\n"
"static UNUSED long uffd_range(unsigned long cmd, unsigned long s, unsigned long l)\n{\n"
"\tstruct uffdio_register r = { .range = { .start = s, .len = l },\n"
"\t\t\t\t     .mode = UFFDIO_REGISTER_MODE_MISSING };\n\n"
"\tif (cmd == UFFDIO_UNREGISTER)\n\t\treturn ioctl(uffd, cmd, &r.range) ? -errno : 0;\n"
"\treturn ioctl(uffd, cmd, &r) ? -errno : 0;\n}\n\n"
"static UNUSED long madvise_race(unsigned long s, unsigned long l, int advice)\n{\n"
"\trace_s = s;\n\trace_l = l;\n\trace = 1;\n"
"\treturn SC(SYS_madvise, s, l, advice);\n}\n\n"
"static void setup(void)\n{\n"
"\tstruct uffdio_api api = { .api = UFFD_API,\n"
"\t\t\t\t  .features = UFFD_FEATURE_EVENT_REMOVE };\n"
"\tpthread_t t;\n\n"
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
"\tuffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);\n"
"\tif (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||\n"
"\t    pthread_create(&t, NULL, monitor, NULL))\n\t\tabort();\n"
"\tkey[0] = syscall(SYS_pkey_alloc, 0, 0);\n"
"\tkey[1] = syscall(SYS_pkey_alloc, 0, 0);\n}\n\n";

void print_repro(int n, int runs)
{
	out("\n---- minimal reproducer: %d calls (%d delta-debugging runs); "
	    "build with -pthread -I tools/testing/selftests ----\n", n, runs);
	out("/* mseal_fuzz reproducer: seed %llu, sequence %d%s%s */\n", seed,
	    cur_seq, !sealing ? " (baseline)" : abi == ABI_MAINLINE ?
	    " (boot with mseal_abi=mainline)" : "",
	    rule_fork_advice || rule_file_anon ? ", with the new rules" : "");
	if (colour_mask >= PG || shm_lba > PG)
		out("/* cache colours %lu KiB apart, SHMLBA %lu KiB: the arena was "
		    "at 0x%lx; an arena of another colour changes the calls */\n",
		    (colour_mask + 1) >> 10, shm_lba >> 10, A);
	out(preamble, PG, NPP, MEMFD_PAGES, seal_err == EPERM ? "EPERM" : "EACCES",
	    SHM_PAGES, SHM_PAGES);
	out("TEST(mseal_fuzz_%llu_%d)\n{\n\tlong r = 0;\n\tuint64_t w = 0;\n\n",
	    seed, cur_seq);
	/* out() is limited to its buffer: write the body directly */
	if (write(1, sh->code, sh->codelen) < 0)
		exit(3);
	out("\t(void)r;\n\t(void)w;\n}\n\nTEST_HARNESS_MAIN\n---- end of reproducer ----\n");
}
