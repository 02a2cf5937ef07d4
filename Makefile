# linux-mseal: mseal() for Debian's Linux 6.1, as a patch series.
#
#   series (patches/) -> tree (tools/tree) -> build (tools/build)
#                     -> guest (tools/guest) -> tests (tools/vm, tests/run)
#
# Every target installs what it needs first (tools/deps).

SHELL := /bin/bash
DEPS := tools/deps

.PHONY: help deps tree build run test test-arches shell check test-debug test-load fuzz bench bench-startup bench-system deb deb-user glibc test-glibc trinity system

help:
	@echo "make run     build the sealed kernel and boot it: watch mseal() at work"
	@echo "make test    build, boot and run every test suite (patched and baseline)"
	@echo "make shell   an interactive shell in the patched guest (Ctrl-A x quits)"
	@echo "make deps    install the Debian packages the pipeline needs"
	@echo "make tree | build   unpack and patch the source | build both kernels"
	@echo "make test-arches the same on arm64, ppc64el, s390x and mips64el (ARCH=arm64 make test, ...)"
	@echo "make check       the series: git am, bisect build, checkpatch, sparse, other configs"
	@echo "make test-debug  every suite on the debug kernels (KASAN, lockdep, fault injection)"
	@echo "make test-load   the tests with CPU hogs beside them (DEBUG=1: the debug kernels)"
	@echo "make fuzz        the model-based fuzzer (OPS=N SEED=S to go longer or replay,"
	@echo "                 ABI=v6|mainline to boot with mseal_abi=ABI)"
	@echo "make trinity     trinity on the mm syscalls in the debug guest (MINUTES=N)"
	@echo "make bench       what sealing at startup costs (make bench-startup), then"
	@echo "                 baseline against patched (v6, mainline ABI): microbenchmarks, stress-ng"
	@echo "make deb         Debian packages of the sealed kernel (Debian's cloud config)"
	@echo "                 and of mseal-run (make deb-user: that one alone)"
	@echo "make glibc       Debian's glibc 2.36 rebuilt with ld.so sealing (glibc/)"
	@echo "make test-glibc  its ld.so sealing in the guest, both ABIs and the baseline"
	@echo "make system      a Debian 12 image with those packages installed by dpkg,"
	@echo "                 booted with systemd and system-wide sealing on: the checks"
	@echo "                 (tools/system runs a command there)"
	@echo "make bench-system  real work on the sealed system against the control"

deps:
	@$(DEPS)

tree: deps
	@tools/tree

build: tree
	@tools/build patched baseline

# The sealed kernel alone: the demo needs no baseline.
run: tree
	@tools/build patched
	@tools/guest
	@VM_NOBUILD=1 tools/vm -- mseal-demo

test: deps
	@tests/run

# Debian's other 64-bit release architectures, whole. CI runs arm64 alone
# (.ci/run; docs/testing.md#ci), and make check cross-compiles the series'
# objects for each. Each ends with its own "N passed, N failed, N skipped".
test-arches:
	@rc=0; \
	ARCH=arm64 $(MAKE) --no-print-directory test || rc=1; \
	ARCH=ppc64el $(MAKE) --no-print-directory test || rc=1; \
	ARCH=s390x $(MAKE) --no-print-directory test || rc=1; \
	ARCH=mips64el $(MAKE) --no-print-directory test || rc=1; \
	exit $$rc

shell: build
	@tools/guest
	@VM_NOBUILD=1 tools/vm

check: deps
	@tools/check

test-debug: deps
	@tests/run --debug

# Not in CI: it loads the machine on purpose (issue 19).
test-load: deps
	@tests/load $(if $(DEBUG),--debug)

fuzz: build
	@tools/guest
	@fuzz/run

trinity: deps
	@fuzz/trinity-run $(MINUTES)

# bench/run last: make bench ends with its closing lines, "worst overhead:"
# and "worst overhead in sealing processes:".
bench: build
	@tools/guest
	@bench/startup
	@bench/run

# The ldso mode needs the rebuilt glibc (cached; cold: long, see tools/glibc).
bench-startup: build
	@tools/guest
	@tools/glibc >/dev/null
	@bench/startup

deb: deps
	@tools/deb

deb-user: deps
	@tools/deb-user

glibc: deps
	@tools/glibc

# Not in make test, which never builds glibc.
test-glibc: deps
	@tools/tree
	@tests/glibc/run

# Not in CI: ~40 min cold for the packages alone on 2 cores (issue 16).
system: deps
	@tests/system/run

# Not in CI: make system's images, booted alternately, several rounds (issue 29).
bench-system: deps
	@bench/system
