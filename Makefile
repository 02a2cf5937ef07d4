# linux-mseal: mseal() for Debian's Linux 6.1, as a patch series.
#
#   series (patches/) -> tree (tools/tree) -> build (tools/build)
#                     -> guest (tools/guest) -> tests (tools/vm, tests/run)
#
# Every target installs what it needs first (tools/deps).

SHELL := /bin/bash
DEPS := tools/deps

.PHONY: help deps tree build run test shell

help:
	@echo "make run     build the sealed kernel and boot it: watch mseal() at work"
	@echo "make test    build, boot and run every test suite (patched and baseline)"
	@echo "make shell   an interactive shell in the patched guest (Ctrl-A x quits)"
	@echo "make deps    install the Debian packages the pipeline needs"
	@echo "make tree | build   unpack and patch the source | build both kernels"

deps:
	@$(DEPS)

tree: deps
	@tools/tree

build: tree
	@tools/build patched baseline

run: build
	@tools/guest
	@VM_NOBUILD=1 tools/vm -- mseal-demo

test: deps
	@tests/run

shell: build
	@tools/guest
	@VM_NOBUILD=1 tools/vm
