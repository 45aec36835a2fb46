#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tdsim's cumulative ground truth: cpuN/truth now and at a given
# CLOCK_MONOTONIC time, exact over a steady profile, a time-weighted mix over
# a schedule, phase by phase within one, still exact in the epochs kept;
# the tdsim_truth PMU through Debian's perf, its count rate, and tdsim's raw
# events against it over a schedule (which gets no noise).
set -u
source "$(dirname "$0")/../lib.sh"

SLOT_NODES="retiring bad_speculation frontend_bound backend_bound smt_contention
	heavy_operations branch_mispredicts fetch_latency memory_bound"
CYCLE_NODES="l1_bound l2_bound l3_bound dram_bound store_bound mem_bandwidth mem_latency"
TPMU=/sys/bus/event_source/devices/tdsim_truth
OPEN=selftests/perf_open.py

# tr_at CPU T: the truth dump of CPU at T (CLOCK_MONOTONIC ns, or now)
tr_at() { echo "$2" > "$TDSIM_DBG/cpu$1/truth" && cat "$TDSIM_DBG/cpu$1/truth"; }
# val DUMP KEY: one value of a dump ("key value" lines) or a profile ("key=value")
val() { awk -v k="$2" '{ split($0, f, /[ =]/) } f[1] == k { print f[2]; exit }' <<<"$1"; }
# near X Y TOL: |X - Y| <= TOL
near() { awk -v x="$1" -v y="$2" -v t="$3" 'BEGIN { d = x - y; exit !(d <= t && -d <= t) }'; }
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.9g", x / y }'; }
export -f near

# maxerr A B WANT: the largest |fraction over [A, B] - WANT| of every node,
# in percentage points, with the node: Level 1/2 over slots, the clock-tick
# nodes over cycles.  WANT is a profile or a schedule line (key=percent).
maxerr() {
	awk -v A="$1" -v B="$2" -v W="$3" -v sn="$SLOT_NODES" -v cn="$CYCLE_NODES" '
	function load(text, arr,   n, i, l, f) {
		n = split(text, l, /[\n ]+/)
		for (i = 1; i <= n; i++)
			if (split(l[i], f, "=") == 2)
				arr[f[1]] = f[2]
	}
	function one(k, unit,   got, e) {
		if (!(k in w))
			return
		if (!(k in a) || !(k in b)) {
			worst = 100; node = k " (missing)"
			return
		}
		got = (b[k] - a[k]) / (b[unit] - a[unit]) * 100
		e = got - w[k]; if (e < 0) e = -e
		if (e >= worst) { worst = e; node = k }
	}
	BEGIN {
		n = split(A, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); a[f[1]] = f[2] }
		n = split(B, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); b[f[1]] = f[2] }
		load(W, w)
		worst = 0; node = "none"
		n = split(sn, s, /[ \t\n]+/); for (i = 1; i <= n; i++) if (s[i] != "") one(s[i], "slots")
		n = split(cn, s, /[ \t\n]+/); for (i = 1; i <= n; i++) if (s[i] != "") one(s[i], "cycles")
		printf "%.7f %s\n", worst, node
	}'
}

# mix LINE1 LINE2: the profile that two schedule phases give over whole
# periods: each node weighted by the phase's cycles, ms * freq_mhz (slots
# weigh the same, being width * cycles in both)
mix() {
	awk -v P="$1" -v Q="$2" '
	function load(text, arr,   n, i, f, l) {
		n = split(text, l, " ")
		for (i = 1; i <= n; i++) { split(l[i], f, "="); arr[f[1]] = f[2] }
	}
	BEGIN {
		load(P, p); load(Q, q)
		wp = p["ms"] * p["freq_mhz"]; wq = q["ms"] * q["freq_mhz"]
		for (k in p)
			if (k != "ms" && k != "freq_mhz")
				printf "%s=%.9f\n", k, (wp * p[k] + wq * q[k]) / (wp + wq)
	}'
}

