// SPDX-License-Identifier: GPL-2.0
/*
 * libmseal-run.so - seal the code, read-only data and RELRO of a program and
 * of every object loaded with it, once the dynamic loader has relocated them
 * and before main() runs. Loaded with LD_PRELOAD (mseal-run(1)) or
 * /etc/ld.so.preload (mseal-run --system on); Debian's glibc stays as it is.
 *
 * Why a preloaded library and not an rtld-audit module:
 *  - relocation of every object loaded at startup, and the mprotect() of
 *    their RELRO, is over before the first constructor runs, so the
 *    constructor below runs at the right time, and dl_iterate_phdr() lists
 *    the program's objects from it (an audit module lives in a namespace of
 *    its own, with a second copy of libc mapped into every process);
 *  - /etc/ld.so.preload makes it system-wide, for set-user-ID programs too;
 *    LD_AUDIT has no system-wide file and is cut down in secure mode;
 *  - after dlopen(), the audit interface reports the new objects before ld.so
 *    relocates them (la_activity(LA_ACT_CONSISTENT) comes before the RELRO
 *    is made read-only), too early to seal; the dlopen() below returns after.
 *
 * What is sealed, per object: the span from its first to the end of its last
 * PT_LOAD segment (code, read-only data, RELRO, .data/.bss and the PROT_NONE
 * gaps ld.so leaves between segments), in one mseal() call; where the span
 * is not fully mapped (the 6.1 kernel unmaps the gaps between the segments
 * of the executable and of ld.so: mseal() fails with ENOMEM on a hole), each
 * segment on its own. The vDSO is the kernel's business and is left alone.
 *
 * Failures: ENOSYS (no mseal() in the kernel) turns sealing off silently,
 * or with one warning where the kernel has mseal() (a seccomp filter that
 * does not know it: see mseal-run-generator); any other failure leaves that object unsealed and prints one warning for
 * the whole process; MSEAL_RUN_FATAL=1 makes it fatal instead (exit 127,
 * before main(), like ld.so's own failures). MSEAL_RUN=0 turns sealing off,
 * MSEAL_RUN_VERBOSE=1 prints what was done. All three are ignored in
 * secure mode (set-user-ID programs), like the loader's own variables.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <mseal.h>

#define HIDDEN __attribute__((visibility("hidden")))

enum { ACTIVE, OFF };

static int state = -1;		/* -1 until configure() */
static int fatal, verbose;
static uintptr_t pagesz;

/* What this process did, for the one warning and MSEAL_RUN_VERBOSE. */
static struct {
	unsigned int objects, sealed, failed, calls;
	int first_errno;
	char first[128];
	int warned;
} st;

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n = snprintf(buf, sizeof(buf), "mseal-run: ");

	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return;		/* nowhere to say it */
}

static int env_on(const char *name)
{
	const char *v = secure_getenv(name);

	return v && *v && strcmp(v, "0");
}

static void configure(void)
{
	const char *v;

	if (state >= 0)
		return;
	pagesz = sysconf(_SC_PAGESIZE);
	fatal = env_on("MSEAL_RUN_FATAL");
	verbose = env_on("MSEAL_RUN_VERBOSE");
	v = secure_getenv("MSEAL_RUN");
	state = v && !strcmp(v, "0") ? OFF : ACTIVE;
}

/* One object as dl_iterate_phdr() shows it. */
struct obj {
	const char *name;
	uintptr_t base;
	const ElfW(Phdr) *phdr;
	ElfW(Half) phnum;
};

static int is_vdso(const struct obj *o)
{
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);

	return vdso && (uintptr_t)o->phdr == vdso + ((const ElfW(Ehdr) *)vdso)->e_phoff;
}

static const char *name_of(const struct obj *o)
{
	if (!o->name || !*o->name)
		return "the executable";
	return o->name;
}

static int do_seal(uintptr_t lo, uintptr_t hi)
{
	st.calls++;
	return mseal((void *)lo, hi - lo, 0);
}

static void failed(const struct obj *o, int err)
{
	st.failed++;
	if (!st.first_errno) {
		st.first_errno = err;
		snprintf(st.first, sizeof(st.first), "%s", name_of(o));
	}
}

