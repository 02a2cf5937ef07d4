#!/usr/bin/env python3
# In the Debian system (tests/system/checks.sh): is every process sealed?
#
# usage: sealed.py sealed|unsealed [NAME=PID[:static|:go|:container]]...
#
# Every process in /proc that runs a program (kernel threads and zombies
# have no executable) is counted, static ones and those in a container
# included. From /proc/PID/smaps ("sl" in VmFlags: a sealed VMA, patch 5),
# /proc/PID/auxv (where the program and its interpreter were loaded) and
# the ELF program headers of the files:
#
#   sealed (what the kernel's mseal_exec=on seals at execve(), patch 24):
#   the code and read-only data of the executable and, for a dynamically
#   linked one, of its interpreter (ld.so): the pages of every PT_LOAD
#   segment without PF_W, less a zero-filled tail and the pages it shares
#   with a writable segment or PT_GNU_RELRO, as the kernel computes them
#   (an object with text relocations would have none: it counts as not
#   sealed). For a statically linked program that is its executable's code
#   and read-only data: there is no ld.so, and nothing else of it is
#   never written.
#
# "processes sealed: N/M" counts them: with "sealed", N must equal M; with
# "unsealed" (the control), N must be 0 and no VMA anywhere sealed.
#
# With "sealed", the processes /etc/ld.so.preload reaches (dynamically
# linked, in this system's root: not in a container, whose root has no
# such file) must also have what libmseal-run seals: the code of libc and
# the RELRO of the executable, ld.so and libc ("preload: N/M").
#
# NAME=PID: a process that must be among them (TAP line each), and be
# statically linked (:static), a Go program, statically linked (:go), or in
# a container with libc unsealed there (:container: only the kernel sealed
# it; nothing in that root loads libmseal-run).
import os
import struct
import sys

PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_GNU_RELRO = 1, 2, 3, 0x6474E552
PF_X, PF_W = 1, 2
DT_NULL, DT_TEXTREL, DT_FLAGS, DF_TEXTREL = 0, 22, 30, 4
AT_PHDR, AT_BASE, AT_ENTRY = 3, 7, 9
PAGE = os.sysconf("SC_PAGE_SIZE")
LIBC = "libc.so.6"


def down(x):
    return x & ~(PAGE - 1)


def up(x):
    return (x + PAGE - 1) & ~(PAGE - 1)


class Elf:
    """The program headers of an ELF64 file, and whether it has text relocations."""

    def __init__(self, path):
        with open(path, "rb") as f:
            eh = f.read(64)
            if eh[:4] != b"\x7fELF" or eh[4] != 2:
                raise ValueError(f"{path}: not ELF64")
            self.type = struct.unpack_from("<H", eh, 16)[0]
            self.entry, phoff = struct.unpack_from("<QQ", eh, 24)
            phentsize, phnum = struct.unpack_from("<HH", eh, 54)
            f.seek(phoff)
            data = f.read(phentsize * phnum)
            self.ph = []
            for i in range(phnum):
                p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = \
                    struct.unpack_from("<IIQQQQQQ", data, i * phentsize)
                self.ph.append((p_type, p_flags, p_offset, p_vaddr, p_filesz, p_memsz))
            self.interp = any(p[0] == PT_INTERP for p in self.ph)
            self.textrel = False
            for p in self.ph:
                if p[0] == PT_DYNAMIC:
                    f.seek(p[2])
                    dyn = f.read(p[4])
                    for i in range(0, len(dyn) - 15, 16):
                        tag, val = struct.unpack_from("<qQ", dyn, i)
                        if tag == DT_NULL:
                            break
                        if tag == DT_TEXTREL or (tag == DT_FLAGS and val & DF_TEXTREL):
                            self.textrel = True
            f.seek(0)
            self.go = b"\xff Go buildinf:" in f.read()

    def first_vaddr(self):
        return down(min(p[3] for p in self.ph if p[0] == PT_LOAD))

    def never_written(self, bias):
        """The ranges load_elf_binary() seals with mseal_exec=on (elf_seal_segments())."""
        if self.textrel:
            return []
        out = []
        for p_type, p_flags, _, vaddr, filesz, memsz in self.ph:
            if p_type != PT_LOAD or p_flags & PF_W or not filesz or memsz != filesz:
                continue
            start, end = down(bias + vaddr), up(bias + vaddr + filesz)
            for q in self.ph:
                if q[0] != PT_GNU_RELRO and (q[0] != PT_LOAD or not q[1] & PF_W):
                    continue
                s, e = down(bias + q[3]), up(bias + q[3] + q[5])
                if s >= end or e <= start:
                    continue
                if s <= start:
                    start = e
                else:
                    end = s
            if start < end:
                out.append((start, end, "code" if p_flags & PF_X else "read-only data"))
        return out

    def relro(self, bias):
        """RELRO, page-aligned as ld.so mprotect()s it."""
        return [(down(bias + p[3]), down(bias + p[3] + p[5]), "RELRO")
                for p in self.ph if p[0] == PT_GNU_RELRO]