now_ns() { val "$(tr_at "$1" now)" at_ns; }

# Checks that need local_clock() (tdsim's time) and CLOCK_MONOTONIC to keep
# step to well under a millisecond, as they do while sched_clock is stable
# (the TSC is the clocksource).  A guest that marked its TSC unstable (6.1
# under TCG: "TSCs unsynchronized") runs local_clock() per CPU off the tick,
# up to a tick (4 ms) apart: those checks are skipped there, with the reason.
CS=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
precise() {
	if [ "$CS" = tsc ]; then
		check "$@"
	else
		t_skip "$1" "clocksource $CS: local_clock() is not CLOCK_MONOTONIC to a tick (boot with tsc=reliable)"
	fi
}

tdsim_unload
tdsim_load model=spr || { t_fail "load tdsim"; t_done; exit; }

# ---- the file ----
T=$TDSIM_DBG/cpu0/truth
check "truth is 0600" [ "$(stat -c %a $T)" = 600 ]
u0=$(cut -d' ' -f1 /proc/uptime)
d=$(tr_at 0 now)
u1=$(cut -d' ' -f1 /proc/uptime)
keys=$(awk '{ print $1 }' <<<"$d" | tr '\n' ' ')
check "truth lists at_ns, cycles, slots and the spr nodes in order" [ "$keys" = \
	"at_ns cycles slots retiring bad_speculation frontend_bound backend_bound heavy_operations branch_mispredicts fetch_latency memory_bound l1_bound l2_bound l3_bound dram_bound store_bound mem_bandwidth mem_latency " ]
check "every value is an integer" awk 'NF != 2 || $2 !~ /^[0-9]+$/ { exit 1 }' <<<"$d"
check "at_ns is CLOCK_MONOTONIC now (between /proc/uptime before and after, $u0 and $u1 s)" \
	awk -v t="$(val "$d" at_ns)" -v a="$u0" -v b="$u1" 'BEGIN { exit !(t >= (a - 0.01) * 1e9 && t <= (b + 0.01) * 1e9) }'

# ---- exact over a steady profile, at times given and now ----
PROF="retiring=33.3333 bad_speculation=7.1234 frontend_bound=20.5 backend_bound=39.0433
heavy_operations=3.0001 branch_mispredicts=7.1234 fetch_latency=11.1111 memory_bound=20.0002
l1_bound=8.0001 l2_bound=4 l3_bound=3.5 dram_bound=6.25 store_bound=2.0009
mem_bandwidth=2.5 mem_latency=3.75 freq_mhz=3000"
printf '%s' "$PROF" > $TDSIM_DBG/cpu1/profile
sleep 0.1	# (clear of the change, however the clocks convert)
n0=$(tr_at 1 now)
sleep 0.3
n1=$(tr_at 1 now)
t0=$(val "$n0" at_ns) t1=$(val "$n1" at_ns)
a=$(tr_at 1 "$t0") b=$(tr_at 1 "$t1")
check "a time written reads back as at_ns" [ "$(val "$a" at_ns) $(val "$b" at_ns)" = "$t0 $t1" ]
read -r err node <<<"$(maxerr "$a" "$b" "$PROF")"
check "steady profile, window of $(((t1 - t0) / 1000000)) ms: every node exact (max error $err pp, $node)" \
	near "$err" 0 1e-4
read -r err node <<<"$(maxerr "$n0" "$n1" "$PROF")"
check "... and read as now (max error $err pp, $node)" near "$err" 0 1e-4
dc=$(($(val "$b" cycles) - $(val "$a" cycles)))
check "slots = 6 x cycles on spr" [ $(($(val "$b" slots) - $(val "$a" slots))) = $((6 * dc)) ]
precise "cycles / ns = freq_mhz / 1000 = 3 (got $(ratio $dc $((t1 - t0))))" \
	near "$(ratio $dc $((t1 - t0)))" 3 3e-4

