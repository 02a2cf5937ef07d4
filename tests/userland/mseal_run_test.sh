#!/bin/sh
# mseal_run_test (in the guest, userland layer): unmodified Debian programs
# run under mseal-run, against the same programs run plainly.
#
#  - bash (with coreutils), python3 (C extension modules dlopen()ed), perl
#    (XS modules), coreutils alone and a C program that dlopen()s and
#    dlclose()s a library in a loop: same stdout and exit status sealed and
#    unsealed, and nothing on stderr from mseal-run;
#  - /proc/PID/smaps: "sl" on the mappings of the executable, ld.so and libc
#    (and not on the vDSO, nor on what dlopen() loaded that can be unloaded);
#  - seal_attack: mprotect() of libc's RELRO or text, munmap() of libc's
#    text, MADV_DONTNEED of the program's own RELRO are refused, contents
#    intact;
#  - the failure policy: one warning and the program runs on; with
#    MSEAL_RUN_FATAL=1, exit 127 before main().
#
# What is expected depends on the kernel (seal_attack abi):
#   none      no mseal() (the baseline kernel): everything runs unsealed and
#             mseal-run says nothing, even with MSEAL_RUN_FATAL=1;
#   v6        this series (MAP_SEALABLE opt-in, with PR_SET_MSEAL_SEALABLE
#             and binfmt_elf mapping the program and ld.so sealable);
#   mainline  this series booted with mseal_abi=mainline (or Linux 6.10+).
# A v6 kernel without PR_GET_MSEAL_SEALABLE (v6-old) predates the opt-in
# and the sealable ELF mappings: nothing can be sealed there, so every
# sealed run must print its one warning, run on, and leave everything
# unsealed.
run=/opt/mseal/run
lib=/usr/lib/x86_64-linux-gnu/libmseal-run.so
tmp=$(mktemp -d)
n=0 fails=0

ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $*"; }
skipped() { n=$((n + 1)); echo "ok $n # SKIP $*"; }
check() { # check DESCRIPTION COMMAND...: ok if COMMAND succeeds
	d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
show() { sed -n '1,15s/^/#   /p' "$1"; }

abi=$("$run/seal_attack" abi)
case $abi in
none) sealing=0 ;;
v6 | mainline) sealing=1 ;;
v6-old) sealing=0 ;;
*) echo "not ok 1 seal_attack abi: '$abi'"; exit 1 ;;
esac
echo "# kernel $(uname -r), mseal ABI: $abi"

# same NAME CMD...: the command unsealed, then under mseal-run; compare.
same() {
	name=$1
	shift
	"$@" >"$tmp/u.out" 2>"$tmp/u.err"
	urc=$?
	mseal-run "$@" >"$tmp/s.out" 2>"$tmp/s.err"
	src=$?
	if cmp -s "$tmp/u.out" "$tmp/s.out" && [ $urc = $src ] && [ -s "$tmp/u.out" ]; then
		ok "$name: same output and exit status ($urc) sealed and unsealed"
	else
		notok "$name: sealed run differs (exit $urc unsealed, $src sealed)"
		diff "$tmp/u.out" "$tmp/s.out" | sed -n '1,15s/^/#   /p'
	fi
	if [ "$abi" = v6-old ]; then
		# Everything fails EACCES there: one warning per process, no more.
		if grep -q '^mseal-run: warning: .*Permission denied' "$tmp/s.err"; then
			ok "$name: a kernel without the opt-in: a warning, and the program ran on"
		else
			notok "$name: a kernel without the opt-in: no warning"
			show "$tmp/s.err"
		fi
	elif grep -q mseal-run "$tmp/s.err"; then
		notok "$name: mseal-run printed something"
		show "$tmp/s.err"
	else
		ok "$name: mseal-run printed nothing"
	fi
}

same "bash script with coreutils" /usr/bin/bash "$run/workload.sh"
same "python3 with C extension modules" /usr/bin/python3 "$run/workload.py"
same "perl with XS modules" /usr/bin/perl "$run/workload.pl"
same "coreutils sort" /usr/bin/sort -n -r "$run/workload.sh"
same "coreutils sha256sum" /usr/bin/sha256sum "$run/workload.py" "$run/workload.pl"
same "coreutils ls, exit status 2" /usr/bin/ls -d / /nonexistent
same "dlopen()/dlclose() loop" "$run/dlopen_loop" "$run" 200

