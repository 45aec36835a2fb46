#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# topdown.ko on arm64 (selftests/vm/run --arch arm64: QEMU's neoverse-n1,
# busybox and bash only): the CPU named from its own MIDR_EL1, the events
# QEMU's PMUv3 lacks named per CPU, each of tdsim's Arm models giving back
# its profile's Level 1, CPU hotplug, and tdnl built for arm64.
set -u
source "$(dirname "$0")/../lib.sh"

TD=/sys/kernel/debug/topdown
ARM_PMU=/sys/bus/event_source/devices/armv8_pmuv3
info_of() { awk -v k="$2" '$1 == k { $1 = ""; print substr($0, 2) }' "$TD/cpu$1/info"; }
seq_of() { info_of "$1" seq; }
cpus=$(seq 0 $(($(nproc) - 1)))

# settle N: every online CPU has completed N more intervals (at most 20 s)
settle() {
	local c t start=()
	for c in $cpus; do start[c]=$(seq_of "$c"); done
	for ((t = 0; t < 400; t++)); do
		sleep 0.05
		for c in $cpus; do
			(($(seq_of "$c") >= start[c] + $1)) || continue 2
		done
		return 0
	done
	return 1
}

if [ "$(uname -m)" != aarch64 ]; then
	t_skip "arm64 guest" "not on arm64 ($(uname -m))"
	t_done
	exit
fi
rmmod topdown 2> /dev/null
tdsim_unload

# --- QEMU's PMUv3, no tdsim: the model from MIDR_EL1 ------------------------
midr_part=$(awk '/^CPU part/ { print $NF; exit }' /proc/cpuinfo)
check "QEMU's CPU is a Neoverse N1 (CPU part $midr_part)" [ "$midr_part" = 0xd0c ]
check "the guest has an arm64 PMUv3 ($ARM_PMU)" [ -d $ARM_PMU ]
check "loads with no parameters" insmod "$TD_KO_DIR/topdown.ko" start=1 interval_ms=100
for c in $cpus; do
	check "cpu$c: model neoverse-n1 from its MIDR_EL1" [ "$(info_of "$c" model)" = neoverse-n1 ]
	# N1 is cycle based: no slots; QEMU's PMU says none either (caps/slots 0)
	check "cpu$c: width from the model (slots_from $(info_of "$c" slots_from))" \
		[ "$(info_of "$c" slots_from)" = model ]
done
check "QEMU's PMUv3 says no slots (caps/slots $(cat $ARM_PMU/caps/slots 2> /dev/null))" \
	[ "$(($(cat $ARM_PMU/caps/slots 2> /dev/null || echo 0)))" = 0 ]
settle 2
for c in $cpus; do
	# QEMU implements N1's three events (its stalls count 0): state ok
	check "cpu$c: state ok on QEMU's PMU ($(info_of "$c" state))" [ "$(info_of "$c" state)" = ok ]
	# Debian's arm64 kernels use the buddy lockup detector: no counter held
	check "cpu$c: no counter held ($(info_of "$c" held))" [ "$(info_of "$c" held)" = none ]
	check "cpu$c: level1 prints 100.00 not stalled (QEMU counts no stalls)" \
		grep -qx "not_stalled 100.00" "$TD/cpu$c/level1"
done
out=$(tdnl show 2>&1)
check "tdnl (arm64 build) shows cpu0 neoverse-n1 ok" grep -Eq '^cpu0 +neoverse-n1 .* ok$' <<< "$out"

# CPU hotplug through PSCI
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	echo 0 > /sys/devices/system/cpu/cpu1/online
	check "cpu1 offline: state offline" [ "$(info_of 1 state)" = offline ]
	echo 1 > /sys/devices/system/cpu/cpu1/online
	settle 2
	check "cpu1 online again: state ok ($(info_of 1 state))" [ "$(info_of 1 state)" = ok ]
fi
rmmod topdown

# The Neoverse N2 events are not QEMU's: each CPU says which one it lacks
# (the first in the model's order), the kernel's sysfs list agrees.
check "model=neoverse-n2 loads on QEMU's N1" insmod "$TD_KO_DIR/topdown.ko" start=1 model=neoverse-n2
for c in $cpus; do
	st=$(info_of "$c" state)
	check "cpu$c: state names the event QEMU lacks ($st)" [ "$st" = "error -95 STALL_SLOT_FRONTEND" ]
	check "cpu$c: dmesg names it" \
		bash -c "dmesg | grep -q 'topdown: cpu$c: STALL_SLOT_FRONTEND (0x3e) is not implemented by its PMU'"
done
check "the kernel's sysfs lacks it too" [ ! -e $ARM_PMU/events/stall_slot_frontend ]
check "and has N1's stall_frontend" [ -e $ARM_PMU/events/stall_frontend ]
check "level1 is n/a, not numbers" grep -qx "frontend_bound n/a" $TD/cpu0/level1
rmmod topdown

# --- tdsim's Arm models: Level 1 within 0.5 pp of the profile ---------------
PROFILES=("retiring=55 bad_speculation=5 frontend_bound=10 backend_bound=30 heavy_operations=5 branch_mispredicts=4 fetch_latency=6 memory_bound=20"
	"retiring=10 bad_speculation=20 frontend_bound=40 backend_bound=30 heavy_operations=5 branch_mispredicts=8 fetch_latency=12 memory_bound=20")
