# shellcheck shell=bash disable=SC2034 # settings used by the scripts that source this
# Shared settings for the pipeline scripts: sourced, never run.
#
#   series (patches/) -> tree (tools/tree) -> build (tools/build)
#                     -> guest (tools/guest) -> tests (tools/vm, tests/run)
#
# Everything large lives in the cache directory, never in the repository.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MSEAL_CACHE:-/var/tmp/linux-mseal}
SRC=$CACHE/src            # git tree: tag pristine-<version>, branch mseal
BASE=$CACHE/baseline      # git worktree of the pristine commit
BUILD=$CACHE/build        # O= directories: patched, baseline, *-debug
TARBALL=${MSEAL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PROG=$(basename "$0")

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# Paths below the cache are hashed relative to the build directory, so that
# two trees laid out alike (make check's $CACHE/check/src and
# $CACHE/check/build/guest, and $SRC with $BUILD/patched) share the objects
# of the same source: make check's last patches, and the kernel of make test
# after a make check, are cache hits.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE}

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "$*"; exit 1; }

# The architecture of the guest kernels and programs: x86_64 (the default),
# arm64, ppc64el, s390x or mips64el (Debian's names; cross-compiled, booted
# under qemu-system-aarch64, -ppc64, -s390x or -mips64el). All share the
# trees; everything built for another architecture lives in $CACHE/$ARCH.
#   ACACHE   the architecture's part of the cache: builds, guest, logs
#   KARCH    the kernel's name of the architecture (make ARCH=)
#   KIMAGE   the kernel image, relative to a build directory
#   CROSS    the compiler prefix for the kernel and the guest programs
#   BUSYBOX  the static busybox of the guest
ARCH=${ARCH:-x86_64}
case $ARCH in
x86_64)
	ACACHE=$CACHE
	KARCH=x86
	KIMAGE=arch/x86/boot/bzImage
	CROSS=
	BUSYBOX=/bin/busybox
	;;
arm64)
	KARCH=arm64
	KIMAGE=arch/arm64/boot/Image
	CROSS=aarch64-linux-gnu-
	;;
ppc64el)
	# QEMU's pseries loads the ELF vmlinux itself.
	KARCH=powerpc
	KIMAGE=vmlinux
	CROSS=powerpc64le-linux-gnu-
	;;
s390x)
	KARCH=s390
	KIMAGE=arch/s390/boot/bzImage
	CROSS=s390x-linux-gnu-
	;;
mips64el)
	# QEMU's malta loads the ELF vmlinux itself.
	KARCH=mips
	KIMAGE=vmlinux
	CROSS=mips64el-linux-gnuabi64-
	;;
*) die "ARCH must be x86_64, arm64, ppc64el, s390x or mips64el, not '$ARCH'" ;;
esac
if [ "$ARCH" != x86_64 ]; then
	ACACHE=$CACHE/$ARCH
	BUILD=$ACACHE/build
	BUSYBOX=$ACACHE/busybox
fi

# The config fragments' text for this architecture (ARCH=... fragments FILE...
# for another one). Elsewhere than on x86_64,
# guest.config's x86 lines give way to configs/$ARCH.config; on mips64el
# its SMP lines too (malta's MIPS64 R2 CPU has no SMP: a UP kernel).
x86_lines='^(# )?CONFIG_(X86_[A-Z0-9_]*|IA32_EMULATION|ACPI|SERIAL_8250[A-Z0-9_]*)[= ]'
smp_lines='^(# )?CONFIG_(SMP|NR_CPUS)[= ]'
fragments() {
	local f drop=$x86_lines
	[ "$ARCH" != mips64el ] || drop+="|$smp_lines"
	for f in "$@"; do
		if [ "$ARCH" != x86_64 ] && [ "$f" = "$REPO/configs/guest.config" ]; then
			grep -vE "$drop" "$f"
			cat "$REPO/configs/$ARCH.config"
		else
			cat "$f"
		fi
	done
}

# For the tools that exist for x86_64 only.
x86_only() {
	[ "$ARCH" = x86_64 ] || die "ARCH=$ARCH: $PROG runs on x86_64 only"
}

# The Debian version of the installed linux-source-6.1 package.
debian_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
		die "linux-source-6.1 is not installed (run: make deps)"
}

# The baseline worktree ($BASE) at the pristine commit, checked out when a
# baseline kernel is first built: make test on x86_64 boots Debian's packaged
# kernel instead, and a cold run is spared a checkout of the whole tree.
baseline_tree() {
	local tag
	tag=pristine-$(debian_version)
	if [ ! -e "$BASE/.git" ]; then
		git -C "$SRC" worktree prune
		git -C "$SRC" worktree add -q --detach "$BASE" "$tag"
	elif [ "$(git -C "$BASE" rev-parse HEAD)" != "$(git -C "$SRC" rev-parse "$tag^{commit}")" ]; then
		git -C "$BASE" checkout -q -f --detach "$tag"
	fi
}

# The patched tree's UAPI headers in $BUILD/patched, which the guest
# programs need (tools/guest), without a kernel build: make system's
# packages and boots.
patched_headers() {
	if [ ! -f "$BUILD/patched/usr/include/linux/mman.h" ]; then
		"$REPO/tools/tree" >&2
		mkdir -p "$BUILD/patched"
		make -s -C "$SRC" O="$BUILD/patched" headers_install >/dev/null
	fi
}

# Tree and build directory for a flavour: patched | baseline [+ -debug].
tree_of() {
	case $1 in
	patched*) echo "$SRC" ;;
	baseline*) echo "$BASE" ;;
	*) die "unknown flavour '$1'" ;;
	esac
}

# The series' identity: the pristine tag and every patch named in
# patches/series. tools/tree re-applies the series when it changes.
series_stamp() {
	local tag=$1 p
	mapfile -t series < <(grep -v -e '^#' -e '^[[:space:]]*$' "$REPO/patches/series")
	{
		echo "$tag"
		for p in "${series[@]}"; do
			[ -f "$REPO/patches/$p" ] || die "patches/series names $p, which does not exist"
			echo "$p"
			cat "$REPO/patches/$p"
		done
	} | sha1sum | cut -d' ' -f1
}

# Hang limits of the test suites' guests (tests/run, tests/load; issue 19).
# A busy host slows a TCG guest down many times (the debug boot: 11 s idle,
# 150 to 300 s with two CPU hogs on a loaded host), so a wall-clock limit
# that an idle machine meets with little margin fails good runs. A hang is
# measured in progress instead: TEST_QUIET seconds without a line from the
# suites (the boot's kernel log counts until the first line). The longest
# silences measured with two CPU hogs on a loaded host: a pair of
# mseal_race_test, and on the debug kernel one kmemleak scan of
# mseal_faults_dtest (~190 s). The wall-clock limits only catch a guest
# that keeps printing and never ends.
TEST_QUIET=600           # the normal kernels
TEST_QUIET_DEBUG=900     # the debug kernels
TEST_TIMEOUT=900         # the normal kernels (~1 min of suites idle)
TEST_TIMEOUT_DEBUG=7200  # the debug kernels (~10 min of suites idle)
