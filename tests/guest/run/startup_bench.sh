#!/bin/sh
# startup_bench ROUNDS (in the guest, userland layer): the time from execve()
# to main() plainly, with the library preloaded, and under mseal-run
# (startup_probe), then what sealing did in one run (MSEAL_RUN_VERBOSE), and
# the time from execve() to exit of python3, perl and bash doing nothing,
# plain and under mseal-run. Prints "R" lines for bench/startup.
rounds=${1:-50}
run=/opt/mseal/run
lib=/usr/lib/x86_64-linux-gnu/libmseal-run.so
echo "I	kernel $(uname -r), mseal ABI $("$run/seal_attack" abi)"
"$run/startup_probe" "$rounds" "$lib" || exit 1
# The mseal() calls one sealed start makes.
MSEAL_RUN_VERBOSE=1 STARTUP_T0=0 mseal-run "$run/startup_probe" 3>/dev/null 2>&1 |
	sed -n 's/^mseal-run: startup: \([0-9]*\) objects, \([0-9]*\) sealed, \([0-9]*\) not, \([0-9]*\) mseal() calls$/R	calls	startup_probe	\1	\4	calls/p'
MSEAL_RUN_VERBOSE=1 mseal-run /usr/bin/python3 -c pass 2>&1 |
	sed -n 's/^mseal-run: startup: \([0-9]*\) objects, \([0-9]*\) sealed, \([0-9]*\) not, \([0-9]*\) mseal() calls$/R	calls	python3	\1	\4	calls/p'
# execve() to exit, whole programs (busybox time: too coarse; loop instead).
for prog in "/usr/bin/python3 -c pass" "/usr/bin/perl -e 1" "/usr/bin/bash -c :"; do
	name=${prog%% *}
	name=${name##*/}
	for mode in plain mseal-run; do
		pre=
		[ $mode = mseal-run ] && pre=mseal-run
		n=$((rounds / 5 + 1))
		t0=$(date +%s%N)
		i=0
		while [ $i -lt $n ]; do
			# shellcheck disable=SC2086 # words on purpose
			$pre $prog || exit 1
			i=$((i + 1))
		done
		t1=$(date +%s%N)
		echo "R	exit	$name	$mode	$(((t1 - t0) / n))	ns"
	done
done
