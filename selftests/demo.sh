#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make run: the demo, in the VM.  tdsim, the simulated PMU, emulates a
# Sapphire Rapids with a different ground-truth profile on each CPU;
# topdown.ko counts it and publishes Level 1 and 2 in debugfs.  Then
# Debian's perf, an independent client, reads the same counters.
set -eu
cd "$(dirname "$0")/.."
rmmod tdsim 2>/dev/null || true
insmod "$TD_KO_DIR/tdsim.ko" model=spr
trap 'rmmod topdown 2>/dev/null || true; rmmod tdsim' EXIT
D=/sys/kernel/debug/tdsim
echo "tdsim: $(dmesg | grep -o 'tdsim: emulating.*' | tail -1)"
echo "sysfs: /sys/bus/event_source/devices/tdsim: type $(cat /sys/bus/event_source/devices/tdsim/type)," \
	"format: $(cd /sys/bus/event_source/devices/tdsim/format && grep -H . * | tr '\n' ' ')"
printf 'retiring=55 bad_speculation=5 frontend_bound=10 backend_bound=30 branch_mispredicts=4 fetch_latency=6 memory_bound=20' > $D/cpu0/profile
printf 'retiring=10 bad_speculation=20 frontend_bound=40 backend_bound=30' > $D/cpu1/profile
for c in 0 1; do
	echo "cpu$c ground truth: $(grep -E '^(retiring|bad_speculation|frontend_bound|backend_bound)=' $D/cpu$c/profile | tr '\n' ' ')"
done
insmod "$TD_KO_DIR/topdown.ko" model=spr interval_ms=500 \
	pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)"
sleep 1.2
T=/sys/kernel/debug/topdown
for c in 0 1; do
	echo
	echo "\$ cat $T/cpu$c/level1 $T/cpu$c/level2"
	paste -d' ' <(cat $T/cpu$c/level1 <(printf '\n\n\n\n')) $T/cpu$c/level2 |
		awk '{ printf "  %-16s %6s    %-20s %6s\n", $1, $2, $3, $4 }'
done
echo
echo "\$ cat $T/cpu0/info"
sed 's/^/  /' $T/cpu0/info
echo
echo "\$ head -3 $T/cpu0/raw    (event, delta, total, enabled ns, running ns)"
head -3 $T/cpu0/raw | sed 's/^/  /'
rmmod topdown
echo
echo "perf stat -a -A -I 500 (TOPDOWN.SLOTS, UOPS_RETIRED.SLOTS, IDQ_BUBBLES.CORE, INT_MISC.UOP_DROPPING, TOPDOWN.BACKEND_BOUND_SLOTS):"
perf stat -a -A -x, -I 500 --interval-count 3 \
	-e tdsim/event=0x0,umask=0x4,name=slots/ -e tdsim/event=0xc2,umask=0x2,name=ret/ \
	-e tdsim/event=0x9c,umask=0x1,name=fe/ -e tdsim/event=0xad,umask=0x10,name=drop/ \
	-e tdsim/event=0xa4,umask=0x2,name=be/ 2>&1 |
awk -F, 'BEGIN { printf "%10s %5s %9s %9s %9s %9s\n", "time", "cpu", "retiring", "bad_spec", "frontend", "backend" }
$2 ~ /^CPU/ {
	k = $1 " " $2; v[k, $5] = $3
	if (++seen[k] < 5) next
	s = v[k, "slots"]; if (s <= 0) next
	r = v[k, "ret"] / s; f = (v[k, "fe"] - v[k, "drop"]) / s; b = v[k, "be"] / s
	bs = 1 - r - f - b; if (bs < 0) bs = 0
	printf "%10.3f %5s %8.2f%% %8.2f%% %8.2f%% %8.2f%%\n", $1, $2, 100*r, 100*bs, 100*f, 100*b
}'