# a time given equals the truth read as now at that time, on both CPUs (the
# two reads convert CLOCK_MONOTONIC to local_clock separately)
for cpu in 0 1; do
	diffs=()
	for _ in 1 2 3 4 5; do
		n=$(tr_at $cpu now)
		g=$(tr_at $cpu "$(val "$n" at_ns)")
		d=$(($(val "$g" cycles) - $(val "$n" cycles)))
		diffs+=("${d#-}")
	done
	f=$(val "$(cat $TDSIM_DBG/cpu$cpu/profile)" freq_mhz)
	sorted=$(printf '%s\n' "${diffs[@]}" | sort -n | tr '\n' ' ')
	t_info "cpu$cpu: |cycles(T given) - cycles(now)|, 5 tries at $f MHz: $sorted"
	precise "cpu$cpu: truth at T given = truth now at T (cycles within 10 us)" \
		awk -v f="$f" '{ exit !($5 <= 10 * f) }' <<<"$sorted"
done

mono=1 prev="" ts=""
for _ in $(seq 10); do
	n=$(tr_at 1 now)
	if [ -n "$prev" ] && ! awk -v A="$prev" -v B="$n" 'BEGIN {
		split(A, a, "\n"); split(B, b, "\n")
		for (i in a) { split(a[i], x, " "); split(b[i], y, " "); if (y[2] < x[2]) exit 1 }
		}'; then
		mono=0
	fi
	prev=$n
	ts+="$(val "$n" at_ns) "
done
check "10 reads of now: at_ns and every value never go back" [ $mono = 1 ]
mono=1 prev=0
for t in $ts; do	# the same moments, given, in order
	c=$(val "$(tr_at 1 "$t")" retiring)
	[ "$c" -ge "$prev" ] || mono=0
	prev=$c
done
precise "the same moments given: retiring never goes back" [ $mono = 1 ]

dmesg -C
check_err "a time in the future: EINVAL" "Invalid argument" tr_at 1 $(($(now_ns 1) + 1000000000))
check "... dmesg says so" bash -c 'dmesg | grep -q "tdsim: cpu1 truth: at_ns [0-9]* is in the future (now [0-9]*)"'
check_err "a time before load: EINVAL" "Invalid argument" tr_at 1 1
check "... dmesg says it is before the oldest epoch kept" \
	bash -c 'dmesg | grep -q "tdsim: cpu1 truth: at_ns 1 is before the oldest epoch kept"'
check_err "garbage written: EINVAL" "Invalid argument" tr_at 1 12abc
check "... dmesg says what to write" \
	bash -c 'dmesg | grep -q "tdsim: cpu1 truth: write a time in ns (CLOCK_MONOTONIC), 0 or now"'
check "0 means now" bash -c "echo 0 > $TDSIM_DBG/cpu1/truth && [ \$(awk 'NR == 1 { print \$2 }' $TDSIM_DBG/cpu1/truth) -gt $t1 ]"

# ---- the epochs kept: a window before later changes stays exact ----
P2="retiring=10 bad_speculation=20 frontend_bound=30 backend_bound=40"
# [t0, t1] is in the epoch of $PROF; [t2, t3] in that of $P2
t2a=$(now_ns 1)
printf '%s' "$P2" > $TDSIM_DBG/cpu1/profile
sleep 0.1
t2=$(now_ns 1)
sleep 0.2
t3=$(now_ns 1)
A0=$(tr_at 1 "$t0") A1=$(tr_at 1 "$t1")
read -r err node <<<"$(maxerr "$A0" "$A1" "$PROF")"
check "after a profile change, the window before it is still exact ($err pp)" near "$err" 0 1e-4
precise "... and the same as read before the change (cycles within 1 ms)" \
	near "$(val "$A1" cycles)" "$(val "$b" cycles)" 3000000
read -r err node <<<"$(maxerr "$(tr_at 1 "$t2")" "$(tr_at 1 "$t3")" "$P2")"
check "the window after it is exact to the new profile ($err pp)" near "$err" 0 1e-4
r=$(ratio $(($(val "$(tr_at 1 "$t2")" retiring) - $(val "$(tr_at 1 "$t2a")" retiring))) \
	$(($(val "$(tr_at 1 "$t2")" slots) - $(val "$(tr_at 1 "$t2a")" slots))))