# sealed SMAPS DESCRIPTION PATTERN WANT: the file-backed VMAs whose path
# matches PATTERN (awk) are all sealed (WANT=all) or none is (WANT=none).
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

# Where sealing should happen: all, on a kernel that cannot: none.
want=none
[ $sealing = 1 ] && want=all
ld='/ld-linux-x86-64\.so\.2$'
libc='/libc\.so\.6$'

mseal-run /usr/bin/cat /proc/self/smaps >"$tmp/cat.smaps" 2>/dev/null
sealed "$tmp/cat.smaps" "cat: the executable" '^/usr/bin/cat$' $want
sealed "$tmp/cat.smaps" "cat: ld.so" "$ld" $want
sealed "$tmp/cat.smaps" "cat: libc" "$libc" $want
sealed "$tmp/cat.smaps" "cat: libmseal-run.so itself" '/libmseal-run\.so$' $want
# The vDSO is the kernel's business: sealed only where the kernel seals
# system mappings (mseal_system_mappings=on), whatever mseal-run does.
vdso=none
[ "$(cat /proc/sys/vm/mseal_system_mappings 2>/dev/null)" != 1 ] || vdso=all
sealed "$tmp/cat.smaps" "cat: the vDSO (the kernel's business)" '^\[vdso\]$' $vdso
/usr/bin/cat /proc/self/smaps >"$tmp/plain.smaps"
sealed "$tmp/plain.smaps" "cat without mseal-run: libc" "$libc" none

# shellcheck disable=SC2016 # $$ is bash's
# (not the last command: bash would exec cat in its own place)
mseal-run /usr/bin/bash -c '/usr/bin/cat /proc/$$/smaps; exit 0' >"$tmp/bash.smaps" 2>/dev/null
sealed "$tmp/bash.smaps" "bash: the executable" '^/usr/bin/bash$' $want
sealed "$tmp/bash.smaps" "bash: ld.so" "$ld" $want
sealed "$tmp/bash.smaps" "bash: libc" "$libc" $want
# (Debian maps it through the symbolic link's target, libtinfo.so.6.4)
sealed "$tmp/bash.smaps" "bash: libtinfo" '/libtinfo\.so\.6(\.[0-9]+)*$' $want

mseal-run /usr/bin/python3 -c '
import ctypes, decimal, sys
sys.stdout.write(open("/proc/self/smaps").read())' >"$tmp/py.smaps" 2>/dev/null
sealed "$tmp/py.smaps" "python3: the executable" '^/usr/bin/python3\.11$' $want
sealed "$tmp/py.smaps" "python3: ld.so" "$ld" $want
sealed "$tmp/py.smaps" "python3: libc" "$libc" $want
sealed "$tmp/py.smaps" "python3: libm, libz, libexpat (loaded at startup)" \
	'/lib(m\.so\.6|z\.so\.1|expat\.so\.1)$' $want
sealed "$tmp/py.smaps" "python3: extension modules and libffi (dlopen()ed, can be unloaded)" \
	'(/lib-dynload/.*\.so|/libffi\.so\.8|/libmpdec\.so\.3)$' none

# shellcheck disable=SC2016 # perl code
mseal-run /usr/bin/perl -MPOSIX -MList::Util -e '
open my $f, "<", "/proc/self/smaps" or die; print <$f>' >"$tmp/perl.smaps" 2>/dev/null
sealed "$tmp/perl.smaps" "perl: the executable" '^/usr/bin/perl$' $want
sealed "$tmp/perl.smaps" "perl: ld.so" "$ld" $want
sealed "$tmp/perl.smaps" "perl: libc" "$libc" $want
sealed "$tmp/perl.smaps" "perl: libm and libcrypt" '/lib(m\.so\.6|crypt\.so\.1)$' $want
sealed "$tmp/perl.smaps" "perl: XS modules (dlopen()ed)" '/auto/.*\.so$' none

# dlopen_loop reports on stderr what smaps shows at each step.
mseal-run "$run/dlopen_loop" "$run" 20 >/dev/null 2>"$tmp/dl.err"
expect_dl() { # expect_dl NAME yes|no DESCRIPTION: the report for NAME says so
	if grep -qx "sealed $1 $2" "$tmp/dl.err"; then ok "dlopen_loop: $3"; else
		notok "dlopen_loop: $3"
		show "$tmp/dl.err"
	fi
}
yes=no
[ $sealing = 1 ] && yes=yes
if grep -qx "sealed /libplugin.so no" "$tmp/dl.err"; then
	ok "dlopen_loop: a plain dlopen()ed library is not sealed"
