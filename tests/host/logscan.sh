#!/usr/bin/env bash
# tools/logscan against kernel log fixtures: the clean-* and benign-* logs
# (a real boot, user-space faults, OOM kills, injected faults) must pass;
# every other fixture holds one kind of kernel report and must be caught.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scan=$here/../../tools/logscan

fixtures=("$here"/logscan/*.log)
echo "TAP version 13"
echo "1..$((${#fixtures[@]} + 3))"
n=0
for f in "${fixtures[@]}"; do
	n=$((n + 1))
	name=$(basename "$f" .log)
	rc=0
	out=$("$scan" "$f") || rc=$?
	case $name in
	clean-* | benign-*)
		if [ $rc -eq 0 ] && [ -z "$out" ]; then
			echo "ok $n logscan passes $name"
		else
			echo "not ok $n logscan flags $name (exit $rc): $out"
		fi
		;;
	*)
		if [ $rc -eq 1 ] && [ -n "$out" ]; then
			echo "ok $n logscan catches $name: ${out%%$'\n'*}"
		else
			echo "not ok $n logscan misses $name (exit $rc)"
		fi
		;;
	esac
done
# A flood of reports, more than logscan prints (and than a pipe holds).
n=$((n + 1))
flood=$(mktemp)
trap 'rm -f "$flood"' EXIT
for i in $(seq 1 3000); do
	echo "[   12.$i] BUG: KASAN: slab-out-of-bounds in mseal_fixup+0x1c/0x2a0 at addr ffff888100000000"
done >"$flood"
rc=0
out=$("$scan" "$flood") || rc=$?
if [ $rc -eq 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 50 ]; then
	echo "ok $n logscan catches a flood of 3000 reports and prints the first 50"
else
	echo "not ok $n logscan on a flood of 3000 reports exits $rc"
fi
n=$((n + 1))
rc=0
"$scan" /nonexistent 2>/dev/null || rc=$?
if [ $rc -eq 2 ]; then echo "ok $n logscan exits 2 on an unreadable log"; else echo "not ok $n logscan on an unreadable log exits $rc"; fi
n=$((n + 1))
rc=0
"$scan" 2>/dev/null || rc=$?
if [ $rc -eq 2 ]; then echo "ok $n logscan exits 2 without an argument"; else echo "not ok $n logscan without an argument exits $rc"; fi
