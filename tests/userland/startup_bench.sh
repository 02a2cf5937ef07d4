#!/bin/sh
# startup_bench ROUNDS (in the guest, userland layer): the time from execve()
# to main() plainly, with the library preloaded, and under mseal-run
# (startup_probe), then what sealing did in one run (MSEAL_RUN_VERBOSE), and
# the time from fork() to exit of python3, perl and bash doing nothing,
# plain and under mseal-run. With the glibc layer (tools/vm --glibc: an
# ld.so that seals, glibc/), also "ldso": the process opted in and nothing
# preloaded, so that ld.so seals (system-wide sealing as installed); the
# preload mode then runs with glibc.rtld.seal=0 (the library alone).
# Prints "R" lines for bench/startup.
rounds=${1:-50}
run=/opt/mseal/run
lib=/usr/lib/x86_64-linux-gnu/libmseal-run.so
modes="plain preload mseal-run"
if /lib64/ld-linux-x86-64.so.2 --list-tunables 2>/dev/null | grep -q '^glibc\.rtld\.seal:'; then
	modes="plain ldso preload mseal-run"
	export STARTUP_PRELOAD_ENV=GLIBC_TUNABLES=glibc.rtld.seal=0
	echo "I	ld.so seals (glibc.rtld.seal)"
fi
echo "I	kernel $(uname -r), mseal ABI $("$run/seal_attack" abi)"
# shellcheck disable=SC2086 # words on purpose
"$run/startup_probe" "$rounds" "$lib" $modes || exit 1
# The mseal() calls one sealed start makes.
MSEAL_RUN_VERBOSE=1 STARTUP_T0=0 mseal-run "$run/startup_probe" 3>/dev/null 2>&1 |
	sed -n 's/^mseal-run: startup: \([0-9]*\) objects, \([0-9]*\) sealed, \([0-9]*\) not, \([0-9]*\) mseal() calls$/R	calls	startup_probe	\2	\4	calls/p'
MSEAL_RUN_VERBOSE=1 mseal-run /usr/bin/python3 -c pass 2>&1 |
	sed -n 's/^mseal-run: startup: \([0-9]*\) objects, \([0-9]*\) sealed, \([0-9]*\) not, \([0-9]*\) mseal() calls$/R	calls	python3	\2	\4	calls/p'
# execve() to exit, whole programs.
n=$((rounds / 10 + 1))
for prog in "/usr/bin/python3 -c pass" "/usr/bin/perl -e 1" "/usr/bin/bash -c :"; do
	name=${prog%% *}
	name=${name##*/}
	# shellcheck disable=SC2086 # words on purpose
	"$run/startup_probe" --exit $n "$name" plain $prog || exit 1
	case $modes in
	*ldso*)
		# shellcheck disable=SC2086
		"$run/startup_probe" --exit $n "$name" ldso $prog || exit 1
		;;
	esac
	# shellcheck disable=SC2086
	"$run/startup_probe" --exit $n "$name" mseal-run mseal-run $prog || exit 1
done
