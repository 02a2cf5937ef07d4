#!/bin/sh
# In the Debian system, as root (tests/system/run boots it with tools/system
# and puts this and its companions in the working directory): the checks of
# make system, in TAP, each suite framed by "# suite NAME" and
# "# suite NAME exit N" as tests/guest/run-tests.sh frames them.
#
# usage: checks.sh sealed|ldso|unsealed v6|mainline
#   sealed    system-wide sealing on (mseal-run --system on) and the rebuilt
#             glibc, whose ld.so seals (tools/glibc): every process must be
#             sealed; ldso: the same without /etc/ld.so.preload, ld.so
#             alone seals; unsealed: the control (Debian's glibc), where
#             no process may be
#   v6|mainline   the ABI the kernel must speak (/proc/sys/vm/mseal_abi)
#
# Companions (in the working directory): sealed.py, workload.sh, shapes.sh, logscan
# (tools/logscan), opt-mseal.tar (the guest programs of tools/guest,
# unpacked into /opt/mseal). MSEAL_FUZZ_OPS: the fuzzer's length (20000).
expect=${1:-} abi=${2:-}
case $expect/$abi in
sealed/v6 | sealed/mainline | unsealed/v6 | unsealed/mainline | ldso/v6) ;;
*) echo "usage: checks.sh sealed|ldso|unsealed v6|mainline" >&2; exit 2 ;;
esac
here=$(pwd)
n=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); echo "not ok $n $*"; }
check() { # check DESCRIPTION COMMAND...
	d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
suite() { n=0; echo "# suite $1"; }
end() { echo "# suite $1 exit ${2:-0}"; }
has() { grep -q -- "$1" "$2"; }

# -- the system: booted from its disk, the packaged kernel, the switch.
suite system
state=$(systemctl is-system-running)
if [ "$state" = running ]; then
	ok "systemctl is-system-running: running"
else
	notok "systemctl is-system-running: $state"
	systemctl --failed --no-legend --no-pager | sed 's/^/#   /'
fi
release=$(uname -r)
echo "# uname -r: $release; /proc/cmdline: $(cat /proc/cmdline)"
check "the kernel is the packaged one ($release), installed by dpkg" \
	sh -c "dpkg-query -W -f='\${Status}' linux-image-$release | grep -q 'install ok installed'"
check "its initramfs was made by Debian's hooks (/boot/initrd.img-$release)" \
	test -s "/boot/initrd.img-$release"
check "GRUB booted it from the disk (BOOT_IMAGE=/boot/vmlinuz-$release, root=UUID=)" \
	sh -c "grep -q 'BOOT_IMAGE=/boot/vmlinuz-$release .*root=UUID=' /proc/cmdline"
kabi=$(cat /proc/sys/vm/mseal_abi 2>/dev/null || echo none)
check "the kernel speaks the $abi ABI (/proc/sys/vm/mseal_abi: $kabi)" test "$kabi" = "$abi"
force=$(cat /proc/sys/vm/mseal_force 2>/dev/null || echo none)
check "mseal_force is the default, ptracer (/proc/sys/vm/mseal_force: $force)" test "$force" = ptracer
mseal-run --system status >status.out 2>&1
src=$?
sed 's/^/#   /' status.out
libc6=$(dpkg-query -W -f='${Version}' libc6)
if [ "$expect" = unsealed ]; then
	check "Debian's own glibc (libc6 $libc6)" sh -c "! /lib64/ld-linux-x86-64.so.2 --list-tunables | grep -q '^glibc.rtld.seal:'"
else
	check "the rebuilt glibc, whose ld.so seals (libc6 $libc6, glibc.rtld.seal)" \
		sh -c "/lib64/ld-linux-x86-64.so.2 --list-tunables | grep -q '^glibc.rtld.seal: 1 ' && case '$libc6' in *+mseal*) ;; *) false ;; esac"
fi
if [ "$expect" = ldso ]; then
	check "no library preloaded (/etc/ld.so.preload does not name libmseal-run.so)" \
		sh -c "! grep -qs libmseal-run /etc/ld.so.preload"
	check "mseal-run --system status: on, by ld.so (exit $src)" \
		sh -c "[ $src -eq 0 ] && grep -q '^system-wide sealing: on (ld.so seals' status.out"
	check "booted with mseal_exec=on (the GRUB drop-in), sealing at exec on" \
		sh -c "grep -q 'mseal_exec=on' /proc/cmdline && [ \"\$(cat /proc/sys/vm/mseal_exec)\" = on ]"
	check "this process maps sealable (mseal_exec=on opts every program in)" has 'this process: maps sealable' status.out
elif [ "$expect" = sealed ]; then
	check "mseal-run --system status: on" test $src -eq 0
	check "booted with mseal_exec=on (the GRUB drop-in), sealing at exec on" \
		sh -c "grep -q 'mseal_exec=on' /proc/cmdline && [ \"\$(cat /proc/sys/vm/mseal_exec)\" = on ]"
	[ "$abi" != v6 ] ||
		check "this process maps sealable (mseal_exec=on opts every program in)" has 'this process: maps sealable' status.out
else
	check "mseal-run --system status: off (exit 3)" test $src -eq 3
	check "no mseal_exec=on on the control's command line" sh -c '! grep -q mseal_exec=on /proc/cmdline'
fi
end system

# -- every process sealed (or, in the control, none), with what
# /etc/ld.so.preload never reaches running among them (issue 28): a static
# program (busybox-static's /bin/busybox), a Go program from Debian's
# archive (shfmt, statically linked, reading its standard input), and a
# container (systemd-nspawn: a minbase Debian root, no mseal-run in it).
# pidof NAME: the newest process called NAME, waiting for it (60 s).
pidof_new() {
	i=0
	while [ $i -lt 120 ]; do
		p=$(pgrep -n -x "$1") && { echo "$p"; return 0; }
		sleep 0.5
		i=$((i + 1))
	done
	echo 0
}
# contained NAME: a process called NAME whose root is not ours (60 s).
contained() {
	i=0
	while [ $i -lt 120 ]; do
		for p in $(pgrep -x "$1"); do
			[ "$(stat -L -c %d:%i "/proc/$p/root" 2>/dev/null)" = "$(stat -c %d:%i /)" ] ||
				{ echo "$p"; return 0; }
		done
		sleep 0.5
		i=$((i + 1))
	done
	echo 0
}
ct=/var/lib/machines/debian
busybox sleep 3600 &
bb=$!
sleep 3601 | shfmt >/dev/null &
systemd-nspawn -q --register=no --pipe -D $ct sh -c 'sleep 3602 & wait' </dev/null >nspawn.out 2>&1 &
ns=$!
go=$(pidof_new shfmt)
inside=$(contained sleep)
suite sealing
[ "$inside" != 0 ] || sed 's/^/# nspawn: /' nspawn.out
sexpect=$expect
[ "$expect" = ldso ] && sexpect=sealed
python3 ./sealed.py "$sexpect" busybox-static="$bb:static" shfmt="$go:go" container="$inside:container"
end sealing $?
# (the container ends when its sleep does: sh, its PID 1, then returns)
kill "$bb" "$go" "$inside" 2>/dev/null
pkill -x -f 'sleep 3601' 2>/dev/null
i=0
while kill -0 "$ns" 2>/dev/null && [ $i -lt 60 ]; do
	sleep 0.5
	i=$((i + 1))
done
kill -9 "$ns" 2>/dev/null
wait

# -- services of every shape of SystemCallFilter= (mseal-run-generator).
# (Not in the ldso image, which has no library to preload: what the
# generator adds is the same as in the sealed image.)
if [ "$expect" != ldso ]; then
	suite shapes
	sh ./shapes.sh "$expect"
	end shapes $?
fi

# -- journald, udev, the gettys and the other services keep working.
suite services
for u in systemd-journald systemd-udevd systemd-logind dbus cron serial-getty@ttyS0 getty@tty1; do
	check "systemctl is-active $u" sh -c "systemctl is-active --quiet $u"
done
marker="mseal-system-$$-$(date +%s)"
logger -t mseal-system "$marker"
journalctl --sync 2>/dev/null
check "journald records a message (logger, journalctl -t)" \
	sh -c "journalctl -b -t mseal-system --no-pager | grep -q '$marker'"
check "journalctl shows this boot's entries from systemd and the kernel" \
	sh -c "[ \$(journalctl -b --no-pager | wc -l) -gt 100 ] && journalctl -b -k --no-pager | grep -q 'Linux version $release'"
check "udevadm settle" udevadm settle --timeout=60
check "udevadm info: /dev/vda is a disk with a dos partition table" \
	sh -c "udevadm info --query=property /dev/vda | grep -qx 'ID_PART_TABLE_TYPE=dos'"
check "udevadm trigger of the command disk is processed (by-label link kept)" \
	sh -c "udevadm trigger --action=change --settle /dev/vdb && test -L /dev/disk/by-label/mseal-cmd"
check "agetty runs on the serial console and on tty1" \
	sh -c "ps -C agetty -o tty= | grep -qx ' *ttyS0' && ps -C agetty -o tty= | grep -qx ' *tty1'"
end services

# -- real programs (tests/run compares the digests with the control's).
suite workload
sh ./workload.sh
end workload $?

# -- the project's guest suites, static programs, and the fuzzer.
tar -xf opt-mseal.tar -C /
# The suites about sealing at exec and the bytes behind the seal read what
# the kernel was booted with: every boot. The others and the fuzzer's model
# are written for a process that has not opted in to sealable mappings;
# with sealing on, mseal_exec=on starts every program opted in (no prctl()
# before an execve() undoes it), so they run in the controls, one in each
# ABI. (In the mainline ABI the opt-in still marks every mapping sealable,
# which mseal_test's merge checks and mseal_paths_test's v6-only refusal
# see.)
# mseal_exec_test checks what execve() alone seals, in each program it runs:
# user space's sealing (the preload, the sealing ld.so), which also seals the
# writable segments, is off for it.
MSEAL_RUN=0 GLIBC_TUNABLES=glibc.rtld.seal=0 /opt/mseal/bin/run-tests.sh --abi="$abi" mseal_exec_test
/opt/mseal/bin/run-tests.sh --abi="$abi" mseal_force_test mseal_holes_test
exec_now=$(cat /proc/sys/vm/mseal_exec 2>/dev/null || echo none)
[ "$exec_now" = on ] ||
	/opt/mseal/bin/run-tests.sh --abi="$abi" mseal_test mseal_paths_test mseal_elf_test \
		mseal_peer_test mseal_race_test header_test mainline_mseal_test mainline_seal_elf
# A debugger on sealed code (issue 27): Debian's gdb stops at a breakpoint
# in a program run under mseal-run and continues; the program cannot
# rewrite its own sealed code through /proc/self/mem, nor root without
# tracing it (mseal_force=ptracer, the default).
suite mseal_gdb_test
/opt/mseal/bin/mseal_gdb_test
end mseal_gdb_test $?
# mseal-run's own tests compare sealed runs with plain ones: plain runs exist
# only where ld.so.preload does not seal everything, on the control.
if [ "$expect" = unsealed ]; then
	suite mseal_run_test
	/opt/mseal/bin/mseal_run_test
	end mseal_run_test $?
fi
if [ "$exec_now" = on ]; then
	echo "# mseal_exec=on: mseal_test ... mainline_seal_elf and the fuzzer run in the controls"
else
	suite mseal_fuzz
	ops=${MSEAL_FUZZ_OPS:-20000}
	/opt/mseal/bin/mseal_fuzz --ops "$ops" --abi "$abi" >fuzz.out 2>&1
	rc=$?
	# The whole divergence report (the call, both results, the
	# reproducer's start) when it fails; the summary otherwise.
	if [ $rc -ne 0 ]; then
		sed 's/^/# /' fuzz.out | head -n 60
	fi
	sed 's/^/# /' fuzz.out | tail -n 5
	check "mseal_fuzz --ops $ops --abi $abi: $(grep '^fuzz: ' fuzz.out | tail -n 1)" test $rc -eq 0
	end mseal_fuzz
fi

# -- the kernel log, after all of it.
suite kernel-log
dmesg >dmesg.out
if ./logscan dmesg.out >splats.out; then
	ok "the kernel log is clean ($(wc -l <dmesg.out) lines, tools/logscan)"
else
	notok "the kernel log shows problems:"
	sed 's/^/#   /' splats.out | head -n 20
fi
end kernel-log
cd "$here" || exit 1