else
	notok "dlopen_loop: a plain dlopen()ed library is not sealed"
fi
expect_dl /libplugin_nodelete.so $yes "a DF_1_NODELETE library is sealed ($yes)"
if [ "$(grep -c '^sealed /libplugin.so ' "$tmp/dl.err")" = 2 ] &&
	[ "$(grep '^sealed /libplugin.so ' "$tmp/dl.err" | tail -n 1)" = "sealed /libplugin.so $yes" ]; then
	ok "dlopen_loop: the library opened again with RTLD_NODELETE is sealed ($yes)"
else
	notok "dlopen_loop: the library opened again with RTLD_NODELETE is sealed ($yes)"
	show "$tmp/dl.err"
fi
expect_dl /libc.so.6 $yes "libc is sealed ($yes)"
expect_dl /ld-linux-x86-64.so.2 $yes "ld.so is sealed ($yes)"
expect_dl /dlopen_loop $yes "the executable is sealed ($yes)"

# Issue 26, item 7: another thread's dlclose() while the dlopen() wrapper
# looks at the loaded objects (the old wrapper read them after the loader's
# lock was dropped: SIGSEGV within seconds).
mseal-run "$run/dlclose_race" "$run/race" 60 >"$tmp/race.out" 2>"$tmp/race.err"
rc=$?
check "dlclose() in another thread during the dlopen() wrapper's work: no crash (exit $rc, $(cat "$tmp/race.out"))" \
	[ $rc = 0 ]
show "$tmp/race.err"

# Item 8: programs people run. A 32-bit program: its loader expands $LIB
# to lib32 and loads the i386 build (no "wrong ELF class" error), which
# seals it.
# (A system without libc6-i386 has no 32-bit loader: such programs do not
# run there at all, sealed or not.)
if [ -e /lib/ld-linux.so.2 ]; then
	mseal-run "$run/probe32" >"$tmp/p32.smaps" 2>"$tmp/p32.err"
	rc=$?
	check "a 32-bit program under mseal-run: runs, nothing on stderr (exit $rc)" [ $rc = 0 -a ! -s "$tmp/p32.err" ]
	show "$tmp/p32.err"
	sealed "$tmp/p32.smaps" "32-bit program: the executable" '/probe32$' $want
	sealed "$tmp/p32.smaps" "32-bit program: ld.so" '/ld-linux\.so\.2$' $want
	sealed "$tmp/p32.smaps" "32-bit program: libc" '/lib32/libc\.so\.6$' $want
	sealed "$tmp/p32.smaps" "32-bit program: the i386 libmseal-run.so" '/i386-linux-gnu/libmseal-run\.so$' $want
else
	skipped "a 32-bit program under mseal-run: no 32-bit loader here (/lib/ld-linux.so.2: libc6-i386 is not installed)"
fi
# AddressSanitizer: its runtime comes after the preloaded library; it must
# neither abort ("ASan runtime does not come first") nor stop catching.
# (detect_leaks=0: LeakSanitizer's stop-the-world is not what is tested.)
ASAN_OPTIONS=detect_leaks=0 mseal-run "$run/asan_probe" >"$tmp/asan.smaps" 2>"$tmp/asan.err"
rc=$?
check "an AddressSanitizer program under mseal-run: runs, nothing on stderr (exit $rc)" \
	[ $rc = 0 -a ! -s "$tmp/asan.err" ]
show "$tmp/asan.err"
sealed "$tmp/asan.smaps" "AddressSanitizer program: the executable" '/asan_probe$' $want
sealed "$tmp/asan.smaps" "AddressSanitizer program: libasan" '/libasan\.so\.8(\.[0-9.]+)?$' $want
ASAN_OPTIONS=detect_leaks=0 mseal-run "$run/asan_probe" overflow >/dev/null 2>"$tmp/asan.err"
rc=$?
check "an AddressSanitizer program under mseal-run: an overflow is still caught (exit $rc)" \
	sh -c "[ $rc != 0 ] && grep -q 'heap-buffer-overflow' '$tmp/asan.err'"
