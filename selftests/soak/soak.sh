#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soaks, in the guest: make check runs the short form on the debug kernel
# (8 cycles and 5 loads), make soak the long one (1000 and 100).
#
# 1. Hotplug: cpu1 offline and online TD_SOAK_CYCLES times (100 unless set)
#    at 10 ms intervals, while `tdnl -j watch` and `tdnl watch` listen, a
#    loop dumps every CPU's sample (`tdnl -j show`) and another switches the
#    level between 2 and 3.  Then: cpu1 samples again, every event's total
#    on every CPU never went down (read at every cycle), both watchers were
#    still running and end on SIGINT with status 0, the dumps all parsed.
# 2. Load and unload TD_SOAK_LOADS times (10) with `tdnl -j watch`
#    listening: each watch ends by itself when the module goes, with the
#    message that it went, and status 1; each load counts again.
#
# kmemleak, where the kernel has it (the debug kernel, issue 12), is
# scanned after each soak: no new leak (with TD_SOAK_LEAKS_AT_END, as make
# check sets it, only by guest-tests.sh's check after every test).  A
# WARN, BUG or Oops fails the VM run (selftests/vm/run).  Every figure
# printed was measured here.
set -u
cd "$(dirname "$0")/../.."
TD_PREFIX=soak
source selftests/lib.sh
[ -n "${TD_KO_DIR:-}" ] || { echo "1..0 # SKIP not in the VM"; exit 4; }

TD=/sys/kernel/debug/topdown
CYCLES=${TD_SOAK_CYCLES:-100}
LOADS=${TD_SOAK_LOADS:-10}
KMEMLEAK=/sys/kernel/debug/kmemleak
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2> /dev/null; rm -rf "$tmp"' EXIT

load() {
	rmmod topdown 2> /dev/null
	insmod "$TD_KO_DIR/topdown.ko" start=1 model=spr \
		pmu_type="$(cat /sys/bus/event_source/devices/tdsim/type)" "$@"
}

# How many events' totals went down, on any CPU, since the last call (one
# awk per cycle: on the debug kernel a process costs tens of ms, and the
# cycles were 5.6 s each with a pipeline of nine); $tmp/t0 keeps them.
totals_down() {
	awk -v prev="$tmp/t0" -v out="$tmp/t1" '
		BEGIN { while ((getline l < prev) > 0) { split(l, f, " "); t[f[1]] = f[2] } }
		FNR == 1 { c = FILENAME; sub(/\/raw$/, "", c) }
		$1 ~ /^[A-Z]/ && $3 ~ /^[0-9]+$/ {
			k = c "/" $1
			if ((k in t) && $3 + 0 < t[k] + 0)
				n++
			print k, $3 > out
		}
		END { print n + 0 }' $TD/cpu*/raw
	mv "$tmp/t1" "$tmp/t0"
}

# kmemleak reports an object only once it is 5 s old and was found
# unreferenced by a scan; two scans after that, as its documentation
# advises, so that a pointer in flight is not taken for a leak.  The list
# is what was reported since the last "clear".
check_leaks() {	# name
	local n
	# make check's short form: the run's last check (guest-tests.sh)
	# covers them; each scan here is ~15 s of this kernel's CPU
	if [ -n "${TD_SOAK_LEAKS_AT_END:-}" ]; then
		t_info "$1: leaks left to the run's last kmemleak check"
		return
	fi
	if [ ! -w "$KMEMLEAK" ]; then
		t_skip "$1: no kmemleak leak" "this kernel has no kmemleak (the debug kernel does)"
		return
	fi
	sleep 6
	echo scan > "$KMEMLEAK"
	echo scan > "$KMEMLEAK"
	n=$(grep -c "^unreferenced object" "$KMEMLEAK")
	# the first ones, with their backtraces, where the log shows them
	head -n 40 "$KMEMLEAK" | sed 's/^/# kmemleak: /'
	check "$1: no kmemleak leak ($n unreferenced objects)" [ "$n" -eq 0 ]
	echo clear > "$KMEMLEAK"
}

rmmod topdown 2> /dev/null
rmmod tdsim 2> /dev/null
tdsim_load model=spr || { t_fail "load tdsim"; t_done; exit; }
[ -w "$KMEMLEAK" ] && echo clear > "$KMEMLEAK"

# --- 1. hotplug ---
if [ "$(nproc)" -lt 2 ] || [ ! -w /sys/devices/system/cpu/cpu1/online ]; then
	t_skip "hotplug soak" "no cpu1 to take offline"
