// SPDX-License-Identifier: GPL-2.0
/*
 * exec_probe: what execve() sealed in this program (issue 28), built as a
 * static, a static-pie, a dynamic PIE and a dynamic non-PIE program, and as
 * a dynamic PIE with text relocations (TEXTREL defined), by guest/Makefile.
 *
 *	exec_probe on|off
 *
 * With mseal_exec=on ("on"), the segments of the program and of its ELF
 * interpreter that are never written (PT_LOAD without PF_W: code,
 * read-only data) must be sealed, every page of them but those they share
 * with a writable segment or RELRO, and the writable segments (data, bss,
 * RELRO) must not; an object with text relocations must have nothing
 * sealed; and the program starts opted in to sealable mappings. With
 * "off", nothing is sealed. Prints one line per object and exits 0 if all
 * is as expected, 1 (saying what is not) otherwise.
 */
#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <mseal.h>

#ifdef TEXTREL
/*
 * An absolute address in the code: the linker (-z notext) leaves a
 * relocation there for ld.so, which makes the code writable to apply it.
 */
extern const uintptr_t textrel_word;
__asm__(".text\n.globl textrel_word\n.p2align 3\ntextrel_word:\n"
#if UINTPTR_MAX > 0xffffffffUL
	".quad main\n"
#else
	".long main\n"
#endif
	".previous\n");
#endif

static uintptr_t ps;
static int failures;

/* /proc/self/smaps: each VMA, and whether its VmFlags have "sl" */
static struct vma {
	uintptr_t start, end;
	bool sealed;
} vmas[4096];
static int nvmas;

static void read_smaps(void)
{
	char line[1024];
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f) {
		perror("exec_probe: /proc/self/smaps");
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, ' ') &&
		    nvmas < (int)(sizeof(vmas) / sizeof(vmas[0]))) {
			vmas[nvmas].start = s;
			vmas[nvmas].end = e;
			vmas[nvmas++].sealed = false;
		} else if (!strncmp(line, "VmFlags:", 8) && nvmas) {
			vmas[nvmas - 1].sealed = strstr(line, " sl") != NULL;
		}
	}
	fclose(f);
}

/* 1 sealed, 0 not, -1 not mapped */
static int page_sealed(uintptr_t a)
{
	for (int i = 0; i < nvmas; i++)
		if (a >= vmas[i].start && a < vmas[i].end)
			return vmas[i].sealed;
	return -1;
}

static bool has_textrel(uintptr_t bias, const ElfW(Phdr) *ph, int n)
{
	for (int i = 0; i < n; i++) {
		const ElfW(Dyn) *d;

		if (ph[i].p_type != PT_DYNAMIC)
			continue;
		for (d = (const ElfW(Dyn) *)(bias + ph[i].p_vaddr); d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_TEXTREL ||
			    (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
				return true;
	}
	return false;
}

/* Is the page at @a part of a writable segment or of RELRO? */
static bool written(uintptr_t a, uintptr_t bias, const ElfW(Phdr) *ph, int n)
{
	for (int i = 0; i < n; i++) {
		uintptr_t s = (bias + ph[i].p_vaddr) & ~(ps - 1);
		uintptr_t e = (bias + ph[i].p_vaddr + ph[i].p_memsz + ps - 1) & ~(ps - 1);

		if ((ph[i].p_type == PT_GNU_RELRO ||
		     (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W))) &&
		    a >= s && a < e)
			return true;
	}
	return false;
}

static void check(const char *what, uintptr_t bias, const ElfW(Phdr) *ph, int n,
		  bool on)
{
	bool textrel = has_textrel(bias, ph, n);
	int ro = 0, ro_sealed = 0, rw = 0, rw_sealed = 0;

	for (int i = 0; i < n; i++) {
		const ElfW(Phdr) *p = &ph[i];
		uintptr_t a = (bias + p->p_vaddr) & ~(ps - 1);
		uintptr_t e = (bias + p->p_vaddr + p->p_filesz + ps - 1) & ~(ps - 1);
		bool w = p->p_flags & PF_W;

		if (p->p_type != PT_LOAD)
			continue;
		for (; a < e; a += ps) {
			int s = page_sealed(a);
			bool want;

			if (s < 0)
				continue;	/* e.g. a gap the kernel unmapped */
			if (w) {
				rw++;
				rw_sealed += s;
				want = false;
			} else if (written(a, bias, ph, n)) {
				continue;	/* shared with what is written */
			} else {
				ro++;
				ro_sealed += s;
				want = on && !textrel && p->p_filesz == p->p_memsz;
			}
			if (s != want) {
				printf("exec_probe: %s: page %#lx of a %s segment is %s\n",
				       what, (unsigned long)a, w ? "writable" : "read-only",
				       s ? "sealed" : "not sealed");
				failures++;
				break;
			}
		}
	}
	printf("exec_probe: %s%s: %d of %d read-only pages sealed, %d of %d writable\n",
	       what, textrel ? " (text relocations)" : "", ro_sealed, ro, rw_sealed, rw);
	if (!ro) {
		printf("exec_probe: %s: no read-only page found\n", what);
		failures++;
	}
}

static int exe(struct dl_phdr_info *info, size_t size, void *on)
{
	(void)size;
	check("executable", info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum,
	      *(bool *)on);
	return 1;	/* the first object is the executable */
}

int main(int argc, char **argv)
{
	bool on = argc == 2 && !strcmp(argv[1], "on");
	uintptr_t interp = getauxval(AT_BASE);
	int sealable = prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0);

	if (argc != 2 || (!on && strcmp(argv[1], "off"))) {
		fprintf(stderr, "usage: exec_probe on|off\n");
		return 2;
	}
	ps = sysconf(_SC_PAGESIZE);
#ifdef TEXTREL
	if (textrel_word != (uintptr_t)main) {
		printf("exec_probe: the text relocation was not applied\n");
		failures++;
	}
#endif
	read_smaps();
	dl_iterate_phdr(exe, &on);
	if (interp) {
		const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)interp;

		check("interpreter", interp, (const ElfW(Phdr) *)(interp + eh->e_phoff),
		      eh->e_phnum, on);
	}
	if (on && sealable != 1) {
		printf("exec_probe: not opted in to sealable mappings (%d)\n", sealable);
		failures++;
	}
	return failures ? 1 : 0;
}
