// SPDX-License-Identifier: GPL-2.0
/*
 * mseal_fuzz: the userfaultfd, its registrations and its monitor thread.
 *
 * Each sequence's child opens one userfaultfd with UFFD_FEATURE_EVENT_REMOVE
 * and starts a monitor thread. OP_UFFD registers (MISSING mode) or
 * unregisters a range; from then on:
 *  - a missing page there (never touched, or discarded) faults into the
 *    monitor, which resolves it with UFFDIO_ZEROPAGE or UFFDIO_COPY of a
 *    zero page, alternately. A missing page is always one the model
 *    expects to read as zero (or "zero or the value", after MADV_FREE); if
 *    the model expects other contents the kernel lost the page: the monitor
 *    says so and fills it with a poison value that the comparison reports.
 *  - MADV_DONTNEED, MADV_DONTNEED_LOCKED, MADV_FREE and MADV_REMOVE drop
 *    mmap_lock, send UFFD_EVENT_REMOVE and wait until the monitor has read
 *    it, then take mmap_lock again and look the VMA up anew.
 *  - with the race enabled, a discarding madvise() on a registered range
 *    (OP_MADVISE with a[3] set) is interleaved: while it waits, the monitor
 *    unregisters the range (read-only memory cannot be sealed while
 *    registered), makes it read-only and seals it, then reads the event.
 * Resolving a fault in a private VMA gives the VMA an anon_vma, and in a
 * private file mapping the page becomes a private copy: the monitor tells
 * the model. A fill that fails because the page is there already gives the
 * VMA its anon_vma all the same (anon_vma_prepared()). Pages read through
 * /proc/self/mem (no PROT_READ) are filled first from the main thread
 * (get_user_pages() from /proc/PID/mem cannot wait for a monitor: the read
 * would fail).
 *
 * No fork event is asked for: a fork()ed child's VMAs are not registered.
 * No remap event either: a moved VMA is not registered any more, nor is
 * what it merged with (model.c, move_pages()). The model's registrations
 * are compared with the "um" of smaps' VmFlags.
 */
#include "fuzz.h"

int uffd = -1;
const struct model *uffd_pre;

static pthread_t monitor_thread;
static uint64_t zero_page[PG / 8] __attribute__((aligned(PG)));
static uint64_t poison_page[PG / 8] __attribute__((aligned(PG)));
static unsigned long nresolved;

/* The race: armed by the main thread, carried out by the monitor. */
static volatile int race_armed;
static unsigned long race_start, race_len;
static long race_mprotect, race_mseal;

static void count(int k)
{
	if (!sh->emit)
		__atomic_fetch_add(&sh->uev[k], 1, __ATOMIC_RELAXED);
}

/*
 * UFFDIO_ZEROPAGE or UFFDIO_COPY at page i returned err (0 or an errno):
 * did it give a private VMA an anon_vma? __mcopy_atomic() calls
 * anon_vma_prepare() once it has found and checked the VMA, before it
 * looks at the page table: so also when the page was there already
 * (EEXIST: a PTE, such as the page cache page that a read through
 * /proc/self/mem mapped into a private file mapping before it was
 * registered), or lies beyond the end of the file (EFAULT: private
 * shmem). Only the lookup's errors (ENOENT, EINVAL, EAGAIN, ESRCH) and a
 * failed allocation (ENOMEM) can come before it.
 */
static void anon_vma_prepared(long i, int err)
{
	const struct mpage *p = &M.p[i];

	if (i < 0 || i >= NPP || !p->mapped || p->shared)
		return;
	if (!err || err == EEXIST || err == EFAULT)
		give_anon_vma(&M, i);
}

/* A private VMA got a page from the monitor: what the model learns. */
static void filled(long i)
{
	struct mpage *p = &M.p[i];

	anon_vma_prepared(i, 0);
	if (i < 0 || i >= NPP || !p->mapped || p->shared)
		return;
	if (p->obj >= 0 && p->cst == C_FILE) {
		p->cst = C_VAL;	/* a private copy of the (zero) file page */
		p->val = 0;
	}
}

static void wake(unsigned long a)
{
	struct uffdio_range r = { .start = a, .len = PG };

	ioctl(uffd, UFFDIO_WAKE, &r);
}

static void resolve(unsigned long addr)
{
	const struct model *m = uffd_pre ? uffd_pre : &M;
	unsigned long a = addr & ~(PG - 1);
	long i = a >= A ? pgi(a) : -1;
	uint64_t v = 0;
	int kind = 1, r;

	count(UEV_FAULT);
	if (i >= 0 && i < NPP && m->p[i].mapped)
		kind = exp_word(&m->p[i], &v);
	if (kind == 0 && v) {
		struct uffdio_copy c = { .dst = a, .src = (unsigned long)poison_page,
					 .len = PG };

		count(UEV_LOST);
		rep("  uffd: missing-page fault at A + 0x%lx (page %ld), where "
		    "the model expects 0x%llx: the kernel lost the page; "
		    "filled with 0x%llx\n", a - A, i, (unsigned long long)v,
		    (unsigned long long)poison_page[0]);
		r = ioctl(uffd, UFFDIO_COPY, &c) ? errno : 0;
		anon_vma_prepared(i, r);
		if (r)
			wake(a);
		return;
	}
	if (nresolved++ & 1) {
		struct uffdio_copy c = { .dst = a, .src = (unsigned long)zero_page,
					 .len = PG };

		r = ioctl(uffd, UFFDIO_COPY, &c);
		if (!r)
			count(UEV_COPY);
	} else {
		struct uffdio_zeropage z = { .range = { .start = a, .len = PG } };

		r = ioctl(uffd, UFFDIO_ZEROPAGE, &z);
		if (!r)
			count(UEV_ZEROPAGE);
	}
	if (r) {
		/* EEXIST: filled meanwhile; anything else: let it retry */
		anon_vma_prepared(i, errno);
		count(UEV_OTHER);
		wake(a);
		return;
	}
	filled(i);
}