_elves = {}


def elf_of(path):
    """Elf(PATH), once for each file."""
    st = os.stat(path)
    key = (st.st_dev, st.st_ino, st.st_mtime_ns)
    if key not in _elves:
        _elves[key] = Elf(path)
    return _elves[key]


def smaps(pid):
    """[(start, end, perms, path, sealed)] of /proc/PID/smaps."""
    vmas = []
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5 and not fields[0].endswith(":"):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                path = line.split(None, 5)[5].rstrip("\n") if len(fields) >= 6 else ""
                vmas.append([start, end, fields[1], path, False])
            elif fields[0] == "VmFlags:":
                vmas[-1][4] = "sl" in fields[1:]
    return vmas


def auxv(pid):
    with open(f"/proc/{pid}/auxv", "rb") as f:
        data = f.read()
    return dict(struct.unpack_from("<QQ", data, i) for i in range(0, len(data) - 15, 16))


def unsealed(vmas, ranges, what):
    """Problems: the parts of RANGES not covered by sealed VMAs."""
    problems = []
    for start, end, kind in ranges:
        covered = start
        for v in sorted(vmas):
            if v[1] <= start or v[0] >= end:
                continue
            if v[0] > covered:
                problems.append(f"{what} {kind} {covered:x}-{v[0]:x} not mapped")
            if not v[4]:
                problems.append(f"{what} {kind} {max(v[0], start):x}-{min(v[1], end):x} not sealed")
            covered = max(covered, v[1])
        if covered < end:
            problems.append(f"{what} {kind} {covered:x}-{end:x} not mapped")
    return problems


def same_root(pid):
    try:
        a, b = os.stat(f"/proc/{pid}/root"), os.stat("/")
    except OSError:
        return True
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def look(pid):
    """What one process is, and what of it is not sealed."""
    exe = os.readlink(f"/proc/{pid}/exe")
    comm = open(f"/proc/{pid}/comm").read().strip()
    vmas = smaps(pid)
    aux = auxv(pid)
    elf = elf_of(f"/proc/{pid}/exe")
    p = {"pid": pid, "comm": comm, "exe": exe, "static": not elf.interp, "go": elf.go,
         "container": not same_root(pid), "vmas": vmas}
    bias = aux.get(AT_ENTRY, 0) - elf.entry
    kernel = elf.never_written(bias)
    problems = [] if kernel else [f"executable: nothing the kernel seals{' (text relocations)' if elf.textrel else ''}"]
    problems += unsealed(vmas, kernel, "executable")
    preload = unsealed(vmas, elf.relro(bias), "executable")
    if elf.interp:
        base = aux.get(AT_BASE, 0)
        where = [v for v in vmas if v[0] <= base < v[1] and v[3].startswith("/")]
        if not base or not where:
            problems.append("ld.so: not found at AT_BASE")
        else:
            ldso = where[0][3]
            ld = elf_of(f"/proc/{pid}/root{ldso}")
            ld_bias = base - ld.first_vaddr()
            ranges = ld.never_written(ld_bias)
            problems += unsealed(vmas, ranges, "ld.so") if ranges else ["ld.so: nothing the kernel seals"]
            preload += unsealed(vmas, ld.relro(ld_bias), "ld.so")
        libc = [v for v in vmas if os.path.basename(v[3]) == LIBC]
        if not libc:
            preload.append("libc not mapped")
        else:
            path = libc[0][3]
            lc = elf_of(f"/proc/{pid}/root{path}")
            first = min(v[0] for v in libc)
            lbias = first - lc.first_vaddr()
            preload += unsealed(vmas, [r for r in lc.never_written(lbias) if r[2] == "code"], "libc")
            preload += unsealed(vmas, lc.relro(lbias), "libc")
            p["libc_sealed"] = all(v[4] for v in libc if "x" in v[2])
    p["problems"] = problems
    p["preload"] = preload
    if not os.path.exists(f"/proc/{pid}/exe"):
        raise FileNotFoundError  # it exited while we looked
    return p


