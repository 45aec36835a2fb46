#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# topdown.ko life cycle on tdsim: bad parameters, interval_ms input, files
# for every present CPU, CPU hotplug while sampling every 10 ms, load and
# unload, and tdsim faults showing as an error state, not as numbers.
set -u
source "$(dirname "$0")/../lib.sh"

TD=/sys/kernel/debug/topdown
td_unload() { rmmod topdown 2>/dev/null; tdsim_unload; }
td_load() {	# tdsim-args -- topdown-args
	local sim=() td=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do sim+=("$1"); shift; done
	shift
	td=("$@")
	tdsim_load "${sim[@]}" || return 1
	insmod "$TD_KO_DIR/topdown.ko" start=1 pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)" "${td[@]}"
}
seq_of() { awk '$1 == "seq" { print $2 }' "$TD/cpu$1/info"; }
state_of() { awk '$1 == "state" { $1 = ""; print substr($0, 2) }' "$TD/cpu$1/info"; }

td_unload
tdsim_load model=spr
T=$(cat /sys/bus/event_source/devices/tdsim/type)
check_err "unknown model= is refused" "Invalid" insmod "$TD_KO_DIR/topdown.ko" model=p4 pmu_type="$T"
check "dmesg names model=" bash -c 'dmesg | tail -3 | grep -q "model=p4: unknown model"'
check_err "level=4 is refused" "Invalid" insmod "$TD_KO_DIR/topdown.ko" model=spr level=4 pmu_type="$T"
check "dmesg names level=" bash -c 'dmesg | tail -3 | grep -q "level=4: must be 1..3"'
check_err "interval_ms=5 is refused" "Invalid" insmod "$TD_KO_DIR/topdown.ko" model=spr interval_ms=5 pmu_type="$T"
for bad in 0 101; do
	check_err "switch_budget_pct=$bad is refused" "Invalid" insmod "$TD_KO_DIR/topdown.ko" model=spr switch_budget_pct=$bad pmu_type="$T"
	check "dmesg names switch_budget_pct=$bad" bash -c "dmesg | tail -3 | grep -q 'switch_budget_pct=$bad: must be 1..100'"
done
tdsim_unload

# The guest CPU (QEMU TCG) is no model topdown knows: it loads and says so.
check "loads on an unknown CPU without model=" insmod "$TD_KO_DIR/topdown.ko" start=1
check "unknown CPU: state unsupported" [ "$(state_of 0)" = unsupported ]
check "unknown CPU: dmesg names the CPU" bash -c 'dmesg | grep -q "topdown: cpu0: .*family.*is not supported"'
check "unknown CPU: level1 is n/a, not numbers" grep -qx "retiring n/a" $TD/cpu0/level1
rmmod topdown

# No PMU (this guest: QEMU TCG has none): topdown loads in state no-pmu.
check "the guest has no hardware PMU (no cpu PMU in sysfs)" [ ! -e /sys/bus/event_source/devices/cpu ]
check "no PMU: loads with model=spr on raw events" insmod "$TD_KO_DIR/topdown.ko" start=1 model=spr
check "no PMU: state no-pmu ($(state_of 0))" [ "$(state_of 0)" = no-pmu ]
check "no PMU: dmesg says so" bash -c 'dmesg | tail -5 | grep -q "topdown: cpu0: no PMU takes raw events (a VM without PMU passthrough?)"'
check "no PMU: level1 is n/a" grep -qx "frontend_bound n/a" $TD/cpu0/level1
check "no PMU: stats count the errors" awk '$1 == "errors" && $2 > 0 { f = 1 } END { exit !f }' $TD/stats
rmmod topdown
check "pmu_type of no PMU: loads" insmod "$TD_KO_DIR/topdown.ko" start=1 model=spr pmu_type=4242
check "pmu_type of no PMU: state no-pmu ($(state_of 0))" [ "$(state_of 0)" = no-pmu ]
rmmod topdown

