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

# The switch's files (issue 26, items 9 and 10; issue 28, item 2).
r=$tmp/root
lib=/usr/lib/x86_64-linux-gnu/libmseal-run.so
result "--system on: ld.so.preload names /usr/\$LIB/libmseal-run.so (32-bit loaders find theirs)" \
	sh -c "'$run' --system on --root '$r' >/dev/null && grep -qx '/usr/\$LIB/libmseal-run.so' '$r/etc/ld.so.preload'"
result "--system on: the GRUB drop-in adds mseal_exec=on, no init=" \
	sh -c "grep -q '^GRUB_CMDLINE_LINUX_DEFAULT=\"\$GRUB_CMDLINE_LINUX_DEFAULT mseal_exec=on\"\$' '$r/etc/default/grub.d/mseal-run.cfg' &&
		! grep -q 'init=' '$r/etc/default/grub.d/mseal-run.cfg'"
printf '/usr/lib/one.so %s:/usr/lib/two.so # kept\n/usr/lib/three.so\n' "$lib" >"$r/etc/ld.so.preload"
"$run" --system on --root "$r" >/dev/null || true
result "--system on over the old absolute name: replaced, the other entries kept" \
	sh -c "[ \"\$(cat '$r/etc/ld.so.preload')\" = \"\$(printf '/usr/lib/one.so /usr/lib/two.so # kept\n/usr/lib/three.so\n/usr/\$LIB/libmseal-run.so')\" ]"
printf '/usr/lib/one.so %s:/usr/lib/two.so # kept\n# %s\n' "$lib" "$lib" >"$r/etc/ld.so.preload"
result "--system status: an entry in a comment does not count, one beside others does" \
	"$run" --system status --root "$r"
"$run" --system off --root "$r" >/dev/null || true
result "--system off: the library goes from a line it shares, the rest of the line stays" \
	sh -c "[ \"\$(cat '$r/etc/ld.so.preload')\" = \"\$(printf '/usr/lib/one.so /usr/lib/two.so # kept\n# %s' '$lib')\" ]"
echo "# $lib" >"$r/etc/ld.so.preload"
result "--system status: only a comment names it: off (exit 3)" status_is 3 "$run" --system status --root "$r"
"$run" --system enforce --root "$r" >/dev/null || true
result "--system enforce: on, with the marker /etc/mseal-run/enforce" \
	sh -c "grep -qx '/usr/\$LIB/libmseal-run.so' '$r/etc/ld.so.preload' && [ -f '$r/etc/mseal-run/enforce' ] &&
		'$run' --system status --root '$r' | grep -qx 'enforced: yes .*'"
"$run" --system on --root "$r" >/dev/null || true
result "--system on after enforce: the marker gone" sh -c "[ ! -e '$r/etc/mseal-run/enforce' ] &&
	'$run' --system status --root '$r' | grep -q '^enforced: no'"
