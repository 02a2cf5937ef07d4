#!/bin/sh
# In the guest: fuzz the mm syscalls with trinity for MINUTES while
# seal-keeper holds sealed memory, then print the keeper's verdict and a
# summary. fuzz/trinity-run builds the helpers and runs this on the debug
# kernel.
#
# usage: trinity.sh [MINUTES]     (default 5)
#
# Needs seal-keeper next to this script or on PATH, and uses seal-shim.so
# from there too if present (LD_PRELOAD: trinity's mappings become sealable
# and its children seal about half of them). trinity refuses to run as root
# without --dangerous, so it runs as uid/gid 65534 (seal-keeper runas), in
# a tmpfs directory of its own, with logging off (-l off), quiet (-q), and
# only the syscalls below (-c), 32- and 64-bit entry points. trinity has no
# mseal() (its tables end at syscall 450), so it cannot call it; the shim's
# sealing is how the fuzzed calls meet sealed VMAs.
#
# Environment: TRINITY_ARGS (extra trinity arguments), TRINITY_SEAL=0 (no
# sealing by the shim), TRINITY_CHILDREN (default: number of CPUs).
#
# Exit status: 0 if trinity ran for the whole time and the keeper's verdict
# is that sealing held; 1 otherwise.
minutes=${1:-5}
case $minutes in '' | *[!0-9]* | 0) echo "usage: trinity.sh [MINUTES]" >&2; exit 2 ;; esac

dir=$(cd "$(dirname "$0")" && pwd)
keeper=$dir/seal-keeper
[ -x "$keeper" ] || keeper=$(command -v seal-keeper) || { echo "trinity.sh: no seal-keeper" >&2; exit 1; }
trinity=/usr/bin/trinity
[ -x "$trinity" ] || { echo "trinity.sh: no $trinity in the guest" >&2; exit 1; }

syscalls="mmap munmap mremap mprotect pkey_mprotect madvise brk shmat shmdt remap_file_pages"
args="-q -l off -C ${TRINITY_CHILDREN:-$(nproc)} --stats --disable-fds=sockets"
for s in $syscalls; do
	args="$args -c $s"
done
preload=
if [ "${TRINITY_SEAL:-1}" != 0 ] && [ -f "$dir/seal-shim.so" ]; then
	preload=$dir/seal-shim.so
fi

work=/tmp/trinity-work
mkdir -p "$work"
chown 65534:65534 "$work"
klog=/tmp/keeper.log
tout=/tmp/trinity.out

# The debug kernel has kmemleak, and leaks from boot that its automatic scans
# would report in the middle of the run (tools/vm takes that for a splat):
# report them now and forget them (an object is reported at the second scan
# that finds it unreferenced; "clear" forgets what was reported), with the
# console's log level at 5 so the report stays off the console.
kmemleak=/sys/kernel/debug/kmemleak
if [ -w $kmemleak ]; then
	level=$(cut -f1 /proc/sys/kernel/printk)
	echo 5 >/proc/sys/kernel/printk
	echo scan >$kmemleak
	echo scan >$kmemleak
	before=$(grep -c 'unreferenced object' $kmemleak)
	echo clear >$kmemleak
	sleep 1
	echo "$level" >/proc/sys/kernel/printk
	echo "trinity.sh: kmemleak: $before objects unreferenced before the run, cleared"
fi

"$keeper" keep >"$klog" 2>&1 &
kpid=$!
i=0
until grep -q 'keeper: ready' "$klog" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 60 ] || ! kill -0 $kpid 2>/dev/null; then
		echo "trinity.sh: the keeper did not start:"
		cat "$klog"
		exit 1
	fi
	sleep 0.5
done
cat "$klog"

echo "trinity.sh: trinity $args ${TRINITY_ARGS:-} for $minutes min, as uid 65534${preload:+, LD_PRELOAD=$preload}"
start=$(date +%s)
# shellcheck disable=SC2086 # word lists on purpose
(cd "$work" && LD_PRELOAD=$preload timeout -s INT -k 120 $((minutes * 60)) \
	"$keeper" runas 65534 65534 "$trinity" $args ${TRINITY_ARGS:-}) >"$tout" 2>&1
trc=$?
end=$(date +%s)
secs=$((end - start))

kill -TERM $kpid
wait $kpid
krc=$?

echo "--- trinity's output (last 80 lines of $(wc -l <"$tout"))"
tail -n 80 "$tout"
echo "--- the keeper"
grep -v 'keeper: ready' "$klog"

leaks=
if [ -w $kmemleak ]; then
	# Objects are reported once unreferenced for 5 s, at the second scan.
	sleep 6
	echo scan >$kmemleak
	sleep 6
	echo scan >$kmemleak
	leaks=$(grep -c 'unreferenced object' $kmemleak)
	if [ "$leaks" -ne 0 ]; then
		echo "--- kmemleak"
		head -n 60 $kmemleak
	fi
fi

ran=$(grep -o 'Ran [0-9]* syscalls.*' "$tout" | tail -n 1)
echo "trinity.sh: ran $((secs / 60)) min $((secs % 60)) s (asked for $minutes min); trinity exit status $trc"
echo "trinity.sh: trinity syscalls: ${ran:-not reported}"
echo "trinity.sh: kmemleak: ${leaks:-(not available)} suspected leaks after the run"
status=0
if [ -n "$leaks" ] && [ "$leaks" -ne 0 ]; then
	status=1
fi
if [ $krc -ne 0 ]; then
	echo "trinity.sh: the keeper says sealing did NOT hold (status $krc)"
	status=1
fi
if [ $secs -lt $((minutes * 60 - 5)) ]; then
	echo "trinity.sh: trinity stopped early"
	status=1
fi
exit $status
