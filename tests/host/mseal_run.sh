#!/usr/bin/env bash
# mseal-run on the host (whatever its kernel: with mseal() or without, the
# programs must run the same): usage, the sealed run, the system-wide switch
# on a scratch root, and the man page. The guest suite mseal_run_test checks
# the sealing itself on the project's kernels.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$top/run" OUT="$tmp/b" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
run=$tmp/b/mseal-run
export MSEAL_RUN_LIB=$tmp/b/libmseal-run.so

n=0
result() { # result DESCRIPTION COMMAND...: ok if COMMAND succeeds
	n=$((n + 1))
	if "${@:2}" >"$tmp/out" 2>&1; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		head -n 5 "$tmp/out" | sed 's/^/# /'
	fi
}
status_is() { # status_is N COMMAND...
	local want=$1 rc=0
	shift
	"$@" >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq "$want" ]
}
same() { # same COMMAND...: same stdout and status with and without mseal-run
	local a=0 b=0
	"$@" >"$tmp/u" 2>/dev/null || a=$?
	"$run" "$@" >"$tmp/s" 2>/dev/null || b=$?
	cmp -s "$tmp/u" "$tmp/s" && [ $a -eq $b ] && [ -s "$tmp/u" ]
}

echo "TAP version 13"
result "mseal-run without arguments: usage, exit 2" status_is 2 "$run"
result "mseal-run with an unknown option: exit 2" status_is 2 "$run" --frobnicate
result "mseal-run --system with a bad word: exit 2" status_is 2 "$run" --system maybe --root "$tmp"
result "mseal-run of a missing program: exit 127" status_is 127 "$run" /nonexistent/prog
result "mseal-run of a program that fails: its exit status" status_is 3 "$run" /usr/bin/bash -c 'exit 3'
result "mseal-run --version" sh -c "'$run' --version | grep -qx 'mseal-run 1.0'"
result "sort runs the same under mseal-run" same /usr/bin/sort -r "$top/README.md"
# shellcheck disable=SC2016 # for bash to expand
result "bash runs the same under mseal-run" same /usr/bin/bash -c 'for i in 1 2 3; do /usr/bin/echo $i; done'
result "python3 runs the same under mseal-run" same /usr/bin/python3 -c 'import json, hashlib; print(json.dumps(hashlib.sha1(b"x").hexdigest()))'
result "LD_PRELOAD names the library once in mseal-run under mseal-run" \
	sh -c "'$run' '$run' /usr/bin/env | grep '^LD_PRELOAD=' | grep -o libmseal-run | wc -l | grep -qx 1"
mkdir -p "$tmp/root/etc" "$tmp/root/usr/lib/x86_64-linux-gnu"
cp "$MSEAL_RUN_LIB" "$tmp/root/usr/lib/x86_64-linux-gnu/libmseal-run.so"
result "--system on, status (exit 0), off, status (exit 3) on a scratch root" sh -c "
	'$run' --system on --root '$tmp/root' && '$run' --system status --root '$tmp/root' &&
	'$run' --system off --root '$tmp/root' && ! '$run' --system status --root '$tmp/root'"
result "--system on refuses a root without the library" status_is 1 "$run" --system on --root "$tmp/empty"
result "groff -man -ww renders mseal-run.1 without a warning" \
	sh -c "groff -man -ww -Tutf8 '$top/man/mseal-run.1' >/dev/null 2>'$tmp/w' && [ ! -s '$tmp/w' ]"
result "man --warnings renders mseal-run.1 without a warning" \
	sh -c "MANWIDTH=80 man --warnings -l '$top/man/mseal-run.1' >/dev/null 2>'$tmp/w' && [ ! -s '$tmp/w' ]"
echo "1..$n"
