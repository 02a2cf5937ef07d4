#!/bin/sh
# In the guest: run test suites, each framed by "# suite NAME" and
# "# suite NAME exit N" for tests/run to count.
#
# usage: run-tests.sh [--abi=ABI] [--debug] [SUITE...]
#            every /opt/mseal/bin/*_test by default; with --debug, also the
#            *_dtest suites, which need the debug kernel (fault injection),
#            and 5 x 10,000 calls of the fuzzer (mseal_fuzz) in the active ABI,
#            then its fixed regression sequences (mseal_fuzz --regress).
#            Mainline 6.12's selftests (mainline_*) run where the kernel
#            speaks mainline's ABI; elsewhere they must skip, and that is
#            checked instead. --abi=ABI: check first that the kernel speaks
#            ABI (v6 or mainline), as /proc/sys/vm/mseal_abi says.
#        run-tests.sh --baseline   the checks for the unpatched kernel
bin=/opt/mseal/bin
pattern='*_test'
want_abi=
case ${1:-} in
--abi=*) want_abi=${1#--abi=}; shift ;;
esac
fuzz=
if [ "${1:-}" = --debug ]; then
	pattern='*_test *_dtest'
	fuzz=10000
	shift
fi
abi=$(cat /proc/sys/vm/mseal_abi 2>/dev/null || echo none)
echo "# mseal_abi: $abi"

run() {
	name=$1
	shift
	echo "# suite $name"
	"$@" 2>&1
	echo "# suite $name exit $?"
}

if [ "${1:-}" = --baseline ]; then
	run baseline_check "$bin/baseline_check"
	# The series' kselftests must see that mseal() is missing and say so.
	n=0
	echo "# suite kselftests-on-baseline"
	# (and on arm64 the 32-bit compat test, where it is built)
	compat=
	[ ! -x "$bin/mseal_compat32_test" ] || compat=mseal_compat32_test
	for t in mseal_test mseal_paths_test $compat; do
		n=$((n + 1))
		out=$("$bin/$t" 2>&1)
		rc=$?
		echo "$out" | sed 's/^/# /'
		if [ $rc -eq 4 ] && echo "$out" | grep -q 'ENOSYS'; then
			echo "ok $n $t skips: mseal() is not implemented (ENOSYS)"
		else
			echo "not ok $n $t should skip with ENOSYS, exited $rc"
		fi
	done
	echo "# suite kselftests-on-baseline exit 0"
	# mseal-run (userland layer): programs run unsealed and silent.
	[ -x $bin/mseal_run_test ] && run mseal_run_test "$bin/mseal_run_test"
	[ -x $bin/mseal_gdb_test ] && run mseal_gdb_test "$bin/mseal_gdb_test"
	exit 0
fi

if [ -n "$want_abi" ]; then
	echo "# suite mseal_abi"
	if [ "$abi" = "$want_abi" ]; then
		echo "ok 1 /proc/sys/vm/mseal_abi says $abi"
	else
		echo "not ok 1 /proc/sys/vm/mseal_abi says $abi, not $want_abi"
	fi
	echo "# suite mseal_abi exit 0"
fi

# Mainline's selftests, as a kselftest runner would run them: mseal_test
# maps address 0, which vm.mmap_min_addr must allow.
mainline_selftest() {
	t=$1
	if [ "$abi" = mainline ]; then
		min=$(cat /proc/sys/vm/mmap_min_addr)
		echo 0 >/proc/sys/vm/mmap_min_addr
		run "$t" "$bin/$t"
		echo "$min" >/proc/sys/vm/mmap_min_addr
		return
	fi
	# In the v6 ABI their probe (mseal() of a plain mapping) fails.
	echo "# suite $t-on-v6"
	out=$("$bin/$t" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ $rc -eq 4 ] && echo "$out" | grep -q 'sealing not supported'; then
		echo "ok 1 $t skips: sealing not supported (no MAP_SEALABLE)"
	else
		echo "not ok 1 $t should skip in the $abi ABI, exited $rc"
	fi
	echo "# suite $t-on-v6 exit 0"
}

# The model-based fuzzer, in the ABI the kernel speaks (the debug runs
# boot both), under KASAN and lockdep: five runs of 10,000 calls, each a
# test of its own, so that a slow guest still prints within the silence
# limit of tests/run. make fuzz goes longer. Then the fixed sequences where
# the model once went wrong (mseal_fuzz --regress).
# fuzz_run N ARGS...: one run of the fuzzer, test N of its suite.
fuzz_run() {
	fn=$1
	shift
	out=$("$bin/mseal_fuzz" "$@" --abi "$abi" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ $rc -eq 0 ]; then
		echo "ok $fn mseal_fuzz $*: $(echo "$out" | grep '^fuzz: ')"
	else
		echo "not ok $fn mseal_fuzz $* exited $rc"
	fi
}
fuzz_suite() {
	echo "# suite mseal_fuzz"
	for i in 1 2 3 4 5; do
		fuzz_run "$i" --ops "$fuzz"
	done
	fuzz_run 6 --regress
	echo "# suite mseal_fuzz exit 0"
}

if [ $# -eq 0 ]; then
	[ -z "$fuzz" ] || fuzz_suite
	# shellcheck disable=SC2086,SC2046,SC2012 # the pattern and the list are meant to be split
	set -- $(cd $bin && ls -- $pattern 2>/dev/null | sed '/^mainline_/d') \
		$(cd $bin && ls -- mainline_* 2>/dev/null)
fi
for t in "$@"; do
	[ -x "$bin/$t" ] || { echo "# suite $t"; echo "not ok 1 no such suite: $t"; echo "# suite $t exit 1"; continue; }
	case $t in
	mainline_*) mainline_selftest "$t" ;;
	*) run "$t" "$bin/$t" ;;
	esac
done