# (and N2 with the cycle counter held, as a perf-based NMI watchdog does)
for model in neoverse-n1 neoverse-n2 neoverse-n2-r0p2 neoverse-v1 neoverse-v2 neoverse-n3 neoverse-v3 \
	ampereone ampereonex neoverse-n2+watchdog; do
	wd=0
	[[ $model == *+watchdog ]] && wd=1 model=${model%+watchdog}
	if ! tdsim_load model=$model watchdog=$wd || ! insmod "$TD_KO_DIR/topdown.ko" start=1 model=$model \
		pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)" interval_ms=100; then
		t_fail "$model watchdog=$wd: tdsim and topdown load"
		rmmod topdown 2> /dev/null
		tdsim_unload
		continue
	fi
	for prof in "${PROFILES[@]}"; do
		for c in $cpus; do
			printf '%s' "$prof" > $TDSIM_DBG/cpu$c/profile ||
				t_fail "$model cpu$c: profile written"
		done
		settle 3 || t_fail "$model: intervals complete"
		for c in $cpus; do
			# want: the profile, and for N1 (cycle based) what is not stalled
			err=$(awk -v prof="$prof" -v n1=$([ $model = neoverse-n1 ] && echo 1 || echo 0) '
				BEGIN {
					n = split(prof, kv, " ")
					for (i = 1; i <= n; i++) { split(kv[i], p, "="); want[p[1]] = p[2] }
					want["not_stalled"] = want["retiring"] + want["bad_speculation"]
				}
				$2 == "n/a" { if (!(n1 && ($1 == "retiring" || $1 == "bad_speculation"))) bad = 1; next }
				{
					d = $2 - want[$1]; if (d < 0) d = -d
					if (d > max) max = d
					sum += $2 * 100; got++
				}
				END {
					if (bad || got != (n1 ? 3 : 4) || int(sum + 0.5) != 10000) print "bad"
					else printf "%.2f\n", max
				}' "$TD/cpu$c/level1")
			check "$model watchdog=$wd cpu$c ${prof%% *}...: level1 adds to 100.00, within 0.5 pp (max error $err)" \
				awk -v e="$err" 'BEGIN { exit !(e != "bad" && e <= 0.5) }'
			[[ $model == ampereone* ]] || continue
			# AmpereOne's Level 2: its six nodes, each within 0.5 pp
			err=$(awk -v prof="$prof" '
				BEGIN {
					n = split(prof, kv, " ")
					for (i = 1; i <= n; i++) { split(kv[i], p, "="); want[p[1]] = p[2] }
					want["fetch_bandwidth"] = want["frontend_bound"] - want["fetch_latency"]
					want["other_mispredicts"] = want["bad_speculation"] - want["branch_mispredicts"]
					want["core_bound"] = want["backend_bound"] - want["memory_bound"]
				}
				!($1 in want) || $2 == "n/a" { bad = 1; next }
				{ d = $2 - want[$1]; if (d < 0) d = -d; if (d > max) max = d; got++ }
				END { if (bad || got != 6) print "bad"; else printf "%.2f\n", max }' "$TD/cpu$c/level2")
			check "$model cpu$c ${prof%% *}...: level2 has its 6 nodes, within 0.5 pp (max error $err)" \
				awk -v e="$err" 'BEGIN { exit !(e != "bad" && e <= 0.5) }'
		done
	done
	if ((wd)); then
		for c in $cpus; do
			check "$model watchdog=1 cpu$c: held $(info_of "$c" held), multiplexed $(info_of "$c" multiplexed)" \
				[ "$(info_of "$c" held) $(info_of "$c" multiplexed)" = "fixed0 yes" ]
		done
	fi
	rmmod topdown
	tdsim_unload
done

# --- slots per cycle from the PMU (tdsim's caps/slots, as arm_pmuv3's) ------
# N2 counts of 6 slots: within 0.5 pp with the PMU's 6, off with N2's 5
prof="retiring=10 bad_speculation=20 frontend_bound=40 backend_bound=30 heavy_operations=5 branch_mispredicts=8 fetch_latency=12 memory_bound=20"
for pmmir in 1 0; do
	if ! tdsim_load model=neoverse-n2 slots=6 pmmir=$pmmir ||
		! insmod "$TD_KO_DIR/topdown.ko" start=1 model=neoverse-n2 \
		pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)" interval_ms=100; then
		t_fail "slots=6 pmmir=$pmmir: tdsim and topdown load"
		rmmod topdown 2> /dev/null
		tdsim_unload
		continue
	fi
	for c in $cpus; do printf '%s' "$prof" > $TDSIM_DBG/cpu$c/profile; done
	settle 3 || t_fail "slots=6 pmmir=$pmmir: intervals complete"
	want=$([ $pmmir = 1 ] && echo "6 caps" || echo "5 model")
	for c in $cpus; do
		got="$(info_of "$c" width) $(info_of "$c" slots_from)"
		check "slots=6 pmmir=$pmmir cpu$c: width and slots_from $got (want $want)" [ "$got" = "$want" ]
		err=$(awk -v prof="$prof" '
			BEGIN { n = split(prof, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); want[p[1]] = p[2] } }
			$2 != "n/a" { d = $2 - want[$1]; if (d < 0) d = -d; if (d > max) max = d }
			END { printf "%.2f\n", max }' "$TD/cpu$c/level1")
		if [ $pmmir = 1 ]; then
			check "slots=6 cpu$c: level1 within 0.5 pp with the PMU's slots ($err)" \
				awk -v e="$err" 'BEGIN { exit !(e <= 0.5) }'
		else
			check "slots=6 pmmir=0 cpu$c: level1 off by over 2 pp with N2's constant ($err)" \
				awk -v e="$err" 'BEGIN { exit !(e > 2) }'
		fi
	done
	rmmod topdown
	tdsim_unload
done

t_done
