#!/usr/bin/env python3
# In the Debian system (tests/system/checks.sh): is every process sealed?
#
# usage: sealed.py sealed|unsealed
#
# For every process in /proc that has an executable (kernel threads and
# zombies have none), from /proc/PID/smaps ("sl" in VmFlags: a sealed VMA,
# patch 5) and the ELF program headers of the files mapped:
#   - the code (r-x VMAs) of the executable, of ld.so and of libc;
#   - their RELRO (PT_GNU_RELRO, page-aligned as ld.so mprotect()s it);
# each object must be mapped, and all of these VMAs sealed. Prints
# "processes sealed: N/M" and a TAP line: with "sealed", N must equal M;
# with "unsealed" (the control system), N must be 0.
#
# A statically linked executable (no PT_INTERP) has no ld.so, and
# /etc/ld.so.preload, which seals the rest, never applies to it: such a
# process is listed apart, by name, and not counted in M (a Debian system
# runs none; the line says if one ran).
import os
import struct
import sys

LDSO = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
PT_LOAD, PT_INTERP, PT_GNU_RELRO = 1, 3, 0x6474E552
PAGE = os.sysconf("SC_PAGE_SIZE")


def phdrs(path):
    """(e_type, [(p_type, p_flags, p_offset, p_vaddr, p_memsz)]) of an ELF64 file."""
    with open(path, "rb") as f:
        eh = f.read(64)
        if eh[:4] != b"\x7fELF" or eh[4] != 2:
            raise ValueError("not ELF64")
        e_type = struct.unpack_from("<H", eh, 16)[0]
        e_phoff, = struct.unpack_from("<Q", eh, 32)
        e_phentsize, e_phnum = struct.unpack_from("<HH", eh, 54)
        f.seek(e_phoff)
        data = f.read(e_phentsize * e_phnum)
    out = []
    for i in range(e_phnum):
        p_type, p_flags, p_offset, p_vaddr, _, _, p_memsz, _ = \
            struct.unpack_from("<IIQQQQQQ", data, i * e_phentsize)
        out.append((p_type, p_flags, p_offset, p_vaddr, p_memsz))
    return e_type, out


def smaps(pid):
    """[(start, end, perms, offset, path, sealed)] of /proc/PID/smaps."""
    vmas = []
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5 and not fields[0].endswith(":"):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                path = line.split(None, 5)[5].rstrip("\n") if len(fields) >= 6 else ""
                vmas.append([start, end, fields[1], int(fields[2], 16), path, False])
            elif fields[0] == "VmFlags:":
                vmas[-1][5] = "sl" in fields[1:]
    return vmas


def check_object(vmas, path, elf, what):
    """Problems with the code and RELRO of the object mapped from PATH."""
    mine = [v for v in vmas if v[4] == path]
    if not mine:
        return [f"{what} ({path}) not mapped"]
    problems = []
    code = [v for v in mine if v[2].startswith("r-x")]
    if not code:
        problems.append(f"{what}: no code mapping")
    problems += [f"{what}: code {v[0]:x}-{v[1]:x} not sealed" for v in code if not v[5]]
    e_type, ph = phdrs(elf)
    relro = [p for p in ph if p[0] == PT_GNU_RELRO]
    if relro:
        # The load bias, from the mapping of file offset 0 (the first PT_LOAD).
        first = min(p[3] for p in ph if p[0] == PT_LOAD) & ~(PAGE - 1)
        base = min((v[0] for v in mine if v[3] == 0), default=None)
        if base is None:
            return problems + [f"{what}: no mapping of offset 0"]
        bias = base - first if e_type == 3 else 0  # ET_DYN, or ET_EXEC
        _, _, _, vaddr, memsz = relro[0]
        start = (bias + vaddr) & ~(PAGE - 1)
        end = (bias + vaddr + memsz) & ~(PAGE - 1)
        covered = start
        for v in sorted(vmas):
            if v[1] <= start or v[0] >= end:
                continue
            if v[0] > covered:
                problems.append(f"{what}: RELRO {covered:x}-{v[0]:x} not mapped")
            if not v[5]:
                problems.append(f"{what}: RELRO VMA {v[0]:x}-{v[1]:x} ({v[2]}) not sealed")
            covered = max(covered, v[1])
        if start < end and covered < end:
            problems.append(f"{what}: RELRO {covered:x}-{end:x} not mapped")
    return problems


def seccomp(pid):
    """ " (under a seccomp filter)" if PID runs under one, else ""."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Seccomp:") and line.split()[1] == "2":
                    return " (under a seccomp filter)"
    except OSError:
        pass
    return ""


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("sealed", "unsealed"):
        print("usage: sealed.py sealed|unsealed", file=sys.stderr)
        sys.exit(2)
    expect = sys.argv[1]
    sealed = total = gone = 0
    static, unsealed = [], []
    for pid in sorted((int(p) for p in os.listdir("/proc") if p.isdigit())):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue  # a kernel thread or a zombie: no executable
        try:
            comm = open(f"/proc/{pid}/comm").read().strip()
            vmas = smaps(pid)
            exe_elf = f"/proc/{pid}/exe"
            if not any(p[0] == PT_INTERP for p in phdrs(exe_elf)[1]):
                static.append(f"{pid} {comm} ({exe})")
                continue
            problems = check_object(vmas, exe, exe_elf, "executable")
            problems += check_object(vmas, LDSO, LDSO, "ld.so")
            problems += check_object(vmas, LIBC, LIBC, "libc")
            if not os.path.exists(f"/proc/{pid}/exe"):
                raise FileNotFoundError
        except (FileNotFoundError, ProcessLookupError):
            gone += 1  # exited while we looked: not counted either way
            continue
        total += 1
        # Sealed: everything checked is sealed. Unsealed: nothing is.
        sealed_vmas = [v for v in vmas if v[5]]
        if not problems:
            sealed += 1
        else:
            unsealed.append((pid, comm, exe, problems, len(sealed_vmas)))
    print(f"processes sealed: {sealed}/{total}")
    if gone:
        print(f"# {gone} processes exited during the scan (not counted)")
    for s in static:
        print(f"# statically linked, not counted: {s}")
    if expect == "sealed":
        for pid, comm, exe, problems, _ in unsealed:
            print(f"# not sealed: {pid} {comm} ({exe}){seccomp(pid)}: " + "; ".join(problems[:4]))
        ok = total > 0 and sealed == total
        what = f"every process with an executable is sealed: {sealed}/{total}"
    else:
        some = [(pid, comm, n) for pid, comm, _, _, n in unsealed if n]
        for pid, comm, n in some:
            print(f"# control system, but {pid} {comm} has {n} sealed VMAs")
        ok = total > 0 and sealed == 0 and not some
        what = f"the control system seals nothing: {sealed}/{total} processes sealed"
    print(("ok" if ok else "not ok") + " 1 " + what)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