td_load model=spr -- model=spr interval_ms=100
ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
# every present CPU's (not every possible one's: see td_debugfs.c)
present=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' /sys/devices/system/cpu/present)
check "files for every present CPU ($present)" [ "$(ls -d $TD/cpu*/ | wc -l)" -eq "$present" ]
check "level1 is 0400 (a side channel: root only)" [ "$(stat -c %a $TD/cpu0/level1)" = 400 ]
check "models lists spr and zen4" bash -c "grep -qx spr $TD/models && grep -qx zen4 $TD/models"
sleep 0.5
check "stats count samples" awk '$1 == "samples" && $2 > 0 { f = 1 } END { exit !f }' $TD/stats
for bad in 9 60001 abc -1 " " 100x; do
	check_err "interval_ms '$bad' gives EINVAL" "Invalid argument" bash -c "printf '%s' '$bad' > $TD/interval_ms"
done
check "interval_ms keeps the old value" [ "$(cat $TD/interval_ms)" = 100 ]
check "interval_ms=10 accepted" bash -c "echo 10 > $TD/interval_ms"

# hotplug: cpu1 offline and online 50 times while sampling every 10 ms
# (TD_LIFECYCLE_CYCLES; the debug kernel's make check takes fewer, its
# soak.sh cycles the CPU too)
cycles=${TD_LIFECYCLE_CYCLES:-50}
loads=${TD_LIFECYCLE_LOADS:-20}
if [ "$ncpu" -ge 2 ]; then
	before=$(awk '$1 == "TOPDOWN.SLOTS" { print $3 }' $TD/cpu1/raw)
	for i in $(seq "$cycles"); do
		echo 0 > /sys/devices/system/cpu/cpu1/online
		[ "$i" = $(((cycles + 1) / 2)) ] && off_state=$(state_of 1)
		echo 1 > /sys/devices/system/cpu/cpu1/online
	done
	check "offline CPU says offline" [ "$off_state" = offline ]
	s=$(seq_of 1)
	sleep 0.3
	check "cpu1 samples again after $cycles offline/online cycles" [ "$(seq_of 1)" -gt "$s" ]
	check "cpu1 state ok after hotplug" [ "$(state_of 1)" = ok ]
	after=$(awk '$1 == "TOPDOWN.SLOTS" { print $3 }' $TD/cpu1/raw)
	check "cumulative totals continue across hotplug ($before -> $after)" [ "$after" -gt "$before" ]
fi
td_unload

# load / unload 20 times (TD_LIFECYCLE_LOADS) while sampling every 10 ms
ok=1
for i in $(seq "$loads"); do
	td_load model=icl -- model=icl interval_ms=10 || ok=0
	sleep 0.05
	rmmod topdown || ok=0
	tdsim_unload
done
check "load/unload $loads times" [ "$ok" = 1 ]

# faults: a counter that cannot be created is an error state, not numbers
tdsim_load model=spr
echo 1 > $TDSIM_DBG/fail_event_init
insmod "$TD_KO_DIR/topdown.ko" start=1 model=spr pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)" interval_ms=100
sleep 0.3
states="$(state_of 0)|$(state_of 1)"
check "fail_event_init: one CPU in state 'error -5' ($states)" grep -q "error -5" <<<"$states"
check "fail_event_init: its level1 is n/a" bash -c "grep -l 'retiring n/a' $TD/cpu*/level1 | grep -q ."
check "stats count the error" awk '$1 == "errors" && $2 >= 1 { f = 1 } END { exit !f }' $TD/stats
rmmod topdown
echo 1000000 > $TDSIM_DBG/fail_add
insmod "$TD_KO_DIR/topdown.ko" start=1 model=spr pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)" interval_ms=100
sleep 0.5
check "fail_add: never counted shows state not-counted" [ "$(state_of 0)" = not-counted ]
check "fail_add: level1 is n/a" grep -qx "retiring n/a" $TD/cpu0/level1
check "fail_add: raw flags not-counted" grep -q "not-counted" $TD/cpu0/raw
echo 0 > $TDSIM_DBG/fail_add
td_unload

t_done
