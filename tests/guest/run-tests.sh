#!/bin/sh
# In the guest: run test suites, each framed by "# suite NAME" and
# "# suite NAME exit N" for tests/run to count.
#
# usage: run-tests.sh [--debug] [SUITE...]
#            every /opt/mseal/bin/*_test by default; with --debug, also the
#            *_dtest suites, which need the debug kernel (fault injection)
#        run-tests.sh --baseline   the checks for the unpatched kernel
bin=/opt/mseal/bin
pattern='*_test'
if [ "${1:-}" = --debug ]; then
	pattern='*_test *_dtest'
	shift
fi

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
	exit 0
fi

if [ $# -eq 0 ]; then
	# shellcheck disable=SC2086,SC2046 # the pattern and the list are meant to be split
	set -- $(cd $bin && ls -- $pattern 2>/dev/null)
fi
for t in "$@"; do
	[ -x "$bin/$t" ] || { echo "# suite $t"; echo "not ok 1 no such suite: $t"; echo "# suite $t exit 1"; continue; }
	run "$t" "$bin/$t"
done
