#!/bin/sh
# ldso_seal_test (in the guest, the userland layer with the glibc layer on
# top: tools/vm --userland --glibc; or a system with the rebuilt libc6):
# the sealing ld.so of glibc/ (tools/glibc). TAP on stdout.
#
#  - opted in (optin: PR_SET_MSEAL_SEALABLE, then execve(), nothing
#    preloaded): the executable, ld.so and libc sealed, every VMA of them
#    (code, read-only data, RELRO, data), for cat, bash, python3 and perl;
#    the heap, the stack and the vDSO not; the attacks of seal_attack refused
#  - not opted in: nothing sealed at all
#  - dlopen(): a plain library not sealed and dlclose() unmaps it; a
#    DF_1_NODELETE one and one reopened RTLD_NODELETE sealed
#  - the tunable: glibc.rtld.seal=0 seals nothing; =2 opts in and seals
#    without the process being opted in (libc, which ld.so maps after its
#    own opt-in; the executable, which the kernel maps sealable)
#  - the programs' output the same sealed and not
#  - a kernel without mseal() (the baseline): nothing sealed, nothing
#    printed, the programs run, whatever the tunable says
#  - mseal_exec=on (/proc/sys/vm/mseal_exec): every program starts opted
#    in, so that all of the above holds for programs started plainly too;
#    glibc.rtld.seal=0 then leaves the executable's and ld.so's code and
#    read-only data sealed (by execve()) and their RELRO and data not
#  - the mseal() calls ld.so makes (strace): for cat one an object, none
#    failing; with mseal_exec=on, none covers the code of the executable
#    or of ld.so (execve() sealed it: ld.so seals only their writable
#    segment, RELRO, data and bss); with it off, ld.so seals that code
# Exit status: 0 if every line is ok.
run=/opt/mseal/run
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $*"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
show() { sed -n '1,15s/^/#   /p' "$1"; }

ld=/lib64/ld-linux-x86-64.so.2
if ! "$ld" --list-tunables 2>/dev/null | grep -q '^glibc\.rtld\.seal:'; then
	echo "not ok 1 $ld has no glibc.rtld.seal: not the rebuilt glibc (tools/glibc)"
	exit 1
fi
abi=$("$run/seal_attack" abi)
case $abi in
none) sealing=0 ;;
v6 | mainline) sealing=1 ;;
*) echo "not ok 1 seal_attack abi: '$abi'"; exit 1 ;;
esac
exec_on=0
[ "$(cat /proc/sys/vm/mseal_exec 2>/dev/null)" = on ] && exec_on=1
echo "# kernel $(uname -r), mseal ABI: $abi, mseal_exec=$(cat /proc/sys/vm/mseal_exec 2>/dev/null || echo none); $("$ld" --version | head -n 1)"
want=none
[ $sealing = 1 ] && want=all

# sealed SMAPS DESCRIPTION PATTERN WANT: the VMAs whose path matches PATTERN
# (awk) are all sealed (all) or none is (none).
sealed() {
	pat=$3 awk '
		/^[0-9a-f]+-[0-9a-f]+ / { path = $6; next }
		/^VmFlags:/ && path ~ ENVIRON["pat"] { n++; if ($0 ~ / sl( |$)/) s++ }
		END { printf "%d %d\n", n, s }' "$1" >"$tmp/count"
	read -r total nsealed <"$tmp/count"
	if [ "$total" -eq 0 ]; then
		notok "$2: no mapping matches $3"
	elif [ "$4" = all ] && [ "$nsealed" -eq "$total" ]; then
		ok "$2: sealed ($total VMAs)"
	elif [ "$4" = none ] && [ "$nsealed" -eq 0 ]; then
		ok "$2: not sealed ($total VMAs)"
	else
		notok "$2: $nsealed of $total VMAs sealed, expected $4"
	fi
}
nothing_sealed() { # nothing_sealed SMAPS DESCRIPTION
	if grep -q '^VmFlags:.* sl' "$1"; then
		notok "$2: $(grep -c '^VmFlags:.* sl' "$1") VMAs sealed"
	else
		ok "$2"
	fi
}
ldp='/ld-linux-x86-64\.so\.2$'
libc='/libc\.so\.6$'

