#!/bin/sh
# startup_bench ROUNDS [off|on] (in the guest, userland layer): the time
# from execve() to main() (startup_probe), then what sealing did in one run
# (MSEAL_RUN_VERBOSE), and the time from fork() to exit of python3, perl
# and bash doing nothing. The second argument is the boot's mseal_exec
# (/proc/sys/vm/mseal_exec; checked).
#
# off (default): plainly, with the library preloaded and under mseal-run;
# with the glibc layer (tools/vm --glibc: an ld.so that seals, glibc/)
# also "ldso" (the process opted in by prctl, nothing preloaded: ld.so's
# sealing without execve()'s) and "noseal" (GLIBC_TUNABLES=
# glibc.rtld.seal=0, the other boot's reference), and the preload mode
# then runs with glibc.rtld.seal=0 (the library alone).
# on: every program starts opted in and execve() seals code and read-only
# data: "plain" is then system-wide sealing as mseal-run --system on
# installs it with the rebuilt glibc (execve()'s sealing and ld.so's), and
# "noseal" execve()'s alone. Without the glibc layer, "plain" is
# execve()'s sealing alone and "preload" the library on top (system-wide
# sealing with Debian's glibc).
# Prints "R" lines for bench/startup.
rounds=${1:-50}
boot=${2:-off}
run=/opt/mseal/run
lib=/usr/lib/x86_64-linux-gnu/libmseal-run.so
have=$(cat /proc/sys/vm/mseal_exec 2>/dev/null || echo off)
if [ "$have" != "$boot" ]; then
	echo "startup_bench: mseal_exec is $have, not $boot" >&2
	exit 1
fi
ldso=
if /lib64/ld-linux-x86-64.so.2 --list-tunables 2>/dev/null | grep -q '^glibc\.rtld\.seal:'; then
	ldso=1
	export STARTUP_PRELOAD_ENV=GLIBC_TUNABLES=glibc.rtld.seal=0
	echo "I	ld.so seals (glibc.rtld.seal)"
fi
case $boot$ldso in
off1) modes="plain noseal ldso preload mseal-run" exits="plain ldso mseal-run" ;;
off) modes="plain preload mseal-run" exits="plain mseal-run" ;;
on1) modes="plain noseal" exits="plain" ;;
on) modes="plain preload" exits="plain" ;;
esac
echo "I	kernel $(uname -r), mseal ABI $("$run/seal_attack" abi), mseal_exec=$have"
# shellcheck disable=SC2086 # words on purpose
"$run/startup_probe" "$rounds" "$lib" $modes || exit 1
if [ "$boot" = off ]; then
	# What the calls cost in the kernel (the same in either boot).
	"$run/seal_cost" "$rounds" || exit 1
	# The mseal() calls one sealed start makes.
	MSEAL_RUN_VERBOSE=1 STARTUP_T0=0 mseal-run "$run/startup_probe" 3>/dev/null 2>&1 |
		sed -n 's/^mseal-run: startup: \([0-9]*\) objects, \([0-9]*\) sealed, \([0-9]*\) not, \([0-9]*\) mseal() calls$/R	calls	startup_probe	\2	\4	calls/p'
	MSEAL_RUN_VERBOSE=1 mseal-run /usr/bin/python3 -c pass 2>&1 |
		sed -n 's/^mseal-run: startup: \([0-9]*\) objects, \([0-9]*\) sealed, \([0-9]*\) not, \([0-9]*\) mseal() calls$/R	calls	python3	\2	\4	calls/p'
fi
# execve() to exit, whole programs.
n=$((rounds / 10 + 1))
for prog in "/usr/bin/python3 -c pass" "/usr/bin/perl -e 1" "/usr/bin/bash -c :"; do
	name=${prog%% *}
	name=${name##*/}
	for mode in $exits; do
		if [ "$mode" = mseal-run ]; then
			# shellcheck disable=SC2086 # words on purpose
			"$run/startup_probe" --exit $n "$name" mseal-run mseal-run $prog || exit 1
		else
			# shellcheck disable=SC2086
			"$run/startup_probe" --exit $n "$name" "$mode" $prog || exit 1
		fi
	done
done
