#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the shell tests: TAP-style "ok N - name" lines that
# `make check` counts, and small assertions.  Source it, then end with
# t_done, whose status is the test's (kselftest's: 1 after a failure, 4
# when every test skipped).

# The tests name files from the top of the tree (build/, selftests/); the
# kernel's kselftest runner starts each in its collection's directory.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

TD_T=0
TD_FAILED=0
TD_SKIPPED=0
TD_PREFIX=${TD_PREFIX:-$(basename "$0" .sh)}

t_ok()   { TD_T=$((TD_T + 1)); echo "ok $TD_T - $TD_PREFIX: $*"; }
t_fail() { TD_T=$((TD_T + 1)); TD_FAILED=$((TD_FAILED + 1)); echo "not ok $TD_T - $TD_PREFIX: $*"; }
t_skip() { TD_T=$((TD_T + 1)); TD_SKIPPED=$((TD_SKIPPED + 1)); echo "ok $TD_T - $TD_PREFIX: $1 # SKIP $2"; }
t_info() { echo "# $*"; }

# check "name" cmd...: one test, passes when cmd exits 0
check() {
	local name=$1
	shift
	if "$@"; then t_ok "$name"; else t_fail "$name"; fi
}

# cond1 && cond2; check_rc "name" $?: one test of several conditions
# (check runs one command: "check name [ a ] && [ b ]" tests [ a ] only)
check_rc() {
	if [ "$2" -eq 0 ]; then t_ok "$1"; else t_fail "$1"; fi
}

# check_err "name" ERRNO-TEXT cmd...: cmd must fail and say ERRNO-TEXT
check_err() {
	local name=$1 want=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		t_fail "$name (succeeded, wanted '$want')"
	elif [[ $out == *"$want"* ]]; then
		t_ok "$name"
	else
		t_fail "$name (got '$out', wanted '$want')"
	fi
}

t_done() {
	echo "# $TD_PREFIX: $((TD_T - TD_FAILED - TD_SKIPPED)) passed, $TD_FAILED failed, $TD_SKIPPED skipped"
	[ "$TD_FAILED" -eq 0 ] || return 1
	[ "$TD_SKIPPED" -lt "$TD_T" ] || return 4
}

# t_merge STATUS...: the kselftest status of several programs together: 1
# when one failed (neither 0 nor 4), 4 when all skipped (or none ran), else 0
t_merge() {
	local r all=4
	for r; do
		case $r in
		0) [ "$all" = 4 ] && all=0 ;;
		4) ;;
		*) all=1 ;;
		esac
	done
	return "$all"
}

# Modules: the VM runner sets TD_KO_DIR.
tdsim_load()   { insmod "$TD_KO_DIR/tdsim.ko" "$@"; }
# topdown first: it holds tdsim's events (a test before may have left it)
tdsim_unload() { rmmod topdown 2>/dev/null; rmmod tdsim 2>/dev/null || true; }
TDSIM_DBG=/sys/kernel/debug/tdsim
TDSIM_MODELS="skl icl spr gnr lioncove zen4 zen5 zen6 neoverse-n1 neoverse-n2 neoverse-n2-r0p2 neoverse-v1 neoverse-v2 neoverse-n3 neoverse-v3 ampereone ampereonex gracemont crestmont skymont"

# The tests make check runs on 6.12 only and make soak runs on 6.1 and
# 7.3 (their "-rest" runs): they take the module's perf, hotplug, debugfs
# and netlink paths no other way than the rest do (selftests/check says
# more): tdsim's own tests (tdsim loads under every other test), the
# exact-math checks of every model, tdnl's userspace and the YNL CLI
# (netlink/run.sh sends the same commands).
TD_ONLY_612="selftests/tdsim/truth.sh selftests/topdown/accuracy.py selftests/topdown/raw.py
	selftests/tdnl/export.py selftests/tdnl/explain.py selftests/tdnl/top.py
	selftests/tdsim/load.sh selftests/tdsim/profile.sh selftests/tdsim/schedule.sh
	selftests/tdsim/perf_l1.py selftests/netlink/ynl.py"

# The guest tests make check runs on the debug kernel (selftests/check
# says why these): make soak runs the rest there too.
TD_DEBUG_TESTS="selftests/topdown/kvm.py
	selftests/topdown/hybrid.py selftests/topdown/totals.py
	selftests/topdown/lifecycle.sh selftests/topdown/start.py selftests/netlink/run.sh
	selftests/soak/soak.sh"

# t_totals FILE: make check's and make soak's last lines, from every
# "ok"/"not ok" line in FILE: the failed ones, then "N passed, N failed,
# N skipped".  Status 0 when something passed and nothing failed.
t_totals() {
	local skipped passed failed
	skipped=$(grep -cE '^ok [0-9]+ .*# SKIP' "$1")
	passed=$(( $(grep -cE '^ok [0-9]+ ' "$1") - skipped ))
	failed=$(grep -cE '^not ok [0-9]+ ' "$1")
	echo
	grep -E '^not ok [0-9]+ ' "$1" | sed 's/^/FAILED: /'
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

# t_flatten: the kernel's kselftest runner's output (stdin) for make
# check's count.  The runner prints one "ok N selftests: COLL: TEST" per
# program and each program's own lines behind "# ".  Our programs' own
# "ok"/"not ok" lines are the tests: they lose one "# ".  A program's line
# becomes a comment, with its time, except: skipped as a whole (status 4,
# no line of its own) stays one skip; failed, timed out or died with no
# "not ok" line of its own becomes one failure that says how.
t_flatten() {
	local line prog="" how start=$EPOCHREALTIME own=0 failed=0
	took() { printf '%s' "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"; }
	# line by line as it comes (awk would buffer it), timed by bash
	while IFS= read -r line; do
		case $line in
		"# selftests: "*)
			prog=${line#"# selftests: "} start=$EPOCHREALTIME own=0 failed=0
			echo "$line" ;;
		"# ok "[0-9]* | "# not ok "[0-9]*)
			own=$((own + 1))
			[[ $line == "# not ok "* ]] && failed=1
			echo "${line#"# "}" ;;
		"ok "[0-9]*" selftests: "*"# SKIP"*)
			if [ "$own" -eq 0 ]; then
				echo "ok 1 - $prog # SKIP (status 4)"
			else
				echo "# $prog: skipped in $(took) s"
			fi ;;
		"ok "[0-9]*" selftests: "*)
			echo "# $prog: passed in $(took) s" ;;
		"not ok "[0-9]*" selftests: "*)
			how=failed
			[[ $line == *" # "* ]] && how=${line##*" # "}
			[ "$failed" -eq 0 ] && echo "not ok 1 - $prog: $how with no failed check of its own"
			echo "# $prog: $how in $(took) s" ;;
		"TAP version"* | 1..[0-9]*)
			echo "# $line" ;;
		*)
			echo "$line" ;;
		esac
	done
}