check "across the change, retiring is between the two ($r)" awk -v r="$r" 'BEGIN { exit !(r >= 0.1 && r <= 0.333334) }'
# 6 more changes: 8 epochs since $PROF's, all kept; a 7th drops it
for i in 1 2 3 4 5 6; do
	printf 'retiring=%d backend_bound=%d' $((10 + i)) $((40 - i)) > $TDSIM_DBG/cpu1/profile
done
read -r err node <<<"$(maxerr "$(tr_at 1 "$t0")" "$(tr_at 1 "$t1")" "$PROF")"
check "7 changes later the first window is still exact ($err pp)" near "$err" 0 1e-4
printf 'retiring=10 backend_bound=40' > $TDSIM_DBG/cpu1/profile
dmesg -C
check_err "8 changes later its start is no longer kept: EINVAL" "Invalid argument" tr_at 1 "$t0"
check "... dmesg names the oldest epoch kept" \
	bash -c "dmesg | grep -q 'tdsim: cpu1 truth: at_ns $t0 is before the oldest epoch kept (the last 8 profile or schedule changes), at [0-9]*'"
check "the window after the first change is still kept" bash -c "echo $t2 > $TDSIM_DBG/cpu1/truth && cat $TDSIM_DBG/cpu1/truth >/dev/null"

# ---- a schedule: a time-weighted mix over whole periods, each phase exact ----
S=$TDSIM_DBG/cpu1/schedule
printf 'retiring=30 bad_speculation=10 frontend_bound=20 backend_bound=40' > $TDSIM_DBG/cpu1/profile
PA="retiring=60 bad_speculation=5 frontend_bound=15 backend_bound=20 heavy_operations=4 branch_mispredicts=4 fetch_latency=10 memory_bound=15 freq_mhz=2000"
PB="retiring=20 bad_speculation=10 frontend_bound=20 backend_bound=50 l1_bound=20 store_bound=1 freq_mhz=3000"
ts=$(now_ns 1)
printf 'ms=7 %s; ms=11 %s' "$PA" "$PB" > $S
mapfile -t ph < $S
want=$(mix "${ph[0]}" "${ph[1]}")
while [ $(($(now_ns 1) - ts)) -lt 2200000000 ]; do sleep 0.3; done
t1=$(now_ns 1)
t0=$((t1 - 112 * 18000000))	# 112 whole periods of 18 ms
a=$(tr_at 1 $t0) b=$(tr_at 1 $t1)
read -r err node <<<"$(maxerr "$a" "$b" "$want")"
precise "2-phase schedule over 112 periods (2.016 s): every node is the time-weighted mix within 0.001 pp (max error $err pp, $node)" \
	near "$err" 0 0.001
check "... retiring is (84 * 60 + 198 * 20) / 282 = 31.9149 %" \
	near "$(val "$want" retiring)" 31.914893617 1e-6
dc=$(($(val "$b" cycles) - $(val "$a" cycles)))
precise "... cycles = 112 * (7 ms * 2000 + 11 ms * 3000 MHz) (got $dc)" near $dc 5264000000 500000
# a window not of whole periods is off by at most one period's difference
read -r err node <<<"$(maxerr "$(tr_at 1 $((t0 + 5000000)))" "$b" "$want")"
check "... a window of 111.7 periods: within 0.4 pp ($err pp)" near "$err" 0 0.4

