#!/usr/bin/bash
# The bash workload of mseal_run_test: run sealed and unsealed, the two
# outputs must be the same. Bash itself, and Debian's coreutils run from it
# (sealed too: LD_PRELOAD and the opt-in are inherited).
set -euo pipefail
u=/usr/bin
declare -A squares
for i in $(seq 1 20); do
	squares[$i]=$((i * i))
done
total=0
for k in "${!squares[@]}"; do
	total=$((total + squares[$k]))
done
echo "sum of squares: $total"
words=(sealed memory cannot be unmapped moved or reprotected)
echo "words: ${#words[@]} ${words[*]^^}"
f() { local n=$1; [ "$n" -le 1 ] && echo 1 && return; echo $((n * $(f $((n - 1))))); }
echo "10! = $(f 10)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$u/seq 1 2000 | $u/sort -r >"$tmp/r"
$u/head -n 5 "$tmp/r" | $u/tr '\n' ' '
echo
printf '%s\n' "${words[@]}" | $u/sort | $u/uniq -c | $u/wc -l
$u/seq 1 500 >"$tmp/n"
$u/sha256sum <"$tmp/n" | $u/cut -c1-16
$u/md5sum <"$tmp/n" | $u/cut -d' ' -f1
$u/wc -c <"$tmp/n"
$u/cat "$tmp/n" | $u/tail -n 3 | $u/tr -d '\n'
echo
$u/ls "$tmp"
$u/rm "$tmp/r"
$u/env -i A=1 $u/env
while read -r line; do
	case $line in *7*) n7=$((${n7:-0} + 1)) ;; esac
done <"$tmp/n"
echo "lines with a 7: $n7"
( exit 3 ) || echo "subshell exited $?"
echo "pipestatus: $(false | true; echo "${PIPESTATUS[*]}")"