# valgrind 3.19 does not know mseal(): nothing is sealed under it, quietly.
if command -v valgrind.bin >/dev/null; then
	mseal-run valgrind.bin --tool=none -q /usr/bin/echo ran >"$tmp/vg.out" 2>"$tmp/vg.err"
	rc=$?
	check "valgrind under mseal-run: the program runs, nothing on stderr (exit $rc)" \
		[ $rc = 0 -a "$(cat "$tmp/vg.out")" = ran -a ! -s "$tmp/vg.err" ]
	show "$tmp/vg.err"
else
	skipped "valgrind under mseal-run: valgrind is not installed here"
fi

# Item 10: MSEAL_RUN_FATAL=1 is fatal before main() only; a library that
# cannot be sealed dlopen()ed later gives a warning, and the program runs on.
MSEAL_RUN_FATAL=1 mseal-run "$run/dlopen_one" "$run/libpunch_nodelete.so" >"$tmp/one.out" 2>"$tmp/one.err"
rc=$?
if [ $sealing = 1 ]; then
	check "MSEAL_RUN_FATAL=1, a failure in a dlopen() after main(): the program runs on (exit $rc)" \
		[ $rc = 0 -a "$(cat "$tmp/one.out")" = "ran on" ]
	check "MSEAL_RUN_FATAL=1, a failure in a dlopen() after main(): one warning" \
		[ "$(grep -c '^mseal-run: warning: .*libpunch_nodelete' "$tmp/one.err")" = 1 -a "$(wc -l <"$tmp/one.err")" = 1 ]
	show "$tmp/one.err"
else
	check "MSEAL_RUN_FATAL=1, a dlopen() after main() on a kernel that cannot seal: runs on (exit $rc)" \
		[ $rc = 0 -a "$(cat "$tmp/one.out")" = "ran on" ]
fi

# The attacks.
if [ $sealing = 1 ]; then
	mseal-run "$run/seal_attack" sealed >"$tmp/attack" 2>&1
	rc=$?
	sed 's/^/#   /' "$tmp/attack"
	check "seal_attack under mseal-run: all four attempts refused, contents intact" \
		[ $rc = 0 -a "$(grep -c '^ok' "$tmp/attack")" = 4 ]
fi
mseal-run "$run/seal_attack" unsealed >"$tmp/attack" 2>/dev/null
rc=$?
if [ $sealing = 1 ]; then
	# Under mseal-run the attacks must fail: "unsealed" expectations fail.
	check "seal_attack: the same attacks succeed when nothing is sealed" \
		sh -c "'$run/seal_attack' unsealed >/dev/null"
else
	check "seal_attack under mseal-run on a kernel that cannot seal: the attacks succeed" [ $rc = 0 ]
fi

# The failure policy: libpunch.so unmaps a page of its own, leaving a hole
# that mseal() cannot seal (ENOMEM), on any kernel with mseal().
LD_PRELOAD=$run/libpunch.so mseal-run /usr/bin/echo ran >"$tmp/p.out" 2>"$tmp/p.err"
rc=$?
if [ "$abi" = none ]; then
	check "failure policy, no mseal(): the program runs, silent" \
		[ $rc = 0 -a "$(cat "$tmp/p.out")" = ran -a ! -s "$tmp/p.err" ]
	LD_PRELOAD=$run/libpunch.so MSEAL_RUN_FATAL=1 mseal-run /usr/bin/echo ran >"$tmp/p.out" 2>"$tmp/p.err"
	rc=$?
	check "failure policy, no mseal(), MSEAL_RUN_FATAL=1: still runs, silent (ENOSYS is no failure)" \
		[ $rc = 0 -a "$(cat "$tmp/p.out")" = ran -a ! -s "$tmp/p.err" ]
else
	check "failure policy: the program runs on after a failure" [ $rc = 0 -a "$(cat "$tmp/p.out")" = ran ]
	# (v6-old: nothing is sealable, the first failure is the executable)
	obj='libpunch\.so'
	[ "$abi" = v6-old ] && obj='the executable'
	check "failure policy: exactly one warning, naming the object" \
		[ "$(grep -c "^mseal-run: warning: .*(first: [^)]*$obj" "$tmp/p.err")" = 1 -a "$(wc -l <"$tmp/p.err")" = 1 ]
	show "$tmp/p.err"
	LD_PRELOAD=$run/libpunch.so MSEAL_RUN_FATAL=1 mseal-run /usr/bin/echo ran >"$tmp/p.out" 2>"$tmp/p.err"
	rc=$?
	check "failure policy, MSEAL_RUN_FATAL=1: exit 127 before main()" \
		[ $rc = 127 -a ! -s "$tmp/p.out" ]
	check "failure policy, MSEAL_RUN_FATAL=1: one error line" \
		[ "$(grep -c '^mseal-run: error: ' "$tmp/p.err")" = 1 ]
