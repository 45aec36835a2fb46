#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest, as root: builds topdown_nl (the kselftest-harness tests of
# the netlink API) into build/netlink/ when it is missing or older than its
# sources, loads tdsim.ko and topdown.ko (model=spr) from $TD_KO_DIR, runs
# it (its KTAP "ok N" lines are the tests) and unloads.  A build or load
# failure is one failed test.
set -u
cd "$(dirname "$0")/../.." || exit 1
[ -n "${TD_KO_DIR:-}" ] || { echo "netlink: not in the VM (no TD_KO_DIR)" >&2; exit 2; }

harness=build/linux-source-6.12/tools/testing/selftests
src=selftests/netlink/topdown_nl.c
bin=build/netlink/topdown_nl
# what topdown_nl expects as loaded
export TD_NL_LEVEL=2 TD_NL_INTERVAL_MS=100

if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ uapi/linux/topdown.h -nt "$bin" ]; then
	mkdir -p build/netlink
	if ! gcc -Wall -Werror -O2 -I"$harness" -Iuapi -o "$bin" "$src" -lmnl \
		2> build/netlink/topdown_nl.log; then
		echo "not ok 1 - netlink: topdown_nl builds (make lsrc for the harness?)"
		sed 's/^/# /' build/netlink/topdown_nl.log
		exit 1
	fi
fi

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
echo "# netlink: $(nproc) CPUs online, possible $(cat /sys/devices/system/cpu/possible)"
# the kselftest harness's status: 1 after a failure, 4 when all skipped
"./$bin"
rc=$?
unload
exit $rc