else
	load level=2 interval_ms=10
	sleep 0.3
	build/bin/tdnl -j watch > "$tmp/json" 2> "$tmp/json.err" &
	jw=$!
	build/bin/tdnl watch > /dev/null 2> "$tmp/text.err" &
	tw=$!
	# each dump kept, and parsed once at the end: one python a dump was
	# most of a cycle's time on the debug kernel
	mkdir "$tmp/show"
	(
		n=0 bad=0
		while [ ! -e "$tmp/stop" ]; do
			if build/bin/tdnl -j show > "$tmp/show/$n" 2> /dev/null; then
				n=$((n + 1))
			else
				bad=$((bad + 1))
			fi
			sleep 0.1
		done
		echo "$n $bad" > "$tmp/dumps"
	) &
	(
		n=0
		while [ ! -e "$tmp/stop" ]; do
			build/bin/tdnl set level 3 && build/bin/tdnl set level 2 && n=$((n + 2))
			sleep 0.2
		done
		echo "$n" > "$tmp/levels"
	) &
	: > "$tmp/t0"
	totals_down > /dev/null
	down=0 nohp=0
	start=$(date +%s.%N)
	for i in $(seq "$CYCLES"); do
		# a write the kernel refused, or a CPU that did not go, is a
		# cycle that did not happen
		{ echo 0 > /sys/devices/system/cpu/cpu1/online &&
		  [ "$(cat /sys/devices/system/cpu/cpu1/online)" = 0 ] &&
		  echo 1 > /sys/devices/system/cpu/cpu1/online; } 2> /dev/null ||
			nohp=$((nohp + 1))
		# every event's total, on every CPU, never goes down
		down=$((down + $(totals_down)))
	done
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	touch "$tmp/stop"
	wait $(jobs -p | grep -v -e "^$jw\$" -e "^$tw\$") 2> /dev/null
	seq1=$(awk '$1 == "seq" { print $2 }' $TD/cpu1/info)
	sleep 0.3
	seq2=$(awk '$1 == "seq" { print $2 }' $TD/cpu1/info)
	t_info "$CYCLES offline/online cycles of cpu1 in $secs s"
	check "hotplug: every one of $CYCLES cycles took cpu1 offline and back ($nohp did not)" [ "$nohp" -eq 0 ]
	check "hotplug: cpu1 samples again after $CYCLES cycles (seq $seq1 -> $seq2)" [ "$seq2" -gt "$seq1" ]
	check "hotplug: no event's total went down on any CPU ($down times)" [ "$down" -eq 0 ]
	alive=0
	kill -0 "$jw" 2> /dev/null && kill -0 "$tw" 2> /dev/null && alive=1
	kill -INT "$jw" "$tw" 2> /dev/null
	wait "$jw"; jrc=$?
	wait "$tw"; trc=$?
	samples=$(grep -c '^{' "$tmp/json")
	[ "$alive" = 1 ] && [ "$jrc" -eq 0 ] && [ "$trc" -eq 0 ] && [ "$samples" -gt 0 ]
	check_rc "hotplug: both watchers ran throughout and ended on SIGINT with status 0 ($jrc, $trc; $samples JSON samples)" $?
	bad=$(python3 -c '
import json, sys
bad = 0
for line in open(sys.argv[1]):
    try:
        json.loads(line)
    except ValueError:
        bad += 1
print(bad)' "$tmp/json")
	check "hotplug: every line tdnl -j watch wrote parses ($bad do not)" [ "$bad" -eq 0 ]
	read -r dumps dbad < "$tmp/dumps"
	unparsed=$(python3 -c '
import json, os, sys
bad = 0
for f in os.listdir(sys.argv[1]):
    try:
        json.load(open(os.path.join(sys.argv[1], f)))
    except ValueError:
        bad += 1
print(bad)' "$tmp/show")
	[ "$dumps" -gt 0 ] && [ "$dbad" -eq 0 ] && [ "$unparsed" -eq 0 ]
	check_rc "hotplug: $dumps dumps (tdnl -j show), $dbad failed, $unparsed of them do not parse" $?
	t_info "level changes done meanwhile: $(cat "$tmp/levels")"
	check "hotplug: the level changed meanwhile ($(cat "$tmp/levels") times)" [ "$(cat "$tmp/levels")" -gt 0 ]
	rmmod topdown
	check_leaks "hotplug"
fi

# --- 2. load and unload with a listener ---
ok=0 ends=0 counted=0
start=$(date +%s.%N)
for i in $(seq "$LOADS"); do
	load level=2 interval_ms=10 || continue
	build/bin/tdnl -j watch > "$tmp/w" 2> "$tmp/w.err" &
	w=$!
	# it has joined once a sample came
	for _ in $(seq 100); do
		grep -q '^{' "$tmp/w" && break
		sleep 0.02
	done
	grep -q '^{' "$tmp/w" && counted=$((counted + 1))
	rmmod topdown && ok=$((ok + 1))
	for _ in $(seq 100); do
		kill -0 "$w" 2> /dev/null || break
		sleep 0.02
	done
	if ! kill -0 "$w" 2> /dev/null; then
		# tdnl watch exits 1 when the module goes, saying so (tdnl.8)
		wait "$w"
		[ $? -eq 1 ] && grep -q "the topdown module was unloaded" "$tmp/w.err" &&
			ends=$((ends + 1))
	else
		kill "$w"
		wait "$w"
	fi
done
secs=$(echo "$(date +%s.%N) - $start" | bc)
t_info "$LOADS loads and unloads with tdnl -j watch listening in $secs s"
check "load/unload: $ok of $LOADS unloads with a listener attached" [ "$ok" -eq "$LOADS" ]
check "load/unload: a sample came after each of the $counted loads" [ "$counted" -eq "$LOADS" ]
check "load/unload: tdnl -j watch ended by itself each time, saying the module went, status 1 ($ends of $LOADS)" \
	[ "$ends" -eq "$LOADS" ]
check_leaks "load/unload"
rmmod tdsim
t_done