# 1 ms windows over two periods: each is all phase A, all phase B or spans a boundary
na=0 nb=0 nm=0 bad=0 prev=$(tr_at 1 $t0)
for k in $(seq 1 36); do
	cur=$(tr_at 1 $((t0 + k * 1000000)))
	f=$(ratio $(($(val "$cur" retiring) - $(val "$prev" retiring))) \
		$(($(val "$cur" slots) - $(val "$prev" slots))))
	c=$(($(val "$cur" cycles) - $(val "$prev" cycles)))
	if near "$f" 0.6 1e-6; then
		na=$((na + 1)); near $c 2000000 20000 || { bad=$((bad + 1)); t_info "window $k: $f $c"; }
	elif near "$f" 0.2 1e-6; then
		nb=$((nb + 1)); near $c 3000000 30000 || { bad=$((bad + 1)); t_info "window $k: $f $c"; }
	else
		nm=$((nm + 1))
		awk -v f="$f" -v c=$c 'BEGIN { exit !(f > 0.2 && f < 0.6 && c > 1980000 && c < 3030000) }' ||
			{ bad=$((bad + 1)); t_info "window $k: $f $c"; }
	fi
	prev=$cur
done
t_info "1 ms windows: $na in phase A, $nb in phase B, $nm across a boundary"
precise "36 windows of 1 ms: 12-14 in phase A (7 ms at 2 GHz), 20-22 in phase B (11 ms at 3 GHz), retiring exact, cycles within 1 %" \
	bash -c "[ $na -ge 12 ] && [ $na -le 14 ] && [ $nb -ge 20 ] && [ $nb -le 22 ] && [ $bad = 0 ]"

t4=$(now_ns 1)
check "off is accepted" bash -c "echo off > $S"
sleep 0.1
t5=$(now_ns 1)
sleep 0.2
t6=$(now_ns 1)
read -r err node <<<"$(maxerr "$(tr_at 1 $t5)" "$(tr_at 1 $t6)" "$(cat $TDSIM_DBG/cpu1/profile)")"
check "after off, the steady profile again, exact ($err pp)" near "$err" 0 1e-4
read -r err node <<<"$(maxerr "$(tr_at 1 $((t4 - 900000000)))" "$(tr_at 1 $t4)" "$want")"
precise "the schedule's last 50 periods before off are still the mix ($err pp)" near "$err" 0 0.001
printf 'ms=7 %s; ms=11 %s' "$PA" "$PB" > $S
printf 'retiring=50 backend_bound=20 memory_bound=10' > $TDSIM_DBG/cpu1/profile
sleep 0.1
t5=$(now_ns 1)
sleep 0.2
t6=$(now_ns 1)
read -r err node <<<"$(maxerr "$(tr_at 1 $t5)" "$(tr_at 1 $t6)" "$(cat $TDSIM_DBG/cpu1/profile)")"
check "a profile write ends the schedule: exact to the new profile ($err pp)" near "$err" 0 1e-4

# ---- CPU hotplug: a schedule set while offline starts at the first read ----
ON=/sys/devices/system/cpu/cpu1/online
if [ -w $ON ]; then
	steady=$(cat $TDSIM_DBG/cpu1/profile)
	n0=$(tr_at 1 now)
	echo 0 > $ON
	dmesg -C
	check_err "cpu1 offline: truth gives ENODEV" "No such device" tr_at 1 now
	check "... dmesg says the CPU is offline" bash -c 'dmesg | grep -q "tdsim: cpu1 truth: the CPU is offline"'
	check "cpu1 offline: a schedule is accepted" bash -c "printf 'ms=5 freq_mhz=1000' > $S"
	check "cpu1 offline: a second one too" bash -c "printf 'ms=7 %s; ms=11 %s' '$PA' '$PB' > $S"
	check "cpu1 offline: the schedule reads back" [ "$(wc -l < $S)" = 2 ]
	mapfile -t ph < $S
	echo 1 > $ON
	sleep 0.2
	n1=$(tr_at 1 now)	# the first read on cpu1: the schedule starts
	t1=$(val "$n1" at_ns)
	while [ $(($(now_ns 1) - t1)) -lt 1000000000 ]; do sleep 0.3; done
	read -r err node <<<"$(maxerr "$n0" "$n1" "$steady")"
	check "offline until the first read counts at the steady profile before ($err pp)" near "$err" 0 1e-4
	read -r err node <<<"$(maxerr "$n1" "$(tr_at 1 $((t1 + 50 * 18000000)))" "$(mix "${ph[0]}" "${ph[1]}")")"
	precise "from the first read, 50 periods of the second schedule: the mix ($err pp)" near "$err" 0 0.001
	precise "the time before offline is still kept" \
		near "$(val "$(tr_at 1 "$(val "$n0" at_ns)")" cycles)" "$(val "$n0" cycles)" 3000000
	echo off > $S
