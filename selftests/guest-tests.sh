#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs every in-VM test (inside selftests/vm/run).  Each prints TAP lines;
# selftests/check counts them, so this always exits 0 unless it cannot start.
# Each exits as kselftest's tests do (1 after a failure, 4 when it skipped
# everything); one that exits otherwise than 0 or 4 without a "not ok"
# line of its own (it died) adds that failure.  TD_GUEST_TESTS replaces
# the list, TD_GUEST_EXTRA adds to it.  Where the kernel has kmemleak (the
# debug kernel), a last test: no unreferenced object after them all.
set -u
cd "$(dirname "$0")/.."
[ -n "${TD_KO_DIR:-}" ] || { echo "guest-tests: not in the VM (no TD_KO_DIR)" >&2; exit 2; }

echo "# guest: $(uname -r), $(nproc) CPUs"
kmemleak=
if [ -w /sys/kernel/debug/kmemleak ]; then
	kmemleak=/sys/kernel/debug/kmemleak
	echo scan > "$kmemleak"
	echo clear > "$kmemleak"
fi
for t in ${TD_GUEST_TESTS:-selftests/tdsim/load.sh selftests/tdsim/profile.sh selftests/tdsim/schedule.sh selftests/tdsim/truth.sh selftests/tdsim/perf_l1.py selftests/topdown/accuracy.py selftests/topdown/kvm.py selftests/topdown/watchdog.py selftests/topdown/hybrid.py selftests/topdown/raw.py selftests/topdown/coherent.py selftests/topdown/phases.py selftests/topdown/totals.py selftests/topdown/lifecycle.sh selftests/topdown/start.py selftests/netlink/run.sh selftests/netlink/ynl.py selftests/tdnl/e2e.py selftests/tdnl/lost.py selftests/tdnl/export.py selftests/install/guest.sh} ${TD_GUEST_EXTRA:-}; do
	echo "# --- $t"
	start=$(date +%s.%N)
	tap=$(mktemp)
	"./$t" | tee "$tap"
	rc=${PIPESTATUS[0]}
	# a test that dies before its TAP lines must not pass unseen
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && ! grep -q '^not ok ' "$tap"; then
		echo "not ok 1 - $t exited with status $rc"
	fi
	rm -f "$tap"
	echo "# $t took $(echo "$(date +%s.%N) - $start" | awk '{ printf "%.1f", $1 - $3 }') s"
done

# kmemleak (the debug kernel): what the tests leaked.  The boot's own
# suspects were marked not to report ("clear" after a scan) before the
# first test; now, objects unreferenced for 5 s (its minimum age) found by
# two scans, as its documentation advises.
if [ -n "$kmemleak" ]; then
	sleep 6
	echo scan > "$kmemleak"
	echo scan > "$kmemleak"
	n=$(grep -c '^unreferenced object' "$kmemleak")
	head -n 60 "$kmemleak" | sed 's/^/# kmemleak: /'
	if [ "$n" -eq 0 ]; then
		echo "ok 1 - guest: kmemleak: no object leaked by the tests"
	else
		echo "not ok 1 - guest: kmemleak: $n objects leaked by the tests"
	fi
fi
exit 0