/* Seal one object: 0, or -1 with errno set (ENOSYS: no mseal()). */
static int seal_obj(const struct obj *o)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	int err;

	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		if (o->base + p->p_vaddr < lo)
			lo = o->base + p->p_vaddr;
		if (o->base + p->p_vaddr + p->p_memsz > hi)
			hi = o->base + p->p_vaddr + p->p_memsz;
	}
	if (lo >= hi)
		return 0;
	lo &= ~(pagesz - 1);
	hi = (hi + pagesz - 1) & ~(pagesz - 1);
	st.objects++;
	if (!do_seal(lo, hi))
		goto sealed;
	err = errno;
	if (err == ENOSYS)
		return -1;
	if (err != ENOMEM)
		goto fail;
	/* A hole in the span: segment by segment. */
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];
		uintptr_t a = (o->base + p->p_vaddr) & ~(pagesz - 1);
		uintptr_t b = (o->base + p->p_vaddr + p->p_memsz + pagesz - 1) & ~(pagesz - 1);

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		if (do_seal(a, b)) {
			err = errno;
			goto fail;
		}
	}
sealed:
	st.sealed++;
	if (verbose)
		say("sealed %s (%#lx-%#lx)", name_of(o), (unsigned long)lo, (unsigned long)hi);
	return 0;
fail:
	failed(o, err);
	if (verbose)
		say("cannot seal %s: %s", name_of(o), strerror(err));
	errno = err;
	return 0;
}

/* The objects, copied out of dl_iterate_phdr() (which holds a lock). */
struct list {
	struct obj *v;
	size_t n, cap;
};

static int collect(struct dl_phdr_info *info, size_t size, void *data)
{
	struct list *l = data;
	struct obj o = { info->dlpi_name, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum };

	(void)size;
	if (is_vdso(&o))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct obj *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return 1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = o;
	return 0;
}

/* After a failure: one warning, or the end of the program if asked. */
static void report(void)
{
	const char *hint = "";

	/* Threads dlopen()ing at once: one warning still. */
	if (!st.failed || __atomic_exchange_n(&st.warned, 1, __ATOMIC_RELAXED))
		return;
	if (st.first_errno == EACCES) {
		/* The v6 ABI: only memory mapped sealable can be sealed. */
		int optin = prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0);

		hint = optin < 0 ?
		       "; this kernel seals only memory mapped sealable and has no opt-in "
		       "(PR_SET_MSEAL_SEALABLE) for what ld.so maps" :
		       optin == 0 ?
		       "; this kernel seals only memory mapped sealable: start the program "
		       "with mseal-run, or boot with init=/usr/sbin/mseal-init" : "";
	}
	say("%s: %u of %u objects not sealed (first: %s: %s)%s",
	    fatal ? "error" : "warning", st.failed, st.objects, st.first,
	    strerror(st.first_errno), hint);
	if (fatal)
		_exit(127);
}

/*
 * ENOSYS: a kernel without mseal(), and the process runs unsealed, silently;
 * or a kernel that has it (it publishes /proc/sys/vm/mseal_abi) and a
 * seccomp filter that does not know the call (systemd 252's return ENOSYS
 * for what their libseccomp cannot name): one warning, as for any object
 * left unsealed, and fatal with MSEAL_RUN_FATAL=1.
 */
static void no_mseal(void)
{
	state = OFF;
	if (access("/proc/sys/vm/mseal_abi", F_OK))
		return;
	say("%s: mseal() fails with ENOSYS on a kernel that has it (a seccomp filter "
	    "that predates it?): this process is not sealed", fatal ? "error" : "warning");
	if (fatal)
		_exit(127);
}

static void seal_list(struct list *l, const unsigned char *pick)
{
	for (size_t i = 0; i < l->n && state == ACTIVE; i++) {
		if (pick && !pick[i])
			continue;
		if (seal_obj(&l->v[i]) && errno == ENOSYS)
			no_mseal();
	}
}

__attribute__((constructor)) static void seal_at_startup(void)
{
	struct list l = { 0 };

	configure();
	if (state != ACTIVE)
		return;
	dl_iterate_phdr(collect, &l);
	seal_list(&l, NULL);
	free(l.v);
	if (verbose && state == ACTIVE)
		say("startup: %u objects, %u sealed, %u not, %u mseal() calls",
		    st.objects, st.sealed, st.failed, st.calls);
	if (state == ACTIVE)
		report();
}

