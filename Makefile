# SPDX-License-Identifier: GPL-2.0
#
# topdown: build the modules and tools, run the demo and the tests.
#
#   make            modules for the running kernel (KDIR) and the tools
#   make run        the demo, in a VM on Debian's kernel
#   make check      every test; ends with "N passed, N failed"
#   make bench-accuracy  topdown.ko and perf stat on the same tdsim phases,
#                   each interval against tdsim's truth, in a VM on 6.12
#   make deps       apt-installs what is missing (idempotent)
#   make soak       the long forms: tdnl's fuzzers, 10^6 fuzzed netlink messages as root and as nobody
#   make -C selftests  the kselftest collections, run by the kernel's
#                   run_kselftest.sh (after make lsrc; see docs/testing.md)
#   make ynl-gen    uapi/linux/topdown.h and kmod/td_nl_gen.[ch] (policies, ops)
#                   and docs/netlink-spec.rst anew from uapi/topdown.yaml
#   make netlink-doc  docs/netlink-spec.rst, the family's reference, anew from
#                   uapi/topdown.yaml (by the kernel's ynl-gen-rst)
#   make install    the modules into /lib/modules/KVER/updates (then depmod),
#                   tdnl, the man pages (tdnl.8, topdown.4, tdsim.4) and the
#                   exporter's systemd unit under
#                   PREFIX (/usr/local); DESTDIR honoured
#   make dkms-install  the module source as DKMS package topdown/VERSION:
#                   built and installed for every kernel, again at each kernel update
#
# On a machine with a real PMU, build against its own kernel:
#   make modules KDIR=/lib/modules/$(uname -r)/build

TOP   := $(CURDIR)
KVER  ?= $(shell uname -r)
# An arm64 release (6.12.117+deb12-arm64) is cross-built against Debian's
# arm64 headers, unpacked by selftests/vm/arm64-root (make arm64-root).
ifneq ($(filter %-arm64,$(KVER)),)
KDIR  ?= $(TOP)/build/arm64/root/usr/src/linux-headers-$(KVER)
KARCH := ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
endif
# A release newer than the host's suite (7.x on bookworm) is built in a root
# of its own, with the compiler its headers want: selftests/vm/kernel-root
# makes it (make deps), selftests/vm/in-root runs kbuild there.
ifeq ($(KARCH)$(wildcard /lib/modules/$(KVER)/build),)
KROOT ?= $(addsuffix /root,$(shell $(CURDIR)/selftests/vm/kernel-root --find $(KVER)))
endif
ifneq ($(KROOT),)
KDIR  ?= /usr/src/linux-headers-$(KVER)
KMAKE := $(CURDIR)/selftests/vm/in-root $(KROOT) $(MAKE)
endif
KMAKE ?= $(MAKE)
KDIR  ?= /lib/modules/$(KVER)/build
# Objects go to build/<kernel release>/ so one checkout builds for several kernels.
OBJ   := $(TOP)/build/$(KVER)
LSRC  := $(TOP)/build/linux-source-6.12
LSRC73 := $(TOP)/build/linux-source-7.3

# Debian packages the project needs (make deps installs the missing ones).
DEPS := linux-headers-amd64 linux-image-amd64 \
	linux-headers-6.12-amd64 linux-image-6.12-amd64 \
	linux-source-6.12 linux-perf qemu-system-x86 busybox-static \
	libmnl-dev libmicrohttpd-dev libjson-c-dev libncurses-dev tmux prometheus sparse cpio xz-utils zstd kmod python3 python3-yaml python3-jsonschema python3-docutils pkg-config gcc make \
	qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	clang libclang-rt-14-dev \
	flex bison bc libelf-dev dkms debootstrap groff-base

.PHONY: all install dkms-src dkms-install dkms-uninstall soak ynl-gen netlink-doc modules tools tools-arm64 arm64-root deps lsrc run check bench bench-accuracy clean checkpatch sparse

all: modules tools