else
	t_skip "CPU hotplug" "no $ON"
fi

# ---- the tdsim_truth PMU ----
check "tdsim_truth: format/event is config:0-7" [ "$(cat $TPMU/format/event)" = config:0-7 ]
check "tdsim_truth: cpumask as tdsim's" [ "$(cat $TPMU/cpumask)" = "$(cat /sys/bus/event_source/devices/tdsim/cpumask)" ]
i=0 ok=1
for k in $(awk 'NR > 1 { print $1 }' $TDSIM_DBG/cpu0/truth); do
	[ "$(cat $TPMU/events/$k 2>/dev/null)" = "config=$((i < 6 ? i : i + 1))" ] || ok=0
	i=$((i + 1))	# spr has no smt_contention, config 6
done
check "tdsim_truth: events/<name> is config=<index> for each of the 17 spr quantities" \
	bash -c "[ $ok = 1 ] && [ $(ls $TPMU/events | wc -l) = 17 ] && [ ! -e $TPMU/events/smt_contention ]"
check "tdsim_truth: a known config opens" [ "$($OPEN tdsim_truth 2)" = ok ]
check "tdsim_truth: unknown config 18: EINVAL" [ "$($OPEN tdsim_truth 18)" = EINVAL ]
check "tdsim_truth: smt_contention (6) on spr: EINVAL" [ "$($OPEN tdsim_truth 6)" = EINVAL ]
check "tdsim_truth: config 2 + 2^32: EINVAL" [ "$($OPEN tdsim_truth 0x100000002)" = EINVAL ]
check "tdsim_truth: sampling: EOPNOTSUPP (ENOTSUP)" [ "$($OPEN tdsim_truth 2 0 --sample)" = ENOTSUP ]
# (perf stat itself turns a per-task tdsim_truth event into a CPU-wide one)
check "tdsim_truth: a per-task event: EINVAL" [ "$(python3 -c '
import ctypes, struct, sys
attr = struct.pack("IIQ", int(open(sys.argv[1]).read()), 112, 2).ljust(112, b"\0")
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(298, ctypes.create_string_buffer(attr, 112), 0, -1, -1, 0)
print("ok" if fd >= 0 else __import__("errno").errorcode[ctypes.get_errno()])' $TPMU/type)" = EINVAL ]

# perf_stat SECONDS EVENTS...: "cpu event value run_ns pct" per CPU and
# event, for sleep SECONDS (perf's CSV: CPUn,value,unit,event,run_ns,pct,,;
# the event name may have commas).  Events compared with each other go in
# one group, "{a,b}": perf enables and disables a group in one call on the
# CPU, its events read microseconds apart, while separate events start and
# stop one after the other, which under load here took milliseconds.
perf_stat() {
	local secs=$1 args=() e
	shift
	for e in "$@"; do args+=(-e "$e"); done
	perf stat -a -A -x, "${args[@]}" sleep "$secs" 2>&1 >/dev/null |
		awk -F, '$1 ~ /^CPU/ { ev = $4; for (i = 5; i <= NF - 4; i++) ev = ev "," $i
			print substr($1, 4), ev, $2, $(NF - 3), $(NF - 2) }'
}
out=$(perf_stat 1 "{tdsim_truth/slots/,tdsim_truth/cycles/}")
for cpu in 0 1; do
	s=$(awk -v c=$cpu '$1 == c && $2 == "tdsim_truth/slots/" { print $3, $4 }' <<<"$out")
	cy=$(awk -v c=$cpu '$1 == c && $2 == "tdsim_truth/cycles/" { print $3 }' <<<"$out")
	read -r sv run <<<"$s"
	t_info "cpu$cpu: tdsim_truth/slots/ $sv in $run ns enabled"
	freq=$(val "$(cat $TDSIM_DBG/cpu$cpu/profile)" freq_mhz)
	check "cpu$cpu: perf stat -a sleep 1: slots = 6 x $freq MHz x enabled time within 2 % ($(ratio "$sv" "$run") per ns)" \
		near "$(ratio "$sv" "$run")" $((6 * freq / 1000)).0 $(awk -v f=$freq 'BEGIN { print 0.02 * 6 * f / 1000 }')
	check "cpu$cpu: ... and at least 1 s of them within 2 % (>= 0.98 x $((6 * freq))e6)" \
		awk -v s="$sv" -v f=$freq 'BEGIN { exit !(s >= 0.98 * 6 * f * 1e6) }'
	check "cpu$cpu: ... slots = 6 x cycles within 0.01 % ($(ratio "$sv" "$cy"): one group, read at one moment while perf holds tdsim_truth disabled)" \
		near "$(ratio "$sv" "$cy")" 6 6e-4