# -- cat, opted in and not.
"$run/optin" /usr/bin/cat /proc/self/smaps >"$tmp/cat.smaps" 2>"$tmp/cat.err"
check "opted in: cat runs and prints nothing on stderr" test -s "$tmp/cat.smaps" -a ! -s "$tmp/cat.err"
sealed "$tmp/cat.smaps" "opted in: cat's executable (code, rodata, RELRO, data)" '^/usr/bin/cat$' $want
sealed "$tmp/cat.smaps" "opted in: ld.so" "$ldp" $want
sealed "$tmp/cat.smaps" "opted in: libc" "$libc" $want
sealed "$tmp/cat.smaps" "opted in: the heap" '^\[heap\]$' none
sealed "$tmp/cat.smaps" "opted in: the stack" '^\[stack\]$' none
sealed "$tmp/cat.smaps" "opted in: the vDSO (the kernel's)" '^\[vdso\]$' none
if [ $sealing = 1 ]; then
	# Code (r-x), read-only data and RELRO (r--), data (rw-) of libc: each kind sealed.
	for perm in r-xp r--p rw-p; do
		p=$perm awk '/^[0-9a-f]+-[0-9a-f]+ / { hit = ($2 == ENVIRON["p"] && $6 ~ /\/libc\.so\.6$/); next }
			/^VmFlags:/ && hit { n++; if ($0 ~ / sl( |$)/) s++ }
			END { exit !(n > 0 && s == n) }' "$tmp/cat.smaps"
		check "opted in: libc's $perm VMAs sealed" [ $? = 0 ]
	done
fi
/usr/bin/cat /proc/self/smaps >"$tmp/plain.smaps"
if [ $exec_on = 1 ]; then
	sealed "$tmp/plain.smaps" "mseal_exec=on, started plainly: cat's executable" '^/usr/bin/cat$' $want
	sealed "$tmp/plain.smaps" "mseal_exec=on, started plainly: ld.so" "$ldp" $want
	sealed "$tmp/plain.smaps" "mseal_exec=on, started plainly: libc" "$libc" $want
else
	nothing_sealed "$tmp/plain.smaps" "not opted in: nothing sealed in cat"
fi

# sealed_perm SMAPS DESCRIPTION PATTERN PERMS WANT: the same as sealed, for
# the VMAs of PATTERN whose permissions are PERMS.
sealed_perm() {
	pat=$3 perm=$4 awk '
		/^[0-9a-f]+-[0-9a-f]+ / { hit = ($2 == ENVIRON["perm"] && $6 ~ ENVIRON["pat"]); next }
		/^VmFlags:/ && hit { n++; if ($0 ~ / sl( |$)/) s++ }
		END { printf "%d %d\n", n, s }' "$1" >"$tmp/count"
	read -r total nsealed <"$tmp/count"
	if [ "$total" -eq 0 ]; then
		notok "$2: no $4 mapping matches $3"
	elif { [ "$5" = all ] && [ "$nsealed" -eq "$total" ]; } ||
		{ [ "$5" = none ] && [ "$nsealed" -eq 0 ]; }; then
		ok "$2: $5 of $total $4 VMAs sealed"
	else
		notok "$2: $nsealed of $total $4 VMAs sealed, expected $5"
	fi
}

# -- the tunable.
GLIBC_TUNABLES=glibc.rtld.seal=0 "$run/optin" /usr/bin/cat /proc/self/smaps >"$tmp/t0.smaps" 2>&1
if [ $exec_on = 1 ]; then
	# execve() sealed the code and read-only data; ld.so nothing more.
	for o in "cat's executable|^/usr/bin/cat$" "ld.so|$ldp"; do
		sealed_perm "$tmp/t0.smaps" "mseal_exec=on, glibc.rtld.seal=0: ${o%%|*}'s code (by execve())" "${o#*|}" r-xp $want
		sealed_perm "$tmp/t0.smaps" "mseal_exec=on, glibc.rtld.seal=0: ${o%%|*}'s data (not by ld.so)" "${o#*|}" rw-p none
	done
	sealed "$tmp/t0.smaps" "mseal_exec=on, glibc.rtld.seal=0: libc (ld.so's to seal)" "$libc" none
else
	nothing_sealed "$tmp/t0.smaps" "opted in, glibc.rtld.seal=0: nothing sealed"
fi
GLIBC_TUNABLES=glibc.rtld.seal=2 /usr/bin/cat /proc/self/smaps >"$tmp/t2.smaps" 2>"$tmp/t2.err"
check "glibc.rtld.seal=2: cat runs and prints nothing on stderr" test -s "$tmp/t2.smaps" -a ! -s "$tmp/t2.err"
sealed "$tmp/t2.smaps" "not opted in, glibc.rtld.seal=2: libc (mapped after ld.so's opt-in)" "$libc" $want
# The kernel maps the segments of programs sealable (patch 0007): the
# executable is sealed in both ABIs.
sealed "$tmp/t2.smaps" "not opted in, glibc.rtld.seal=2: the executable" '^/usr/bin/cat$' $want