static void race(void)
{
	struct uffdio_range r = { .start = race_start, .len = race_len };

	race_mprotect = ioctl(uffd, UFFDIO_UNREGISTER, &r) ||
			syscall(SYS_mprotect, race_start, race_len, PROT_READ) ?
			-errno : 0;
	race_mseal = syscall(__NR_mseal, race_start, race_len, 0) ? -errno : 0;
	race_armed = 0;
	count(UEV_RACE);
}

static void *monitor(void *arg)
{
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	struct uffd_msg msg;

	(void)arg;
	for (;;) {
		if (poll(&pfd, 1, -1) < 1)
			continue;
		/*
		 * The main thread is in madvise(), which waits for this
		 * event with mmap_lock dropped: seal before reading it.
		 */
		if (race_armed)
			race();
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		switch (msg.event) {
		case UFFD_EVENT_PAGEFAULT:
			resolve(msg.arg.pagefault.address);
			break;
		case UFFD_EVENT_REMOVE:
			count(UEV_REMOVE);
			break;
		default:
			count(UEV_OTHER);
		}
	}
	return NULL;
}

void uffd_setup(void)
{
	struct uffdio_api api = {
		.api = UFFD_API,
		.features = UFFD_FEATURE_EVENT_REMOVE,
	};

	for (unsigned int j = 0; j < PG / 8; j++)
		poison_page[j] = 0xBADBADBADBAD0000ULL | j;
	nresolved = 0;
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		rep("setup: userfaultfd: %s (--no-uffd runs without it)\n",
		    strerror(errno));
		sh->status = 2;
		_exit(2);
	}
	errno = pthread_create(&monitor_thread, NULL, monitor, NULL);
	if (errno) {
		rep("setup: the userfaultfd monitor: %s\n", strerror(errno));
		sh->status = 2;
		_exit(2);
	}
}

/* OP_UFFD: UFFDIO_REGISTER (MISSING) or UFFDIO_UNREGISTER; 0 or -errno. */
long uffd_range(int unregister, unsigned long start, unsigned long len)
{
	struct uffdio_register reg = {
		.range = { .start = start, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int r;

	if (unregister)
		r = ioctl(uffd, UFFDIO_UNREGISTER, &reg.range);
	else
		r = ioctl(uffd, UFFDIO_REGISTER, &reg);
	return r ? -errno : 0;
}

/* madvise() with the monitor sealing the range while it waits. */
long uffd_madvise_race(unsigned long start, unsigned long len, long behavior)
{
	long r;

	race_start = start;
	race_len = len;
	race_mprotect = race_mseal = 1;
	__atomic_store_n(&race_armed, 1, __ATOMIC_SEQ_CST);
	r = syscall(SYS_madvise, start, len, behavior) ? -errno : 0;
	if (race_armed) {
		race_armed = 0;
		rep("  uffd race: madvise() did not wait for the monitor\n");
	} else if (race_mprotect || race_mseal) {
		rep("  uffd race: the monitor's mprotect(PROT_READ) = %ld, "
		    "mseal() = %ld\n", race_mprotect, race_mseal);
	}
	return r;
}

/*
 * Page i is about to be read through /proc/self/mem: if it is registered
 * and the model expects zero, fill it (EEXIST if it is there already).
 */
void uffd_prefill(long i)
{
	const struct mpage *p = &M.p[i];
	struct uffdio_zeropage z = {
		.range = { .start = A + i * PG, .len = PG },
	};
	uint64_t v = 0;
	int kind;

	if (uffd < 0 || in_fork_child || !p->mapped || !p->ureg)
		return;
	kind = exp_word(p, &v);
	if (kind == 2 || (kind == 0 && v))
		return;
	if (!ioctl(uffd, UFFDIO_ZEROPAGE, &z)) {
		count(UEV_PREFILL);
		filled(i);
	} else {
		anon_vma_prepared(i, errno);	/* EEXIST: mapped already */
	}
}

/* Does the call act on a registered page (the model before the call)? */
int uffd_touches(const struct model *m, const struct op *o)
{
	unsigned long s = opaddr(o, 0), len = o->a[1];
	long ps, pe;

	switch (o->k) {
	case OP_WRITE:
		return m->p[o->a[0]].ureg;
	case OP_FORK:
		ps = 0;
		pe = NP;
		break;
	case OP_MREMAP:
		if (!len)
			len = PG;
		/* fall through */
	case OP_MMAP:
	case OP_MUNMAP:
	case OP_MPROTECT:
	case OP_PKEY_MPROTECT:
	case OP_MADVISE:
	case OP_MSEAL:
	case OP_REMAP:
	case OP_UFFD:
		if (s < A || s >= A + NPP * PG)
			return 0;
		ps = pgi(s);
		pe = len > NPP * PG ? NPP : pgi(PA(s + len));
		if (pe > NPP || pe < ps)
			pe = NPP;
		break;
	default:
		return 0;
	}
	for (long i = ps; i < pe; i++)
		if (m->p[i].mapped && m->p[i].ureg)
			return 1;
	return 0;
}
