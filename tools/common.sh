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

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "$*"; exit 1; }

# The Debian version of the installed linux-source-6.1 package.
debian_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null ||
		die "linux-source-6.1 is not installed (run: make deps)"
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
