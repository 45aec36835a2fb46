#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make run: the demo, in the VM.  tdsim, the simulated PMU, emulates a
# Sapphire Rapids with a different ground-truth profile on each CPU.
# Debian's perf, an independent client, reads its counters first; then
# topdown.ko counts them at level 3 and publishes Level 1 and 2 in debugfs
# and over netlink, where tdnl adds the Level 3/4 memory nodes.  It ends
# with tdnl watch.
set -eu
cd "$(dirname "$0")/.."
rmmod tdsim 2>/dev/null || true
insmod "$TD_KO_DIR/tdsim.ko" model=spr
trap 'rmmod topdown 2>/dev/null || true; rmmod tdsim' EXIT
D=/sys/kernel/debug/tdsim
echo "tdsim: $(dmesg | grep -o 'tdsim: emulating.*' | tail -1)"
echo "sysfs: /sys/bus/event_source/devices/tdsim: type $(cat /sys/bus/event_source/devices/tdsim/type)," \
	"format: $(cd /sys/bus/event_source/devices/tdsim/format && grep -H . * | tr '\n' ' ')"
printf 'retiring=30 bad_speculation=5 frontend_bound=15 backend_bound=50 branch_mispredicts=4 fetch_latency=6 memory_bound=35 l1_bound=6 l2_bound=3 l3_bound=5 dram_bound=15 store_bound=4 mem_bandwidth=9 mem_latency=6' > $D/cpu0/profile
printf 'retiring=10 bad_speculation=20 frontend_bound=40 backend_bound=30 heavy_operations=2 branch_mispredicts=15 fetch_latency=30 memory_bound=10 l1_bound=2 l2_bound=1 l3_bound=2 dram_bound=4 store_bound=1 mem_bandwidth=1 mem_latency=3' > $D/cpu1/profile
for c in 0 1; do
	echo "cpu$c ground truth:"
	tr ' ' '\n' < $D/cpu$c/profile | grep -v '^freq_mhz\|^$' | paste -sd' ' | fold -s -w 76 | sed 's/^/  /'
done
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

echo
echo "\$ insmod topdown.ko start=1 model=spr level=3 interval_ms=1000 pmu_type=<tdsim's type>"
insmod "$TD_KO_DIR/topdown.ko" start=1 model=spr level=3 interval_ms=1000 \
	pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)"
sleep 2.2
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
echo
echo "\$ tdnl show -c 0"
tdnl show -c 0
echo
echo "\$ tdnl watch -n 4"
tdnl watch -n 4
