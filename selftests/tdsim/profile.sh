#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tdsim ground-truth profiles: defaults, good writes read back, every kind of
# bad write gives EINVAL and keeps the old profile; the fault knobs work.
set -u
source "$(dirname "$0")/../lib.sh"

tdsim_unload
tdsim_load model=spr || { t_fail "load tdsim"; t_done; exit; }
P=$TDSIM_DBG/cpu0/profile
wr() { printf '%s' "$2" > "$1"; }

check "default profile at load" grep -qx "retiring=30" $P
check "default L1 adds to 100" bash -c "grep -E '^(retiring|bad_speculation|frontend_bound|backend_bound)=' $P |
	cut -d= -f2 | awk '{ s += \$1 } END { exit s != 100 }'"
check "smt_contention not shown on spr" bash -c "! grep -q smt_contention $P"

good="retiring=50.25 bad_speculation=4.75 frontend_bound=15 backend_bound=30 heavy_operations=10.5 branch_mispredicts=4 fetch_latency=10"
check "good write accepted" wr $P "$good"
check "good write reads back (decimals kept)" \
	bash -c "grep -qx retiring=50.25 $P && grep -qx bad_speculation=4.75 $P && grep -qx heavy_operations=10.5 $P"
check "other CPUs keep their profile" grep -qx "retiring=30" $TDSIM_DBG/cpu1/profile

before=$(cat $P)
bad() {	# name text
	check_err "bad write: $1 gives EINVAL" "Invalid argument" wr $P "$2"
	if [ "$(cat $P)" = "$before" ]; then
		t_ok "bad write: $1 keeps the old profile"
	else
		t_fail "bad write: $1 keeps the old profile"
	fi
}
bad "unknown key" "retiring=50.25 bogus=1"
bad "garbage" "%%%"
bad "no value" "retiring="
bad "negative" "retiring=-5 bad_speculation=60"
bad "L1 not adding to 100" "retiring=60"
bad "above 100" "retiring=150 backend_bound=0 frontend_bound=0 bad_speculation=0"
bad "too many decimals" "retiring=50.25001"
bad "child larger than parent" "heavy_operations=60"
bad "fetch_latency over frontend_bound" "fetch_latency=15.0001"
bad "mem_bandwidth + mem_latency over dram_bound" "mem_bandwidth=5 mem_latency=5"
bad "smt_contention on an Intel model" "smt_contention=0"
bad "freq_mhz out of range" "freq_mhz=0"
bad "good keys then a bad one" "freq_mhz=3000 retiring=1"
check "dmesg says why" bash -c 'dmesg | tail -20 | grep -q "level 1 adds up to"'

# fault knobs: mode 0600, fail the next N event inits / adds
check "fail_event_init is 0600" [ "$(stat -c %a $TDSIM_DBG/fail_event_init)" = 600 ]
check "fail_add is 0600" [ "$(stat -c %a $TDSIM_DBG/fail_add)" = 600 ]
echo 1 > $TDSIM_DBG/fail_event_init
check "fail_event_init=1 fails the next event init with EIO" \
	[ "$(selftests/perf_open.py tdsim 0x003c)" = EIO ]
check "fail_event_init counts down to 0" [ "$(cat $TDSIM_DBG/fail_event_init)" = 0 ]
check "the next event init succeeds" [ "$(selftests/perf_open.py tdsim 0x003c)" = ok ]
echo 1000000 > $TDSIM_DBG/fail_add
out=$(perf stat -a -x, -e tdsim/event=0x3c/ sleep 0.2 2>&1)
check "fail_add: the event is never counted" grep -q "not counted" <<<"$out"
echo 0 > $TDSIM_DBG/fail_add
out=$(perf stat -a -x, -e tdsim/event=0x3c/ sleep 0.2 2>&1)
check "after fail_add=0 the event counts" awk -F, '$3 ~ /tdsim/ && $1 > 0 { n++ } END { exit n != 1 }' <<<"$out"
tdsim_unload

tdsim_load model=zen4
check "zen4 default has smt_contention" grep -qx "smt_contention=5" $TDSIM_DBG/cpu0/profile
check "zen4 accepts smt_contention" wr $TDSIM_DBG/cpu0/profile "smt_contention=10 backend_bound=30"
tdsim_unload
tdsim_load model=skl
check_err "skl: memory_bound without memory nodes is refused" "Invalid argument" \
	wr $TDSIM_DBG/cpu0/profile "l1_bound=0 l2_bound=0 l3_bound=0 dram_bound=0 store_bound=0 mem_bandwidth=0 mem_latency=0"
tdsim_unload

t_done
