#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs every in-VM test (inside selftests/vm/run): those of the kselftest
# collections through the kernel's runner, the others directly.  Each
# prints TAP lines; selftests/check counts them, so this always exits 0
# unless it cannot start.
# Each exits as kselftest's tests do (1 after a failure, 4 when it skipped
# everything); one that exits otherwise than 0 or 4 without a "not ok"
# line of its own (it died) adds that failure.  TD_GUEST_TESTS replaces
# the list, TD_GUEST_EXTRA adds to it, TD_GUEST_SKIP takes from it.
# Where the kernel has kmemleak (the debug kernel), a last test: no
# unreferenced object after them all.
set -u
cd "$(dirname "$0")/.."
[ -n "${TD_KO_DIR:-}" ] || { echo "guest-tests: not in the VM (no TD_KO_DIR)" >&2; exit 2; }

echo "# guest: $(uname -r), $(nproc) CPUs"
kmemleak=
if [ -w /sys/kernel/debug/kmemleak ]; then
	kmemleak=/sys/kernel/debug/kmemleak
	echo scan > "$kmemleak"
	echo clear > "$kmemleak"
	# no automatic scans (every 10 minutes, ~15 s of the debug kernel's
	# CPU each, slowing the tests under way): the checks scan themselves
	echo scan=off > "$kmemleak"
fi
all=${TD_GUEST_TESTS:-selftests/tdsim/load.sh selftests/tdsim/profile.sh selftests/tdsim/schedule.sh selftests/tdsim/truth.sh selftests/tdsim/perf_l1.py selftests/topdown/accuracy.py selftests/topdown/kvm.py selftests/topdown/mediated.py selftests/topdown/watchdog.py selftests/topdown/fixed3.py selftests/topdown/hybrid.py selftests/topdown/raw.py selftests/topdown/coherent.py selftests/topdown/phases.py selftests/topdown/totals.py selftests/topdown/lifecycle.sh selftests/topdown/start.py selftests/topdown/pmu.py selftests/topdown/stall.py selftests/topdown/switching.py selftests/topdown/regrow.py selftests/topdown/perf_read.py selftests/netlink/run.sh selftests/netlink/ynl.py selftests/tdnl/e2e.py selftests/tdnl/lost.py selftests/tdnl/export.py selftests/tdnl/stat.py selftests/tdnl/explain.py selftests/tdnl/top.py selftests/install/guest.sh}
all="$all ${TD_GUEST_EXTRA:-}"
for t in ${TD_GUEST_SKIP:-}; do
	all=" $all "
	all=${all// $t / }
done

# The tests of the kselftest collections (selftests/Makefile's list) run
# under the kernel's own runner, run_kselftest.sh -t COLLECTION:TEST, with
# each collection's settings (its timeout; TD_KSFT_TIMEOUT overrides it,
# 0 for none); t_flatten makes its nested TAP what make check counts.
source selftests/lib.sh
picked=()
direct=()
for t in $all; do
	c=${t#selftests/}
	c=${c%%/*}:${t##*/}
	if grep -qx "$c" selftests/kselftest-list.txt 2> /dev/null; then
		picked+=(-t "$c")
	else
		direct+=("$t")
	fi
done
if [ ${#picked[@]} -gt 0 ]; then
	if [ -x selftests/run_kselftest.sh ]; then
		over=()
		[ -n "${TD_KSFT_TIMEOUT:-}" ] && over=(-o "$TD_KSFT_TIMEOUT")
		selftests/run_kselftest.sh "${over[@]}" "${picked[@]}" 2>&1 | t_flatten
	else
		echo "not ok 1 - guest: selftests/run_kselftest.sh runs the kselftest collections (make -C selftests on the host)"
	fi
fi

# the others (install/guest.sh, needing the host's staging) directly
for t in "${direct[@]}"; do
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
