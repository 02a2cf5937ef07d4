#!/usr/bin/env python3
# In the sealed Debian system, v6 ABI (checks.sh): run a command in a process
# that has not opted in to sealing, the process the v6 test suites are
# written for. mseal-init opts PID 1 in (PR_SET_MSEAL_SEALABLE 1) and every
# process inherits it, over fork() and execve(): every mapping is then
# sealable, and a suite's check that memory mapped without MAP_SEALABLE
# cannot be sealed (EACCES) would fail for that reason alone.
#
# usage: optout.py COMMAND [ARGS...]
import ctypes
import os
import sys

PR_SET_MSEAL_SEALABLE = 0x4D534C53
PR_GET_MSEAL_SEALABLE = 0x4D534C47

if len(sys.argv) < 2:
    print("usage: optout.py COMMAND [ARGS...]", file=sys.stderr)
    sys.exit(2)
libc = ctypes.CDLL(None, use_errno=True)
before = libc.prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0)
if libc.prctl(PR_SET_MSEAL_SEALABLE, 0, 0, 0, 0) != 0:
    print(f"optout.py: PR_SET_MSEAL_SEALABLE 0: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
    sys.exit(1)
after = libc.prctl(PR_GET_MSEAL_SEALABLE, 0, 0, 0, 0)
print(f"# optout.py: PR_GET_MSEAL_SEALABLE {before} -> {after}, then {sys.argv[1]}", flush=True)
if after != 0:
    sys.exit(1)
os.execvp(sys.argv[1], sys.argv[1:])
