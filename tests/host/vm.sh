#!/usr/bin/env bash
# shellcheck disable=SC2016 # the single-quoted scripts run in the guest
# tools/vm's contract: usage errors exit 2 before anything boots, the
# command's output and exit status come back, files are put in /tmp/put,
# and panics and hangs make it fail with the reason shown.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vm=$here/../../tools/vm
export VM_NOBUILD=1
# The limits are the defaults, whatever the caller set (tests/run sets them).
unset VM_TIMEOUT VM_QUIET VM_APPEND
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
check() { # check DESCRIPTION EXPECTED_STATUS ACTUAL_STATUS [CONDITION_STATUS]
	n=$((n + 1))
	if [ "$2" = "$3" ] && [ "${4:-0}" = 0 ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1 (exit $3, expected $2)"
	fi
}
absent() { ! grep -q "$1" "$2"; }
holds() { if "$@"; then echo 0; else echo 1; fi; }
run() { # run OUTFILE ARGS...: tools/vm with stdout+stderr in OUTFILE, prints the status
	local out=$1 rc=0
	shift
	"$vm" "$@" >"$out" 2>&1 </dev/null || rc=$?
	echo $rc
}

echo "TAP version 13"
echo "1..17"

# A cache that cannot exist: anything past argument parsing would fail with 1.
rc=$(MSEAL_CACHE=/nonexistent/cache run "$tmp/o" --bogus)
check "an unknown option exits 2 before booting" 2 "$rc"
rc=$(MSEAL_CACHE=/nonexistent/cache run "$tmp/o" --put /nonexistent/file -- true)
check "--put of a missing file exits 2 before booting" 2 "$rc"
rc=$(MSEAL_CACHE=/nonexistent/cache run "$tmp/o" --put)
check "--put without a file exits 2" 2 "$rc"
rc=$(MSEAL_CACHE=/nonexistent/cache run "$tmp/o" true)
check "a command without -- exits 2" 2 "$rc"
check "usage errors print the usage line" 0 "$(holds grep -q '^usage: tools/vm' "$tmp/o")"

rc=$(run "$tmp/o" --baseline -- sh -c 'exit 3')
check "tools/vm --baseline -- sh -c 'exit 3' exits 3" 3 "$rc"
rc=$(run "$tmp/o" -- sh -c 'kill -9 $$')
check "a command killed by SIGKILL exits 137" 137 "$rc"

rc=$(run "$tmp/o" -- sh -c 'printf "%s|" "$@"; echo' x 'a b' "it's" '$HOME' '')
check "arguments reach the command unchanged, output comes back" 0 "$rc" \
	"$(holds [ "$(cat "$tmp/o")" = "a b|it's|\$HOME||" ])"
check "the kernel log stays out of the command's output" 0 "$rc" \
	"$(holds absent 'Linux version' "$tmp/o")"

echo "put me" >"$tmp/file one"
rc=$(run "$tmp/o" --put "$tmp/file one" -- sh -c 'test "$(pwd)" = /tmp/put && cat "file one"')
check "--put copies the file into /tmp/put, the working directory" 0 "$rc" \
	"$(holds [ "$(cat "$tmp/o")" = "put me" ])"

# A static program of the guest's architecture, put and run by its name.
case ${ARCH:-x86_64} in
arm64) cc=aarch64-linux-gnu-gcc ;;
ppc64el) cc=powerpc64le-linux-gnu-gcc ;;
s390x) cc=s390x-linux-gnu-gcc ;;
mips64el) cc=mips64el-linux-gnuabi64-gcc ;;
*) cc=gcc ;;
esac
printf '#include <stdio.h>\nint main(void) { puts("static"); return 7; }\n' >"$tmp/prog.c"
"$cc" -static -o "$tmp/prog" "$tmp/prog.c"
rc=$(run "$tmp/o" --put "$tmp/prog" -- prog)
check "--put PROG -- PROG runs a static $cc program and exits with its status" 7 "$rc" \
	"$(holds [ "$(cat "$tmp/o")" = static ])"

rc=$(run "$tmp/o" -- sh -c 'echo c >/proc/sysrq-trigger')
check "a kernel panic fails with exit 125 and shows the panic" 125 "$rc" \
	"$(holds grep -q 'Kernel panic - not syncing: sysrq triggered crash' "$tmp/o")"

rc=$(VM_APPEND=rdinit=/bin/busybox run "$tmp/o" -- true)
check "an init that exits fails with exit 125 and shows why" 125 "$rc" \
	"$(holds grep -q 'Attempted to kill init' "$tmp/o")"

rc=$(VM_TIMEOUT=8 run "$tmp/o" -- sleep 600)
check "a guest that does not finish in VM_TIMEOUT exits 124" 124 "$rc" \
	"$(holds grep -q 'hung' "$tmp/o")"

# The progress limit: a line every 3 s keeps the guest going well past
# VM_QUIET (so output resets it), then silence stops it.
quiet_shown() { grep -q 'line 9' "$tmp/o" && grep -q 'printed nothing for 20s' "$tmp/o"; }
rc=$(VM_QUIET=20 run "$tmp/o" -- sh -c 'for i in 1 2 3 4 5 6 7 8 9; do echo "line $i"; sleep 3; done; sleep 600')
check "a command silent for VM_QUIET seconds exits 124, one that prints goes on" 124 "$rc" \
	"$(holds quiet_shown)"

rc=$(VM_TIMEOUT=abc run "$tmp/o" -- true)
check "a bad VM_TIMEOUT exits 2" 2 "$rc"
rc=$(MSEAL_CACHE=/nonexistent/cache VM_QUIET=1m run "$tmp/o" -- true)
check "a bad VM_QUIET exits 2 before booting" 2 "$rc"