fi

# A seccomp filter that fails mseal() with ENOSYS (systemd 252's for a call
# their libseccomp cannot name): silent where the kernel has no mseal(), one
# warning where it has (it publishes /proc/sys/vm/mseal_abi).
"$run/no_mseal" mseal-run /usr/bin/echo ran >"$tmp/s.out" 2>"$tmp/s.err"
rc=$?
if [ $rc = 4 ]; then
	# The test guest's kernel has no CONFIG_SECCOMP (make system's has).
	skipped "a seccomp filter with ENOSYS for mseal(): this kernel has no seccomp filters"
elif [ "$abi" = none ] || [ ! -e /proc/sys/vm/mseal_abi ]; then
	check "a seccomp filter with ENOSYS for mseal(), no mseal() in the kernel: runs, silent" \
		[ $rc = 0 -a "$(cat "$tmp/s.out")" = ran -a ! -s "$tmp/s.err" ]
else
	check "a seccomp filter with ENOSYS for mseal(): the program runs, with one warning" \
		[ $rc = 0 -a "$(cat "$tmp/s.out")" = ran -a "$(wc -l <"$tmp/s.err")" = 1 ]
	check "a seccomp filter with ENOSYS for mseal(): the warning names the cause" \
		grep -q '^mseal-run: warning: mseal() fails with ENOSYS on a kernel that has it' "$tmp/s.err"
	show "$tmp/s.err"
	MSEAL_RUN_FATAL=1 "$run/no_mseal" mseal-run /usr/bin/echo ran >"$tmp/s.out" 2>"$tmp/s.err"
	rc=$?
	check "a seccomp filter with ENOSYS for mseal(), MSEAL_RUN_FATAL=1: exit 127 before main()" \
		[ $rc = 127 -a ! -s "$tmp/s.out" ]
fi
if [ "$abi" = v6 ]; then
	# The library without mseal-run's opt-in: ld.so mapped the libraries
	# unsealable. The executable and ld.so are still sealed (binfmt_elf).
	LD_PRELOAD=$lib /usr/bin/cat /proc/self/smaps >"$tmp/noopt.smaps" 2>"$tmp/noopt.err"
	rc=$?
	check "v6 without the opt-in: the program runs on, one warning about EACCES" \
		[ $rc = 0 -a "$(grep -c 'warning: .*Permission denied' "$tmp/noopt.err")" = 1 ]
	show "$tmp/noopt.err"
	sealed "$tmp/noopt.smaps" "v6 without the opt-in: the executable still sealed" '^/usr/bin/cat$' all
	sealed "$tmp/noopt.smaps" "v6 without the opt-in: ld.so still sealed" "$ld" all
fi

# The wrapper: a statically linked program cannot be sealed by LD_PRELOAD.
# (mseal-run itself is one, in the busybox guest and in a Debian system.)
mseal-run "$(command -v mseal-run)" --version >/dev/null 2>"$tmp/st.err"
rc=$?
if [ "$abi" = none ]; then
	check "a static program: runs, silent on a kernel without mseal()" [ $rc = 0 -a ! -s "$tmp/st.err" ]
else
	check "a static program: runs, with a warning that it is not sealed" \
		[ $rc = 0 -a "$(grep -c 'statically linked' "$tmp/st.err")" = 1 ]
fi

# The system-wide switch, on a scratch root.
r=$tmp/root
mkdir -p "$r/etc" "$r${lib%/*}"
cp "$lib" "$r$lib"
echo /usr/lib/other.so >"$r/etc/ld.so.preload"
mseal-run --system on --root "$r" >/dev/null
# shellcheck disable=SC2016 # $LIB is for the loader
check "--system on: ld.so.preload names the library (/usr/\$LIB/...), keeps the other entry" \
	[ "$(cat "$r/etc/ld.so.preload")" = "$(printf '/usr/lib/other.so\n%s' '/usr/$LIB/libmseal-run.so')" ]