# -- the mseal() calls of ld.so for cat (the executable, ld.so, libc),
# from its execve() on (strace; 6.1's strace names mseal() syscall_0x1ce):
# one an object, none failing; with mseal_exec=on none covers the code of
# the executable or of ld.so, which execve() sealed; with it off, ld.so
# seals that code itself.
if [ $sealing = 1 ]; then
	strace -f -qq -o "$tmp/st" "$run/optin" /usr/bin/cat /proc/self/maps >"$tmp/cat.maps"
	awk '/execve\("\/usr\/bin\/cat"/ { on = 1; next }
		on && /^[0-9]+ +(mseal|syscall_0x1ce)\(/ {
			sub(/^[0-9]+ +[a-z_0-9]+\(/, "")
			split($0, a, /[,)]/)
			rc = $0; sub(/.*= /, "", rc); sub(/ .*/, "", rc)
			print a[1], a[2], rc
		}' "$tmp/st" >"$tmp/calls"
	while read -r a l r; do echo "#   mseal($a, $l) = $r"; done <"$tmp/calls"
	calls=$(wc -l <"$tmp/calls")
	bad=$(grep -vc ' 0$' "$tmp/calls" || true)
	check "cat: ld.so's mseal() calls all succeed ($bad failed)" [ "$bad" -eq 0 ]
	check "cat: one mseal() call an object (3; made $calls)" [ "$calls" -eq 3 ]
	# code_sealed_by_ld NAME PATTERN: does one of the calls cover the r-xp
	# VMA of PATTERN in cat's maps?
	code_sealed_by_ld() {
		lo='' hi=''
		while read -r range perm _ _ _ path; do
			case $perm in r-xp) ;; *) continue ;; esac
			echo "$path" | grep -Eq "$2" || continue
			lo=$((0x${range%-*})) hi=$((0x${range#*-}))
		done <"$tmp/cat.maps"
		[ -n "$lo" ] || return 2
		while read -r start len rc; do
			[ $((start)) -le "$lo" ] && [ $((start + len)) -ge "$hi" ] && return 0
		done <"$tmp/calls"
		return 1
	}
	for o in "the executable|^/usr/bin/cat$" "ld.so|$ldp"; do
		code_sealed_by_ld "${o%%|*}" "${o#*|}"
		rc=$?
		if [ $exec_on = 1 ]; then
			check "mseal_exec=on: ld.so does not seal ${o%%|*}'s code again" [ $rc = 1 ]
		else
			check "mseal_exec=off: ld.so seals ${o%%|*}'s code" [ $rc = 0 ]
		fi
	done
fi

# -- dlopen(): what can be unloaded stays unsealed, and is unloaded.
"$run/optin" "$run/dlopen_loop" "$run" 20 >"$tmp/dl.out" 2>"$tmp/dl.err"
check "opted in: dlopen_loop works (20 dlopen()/dlclose(), each unmapping the library)" \
	grep -qx 'loop: 20 dlopen/dlclose, sum [0-9]*, unmapped after dlclose 20' "$tmp/dl.out"
"$run/dlopen_loop" "$run" 20 >"$tmp/dl.plain" 2>/dev/null
check "dlopen_loop: the same output opted in and not" cmp -s "$tmp/dl.out" "$tmp/dl.plain"
yes=no
[ $sealing = 1 ] && yes=yes
expect_dl() { # expect_dl NAME yes|no DESCRIPTION
	if grep -qx "sealed $1 $2" "$tmp/dl.err"; then ok "dlopen_loop: $3"; else
		notok "dlopen_loop: $3"
		show "$tmp/dl.err"
	fi
}
check "dlopen_loop: a plain dlopen()ed library is not sealed" \
	sh -c "grep '^sealed /libplugin.so ' '$tmp/dl.err' | head -n 1 | grep -qx 'sealed /libplugin.so no'"
expect_dl /libplugin_nodelete.so $yes "a DF_1_NODELETE library is sealed ($yes)"
check "dlopen_loop: the library reopened with RTLD_NODELETE is sealed ($yes)" \
	sh -c "grep '^sealed /libplugin.so ' '$tmp/dl.err' | tail -n 1 | grep -qx 'sealed /libplugin.so $yes'"
expect_dl /libloader.so no "a library opened plainly by a bare name is not sealed"
expect_dl /libc.so.6 $yes "libc is sealed ($yes)"
expect_dl /ld-linux-x86-64.so.2 $yes "ld.so is sealed ($yes)"
expect_dl /dlopen_loop $yes "the executable is sealed ($yes)"

# -- the attacks.
if [ $sealing = 1 ]; then
	"$run/optin" "$run/seal_attack" sealed >"$tmp/attack" 2>&1
	rc=$?
	sed 's/^/#   /' "$tmp/attack"
	check "seal_attack opted in: all four attempts refused, contents intact" \
		[ $rc = 0 -a "$(grep -c '^ok' "$tmp/attack")" = 4 ]
	if [ $exec_on = 1 ]; then
		check "seal_attack started plainly under mseal_exec=on: all refused too" \
			sh -c "'$run/seal_attack' sealed >/dev/null"
	else
		check "seal_attack: the same attacks succeed when not opted in" \
			sh -c "'$run/seal_attack' unsealed >/dev/null"
	fi
else
	check "seal_attack on a kernel that cannot seal: the attacks succeed" \
		sh -c "'$run/optin' '$run/seal_attack' unsealed >/dev/null 2>&1"
fi

# -- real programs: the same output, their objects sealed.
same() { # same NAME CMD...
	name=$1
	shift
	"$@" >"$tmp/u.out" 2>"$tmp/u.err"
	urc=$?
	"$run/optin" "$@" >"$tmp/s.out" 2>"$tmp/s.err"
	src=$?
	if cmp -s "$tmp/u.out" "$tmp/s.out" && cmp -s "$tmp/u.err" "$tmp/s.err" &&
		[ $urc = $src ] && [ -s "$tmp/u.out" ]; then
		ok "$name: same output and exit status ($urc) opted in and not"
	else
		notok "$name: the opted-in run differs (exit $urc, $src)"
		diff "$tmp/u.out" "$tmp/s.out" | sed -n '1,15s/^/#   /p'
		show "$tmp/s.err"
	fi
}
same "bash script with coreutils" /usr/bin/bash "$run/workload.sh"
same "python3 with C extension modules" /usr/bin/python3 "$run/workload.py"
same "perl with XS modules" /usr/bin/perl "$run/workload.pl"
same "coreutils ls, exit status 2" /usr/bin/ls -d / /nonexistent

"$run/optin" /usr/bin/bash -c '/usr/bin/cat /proc/$$/smaps; exit 0' >"$tmp/bash.smaps" 2>/dev/null
sealed "$tmp/bash.smaps" "bash: the executable" '^/usr/bin/bash$' $want
sealed "$tmp/bash.smaps" "bash: libc" "$libc" $want
sealed "$tmp/bash.smaps" "bash: libtinfo" '/libtinfo\.so\.6(\.[0-9]+)*$' $want
"$run/optin" /usr/bin/python3 -c '
import ctypes, decimal, sys
sys.stdout.write(open("/proc/self/smaps").read())' >"$tmp/py.smaps" 2>/dev/null
sealed "$tmp/py.smaps" "python3: the executable" '^/usr/bin/python3\.11$' $want
sealed "$tmp/py.smaps" "python3: ld.so" "$ldp" $want
sealed "$tmp/py.smaps" "python3: libm, libz, libexpat (loaded at startup)" \
	'/lib(m\.so\.6|z\.so\.1|expat\.so\.1)$' $want
sealed "$tmp/py.smaps" "python3: extension modules and libffi (dlopen()ed, can be unloaded)" \
	'(/lib-dynload/.*\.so|/libffi\.so\.8|/libmpdec\.so\.3)$' none
# shellcheck disable=SC2016 # perl code
"$run/optin" /usr/bin/perl -MPOSIX -MList::Util -e '
open my $f, "<", "/proc/self/smaps" or die; print <$f>' >"$tmp/perl.smaps" 2>/dev/null
sealed "$tmp/perl.smaps" "perl: the executable" '^/usr/bin/perl$' $want
sealed "$tmp/perl.smaps" "perl: libc" "$libc" $want
sealed "$tmp/perl.smaps" "perl: XS modules (dlopen()ed)" '/auto/.*\.so$' none

echo "# $n checks, $fails failed"
[ $fails = 0 ]
