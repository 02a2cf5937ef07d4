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
 * does not know it: see mseal-run-generator); any other failure leaves that
 * object unsealed and prints one warning for the whole process;
 * MSEAL_RUN_FATAL=1 makes a failure at startup fatal instead (exit 127,
 * before main(), like ld.so's own failures); after main(), in dlopen(), a
 * failure stays a warning (exiting from inside dlopen() would throw away
 * the running program's work). MSEAL_RUN=0 turns sealing off, unless the
 * administrator enforces sealing (mseal-run --system enforce: the marker
 * file below, looked at only when MSEAL_RUN=0 is set); MSEAL_RUN_VERBOSE=1
 * prints what was done. All three are ignored in secure mode (set-user-ID
 * programs), like the loader's own variables.
 *
 * The loader's objects are only ever read from inside dl_iterate_phdr()'s
 * callback, which holds the loader's lock: another thread's dlclose() may
 * unmap an object (and free its link map) as soon as the lock is dropped.
 *
 * Under valgrind (which does not know mseal(): "unhandled syscall 462")
 * nothing is sealed and nothing is said. AddressSanitizer programs insist
 * that their runtime come first among the libraries; a preloaded library
 * comes before it, so this one tells ASan not to check
 * (__asan_default_options below); they run sealed.
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
#define EXPORT __attribute__((visibility("default")))

/* mseal-run --system enforce: MSEAL_RUN=0 is ignored while it exists. */
#define ENFORCE_FILE "/etc/mseal-run/enforce"
/* mseal-run --system on: the kernel command line of the next boot. */
#define GRUB_DROPIN "/etc/default/grub.d/mseal-run.cfg"

enum { ACTIVE, OFF };

static int state = -1;		/* -1 until configure() */
static int fatal, verbose;
static int started;		/* the startup sealing is over: main() runs */
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

/*
 * Valgrind's client request RUNNING_ON_VALGRIND (valgrind.h): a sequence of
 * rotations that changes nothing on a real CPU (the result stays 0) and that
 * valgrind's CPU answers. Cheaper than a system call.
 */
static int on_valgrind(void)
{
	volatile unsigned long args[6] = { 0x1001 };	/* VG_USERREQ__RUNNING_ON_VALGRIND */
	unsigned long res = 0;

#if defined(__x86_64__)
	__asm__ volatile("rolq $3, %%rdi; rolq $13, %%rdi\n\t"
			 "rolq $61, %%rdi; rolq $51, %%rdi\n\t"
			 "xchgq %%rbx, %%rbx"
			 : "=d"(res) : "a"(&args[0]), "0"(res) : "cc", "memory");
#elif defined(__i386__)
	__asm__ volatile("roll $3, %%edi; roll $13, %%edi\n\t"
			 "roll $29, %%edi; roll $19, %%edi\n\t"
			 "xchgl %%ebx, %%ebx"
			 : "=d"(res) : "a"(&args[0]), "0"(res) : "cc", "memory");
#endif
	return res != 0;
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
	state = ACTIVE;
	/* The marker is looked at only when someone asks to opt out. */
	if (v && !strcmp(v, "0")) {
		if (access(ENFORCE_FILE, F_OK))
			state = OFF;
		else
			say("warning: MSEAL_RUN=0 ignored: sealing is enforced on this "
			    "system (%s)", ENFORCE_FILE);
	}
	/* Valgrind 3.19 does not know mseal(): it would warn, then ENOSYS. */
	if (state == ACTIVE && on_valgrind())
		state = OFF;
}

/*
 * AddressSanitizer checks that its runtime is the first library in the
 * list (verify_asan_link_order) and aborts otherwise; a preloaded library
 * always comes before it. This library replaces none of the functions ASan
 * intercepts (malloc(), free()... resolve to ASan's as usual), so the
 * check is not needed: ASan asks for its default options through this
 * weak hook, which the first definition in the lookup order answers. A
 * program's own definition comes first and wins (see mseal-run(1)).
 */
EXPORT const char *__asan_default_options(void)
{
	return "verify_asan_link_order=0";
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

/*
 * Between --system on and the reboot that turns mseal_exec=on: the kernel
 * speaks the v6 ABI, this process has not opted in to sealable mappings,
 * and it was not asked for explicitly (LD_PRELOAD): it got the library from
 * /etc/ld.so.preload, and every program would warn until the reboot.
 * Looked at only after a failure.
 */
static int names_us(const char *list)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ": \t");
		const char *slash = memrchr(p, '/', n);
		const char *base = slash ? slash + 1 : p;

		if ((size_t)(p + n - base) == strlen("libmseal-run.so") &&
		    !strncmp(base, "libmseal-run.so", p + n - base))
			return 1;
		p += n + (p[n] != '\0');
	}
	return 0;
}