check "--system on: the GRUB drop-in puts mseal_exec=on on the kernel command line, no init=" \
	sh -c "grep -q 'mseal_exec=on' '$r/etc/default/grub.d/mseal-run.cfg' && ! grep -q 'init=' '$r/etc/default/grub.d/mseal-run.cfg'"
mseal-run --system on --root "$r" >/dev/null
check "--system on twice: no second entry" [ "$(grep -c libmseal-run "$r/etc/ld.so.preload")" = 1 ]
mseal-run --system status --root "$r" >"$tmp/status"
check "--system status: on (exit 0)" grep -q 'sealing: on' "$tmp/status"
mseal-run --system off --root "$r" >/dev/null
check "--system off: the library gone from ld.so.preload, the other entry kept" \
	[ "$(cat "$r/etc/ld.so.preload")" = /usr/lib/other.so ]
check "--system off: the GRUB drop-in gone" [ ! -e "$r/etc/default/grub.d/mseal-run.cfg" ]
mseal-run --system status --root "$r" >/dev/null
check "--system status: off (exit 3)" [ $? = 3 ]

# System-wide for real in this guest: /etc/ld.so.preload, no wrapper.
mkdir -p /etc
dropin=/etc/default/grub.d/mseal-run.cfg
stub=
if [ ! -e /usr/sbin/update-grub ]; then
	# Issue 26, item 9: no GRUB here. --system on says what it could not
	# install; the preload only where this kernel seals without it.
	mseal-run --system on >"$tmp/on.out" 2>"$tmp/on.err"
	rc=$?
	check "--system on without update-grub: exit 1, saying what it could not install" \
		sh -c "[ $rc = 1 ] && grep -q 'could not install mseal_exec=on on the kernel command line: no /usr/sbin/update-grub' '$tmp/on.err'"
	show "$tmp/on.err"
	if [ "$abi" = v6 ] || [ "$abi" = v6-old ]; then
		check "--system on without update-grub, v6 kernel: nothing installed (every program would warn)" \
			[ ! -e /etc/ld.so.preload -a ! -e $dropin ]
	else
		check "--system on without update-grub, a kernel that seals without it ($abi): the preload installed, no drop-in" \
			sh -c "grep -qx '/usr/\$LIB/libmseal-run.so' /etc/ld.so.preload && [ ! -e $dropin ]"
	fi
	mseal-run --system off >/dev/null 2>&1
	# A stand-in for GRUB's: grub.cfg made from the drop-ins, or a failure.
	stub=1
	mkdir -p /usr/sbin
	printf '%s\n' '#!/bin/sh' '[ ! -e /tmp/update-grub-fails ] || exit 1' \
		'mkdir -p /boot/grub && cat /etc/default/grub.d/*.cfg >/boot/grub/grub.cfg' >/usr/sbin/update-grub
	chmod 755 /usr/sbin/update-grub
	: >/tmp/update-grub-fails
	mseal-run --system on >/dev/null 2>"$tmp/on.err"
	rc=$?
	check "--system on, update-grub fails: exit 1, says so, no drop-in left" \
		sh -c "[ $rc = 1 ] && grep -q 'update-grub failed' '$tmp/on.err' && [ ! -e $dropin ]"
	rm -f /tmp/update-grub-fails
	mseal-run --system off >/dev/null 2>&1
fi
mseal-run --system on >/dev/null 2>"$tmp/on.err"
rc=$?
check "--system on with update-grub: exit 0, mseal_exec=on in grub.cfg (exit $rc)" \
	sh -c "[ $rc = 0 ] && grep -q 'mseal_exec=on' /boot/grub/grub.cfg"
show "$tmp/on.err"
# Until the reboot brings mseal_exec=on, a v6 kernel refuses the libraries
# of the programs that did not opt in: no warning from each of them.
if [ "$abi" = v6 ] && [ "$(cat /proc/sys/vm/mseal_exec 2>/dev/null)" = off ]; then
	/usr/bin/cat /proc/self/smaps >/dev/null 2>"$tmp/pending.err"
	check "between --system on and the reboot (v6, mseal_exec off): a program prints nothing" \
		[ ! -s "$tmp/pending.err" ]
	show "$tmp/pending.err"