#ifdef __x86_64__
/*
 * dlopen(): objects that can never be unloaded (RTLD_NODELETE, DF_1_NODELETE,
 * and what they depend on) are sealed when dlopen() returns; the others stay
 * unsealed so that dlclose() can unmap them.
 *
 * glibc's dlopen() looks at its return address to find the calling object,
 * whose DT_RPATH/DT_RUNPATH and $ORIGIN it uses for a name without a slash or
 * with a '$'. A wrapper that calls it would be that caller and change the
 * search. So dlopen below is a jump: to the real dlopen() (the caller's
 * return address untouched) when the wrapper would change what is found, or
 * when sealing is off; to dlopen_sealed() when it would not.
 */
HIDDEN int mseal_run_dlopen_direct(const char *file, const void *caller);
HIDDEN void *mseal_run_dlopen_sealed(const char *file, int mode);
HIDDEN void *(*real_dlopen_ptr)(const char *, int);

__asm__(
	"	.text\n"
	"	.globl	dlopen\n"
	"	.type	dlopen, @function\n"
	"dlopen:\n"
	"	.cfi_startproc\n"
	"	endbr64\n"			/* an indirect-branch target (CET) */
	"	pushq	%rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq	%rsi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	subq	$8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	movq	24(%rsp), %rsi\n"		/* the caller's return address */
	"	call	mseal_run_dlopen_direct\n"
	"	addq	$8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq	%rsi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq	%rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	testl	%eax, %eax\n"
	"	jnz	mseal_run_dlopen_sealed\n"
	"	jmp	*real_dlopen_ptr(%rip)\n"
	"	.cfi_endproc\n"
	"	.size	dlopen, .-dlopen\n");