static int reboot_pending(void)
{
	char buf[8] = "";
	int fd = open("/proc/sys/vm/mseal_exec", O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, buf, sizeof(buf) - 1) > 0 && !strncmp(buf, "off", 3);
	close(fd);
	return ok && !names_us(getenv("LD_PRELOAD")) && !access(GRUB_DROPIN, F_OK);
}

/* After a failure: one warning, or the end of the program if asked. */
static void report(void)
{
	const char *hint = "";
	int die = fatal && !started;

	/* Threads dlopen()ing at once: one warning still. */
	if (!st.failed || __atomic_exchange_n(&st.warned, 1, __ATOMIC_RELAXED))
		return;
	if (st.first_errno == EACCES) {
		/* The v6 ABI: only memory mapped sealable can be sealed. */
		int optin = prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0);

		if (optin == 0 && reboot_pending())
			return;
		hint = optin < 0 ?
		       "; this kernel seals only memory mapped sealable and has no opt-in "
		       "(PR_SET_MSEAL_SEALABLE) for what ld.so maps" :
		       optin == 0 ?
		       "; this kernel seals only memory mapped sealable: start the program "
		       "with mseal-run, or boot with mseal_exec=on" : "";
	}
	say("%s: %u of %u objects not sealed (first: %s: %s)%s",
	    die ? "error" : "warning", st.failed, st.objects, st.first,
	    strerror(st.first_errno), hint);
	if (die)
		_exit(127);
}

/*
 * ENOSYS: a kernel without mseal(), and the process runs unsealed, silently;
 * or a kernel that has it (it publishes /proc/sys/vm/mseal_abi) and a
 * seccomp filter that does not know the call (systemd 252's return ENOSYS
 * for what their libseccomp cannot name): one warning, as for any object
 * left unsealed, and fatal with MSEAL_RUN_FATAL=1 (before main()).
 */
static void no_mseal(void)
{
	int die = fatal && !started;

	state = OFF;
	if (access("/proc/sys/vm/mseal_abi", F_OK))
		return;
	say("%s: mseal() fails with ENOSYS on a kernel that has it (a seccomp filter "
	    "that predates it?): this process is not sealed", die ? "error" : "warning");
	if (die)
		_exit(127);
}

/* dl_iterate_phdr() callback: seal each object, under the loader's lock. */
static int seal_each(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj o = { info->dlpi_name, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum };

	(void)size;
	(void)data;
	if (is_vdso(&o))
		return 0;
	if (seal_obj(&o) && errno == ENOSYS) {
		no_mseal();
		return 1;
	}
	return 0;
}

