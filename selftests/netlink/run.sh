#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest, as root: builds topdown_nl (the kselftest-harness tests of
# the netlink API) and fuzz (generated and mutated messages) into
# build/netlink/ when missing or older than their sources, loads tdsim.ko
# and topdown.ko (model=spr) from $TD_KO_DIR, runs topdown_nl (its KTAP "ok
# N" lines are the tests), then fuzz with TD_FUZZ_N messages as root and as
# nobody (none unless set: make soak gives 10^6; docs/testing.md,
# *Fuzzing*) from seed TD_FUZZ_SEED (1), and
# unloads.  A build or load failure is one failed test.  With
# TD_EXPECT_POSSIBLE=N, one test more: the kernel has N possible CPUs.
set -u
cd "$(dirname "$0")/../.." || exit 1
# kselftest's skip (4) outside the VM: nothing here can load the modules
if [ -z "${TD_KO_DIR:-}" ]; then
	echo "ok 1 - netlink # SKIP not in the VM (no TD_KO_DIR)"
	exit 4
fi

# what topdown_nl expects as loaded
export TD_NL_LEVEL=2 TD_NL_INTERVAL_MS=100

# lib.mk's rules (selftests/netlink/Makefile); nothing to do when make -C
# selftests on the host built them
if ! make -s -C selftests/netlink > build/netlink-make.log 2>&1; then
	echo "not ok 1 - netlink: topdown_nl and fuzz build (make -C selftests/netlink)"
	sed 's/^/# /' build/netlink-make.log
	exit 1
fi
bin=build/netlink/topdown_nl

unload() { rmmod topdown 2> /dev/null; rmmod tdsim 2> /dev/null; }
unload
if ! insmod "$TD_KO_DIR/tdsim.ko" model=spr ||
   ! insmod "$TD_KO_DIR/topdown.ko" start=1 model=spr \
	pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)" \
	level="$TD_NL_LEVEL" interval_ms="$TD_NL_INTERVAL_MS"; then
	echo "not ok 1 - netlink: tdsim and topdown load"
	unload
	exit 1
fi
possible=$(cat /sys/devices/system/cpu/possible)
echo "# netlink: $(nproc) CPUs online, possible $possible"
fail=0
# a boot that asked for more possible CPUs (possible_cpus=) must have them:
# otherwise the scale test below only skips
if [ -n "${TD_EXPECT_POSSIBLE:-}" ]; then
	if [ "$possible" = "0-$((TD_EXPECT_POSSIBLE - 1))" ]; then
		echo "ok 1 - netlink: the kernel has the $TD_EXPECT_POSSIBLE possible CPUs asked for ($possible)"
	else
		echo "not ok 1 - netlink: the kernel has the $TD_EXPECT_POSSIBLE possible CPUs asked for ($possible)"
		fail=1
	fi
fi
# the kselftest harness's status: 1 after a failure, 4 when all skipped
"./$bin"
rc=$?
[ "$rc" -eq 4 ] && [ "${TD_FUZZ_N:-0}" -gt 0 ] && rc=0	# the fuzzer's tests run
[ "$fail" -eq 1 ] && rc=1
if [ "${TD_FUZZ_N:-0}" -gt 0 ]; then
	./build/netlink/fuzz "${TD_FUZZ_N:-0}" "${TD_FUZZ_SEED:-1}" || rc=1
	# the module still answers and samples after it
	seq0=$(sed -n 's/^seq //p' /sys/kernel/debug/topdown/cpu0/info)
	sleep 0.5
	seq1=$(sed -n 's/^seq //p' /sys/kernel/debug/topdown/cpu0/info)
	if [ "$seq1" -gt "$seq0" ] 2> /dev/null; then
		echo "ok 1 - netlink_fuzz: afterwards cpu0 samples (seq $seq0 -> $seq1 in 0.5 s)"
	else
		echo "not ok 1 - netlink_fuzz: afterwards cpu0 samples (seq $seq0 -> $seq1 in 0.5 s)"
		rc=1
	fi
fi
unload
exit $rc
