/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mseal.h - memory sealing from userspace, for the linux-mseal kernels
 *
 * The C library has no wrapper for mseal(2), and its headers may predate
 * the syscall number and the mmap() bits; this header supplies what is
 * missing and works with any glibc, from C99 or C++. See mseal(2).
 *
 *	int mseal(void *addr, size_t len, unsigned long flags);
 *		Seal [addr, addr + len): the mappings there can no longer be
 *		unmapped, moved, resized, replaced or reprotected, and those
 *		that are private, anonymous and not writable can no longer
 *		have their pages discarded by madvise(). flags must be 0.
 *
 *	int mimmutable(void *addr, size_t len);
 *		OpenBSD's name and signature for the same operation.
 *
 *	int mseal_supported(void);
 *		1 if the running kernel has mseal(), 0 if not.
 *
 *	int mseal_abi(void);
 *		Which mseal() the running kernel speaks: MSEAL_ABI_V6 (this
 *		series' default: MAP_SEALABLE opt-in, EACCES), MSEAL_ABI_MAINLINE
 *		(mainline Linux 6.10+, or this series booted with
 *		mseal_abi=mainline: every mapping sealable, EPERM), or
 *		MSEAL_ABI_NONE (no mseal()). This series publishes its ABI in
 *		/proc/sys/vm/mseal_abi; elsewhere the answer is probed.
 *
 *	int mseal_errno(void);
 *		The errno of calls that sealing refuses: EACCES (v6) or EPERM
 *		(mainline); 0 without mseal().
 *
 *	int mseal_set_sealable(int on);
 *		v6 ABI: make every mapping this process creates from now on
 *		sealable, as if mapped with MAP_SEALABLE (1), or stop (0).
 *		Inherited over fork() and kept over execve(). Returns 0, or -1
 *		with errno EINVAL on kernels without it. Harmless in the
 *		mainline ABI, where every mapping is sealable anyway.
 *
 * mseal() and mimmutable() return 0, or -1 with errno set:
 *	EINVAL	flags is not 0, addr is not page aligned, the range wraps
 *		around the end of the address space, or it starts or ends
 *		inside a hugetlb mapping off a huge page boundary;
 *	ENOMEM	part of the range is not mapped, or a mapping could not be
 *		split (vm.max_map_count reached, or out of memory);
 *	EACCES	(v6 ABI) part of the range was mapped without MAP_SEALABLE,
 *		or carries MADV_WIPEONFORK or MADV_DONTFORK (fork() would
 *		leave a child zeroes or a hole there), or is read-only and
 *		registered with a userfaultfd (which could fill it);
 *	EPERM	(mainline ABI) the latter cases only: every mapping is
 *		sealable there;
 *	ENOSYS	the kernel has no mseal(): it has neither this series nor
 *		mainline's mseal() (6.10 and later), or it is a 32-bit kernel.
 * On error, nothing is sealed. len is rounded up to whole pages; len 0
 * succeeds without doing anything. Sealing sealed memory again succeeds.
 * There is no way to unseal: a sealed mapping lasts until the process
 * exits or calls execve().
 *
 * In the v6 ABI (the default) memory must opt in to sealing: map it with
 * MAP_SEALABLE in mmap()'s flags, map it already sealed with PROT_SEAL in
 * mmap()'s prot, or call mseal_set_sealable(1) first; operations refused
 * on sealed memory fail with EACCES. In the mainline ABI (the kernel
 * booted with mseal_abi=mainline, and mainline Linux) every mapping is
 * sealable, MAP_SEALABLE is ignored, and refused operations fail with
 * EPERM. mseal_errno() says which; portable code should accept both.
 * In both ABIs of this series a refused call changes nothing.
 *
 * PROT_SEAL and MAP_SEALABLE exist only in this series: mainline Linux
 * 6.10 and later can seal any mapping without an opt-in and silently
 * ignores both bits, as do kernels without mseal(). For code that must
 * also run there, map with MAP_SEALABLE, call mseal(), and check its
 * result rather than relying on PROT_SEAL. On a 32-bit kernel, mmap()
 * with PROT_SEAL fails with EINVAL.
 *
 * Differences between mimmutable() here and on OpenBSD:
 *  - calls refused on sealed memory fail with EACCES here in the v6 ABI,
 *    EPERM there (and here in the mainline ABI);
 *  - in the v6 ABI only memory mapped with MAP_SEALABLE (or PROT_SEAL, or
 *    after mseal_set_sealable(1)) can be sealed (EACCES otherwise);
 *    OpenBSD has no opt-in;
 *  - no protection change is allowed after sealing, not even a reduction;
 *    OpenBSD still lets a read-write mapping become read-only;
 *  - addr must be page aligned (EINVAL otherwise) and len is rounded up
 *    to whole pages, whereas OpenBSD rounds addr down to a page boundary
 *    and grows len by the same amount;
 *  - the whole range must be mapped (ENOMEM otherwise); OpenBSD skips
 *    unmapped pages;
 *  - on kernels without mseal() it fails with ENOSYS.
 */
#ifndef _MSEAL_H
#define _MSEAL_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PR_SET_MSEAL_SEALABLE
#define PR_SET_MSEAL_SEALABLE	0x4d534c53	/* prctl(): arg2 1 or 0 */
#define PR_GET_MSEAL_SEALABLE	0x4d534c47	/* prctl(): returns 1 or 0 */
#endif

#ifndef PROT_SEAL
#define PROT_SEAL	0x04000000	/* mmap() prot: map sealed */
#endif
#ifndef MAP_SEALABLE
#define MAP_SEALABLE	0x08000000	/* mmap() flags: mseal() may seal it */
#endif

/* The kernel's numbering, as its generated <asm/unistd.h> files have it. */
#ifndef __NR_mseal
# if defined(__alpha__)
#  define __NR_mseal	572
# elif defined(__ia64__)
#  define __NR_mseal	(1024 + 462)
# elif defined(__mips__) && _MIPS_SIM == _ABIO32
#  define __NR_mseal	(4000 + 462)
# elif defined(__mips__) && _MIPS_SIM == _ABI64
#  define __NR_mseal	(5000 + 462)
# elif defined(__mips__) && _MIPS_SIM == _ABIN32
#  define __NR_mseal	(6000 + 462)
# elif defined(__arm__) && !defined(__thumb__) && !defined(__ARM_EABI__)
#  define __NR_mseal	(0x900000 + 462)	/* OABI */
# elif defined(__x86_64__) && defined(__ILP32__)
#  define __NR_mseal	(0x40000000 + 462)	/* x32: __X32_SYSCALL_BIT */
# else
#  define __NR_mseal	462
# endif
#endif
#ifndef SYS_mseal
#define SYS_mseal	__NR_mseal
#endif

/* glibc declares syscall() only under _DEFAULT_SOURCE, off in strict C99. */
#if defined(__GLIBC__) && !defined(__USE_MISC) && !defined(__cplusplus)
extern long int syscall(long int __sysno, ...);
#endif

static inline int mseal(void *addr, size_t len, unsigned long flags)
{
	return (int)syscall(SYS_mseal, addr, len, flags);
}

static inline int mimmutable(void *addr, size_t len)
{
	return mseal(addr, len, 0);
}

/* Zero length succeeds without looking at memory: only ENOSYS fails. */
static inline int mseal_supported(void)
{
	int saved_errno = errno;
	int ret = mseal(NULL, 0, 0) == 0;

	errno = saved_errno;
	return ret;
}

enum { MSEAL_ABI_NONE = 0, MSEAL_ABI_V6 = 1, MSEAL_ABI_MAINLINE = 2 };

static inline int mseal_abi(void)
{
	int saved_errno = errno, abi = MSEAL_ABI_NONE;
	char buf[16] = "";
	void *p;
	int fd;

	fd = open("/proc/sys/vm/mseal_abi", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) < 0)
			buf[0] = '\0';
		close(fd);
		if (!strncmp(buf, "mainline", 8))
			abi = MSEAL_ABI_MAINLINE;
		else if (!strncmp(buf, "v6", 2))
			abi = MSEAL_ABI_V6;
	}
	if (abi == MSEAL_ABI_NONE && mseal_supported()) {
		/*
		 * No file: mainline seals any mapping, v6 only MAP_SEALABLE
		 * ones. A page of /dev/zero mapped privately (POSIX, unlike
		 * MAP_ANONYMOUS) tells them apart.
		 */
		fd = open("/dev/zero", O_RDONLY);
		p = fd < 0 ? MAP_FAILED :
		    mmap(NULL, 1, PROT_READ, MAP_PRIVATE, fd, 0);
		if (fd >= 0)
			close(fd);
		if (p != MAP_FAILED) {
			abi = mseal(p, 1, 0) ? MSEAL_ABI_V6 : MSEAL_ABI_MAINLINE;
			if (abi == MSEAL_ABI_V6)
				munmap(p, 1);	/* a sealed page stays mapped */
		}
	}
	errno = saved_errno;
	return abi;
}

static inline int mseal_errno(void)
{
	switch (mseal_abi()) {
	case MSEAL_ABI_V6:
		return EACCES;
	case MSEAL_ABI_MAINLINE:
		return EPERM;
	}
	return 0;
}

static inline int mseal_set_sealable(int on)
{
	return (int)syscall(SYS_prctl, PR_SET_MSEAL_SEALABLE, on ? 1UL : 0UL,
			    0UL, 0UL, 0UL);
}

#ifdef __cplusplus
}
#endif

#endif /* _MSEAL_H */