__attribute__((constructor)) static void seal_at_startup(void)
{
	configure();
	if (state == ACTIVE)
		dl_iterate_phdr(seal_each, NULL);
	if (verbose && state == ACTIVE)
		say("startup: %u objects, %u sealed, %u not, %u mseal() calls",
		    st.objects, st.sealed, st.failed, st.calls);
	if (state == ACTIVE)
		report();
	started = 1;
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

/* Does object O map ADDR (in one of its PT_LOAD segments)? */
static int maps_addr(const struct obj *o, uintptr_t addr)
{
	for (int i = 0; i < o->phnum; i++) {
		const ElfW(Phdr) *p = &o->phdr[i];

		if (p->p_type == PT_LOAD && addr - (o->base + p->p_vaddr) < p->p_memsz)
			return 1;
	}
	return 0;
}

/* What mseal_run_dlopen_direct() needs to know, read under the lock. */
struct search {
	uintptr_t caller;
	int found;		/* the caller's object was seen */
	int caller_own;		/* ... and has DT_RUNPATH or DF_1_NODEFLIB */
	int main_own;		/* the executable has them */
	int rpath;		/* an object other than the executable has DT_RPATH */
};

static int own_search(const ElfW(Dyn) *d)
{
	return dyn_has(d, DT_RUNPATH) || (dyn_val(d, DT_FLAGS_1) & DF_1_NODEFLIB);
}

static int search_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj o = { info->dlpi_name, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum };
	struct search *s = data;
	const ElfW(Dyn) *d;
	int is_main = !info->dlpi_name || !*info->dlpi_name;

	(void)size;
	if (is_vdso(&o))
		return 0;
	d = dyn_of(&o);
	if (is_main)
		s->main_own = own_search(d);
	else if (dyn_has(d, DT_RPATH))
		s->rpath = 1;
	if (!s->found && maps_addr(&o, s->caller)) {
		s->found = 1;
		s->caller_own = own_search(d);
	}
	return 0;
}

/* 1 if real_dlopen(file) called from here finds what the caller would. */
int mseal_run_dlopen_direct(const char *file, const void *caller)
{
	struct search s = { (uintptr_t)caller, 0, 0, 0, 0 };

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
	dl_iterate_phdr(search_cb, &s);
	if (s.found ? s.caller_own : s.main_own)
		return 0;
	return !s.rpath;
}

/*
 * The objects after a dlopen(), as copies: what the choice of the objects to
 * seal needs, taken under the loader's lock, so that it can be made after
 * the lock is dropped without touching an object another thread may have
 * unloaded meanwhile.
 */
struct snap {
	uintptr_t base;
	const void *phdr;	/* with base: which object (never dereferenced) */
	char *soname;		/* DT_SONAME, or the file's base name */
	char **needed;		/* DT_NEEDED */
	size_t nneeded;
	int nodelete;		/* DF_1_NODELETE */
};

struct snaps {
	struct snap *v;
	size_t n, cap;
	uintptr_t root_base;	/* the object dlopen() returned */
	const void *root_ld;
	ssize_t root;
	int oom;
};

static void free_snaps(struct snaps *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (size_t k = 0; k < s->v[i].nneeded; k++)
			free(s->v[i].needed[k]);
		free(s->v[i].needed);
		free(s->v[i].soname);
	}
	free(s->v);
}

static int snap_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj o = { info->dlpi_name, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum };
	struct snaps *s = data;
	const ElfW(Dyn) *d, *e;
	const char *strtab, *so, *base;
	struct snap *n;
	size_t k = 0;

	(void)size;
	if (is_vdso(&o))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct snap *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			goto oom;
		s->v = v;
		s->cap = cap;
	}
	d = dyn_of(&o);
	n = &s->v[s->n];
	memset(n, 0, sizeof(*n));
	n->base = o.base;
	n->phdr = o.phdr;
	n->nodelete = !!(dyn_val(d, DT_FLAGS_1) & DF_1_NODELETE);
	so = dyn_str(&o, d, DT_SONAME);
	base = o.name ? strrchr(o.name, '/') : NULL;
	base = base ? base + 1 : o.name ? o.name : "";
	n->soname = strdup(so ? so : base);
	strtab = dyn_str(&o, d, DT_STRTAB);
	for (e = d; strtab && e && e->d_tag != DT_NULL; e++)
		k += e->d_tag == DT_NEEDED;
	n->needed = calloc(k + 1, sizeof(*n->needed));
	s->n++;		/* from here on free_snaps() frees what it has */
	if (!n->soname || !n->needed)
		goto oom;
	for (e = d; strtab && e && e->d_tag != DT_NULL; e++) {
		if (e->d_tag != DT_NEEDED)
			continue;
		n->needed[n->nneeded] = strdup(strtab + e->d_un.d_val);
		if (!n->needed[n->nneeded++])
			goto oom;
	}
	if (o.base == s->root_base && (const void *)d == s->root_ld)
		s->root = s->n - 1;
	return 0;
