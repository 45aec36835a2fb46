# SPDX-License-Identifier: GPL-2.0
# Included by each collection's Makefile where a kernel selftest has
# "include ../lib.mk": the kernel's own kselftest lib.mk, from Debian's
# linux-source-6.12 (make lsrc extracts it into build/), gives all,
# run_tests, install, emit_tests and clean.  Named ksft.mk, not lib.mk:
# lib.mk finds its own directory as the one file of MAKEFILE_LIST named
# lib.mk.
KSFT_SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))../build/linux-source-6.12/tools/testing/selftests)
TD_SELFTESTS := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
ifeq ($(wildcard $(KSFT_SRC)/lib.mk),)
$(error $(KSFT_SRC)/lib.mk is missing: run make lsrc at the top first)
endif
include $(KSFT_SRC)/lib.mk

# run_tests in place: the tests stay in this tree (they find tdtest.py,
# lib.sh and build/ above them), so the runner's base is selftests/ (where
# make -C selftests links kselftest/ and writes kselftest-list.txt), not
# lib.mk's own directory.
define RUN_TESTS
	BASE_DIR="$(TD_SELFTESTS)";		\
	. "$(TD_SELFTESTS)/kselftest/runner.sh";	\
	run_many $(1)
endef