"$run" --system enforce --root "$r" >/dev/null || true
"$run" --system off --root "$r" >/dev/null || true
result "--system off after enforce: the marker, the drop-in and the entry gone" \
	sh -c "[ ! -e '$r/etc/mseal-run/enforce' ] && [ ! -e '$r/etc/default/grub.d/mseal-run.cfg' ] &&
		[ \"\$(cat '$r/etc/ld.so.preload')\" = '# $lib' ]"
# Issue 29: where ld.so seals by itself (the rebuilt glibc: its tunable
# glibc.rtld.seal), --system on preloads nothing. The scratch root's
# /lib64 link is absolute, as Debian's: it must be followed inside the root
# (this machine's ld.so has no such tunable).
l=$tmp/ldroot
# shellcheck disable=SC2016 # $LIB: ld.so expands it
ours='/usr/$LIB/libmseal-run.so'
mkdir -p "$l/etc" "$l/usr/lib/x86_64-linux-gnu" "$l/lib/x86_64-linux-gnu" "$l/lib64"
cp "$MSEAL_RUN_LIB" "$l/usr/lib/x86_64-linux-gnu/libmseal-run.so"
printf 'ld.so\0glibc.rtld.nns\0glibc.rtld.seal\0glibc.rtld.dynamic_sort\0' >"$l/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
ln -s /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$l/lib64/ld-linux-x86-64.so.2"
printf '/usr/lib/other.so\n%s\n' "$ours" >"$l/etc/ld.so.preload"
"$run" --system on --root "$l" >"$tmp/ldso.out" 2>&1 || true
result "--system on, ld.so seals: nothing preloaded (the old entry gone, others kept), mseal_exec=on" \
	sh -c "[ \"\$(cat '$l/etc/ld.so.preload')\" = /usr/lib/other.so ] &&
		grep -q 'mseal_exec=on' '$l/etc/default/grub.d/mseal-run.cfg' &&
		grep -q '^ld.so seals every program .*nothing preloaded' '$tmp/ldso.out'"
result "--system status, ld.so seals: on (exit 0), by ld.so" \
	sh -c "'$run' --system status --root '$l' | grep -q '^system-wide sealing: on (ld.so seals: $l/lib64/'"
"$run" --system enforce --root "$l" >/dev/null 2>&1 || true
result "--system enforce, ld.so seals: the library preloaded all the same (it ignores MSEAL_RUN=0)" \
	grep -qxF "$ours" "$l/etc/ld.so.preload"
"$run" --system on --root "$l" >/dev/null 2>&1 || true
result "--system on after enforce, ld.so seals: the entry and the marker gone" \
	sh -c "! grep -q libmseal-run '$l/etc/ld.so.preload' && [ ! -e '$l/etc/mseal-run/enforce' ]"
"$run" --system off --root "$l" >/dev/null 2>&1 || true
result "--system off, ld.so seals: off (exit 3), the drop-in gone" \
	sh -c "[ ! -e '$l/etc/default/grub.d/mseal-run.cfg' ] && ! '$run' --system status --root '$l' >/dev/null"
printf 'ld.so\0glibc.rtld.nns\0glibc.rtld.sealx\0' >"$l/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
"$run" --system on --root "$l" >/dev/null 2>&1 || true
result "--system on, an ld.so without the tunable (only a longer name): the library preloaded" \
	grep -qxF "$ours" "$l/etc/ld.so.preload"

mkdir -p "$tmp/open/etc" && chmod 777 "$tmp/open/etc"
mkdir -p "$tmp/open/usr/lib/x86_64-linux-gnu" && cp "$MSEAL_RUN_LIB" "$tmp/open$lib"
result "--system on refuses to write in a directory others can write (exit 1, nothing written)" \
	sh -c "! '$run' --system on --root '$tmp/open' 2>/dev/null && [ ! -e '$tmp/open/etc/ld.so.preload' ]"

# Item 6: the files are created with their final mode whatever the umask.
# The creation as the kernel sees it (strace), then an unprivileged racer
# that opens each new file for writing as soon as it appears.
rm -rf "$r/etc/ld.so.preload" "$r/etc/default" "$r/etc/mseal-run"
if command -v strace >/dev/null; then
	(umask 000 && strace -f -e trace=open,openat,creat -o "$tmp/strace" "$run" --system on --root "$r" >/dev/null) || true
	grep 'mseal-run.tmp' "$tmp/strace" | grep 'O_CREAT' >"$tmp/creat" || true
	result "umask 000: ld.so.preload and the drop-in created O_EXCL|O_NOFOLLOW, mode 0644 ($(wc -l <"$tmp/creat") files)" \
		sh -c "[ \$(wc -l <'$tmp/creat') -eq 2 ] && ! grep -v 'O_EXCL.*, 0644)' '$tmp/creat' | grep -q . &&
			! grep -v 'O_NOFOLLOW' '$tmp/creat' | grep -q ."
	sed 's/^/# /' "$tmp/creat"
else
	n=$((n + 1)); echo "ok $n # SKIP no strace"
	(umask 000 && "$run" --system on --root "$r" >/dev/null) || true
fi
(umask 077 && "$run" --system enforce --root "$r" >/dev/null) || true
result "ld.so.preload, the drop-in (umask 000) and the marker (umask 077) are 0644" \
	sh -c "[ \"\$(stat -c %a '$r/etc/ld.so.preload' '$r/etc/default/grub.d/mseal-run.cfg' '$r/etc/mseal-run/enforce' | sort -u)\" = 644 ]"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	gcc -O2 -Wall -Werror -o "$tmp/racer" "$top/tests/host/mseal_run/racer.c"
	chmod 755 "$tmp" "$r" "$r/etc"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/racer" "$r/etc" \
		ld.so.preload.mseal-run.tmp 6 >"$tmp/racer.out" &
	racer=$!
	sleep 1
	for _ in $(seq 150); do
		(umask 000 && "$run" --system on --root "$r" >/dev/null && "$run" --system off --root "$r" >/dev/null)
	done
	wait $racer
	read -r won seen <"$tmp/racer.out"
	result "umask 000: a racing user never opens ld.so.preload's new file for writing ($won of $seen)" \
		test "$won" -eq 0 -a "$seen" -gt 0
else
	n=$((n + 1)); echo "ok $n # SKIP the racer needs root (to run it as nobody)"
fi

# Item 10: LD_PRELOAD matched as a whole entry; file capabilities warned.
echo 'int mseal_run_test_other;' | gcc -shared -fPIC -o "$MSEAL_RUN_LIB.old" -x c -
result "an LD_PRELOAD entry that only contains the library's name is not the library" \
	sh -c "[ \"\$(LD_PRELOAD='$MSEAL_RUN_LIB.old' '$run' /usr/bin/printenv LD_PRELOAD)\" = '$MSEAL_RUN_LIB:$MSEAL_RUN_LIB.old' ]"
result "the library already in LD_PRELOAD (among others): not added again" \
	sh -c "[ \"\$(LD_PRELOAD='$MSEAL_RUN_LIB.old $MSEAL_RUN_LIB' '$run' /usr/bin/printenv LD_PRELOAD)\" = '$MSEAL_RUN_LIB.old $MSEAL_RUN_LIB' ]"
# (mseal-run warns only where the kernel has mseal(): the static mseal-run
# itself, under mseal-run, tells.)
if [ "$(id -u)" = 0 ] && command -v setcap >/dev/null && command -v setpriv >/dev/null &&
	"$run" "$run" --version 2>&1 >/dev/null | grep -q 'statically linked' &&
	cp /usr/bin/true "$tmp/captrue" && setcap cap_net_raw+ep "$tmp/captrue" 2>/dev/null; then
	chmod 755 "$tmp" "$tmp/b"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$run" "$tmp/captrue" 2>"$tmp/cap.err" || true
	result "a program with file capabilities, run by another user: warned (the loader ignores LD_PRELOAD)" \
		grep -q "warning: $tmp/captrue: it has file capabilities" "$tmp/cap.err"
	"$run" "$tmp/captrue" 2>"$tmp/cap.err" || true
	result "the same program run by root (no capability gained): no warning" [ ! -s "$tmp/cap.err" ]
else
	n=$((n + 1)); echo "ok $n # SKIP file capabilities: needs root, setcap, setpriv and a kernel with mseal()"
fi
# Issue 29: on x86-64 the plain case runs before glibc starts (run/mseal-run-fast.c);
# the rest falls back to main(), which must then do what it always did.
if [ "$(uname -m)" = x86_64 ] && command -v strace >/dev/null; then
	strace -f -o "$tmp/fast" "$run" /usr/bin/true || true
	result "x86-64: mseal-run PROG executes PROG before glibc starts (no arch_prctl, no brk first)" \
		sh -c "awk '/execve\(\"\/usr\/bin\/true\"/ { exit } { print }' '$tmp/fast' >'$tmp/before' &&
			grep -q 'execve(\"$run\"' '$tmp/before' && ! grep -Eq 'arch_prctl|brk\(|set_tid_address' '$tmp/before'"
else
	n=$((n + 1)); echo "ok $n # SKIP the fast path: x86-64 only, needs strace"
fi
# shellcheck disable=SC2016 # for the script to expand
printf 'echo "no interpreter line: $LD_PRELOAD"\n' >"$tmp/noshebang"
chmod 755 "$tmp/noshebang"
result "a script without #! (execve() fails with ENOEXEC): run by sh, preloaded" \
	sh -c "[ \"\$('$run' '$tmp/noshebang')\" = 'no interpreter line: $MSEAL_RUN_LIB' ]"
result "5,000 environment variables (past the fast path's room): LD_PRELOAD still set" \
	sh -c "[ \"\$(env \$(seq -f 'V%g=x' 5000) '$run' /usr/bin/printenv LD_PRELOAD)\" = '$MSEAL_RUN_LIB' ]"
mkfifo -m 755 "$tmp/fifo"
result "a FIFO as PROG: refused at once (exit 126), not a hang in open()" \
	sh -c "timeout 10 '$run' '$tmp/fifo' 2>/dev/null; [ \$? -eq 126 ]"
result "PATH with an empty entry: a program in the current directory is found" \
	sh -c "cd '$tmp' && cp /usr/bin/true ./mytrue && PATH=/nonexistent: '$run' mytrue"
result "groff -man -ww renders mseal-run.1 without a warning" \
	sh -c "groff -man -ww -Tutf8 '$top/man/mseal-run.1' >/dev/null 2>'$tmp/w' && [ ! -s '$tmp/w' ]"
result "man --warnings renders mseal-run.1 without a warning" \
	sh -c "MANWIDTH=80 man --warnings -l '$top/man/mseal-run.1' >/dev/null 2>'$tmp/w' && [ ! -s '$tmp/w' ]"
echo "1..$n"