done

# many tdsim events multiplex; tdsim_truth's never do
many=()
for u in 0x1 0x2 0x4 0x8 0x10; do many+=("tdsim/event=0xa4,umask=$u/"); done
many+=(tdsim/event=0xc2,umask=0x2/ tdsim/event=0xc2,umask=0x1/ tdsim/event=0xc2,umask=0x4/
	tdsim/event=0xae,umask=0x1/ tdsim/event=0x9c,umask=0x1/ tdsim/event=0xad,umask=0x10/)
out=$(perf_stat 1 "${many[@]}" tdsim_truth/retiring/ tdsim_truth/slots/)
check "with 11 tdsim events on 8 counters, tdsim events multiplex" \
	awk '$2 ~ /^tdsim\// && $5 < 100 { n++ } END { exit !n }' <<<"$out"
check "... and tdsim_truth's count all the time on both CPUs" \
	awk '$2 ~ /^tdsim_truth/ { n++; if ($5 != 100) bad = 1 } END { exit bad || n != 4 }' <<<"$out"

# raw events against the truth, in one perf run over a schedule: perf's
# retiring (UOPS_RETIRED.SLOTS / TOPDOWN.SLOTS) equals the truth's.  The
# two groups start and stop apart: over 2 s of a schedule whose phases
# differ by 40 points, 1 ms apart is 0.02 pp at most
# consistency LABEL MAX-PP CPUS: for each of CPUS (cpu0 steady, cpu1 a
# schedule) perf's retiring within MAX-PP of the truth's.  Sets, per CPU,
# pr<cpu> and tr<cpu> (perf's and the truth's retiring) and pd<cpu>, how
# far perf's retiring, backend_bound and bad_speculation (X_SLOTS /
# TOPDOWN.SLOTS) are from cpu0's steady 30, 40 and 10 %, the largest
RET=tdsim/event=0xc2,umask=0x2/ SLOTS=tdsim/event=0x0,umask=0x4/
BE=tdsim/event=0xa4,umask=0x2/ BS=tdsim/event=0xa4,umask=0x4/
consistency() {
	local label=$1 tol=$2 out cpu p t d
	out=$(perf_stat 2 "{$RET,$SLOTS,$BE,$BS}" "{tdsim_truth/retiring/,tdsim_truth/slots/}")
	check "$label: no event multiplexed" awk '$5 != 100 { bad = 1 } END { exit bad || NR != 12 }' <<<"$out"
	for cpu in 0 1; do
		read -r p t d < <(awk -v c=$cpu -v r=$RET -v s=$SLOTS -v be=$BE -v bs=$BS '
			$1 == c { v[$2] = $3 }
			function off(x, want) { x = x / v[s] - want; return x < 0 ? -x : x }
			END {
				d = off(v[r], 0.3); if (off(v[be], 0.4) > d) d = off(v[be], 0.4)
				if (off(v[bs], 0.1) > d) d = off(v[bs], 0.1)
				printf "%.9f %.9f %.9f\n", v[r] / v[s],
					v["tdsim_truth/retiring/"] / v["tdsim_truth/slots/"], d
			}' <<<"$out")
		printf -v "pr$cpu" %s "$p"
		printf -v "tr$cpu" %s "$t"
		printf -v "pd$cpu" %s "$d"
		[[ " $3 " == *" $cpu "* ]] || continue
		check "$label cpu$cpu: perf's retiring $p = truth's $t within $tol pp" \
			near "$p" "$t" "$(awk -v t="$tol" 'BEGIN { print t / 100 }')"
	done
}
printf 'retiring=30 bad_speculation=10 frontend_bound=20 backend_bound=40' > $TDSIM_DBG/cpu0/profile
printf 'ms=7 %s; ms=11 %s' "$PA" "$PB" > $S
consistency "schedule" 0.1 "0 1"
check "schedule cpu0 (steady): truth's retiring is 30 % within 0.01 pp ($tr0)" near "$tr0" 0.3 1e-4
check "schedule cpu0: perf's retiring, backend_bound and bad_speculation are the profile's within 0.01 pp (largest error $pd0)" \
	near "$pd0" 0 1e-4
check "schedule cpu1: truth's retiring is between the phases' (20, 60), away from both ($tr1)" \
	awk -v r="$tr1" 'BEGIN { exit !(r > 0.21 && r < 0.59) }'
tdsim_unload

# noise jitters a steady profile's counts, never a schedule's or the truth
tdsim_load model=spr noise_ppm=200000
printf 'ms=7 %s; ms=11 %s' "$PA" "$PB" > $TDSIM_DBG/cpu1/schedule
consistency "noise_ppm=200000, schedule" 0.1 1
check "noise_ppm=200000: the steady cpu0's retiring, backend_bound or bad_speculation is off the profile by over 0.1 pp ($pd0)" \
	bash -c "! near $pd0 0 1e-3"
check "... while its truth stays 30 % within 0.01 pp ($tr0)" near "$tr0" 0.3 1e-4
tdsim_unload

# ---- slots per cycle of every model; smt_contention on zen ----
for m in $TDSIM_MODELS; do
	case $m in
	skl|neoverse-n1|ampereone*) w=4 ;; icl|neoverse-n2*|neoverse-n3|gracemont) w=5 ;;
	spr|gnr|zen4|crestmont) w=6 ;; neoverse-v3) w=10 ;; *) w=8 ;;
	esac
	tdsim_load model=$m || { t_fail "load model=$m"; continue; }
	a=$(tr_at 0 now); sleep 0.1; b=$(tr_at 0 now)
	dc=$(($(val "$b" cycles) - $(val "$a" cycles)))
	ds=$(($(val "$b" slots) - $(val "$a" slots)))
	read -r err node <<<"$(maxerr "$a" "$b" "$(cat $TDSIM_DBG/cpu0/profile)")"
	check "$m: slots = $w x cycles, every node exact to the default profile ($err pp)" \
		bash -c "[ $ds = $((w * dc)) ] && [ $dc -gt 0 ] && [ $node != none ] && near $err 0 1e-4"
	case $m in
	zen*) check "$m: smt_contention in truth and in tdsim_truth's events, config 6 opens" \
		bash -c "grep -q '^smt_contention ' $TDSIM_DBG/cpu0/truth && [ \"\$(cat $TPMU/events/smt_contention)\" = config=6 ] &&
			[ \"\$($OPEN tdsim_truth 6)\" = ok ]" ;;
	esac
	tdsim_unload
done

t_info "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource); $(dmesg | grep -i -E 'tsc|sched_clock|clocksource' | tail -4 | tr '\n' ';')"
t_done