# arm64 among dpkg's architectures: selftests/vm/arm64-root downloads arm64
# packages (it unpacks them under build/, it installs none).  Then Debian's
# 7.3 (trixie-backports) and a trixie root to build for it, unpacked under
# /var/cache/topdown by selftests/vm/kernel-root (the host's apt untouched).
deps:
	@dpkg --print-foreign-architectures | grep -qx arm64 || \
		{ dpkg --add-architecture arm64 && apt-get update -q; }; \
	missing=$$(for p in $(DEPS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
			grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing" $$missing; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@selftests/vm/kernel-root 7.3 > /dev/null

# Symlink the sources into $(OBJ) and build there (kbuild writes next to the
# sources); then the test module that holds kmod/td_perf.h to perf's own
# reads, in $(OBJ)/test (selftests/kmod; never installed).
modules:
	@mkdir -p $(OBJ)
	@cp -rsf $(wildcard $(TOP)/Kbuild $(TOP)/kmod $(TOP)/uapi) $(OBJ)/
	$(KMAKE) -C $(KDIR) M=$(OBJ) $(KARCH) W=1 CONFIG_DEBUG_INFO_BTF_MODULES= modules
	@mkdir -p $(OBJ)/test
	@cp -rsf $(TOP)/selftests/kmod/Kbuild $(TOP)/selftests/kmod/td_perf_test_main.c \
		$(TOP)/kmod $(TOP)/uapi $(OBJ)/test/
	$(KMAKE) -C $(KDIR) M=$(OBJ)/test $(KARCH) W=1 CONFIG_DEBUG_INFO_BTF_MODULES= modules

# The uapi header and the kernel's netlink policies and ops from the YNL
# spec, by the kernel's ynl-gen-c (the header's kernel-doc from the spec's
# docs by selftests/netlink/ynl_doc.py), and docs/netlink-spec.rst (as make
# netlink-doc); selftests/netlink/spec.py checks that they are its output.
ynl-gen: lsrc
	/usr/bin/python3 selftests/netlink/spec.py --regen

# The family's reference from the same spec, by the kernel's ynl-gen-rst;
# spec.py checks that docs/netlink-spec.rst is its output (and, with
# docutils, valid reStructuredText).
netlink-doc: lsrc
	@mkdir -p docs
	/usr/bin/python3 $(LSRC)/tools/net/ynl/ynl-gen-rst.py -i uapi/topdown.yaml -o docs/netlink-spec.rst

# The pieces of Debian's kernel source the tests use in place: checkpatch,
# the kselftest harness, lib.mk and runner, perf's event tables and the YNL
# CLI.  The stamp's number goes up when the list grows.
lsrc: $(LSRC)/.stamp-2 $(LSRC73)/.stamp-1
$(LSRC)/.stamp-2:
	@mkdir -p $(TOP)/build
	tar -C $(TOP)/build -xf /usr/src/linux-source-6.12.tar.xz \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/kernel-doc \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch \
		linux-source-6.12/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.12/tools/testing/selftests/kselftest.h \
		linux-source-6.12/tools/testing/selftests/lib.mk \
		linux-source-6.12/tools/testing/selftests/run_kselftest.sh \
		linux-source-6.12/tools/testing/selftests/kselftest \
		linux-source-6.12/tools/perf/pmu-events/arch \
		linux-source-6.12/tools/net/ynl \
		linux-source-6.12/Documentation/netlink
	touch $@

# linux-source-7.3's checkpatch and perf tables, from the package that
# selftests/vm/kernel-root fetched (make deps)
$(LSRC73)/.stamp-1:
	@mkdir -p $(TOP)/build
	rm -rf $(LSRC73)
	tar -C $(TOP)/build -xf $$(selftests/vm/kernel-root 7.3)/linux-source.tar.xz \
		linux-source-7.3/scripts/checkpatch.pl \
		linux-source-7.3/scripts/spelling.txt \
		linux-source-7.3/scripts/const_structs.checkpatch \
		linux-source-7.3/tools/perf/pmu-events/arch
	touch $@

# tdnl, the netlink client; it shares the model formulas with the module.
TDNL_SRCS := $(wildcard tools/tdnl/*.c) kmod/td_model.c kmod/td_intel.c \
	kmod/td_atom.c kmod/td_amd.c kmod/td_arm.c kmod/td_math.c
TDNL_HDRS := $(wildcard tools/tdnl/*.h) kmod/td_model.h kmod/td_math.h \
	kmod/td_types.h uapi/linux/topdown.h
TOOLS_CFLAGS ?= -O2 -g
# -Wno-unused-parameter as in the kernel's W=1: the model callbacks share one signature
TOOLS_CFLAGS += -Wall -Wextra -Wno-unused-parameter -Werror -Iuapi -Ikmod -Itools/tdnl \
	$(shell pkg-config --cflags libmnl libmicrohttpd json-c ncursesw)

tools: $(TOP)/build/bin/tdnl $(TOP)/build/bin/matmul

# the README's example workload (naive and tiled matrix multiply)
$(TOP)/build/bin/matmul: tools/examples/matmul.c
	@mkdir -p $(TOP)/build/bin
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ $<

$(TOP)/build/bin/tdnl: $(TDNL_SRCS) $(TDNL_HDRS)
	@mkdir -p $(TOP)/build/bin
	$(CC) $(TOOLS_CFLAGS) -o $@ $(TDNL_SRCS) $(shell pkg-config --libs libmnl json-c ncursesw) -lpthread -lm -ldl

# The guest's arm64 userland and kernel, and the headers to cross-build against.
ARM64_ROOT := $(TOP)/build/arm64/root
arm64-root:
	@selftests/vm/arm64-root > /dev/null

# tdnl for arm64: libmnl's headers are the host's, the library the arm64
# one (libmicrohttpd's headers are the host's; export opens it at run time).
tools-arm64: $(TOP)/build/arm64/bin/tdnl
$(TOP)/build/arm64/bin/tdnl: $(TDNL_SRCS) $(TDNL_HDRS) $(ARM64_ROOT)/.recipe
	@mkdir -p $(TOP)/build/arm64/bin
	aarch64-linux-gnu-gcc $(TOOLS_CFLAGS) -o $@ $(TDNL_SRCS) \
		$(ARM64_ROOT)/usr/lib/aarch64-linux-gnu/libmnl.so.0 \
		$(ARM64_ROOT)/usr/lib/aarch64-linux-gnu/libjson-c.so.5 \
		$(ARM64_ROOT)/lib/aarch64-linux-gnu/libncursesw.so.6 \
		$(ARM64_ROOT)/lib/aarch64-linux-gnu/libtinfo.so.6 -lpthread -lm -ldl

# The tests: host checks, then the VM tests on Debian's 6.1, 6.12 and 7.3 kernels.
check: deps lsrc
	@selftests/check

# The demo, in a VM on Debian's 6.12 kernel (no PMU needed: tdsim stands in).
run: deps lsrc
	@selftests/vm/run --kernel 6.12 --smp 2 -- selftests/demo.sh

# The overhead benchmark: topdown.ko (alone, with tdnl watch, with tdnl -j
# watch) and perf stat -a -I on the same events, at 10/100/1000 ms and
# levels 1-3; one table each run, with the targets met or missed.  Four
# VMs: 2 vCPUs timed by the host's wall clock (multi-threaded TCG, as a
# guest sees time); 2 vCPUs, 1 and then 64 timed in instructions
# (selftests/vm/run --icount: every vCPU on one host thread, the guest's
# clocks counting the instructions it executed), so that the 64-vCPU run,
# emulated on one host thread, is not charged with its vCPUs' turns nor
# with the host's noise.  (Multi-threaded TCG hit an int3 Oops patching
# kernel text while 64 vCPUs booted.)  The 1-vCPU run is the one whose
# whole-guest busy time (the sys column) is exact: on more, vCPUs that
# work at the same moment take turns on that thread, and each one's time
# holds the others' turns.  The 64-vCPU run's cost per sample is held to
# the 2-vCPU instruction-timed run's (its "module cost per sample" line,
# passed in as TD_BENCH_FLAT_US).
bench: deps lsrc
	@bash -o pipefail -c 'selftests/vm/run --kernel 6.12 --smp 2 --timeout 3600 -- \
		selftests/bench/overhead.py | tee $(TOP)/build/bench-2vcpu.txt'
	@bash -o pipefail -c 'selftests/vm/run --kernel 6.12 --smp 2 --icount 0 --timeout 3600 -- \
		selftests/bench/overhead.py | tee $(TOP)/build/bench-2vcpu-icount.txt'
	@bash -o pipefail -c 'selftests/vm/run --kernel 6.12 --smp 1 --icount 0 --timeout 3600 -- \
		selftests/bench/overhead.py | tee $(TOP)/build/bench-1vcpu-icount.txt'
	@TD_BENCH_FLAT_US=$$(sed -n 's/^  module cost per sample: \([0-9.]*\) us$$/\1/p' \
		$(TOP)/build/bench-2vcpu-icount.txt) \
		selftests/vm/run --kernel 6.12 --smp 64 --mem 4096 --icount 0 \
		--timeout 7200 -- selftests/bench/overhead.py --scale

# The long forms (selftests/soak/run): tdnl's libFuzzer harnesses for 10^7
# inputs each; then on the debug kernel (KASAN, lockdep, kmemleak), 6.12
# and 6.1 the soaks (1000 hotplug cycles, 100 loads with a listener, 30
# rounds of perf stat and perf record beside the module) and the netlink
# fuzzer with 10^6 messages as root and 10^6 as nobody.  Hours.
soak: deps lsrc
	@selftests/soak/run

# The accuracy benchmark: topdown.ko and Debian's perf stat read the same
# phased tdsim schedules; a table of each one's error per interval.
bench-accuracy: deps lsrc
	@selftests/vm/run --kernel 6.12 --smp 2 -- selftests/bench/accuracy.py

# Installing.  modules_install signs and compresses the modules as the
# kernel's configuration asks (CONFIG_MODULE_SIG_ALL with its key, which
# Debian's headers do not carry: see docs/install.md on Secure Boot) and runs
# depmod; with DESTDIR (a package's staging tree) depmod is the package's.
# Both modules go in: tdsim, the simulated PMU, loads only when asked.
PREFIX  ?= /usr/local
VERSION := $(shell sed -n 's/^\#define TD_VERSION\t"\(.*\)"$$/\1/p' $(TOP)/kmod/td_types.h)
TD_SIGN := $(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=)
install: modules tools
	$(if $(TD_SIGN),@echo "install: modules not signed ($(KDIR) has no signing key; Secure Boot: docs/install.md)")
	$(KMAKE) -C $(KDIR) M=$(OBJ) $(KARCH) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=updates DEPMOD=true $(TD_SIGN) modules_install
	$(if $(DESTDIR),,depmod -a $(KVER))
	install -D -m 0755 $(TOP)/build/bin/tdnl $(DESTDIR)$(PREFIX)/bin/tdnl
	install -D -m 0644 tools/tdnl/tdnl.8 $(DESTDIR)$(PREFIX)/share/man/man8/tdnl.8
	install -D -m 0644 docs/topdown.4 $(DESTDIR)$(PREFIX)/share/man/man4/topdown.4
	install -D -m 0644 docs/tdsim.4 $(DESTDIR)$(PREFIX)/share/man/man4/tdsim.4
	install -D -m 0644 tools/tdnl/tdnl.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/tdnl
	install -D -m 0644 tools/examples/modules-load.conf \
		$(DESTDIR)$(PREFIX)/share/doc/topdown/examples/modules-load.d/topdown.conf
	install -D -m 0644 tools/examples/modprobe.conf \
		$(DESTDIR)$(PREFIX)/share/doc/topdown/examples/modprobe.d/topdown.conf
	mkdir -p $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|@PREFIX@|$(PREFIX)|g' tools/examples/tdnl-export.service > \
		$(DESTDIR)$(PREFIX)/lib/systemd/system/tdnl-export.service

# DKMS: the module's sources and kmod/dkms.conf as /usr/src/topdown-VERSION
# (DKMS_SRC for a test), then dkms add, build and install for KVER.
DKMS_SRC ?= /usr/src/topdown-$(VERSION)
dkms-src:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r Kbuild kmod uapi $(DKMS_SRC)/
	sed 's/@VERSION@/$(VERSION)/' kmod/dkms.conf > $(DKMS_SRC)/dkms.conf
	rm -f $(DKMS_SRC)/kmod/dkms.conf

dkms-install: dkms-src
	dkms add topdown/$(VERSION)
	dkms install topdown/$(VERSION) -k $(KVER)

dkms-uninstall:
	dkms remove topdown/$(VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	rm -rf $(TOP)/build
	rm -f selftests/kselftest selftests/run_kselftest.sh selftests/kselftest-list.txt