def main():
    args = sys.argv[1:]
    if not args or args[0] not in ("sealed", "unsealed"):
        print("usage: sealed.py sealed|unsealed [NAME=PID[:static|:go|:container]]...", file=sys.stderr)
        sys.exit(2)
    expect = args[0]
    wanted = []
    for a in args[1:]:
        name, _, rest = a.partition("=")
        pid, _, kind = rest.partition(":")
        if not name or not pid.isdigit() or kind not in ("", "static", "go", "container"):
            print(f"sealed.py: bad argument '{a}'", file=sys.stderr)
            sys.exit(2)
        wanted.append((name, int(pid), kind))

    procs, gone = {}, 0
    for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue  # a kernel thread or a zombie: no program
        try:
            procs[pid] = look(pid)
        except (FileNotFoundError, ProcessLookupError):
            gone += 1  # exited while we looked: not counted either way
    total = len(procs)
    sealed = [p for p in procs.values() if not p["problems"]]
    static = [p for p in procs.values() if p["static"]]
    inside = [p for p in procs.values() if p["container"]]
    reached = [p for p in procs.values() if not p["static"] and not p["container"]]
    print(f"processes sealed: {len(sealed)}/{total}")
    print(f"# of them statically linked: {len(static)}"
          + "".join(f"; {p['pid']} {p['comm']}" for p in static))
    print(f"# of them in a container: {len(inside)}"
          + "".join(f"; {p['pid']} {p['comm']}" for p in inside))
    if gone:
        print(f"# {gone} processes exited during the scan (not counted)")
    n = 0

    def tap(ok, what):
        nonlocal n
        n += 1
        print(("ok" if ok else "not ok") + f" {n} {what}")
        return ok

    good = True
    if expect == "sealed":
        for p in procs.values():
            if p["problems"]:
                print(f"# not sealed: {p['pid']} {p['comm']} ({p['exe']}): " + "; ".join(p["problems"][:4]))
        good &= tap(total > 0 and len(sealed) == total,
                    f"every process runs with its executable's and ld.so's code and read-only data sealed: {len(sealed)}/{total}")
        done = [p for p in reached if not p["preload"]]
        for p in reached:
            if p["preload"]:
                print(f"# preload: {p['pid']} {p['comm']} ({p['exe']}): " + "; ".join(p["preload"][:4]))
        print(f"preload: {len(done)}/{len(reached)}")
        good &= tap(reached and len(done) == len(reached),
                    f"every dynamically linked process outside containers has libc's code and the RELRO sealed too: {len(done)}/{len(reached)}")
    else:
        some = [p for p in procs.values() if any(v[4] for v in p["vmas"])]
        for p in some:
            print(f"# control system, but {p['pid']} {p['comm']} has {sum(v[4] for v in p['vmas'])} sealed VMAs")
        good &= tap(total > 0 and not sealed and not some,
                    f"the control system seals nothing: {len(sealed)}/{total} processes sealed")
    for name, pid, kind in wanted:
        p = procs.get(pid)
        if p is None:
            good &= tap(False, f"{name} (pid {pid}) is counted: not running")
            continue
        desc = f"{name} (pid {pid}, {p['exe']})"
        if kind == "static" or kind == "go":
            good &= tap(p["static"] and (kind != "go" or p["go"]),
                        f"{desc} is a statically linked {'Go ' if kind == 'go' else ''}program")
        if kind == "container":
            good &= tap(p["container"], f"{desc} runs in a container (its root is not /)")
            if expect == "sealed":
                good &= tap(p.get("libc_sealed") is False,
                            f"{desc}: its libc unsealed, as nothing in its root loads libmseal-run")
        if expect == "sealed":
            parts = "its executable's" + ("" if p["static"] else " and ld.so's")
            good &= tap(not p["problems"], f"{desc}: {parts} code and read-only data sealed"
                        + ("" if not p["problems"] else ": " + "; ".join(p["problems"][:3])))
        else:
            good &= tap(not any(v[4] for v in p["vmas"]), f"{desc}: nothing sealed in the control")
    print(f"1..{n}")
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