fi
MSEAL_INIT=/usr/bin/cat /usr/sbin/mseal-init /proc/self/smaps >"$tmp/sys.smaps" 2>"$tmp/sys.err"
sealed "$tmp/sys.smaps" "system-wide (ld.so.preload, started by mseal-init): libc" "$libc" $want
sealed "$tmp/sys.smaps" "system-wide: the executable" '^/usr/bin/cat$' $want
check "system-wide: nothing on stderr" [ ! -s "$tmp/sys.err" -o "$abi" = v6-old ]
if [ -e /lib/ld-linux.so.2 ]; then
	MSEAL_INIT=$run/probe32 /usr/sbin/mseal-init >"$tmp/sys32.smaps" 2>"$tmp/sys32.err"
	check "system-wide, a 32-bit program: nothing on stderr (no wrong ELF class)" [ ! -s "$tmp/sys32.err" -o "$abi" = v6-old ]
	show "$tmp/sys32.err"
	sealed "$tmp/sys32.smaps" "system-wide, a 32-bit program: libc" '/lib32/libc\.so\.6$' $want
else
	skipped "system-wide, a 32-bit program: no 32-bit loader here (libc6-i386 is not installed)"
fi
# AddressSanitizer and valgrind under ld.so.preload, as under mseal-run.
ASAN_OPTIONS=detect_leaks=0 MSEAL_INIT=$run/asan_probe /usr/sbin/mseal-init >"$tmp/sysasan.smaps" 2>"$tmp/sysasan.err"
rc=$?
check "system-wide, an AddressSanitizer program: runs, nothing on stderr (exit $rc)" \
	[ $rc = 0 -a ! -s "$tmp/sysasan.err" ]
show "$tmp/sysasan.err"
sealed "$tmp/sysasan.smaps" "system-wide, an AddressSanitizer program: libasan" '/libasan\.so\.8(\.[0-9.]+)?$' $want
if [ -x /usr/bin/valgrind.bin ]; then
	MSEAL_INIT=/usr/bin/valgrind.bin /usr/sbin/mseal-init --tool=none -q /usr/bin/echo ran >"$tmp/sysvg.out" 2>"$tmp/sysvg.err"
	rc=$?
	check "system-wide, valgrind: the program runs, nothing on stderr (exit $rc)" \
		[ $rc = 0 -a "$(cat "$tmp/sysvg.out")" = ran -a ! -s "$tmp/sysvg.err" ]
	show "$tmp/sysvg.err"
else
	skipped "system-wide, valgrind: valgrind is not installed here"
fi
# Issue 28, item 2: MSEAL_RUN=0 opts out, unless sealing is enforced.
MSEAL_RUN=0 MSEAL_INIT=/usr/bin/cat /usr/sbin/mseal-init /proc/self/smaps >"$tmp/out.smaps" 2>/dev/null
sealed "$tmp/out.smaps" "system-wide, MSEAL_RUN=0: libc not sealed (the opt-out)" "$libc" none
mseal-run --system enforce >/dev/null 2>&1
rc=$?
check "--system enforce: exit 0, status says enforced (exit $rc)" \
	sh -c "[ $rc = 0 ] && mseal-run --system status | grep -q '^enforced: yes'"
MSEAL_RUN=0 MSEAL_INIT=/usr/bin/cat /usr/sbin/mseal-init /proc/self/smaps >"$tmp/enf.smaps" 2>"$tmp/enf.err"
sealed "$tmp/enf.smaps" "enforced, MSEAL_RUN=0: libc sealed all the same" "$libc" $want
check "enforced, MSEAL_RUN=0: one line says it is ignored" \
	[ "$(grep -c '^mseal-run: warning: MSEAL_RUN=0 ignored' "$tmp/enf.err")" = 1 -a "$(wc -l <"$tmp/enf.err")" = 1 ]
mseal-run --system off >/dev/null 2>&1
check "--system off: no preload entry, no marker, no drop-in" \
	sh -c "[ ! -e /etc/mseal-run/enforce ] && [ ! -e $dropin ] && ! grep -qs libmseal-run /etc/ld.so.preload"
/usr/bin/cat /proc/self/smaps >"$tmp/off.smaps"
sealed "$tmp/off.smaps" "system-wide off again: libc not sealed" "$libc" none
if [ -n "$stub" ]; then
	rm -rf /usr/sbin/update-grub /boot/grub
fi

rm -rf "$tmp"
echo "1..$n"
[ $fails = 0 ]