oom:
	s->oom = 1;
	return 1;
}

/* The object in S that DT_NEEDED name NEED refers to, or -1. */
static ssize_t find_needed(const struct snaps *s, const char *need)
{
	for (size_t j = 0; j < s->n; j++)
		if (!strcmp(need, s->v[j].soname))
			return j;
	return -1;
}

/* Sealing the chosen objects, again under the loader's lock. */
struct pick {
	const struct snaps *s;
	const unsigned char *pick;
};

static int seal_picked(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj o = { info->dlpi_name, info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum };
	const struct pick *p = data;
	struct dl_find_object fo;
	size_t i;

	(void)size;
	for (i = 0; i < p->s->n; i++)
		if (p->pick[i] && p->s->v[i].base == o.base && p->s->v[i].phdr == o.phdr)
			break;
	if (i == p->s->n)
		return 0;
	/*
	 * Only what ld.so has finished with (relocated, RELRO in place): an
	 * object another thread's dlopen() is still loading is in the list
	 * already, but not yet in _dl_find_object()'s data.
	 */
	if (_dl_find_object((void *)o.phdr, &fo) || fo.dlfo_link_map->l_addr != o.base)
		return 0;
	if (seal_obj(&o) && errno == ENOSYS) {
		no_mseal();
		return 1;
	}
	return 0;
}

/* Seal the objects that HANDLE brought in and that can never be unloaded. */
static void seal_nodelete(void *handle, int mode)
{
	struct link_map *lm = NULL;
	struct snaps s = { 0 };
	unsigned char *pick = NULL, *seen;
	size_t *queue = NULL, head = 0, tail = 0;

	/* Ours until dlopen() returns: it cannot be unloaded meanwhile. */
	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) || !lm)
		return;
	s.root_base = lm->l_addr;
	s.root_ld = lm->l_ld;
	s.root = -1;
	dl_iterate_phdr(snap_cb, &s);
	if (s.oom || s.root < 0)
		goto out;
	pick = calloc(s.n, 2);
	queue = malloc(2 * s.n * sizeof(*queue));
	if (!pick || !queue)
		goto out;
	seen = pick + s.n;
	/*
	 * From the object dlopen() returned, along DT_NEEDED: an object is
	 * never unloaded if it has DF_1_NODELETE, was opened RTLD_NODELETE, or
	 * is needed by one that is never unloaded. Each object is queued at
	 * most twice: once seen, once picked.
	 */
	pick[s.root] = (mode & RTLD_NODELETE) || s.v[s.root].nodelete;
	seen[s.root] = 1;
	queue[tail++] = s.root;
	while (head < tail) {
		size_t i = queue[head++];

		for (size_t k = 0; k < s.v[i].nneeded; k++) {
			ssize_t j = find_needed(&s, s.v[i].needed[k]);

			if (j < 0)
				continue;
			if ((pick[i] || s.v[j].nodelete) && !pick[j]) {
				pick[j] = seen[j] = 1;
				queue[tail++] = j;
			} else if (!seen[j]) {
				seen[j] = 1;
				queue[tail++] = j;
			}
		}
	}
	/*
	 * What was picked can never be unloaded, so it is still there; the
	 * rest may be gone. Seal it under the lock, found again by address.
	 */
	dl_iterate_phdr(seal_picked, &(struct pick){ &s, pick });
	if (state == ACTIVE)
		report();
out:
	free(queue);
	free(pick);
	free_snaps(&s);
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
