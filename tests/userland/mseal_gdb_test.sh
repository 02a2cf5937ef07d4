#!/usr/bin/bash
# mseal_gdb_test (in the guest's userland layer): a debugger still works on
# sealed code, and nothing else rewrites it (issue 27).
#  1. Debian's gdb runs gdb_target under mseal-run (its code sealed at
#     startup), stops at a breakpoint in that code, and continues to the end;
#  2. the program cannot rewrite its own sealed code through /proc/self/mem;
#  3. nor can root, without tracing it, through /proc/PID/mem.
# What 2 and 3 expect follows /proc/sys/vm/mseal_force: refused under
# "ptracer" and "never", written under "always" and on a kernel without the
# file (the baseline: nothing is sealed there). Under "never", gdb cannot
# insert its breakpoint: 1 expects it to say so and the program to run on.
# TAP; exit status 0 (failures are "not ok" lines).
set -euo pipefail
t=/opt/mseal/run/gdb_target
force=$(cat /proc/sys/vm/mseal_force 2>/dev/null || echo none)
n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); echo "not ok $n $*"; }
say() { sed 's/^/# /'; }

echo "# mseal_force: $force"
refused=1
case $force in always | none) refused=0 ;; esac

# 1. gdb (the layer has only part of Python's library: gdb warns that it
# cannot load its Python module, and may say so in the middle of a line)
out=$(timeout 300 gdb -nx -batch -ex 'set exec-wrapper mseal-run' -ex 'break marker' \
	-ex run -ex continue --args "$t" 2>&1) || true
sealed=yes
[ "$force" != none ] || sealed=no
if [ "$force" = never ]; then
	if grep -q 'Cannot insert breakpoint' <<<"$out"; then
		ok "gdb: mseal_force=never refuses the breakpoint in sealed code"
	else
		notok "gdb: mseal_force=never should refuse the breakpoint"
		say <<<"$out"
	fi
elif grep -q '^Breakpoint 1, ' <<<"$out" && grep -q 'marker () at ' <<<"$out" &&
	grep -q '^marker reached' <<<"$out" &&
	grep -q 'exited normally' <<<"$out" && grep -q "^text sealed: $sealed" <<<"$out"; then
	ok "gdb stops at a breakpoint in sealed code (text sealed: $sealed) and continues"
else
	notok "gdb: breakpoint in sealed code (text sealed: $sealed expected)"
	say <<<"$out"
fi

# 2. /proc/self/mem
out=$(mseal-run "$t" --patch-self 2>&1) || true
if { [ $refused = 1 ] && [ "$out" = 'patch: refused (Input/output error)' ]; } ||
	{ [ $refused = 0 ] && [ "$out" = 'patch: written' ]; }; then
	ok "the program writing its own code through /proc/self/mem: $out"
else
	notok "the program writing its own code through /proc/self/mem (refused=$refused)"
	say <<<"$out"
fi

# 3. root, not a tracer, through /proc/PID/mem
fifo=$(mktemp -u /tmp/mseal_gdb_test.XXXXXX)
mkfifo "$fifo"
# The target's lines go to a file, not a coprocess: bash closes and unsets
# a coprocess's descriptors once it has ended, and it may have ended before
# its last line is read.
said=$fifo.out
mseal-run "$t" --wait <"$fifo" >"$said" &
tpid=$!
exec {hold}>"$fifo"
pid=0 addr=0 verdict=
for _ in $(seq 600); do
	[ -s "$said" ] && break
	sleep 0.1
done
read -r _ pid _ addr <"$said" || true
out=$("$t" --poke "$pid" "$addr" 2>&1) || true
exec {hold}>&-
wait "$tpid" 2>/dev/null || true
verdict=$(sed -n 2p "$said")
rm -f "$fifo" "$said"
want_verdict="text unchanged"
[ $refused = 1 ] || want_verdict="text changed"
if { [ $refused = 1 ] && [ "$out" = 'poke: refused (Input/output error)' ]; } ||
	{ [ $refused = 0 ] && [ "$out" = 'poke: written' ]; } &&
	[ "$verdict" = "$want_verdict" ]; then
	ok "root, not tracing it, writing its code through /proc/PID/mem: $out, $verdict"
else
	notok "root writing the sealed code of another process (refused=$refused)"
	say <<<"$out; $verdict"
fi
echo "1..$n"