/* The dynamic section's value for TAG, or 0. */
static ElfW(Addr) dyn_val(const ElfW(Dyn) *d, ElfW(Sxword) tag)
{
	for (; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return d->d_un.d_val;
	return 0;
}

static int dyn_has(const ElfW(Dyn) *d, ElfW(Sxword) tag)
{
	for (; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return 1;
	return 0;
}

static const ElfW(Dyn) *dyn_of(const struct obj *o)
{
	for (int i = 0; i < o->phnum; i++)
		if (o->phdr[i].p_type == PT_DYNAMIC)
			return (const ElfW(Dyn) *)(o->base + o->phdr[i].p_vaddr);
	return NULL;
}

/*
 * The string of entry TAG (DT_SONAME...) in the string table, or the string
 * table itself for DT_STRTAB. ld.so relocates the d_ptr entries of a
 * writable dynamic section (x86-64), not of a read-only one.
 */
static const char *dyn_str(const struct obj *o, const ElfW(Dyn) *d, ElfW(Sxword) tag)
{
	uintptr_t strtab = dyn_val(d, DT_STRTAB);

	if (!strtab || !dyn_has(d, tag))
		return NULL;
	if (strtab < o->base)
		strtab += o->base;
	return (const char *)strtab + (tag == DT_STRTAB ? 0 : dyn_val(d, tag));
}

static int rpath_chain_free(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj o = { info->dlpi_name, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum };
	int *rpath = data;

	(void)size;
	/* The executable's own DT_RPATH is searched from any caller. */
	if (info->dlpi_name && *info->dlpi_name && dyn_has(dyn_of(&o), DT_RPATH))
		*rpath = 1;
	return *rpath;
}

/* 1 if real_dlopen(file) called from here finds what the caller would. */
int mseal_run_dlopen_direct(const char *file, const void *caller)
{
	Dl_info info;
	struct link_map *caller_map = NULL, *main_map;
	int rpath = 0;

	configure();
	if (!real_dlopen_ptr) {
		real_dlopen_ptr = dlsym(RTLD_NEXT, "dlopen");
		if (!real_dlopen_ptr)
			abort();	/* no libc dlopen(): cannot happen */
	}
	if (state != ACTIVE || !file || strchr(file, '$'))
		return 0;
	if (strchr(file, '/'))
		return 1;
	/*
	 * A bare name: searched along the caller's DT_RPATH (and its loaders'),
	 * LD_LIBRARY_PATH, the caller's DT_RUNPATH, the cache and the default
	 * directories (unless the caller has DF_1_NODEFLIB). From here, along
	 * the executable's DT_RPATH, LD_LIBRARY_PATH, the cache and the default
	 * directories: the same if the caller (or the executable, for a caller
	 * outside any object) has no DT_RUNPATH nor DF_1_NODEFLIB, and no
	 * object but the executable has a DT_RPATH.
	 */
	main_map = _r_debug.r_map;
	if (!dladdr1(caller, &info, (void **)&caller_map, RTLD_DL_LINKMAP) || !caller_map)
		caller_map = main_map;
	if (dyn_has(caller_map->l_ld, DT_RUNPATH) ||
	    (dyn_val(caller_map->l_ld, DT_FLAGS_1) & DF_1_NODEFLIB))
		return 0;
	dl_iterate_phdr(rpath_chain_free, &rpath);
	return !rpath;
}

/* The object in L that DT_NEEDED name NEED refers to, or -1. */
static ssize_t find_needed(const struct list *l, const char *need)
{
	for (size_t j = 0; j < l->n; j++) {
		const char *so = dyn_str(&l->v[j], dyn_of(&l->v[j]), DT_SONAME);
		const char *base = strrchr(l->v[j].name, '/');

		base = base ? base + 1 : l->v[j].name;
		if (!strcmp(need, so ? so : base))
			return j;
	}
	return -1;
}

static int nodelete_flag(const struct obj *o)
{
	return !!(dyn_val(dyn_of(o), DT_FLAGS_1) & DF_1_NODELETE);
}

/* Seal the objects that HANDLE brought in and that can never be unloaded. */
static void seal_nodelete(void *handle, int mode)
{
	struct link_map *lm = NULL;
	struct list l = { 0 };
	unsigned char *pick = NULL, *seen;
	size_t *queue = NULL, head = 0, tail = 0;
	ssize_t root = -1;

	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) || !lm)
		return;
	dl_iterate_phdr(collect, &l);
	for (size_t i = 0; i < l.n; i++)
		if (l.v[i].base == lm->l_addr && dyn_of(&l.v[i]) == lm->l_ld)
			root = i;
	pick = calloc(l.n, 2);
	queue = malloc(2 * l.n * sizeof(*queue));
	if (root < 0 || !pick || !queue)
		goto out;
	seen = pick + l.n;
	/*
	 * From the object dlopen() returned, along DT_NEEDED: an object is
	 * never unloaded if it has DF_1_NODELETE, was opened RTLD_NODELETE, or
	 * is needed by one that is never unloaded. Each object is queued at
	 * most twice: once seen, once picked.
	 */
	pick[root] = (mode & RTLD_NODELETE) || nodelete_flag(&l.v[root]);
	seen[root] = 1;
	queue[tail++] = root;
	while (head < tail) {
		size_t i = queue[head++];
		const ElfW(Dyn) *d = dyn_of(&l.v[i]);
		const char *strtab = dyn_str(&l.v[i], d, DT_STRTAB);

		for (; strtab && d->d_tag != DT_NULL; d++) {
			ssize_t j;

			if (d->d_tag != DT_NEEDED ||
			    (j = find_needed(&l, strtab + d->d_un.d_val)) < 0)
				continue;
			if ((pick[i] || nodelete_flag(&l.v[j])) && !pick[j]) {
				pick[j] = seen[j] = 1;
				queue[tail++] = j;
			} else if (!seen[j]) {
				seen[j] = 1;
				queue[tail++] = j;
			}
		}
	}
	/* Only what ld.so has finished with: relocated, RELRO in place. */
	for (size_t i = 0; i < l.n; i++) {
		struct dl_find_object fo;

		if (pick[i] && (_dl_find_object((void *)l.v[i].phdr, &fo) ||
				fo.dlfo_link_map->l_addr != l.v[i].base))
			pick[i] = 0;
	}
	seal_list(&l, pick);
	if (state == ACTIVE)
		report();
out:
	free(queue);
	free(pick);
	free(l.v);
}

void *mseal_run_dlopen_sealed(const char *file, int mode)
{
	void *h = real_dlopen_ptr(file, mode);
	int saved = errno;

	/*
	 * No lock of our own (a fork() while it is held would leave it held in
	 * the child): sealing twice is harmless, the counts are for
	 * MSEAL_RUN_VERBOSE only.
	 */
	if (h)
		seal_nodelete(h, mode);
	errno = saved;
	return h;
}
#endif /* __x86_64__ */
