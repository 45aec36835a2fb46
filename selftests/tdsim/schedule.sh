#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tdsim phase schedules (cpuN/schedule): good schedules read back with every
# key, each phase starting from the steady profile; every kind of bad write
# gives EINVAL, names the phase in dmesg and keeps the old schedule; "off",
# an empty write and a profile write each end it.  (What a schedule counts
# is tested in truth.sh.)
set -u
source "$(dirname "$0")/../lib.sh"

tdsim_unload
tdsim_load model=spr || { t_fail "load tdsim"; t_done; exit; }
S=$TDSIM_DBG/cpu1/schedule
P=$TDSIM_DBG/cpu1/profile
wr() { printf '%s' "$2" > "$1"; }
# one write(2) of the text, whatever its length (the shell's printf writes 4 KiB at a time, none when empty)
wr1() { python3 -c 'import os, sys; os.write(os.open(sys.argv[1], os.O_WRONLY), sys.argv[2].encode())' "$1" "$2"; }

check "schedule is 0600" [ "$(stat -c %a $S)" = 600 ]
check "no schedule at load: off" [ "$(cat $S)" = off ]

A="retiring=60 bad_speculation=5 frontend_bound=15 backend_bound=20 branch_mispredicts=4 memory_bound=15"
B="retiring=20.125 bad_speculation=10 frontend_bound=19.875 backend_bound=50 l1_bound=20 freq_mhz=3000"
profile_before=$(cat $P)
check "good 2-phase schedule accepted" wr $S "ms=7 $A; ms=11 $B"
mapfile -t lines < $S
check "reads back as 2 lines" [ "${#lines[@]}" = 2 ]
check "phase 1 line starts with ms=7 and its keys" \
	grep -q "^ms=7 retiring=60 bad_speculation=5 frontend_bound=15 backend_bound=20 " <<<"${lines[0]}"
check "phase 2 keeps decimals" grep -q "^ms=11 retiring=20.125 .*frontend_bound=19.875 " <<<"${lines[1]}"
# every key on each line: the 15 spr fractions, freq_mhz and ms
check "each line has all 17 keys" \
	awk '{ if (NF != 17) bad = 1 } END { exit bad || NR != 2 }' $S
check "unnamed keys take the steady profile (phase 1: l1_bound=8, freq_mhz=2000)" \
	grep -q " heavy_operations=5 .* l1_bound=8 .* freq_mhz=2000$" <<<"${lines[0]}"
check "phase 2: l1_bound=20, freq_mhz=3000" \
	grep -q " l1_bound=20 .* freq_mhz=3000$" <<<"${lines[1]}"
check "the profile is unchanged by a schedule" [ "$(cat $P)" = "$profile_before" ]
check "other CPUs have no schedule" [ "$(cat $TDSIM_DBG/cpu0/schedule)" = off ]

before=$(cat $S)
bad() {	# name text dmesg-pattern
	local n=$1 text=$2 pat=$3
	dmesg -C
	check_err "bad schedule: $n gives EINVAL" "Invalid argument" wr1 $S "$text"
	if [ "$(cat $S)" = "$before" ]; then
		t_ok "bad schedule: $n keeps the old schedule"
	else
		t_fail "bad schedule: $n keeps the old schedule"
	fi
	if dmesg | grep -q "tdsim: $pat"; then
		t_ok "bad schedule: $n says '$pat' in dmesg"
	else
		t_fail "bad schedule: $n says '$pat' in dmesg (got: $(dmesg | tail -1))"
	fi
}
bad "unknown key" "ms=5 $A; ms=5 bogus=1" "schedule phase 2: unknown key 'bogus'"
bad "garbage" "ms=5 %%%" "schedule phase 1: '%%%' is not key=value"
bad "bad value" "ms=5 retiring=abc" "schedule phase 1: bad value 'abc' for retiring"
bad "L1 not adding to 100" "ms=5 $A; ms=6 retiring=61" "schedule phase 2: level 1 adds up to 131.0000 %, not 100"
bad "child larger than parent" "ms=5 heavy_operations=31" \
	"schedule phase 1: heavy_operations is larger than its parent retiring"
bad "too many decimals" "ms=5 $A; ms=5 $A; ms=5 retiring=30.00001" \
	"schedule phase 3: bad value '30.00001' for retiring"
bad "smt_contention on spr" "ms=5 smt_contention=0" "schedule phase 1: unknown key 'smt_contention'"
bad "freq_mhz out of range" "ms=5; ms=5 freq_mhz=99" "schedule phase 2: freq_mhz must be 100..10000"
bad "ms=0" "ms=0 $A" "schedule phase 1: bad value '0' for ms (1..10000)"
bad "ms=10001" "ms=5; ms=10001" "schedule phase 2: bad value '10001' for ms (1..10000)"
bad "ms=-1" "ms=-1" "schedule phase 1: bad value '-1' for ms"
bad "ms=1.5" "ms=1.5" "schedule phase 1: bad value '1.5' for ms"
bad "ms= empty" "ms=" "schedule phase 1: bad value '' for ms"
bad "missing ms=" "ms=5 $A; $B" "schedule phase 2: no ms="
bad "ms= twice" "ms=5 ms=6 $A" "schedule phase 1: ms= given twice"
bad "9 phases" "ms=1;ms=1;ms=1;ms=1;ms=1;ms=1;ms=1;ms=1;ms=1" "schedule: more than 8 phases"
bad "a bad phase after good ones" "ms=5 $A; ms=5 $B; ms=5 $A; ms=5 retiring=1" \
	"schedule phase 4: level 1 adds up to"
bad "8 KiB or more" "ms=5 $(printf '%8200s' '')" "schedule: write all of it at once"

check "8 phases, ms=1 and ms=10000 accepted" \
	wr $S "ms=1;ms=10000;ms=2;ms=3;ms=4;ms=5 $A;ms=6;ms=7 $B;"
check "8 phases read back (a trailing ';' is no phase)" [ "$(wc -l < $S)" = 8 ]
check "phase 2 is ms=10000" [ "$(sed -n 2p $S | cut -d' ' -f1)" = ms=10000 ]
check "a 1-phase schedule is a schedule" wr $S "ms=3 freq_mhz=1000"
check "... and reads back as one line" [ "$(cat $S)" = "ms=3 $(tr '\n' ' ' < $P | sed 's/freq_mhz=2000 $/freq_mhz=1000/')" ]

check "off is accepted" wr $S "off"
check "off reads back" [ "$(cat $S)" = off ]
check "off again is accepted" wr $S "off"
wr $S "ms=5 $A"
check "an empty write is accepted" wr1 $S ""
check "an empty write ends the schedule" [ "$(cat $S)" = off ]
wr $S "ms=5 $A"
check "a blank line is accepted" bash -c "echo > $S"
check "a blank line ends the schedule" [ "$(cat $S)" = off ]
wr $S "ms=5 $A"
check "' off ' with blanks and a newline ends it too" wr $S $' off \n'
check "... off" [ "$(cat $S)" = off ]

# A profile write ends a running schedule; its phases start from the new profile.
wr $S "ms=5 $A; ms=5 $B"
check "a profile write while a schedule runs is accepted" wr $P "retiring=35 backend_bound=35"
check "the profile write ended the schedule" [ "$(cat $S)" = off ]
check "phases start from the new steady profile (retiring=35)" \
	bash -c "printf 'ms=5 bad_speculation=5 backend_bound=40 branch_mispredicts=4' > $S && grep -q ' retiring=35 ' $S"
check "a bad profile write is refused" bash -c "! printf retiring=1 2>/dev/null > $P"
check "a bad profile write leaves the schedule running" [ "$(cut -d' ' -f1 $S)" = ms=5 ]
tdsim_unload

# zen4 has smt_contention; skl checks memory_bound against its memory nodes.
tdsim_load model=zen4
S=$TDSIM_DBG/cpu0/schedule
check "zen4: a schedule with smt_contention is accepted" \
	wr $S "ms=4 smt_contention=10 backend_bound=30; ms=4"
check "zen4: it reads back with smt_contention" \
	bash -c "sed -n 1p $S | grep -q ' smt_contention=10 ' && sed -n 2p $S | grep -q ' smt_contention=5 '"
tdsim_unload
tdsim_load model=skl
S=$TDSIM_DBG/cpu0/schedule
dmesg -C
check_err "skl: a phase with memory_bound but no memory nodes is refused" "Invalid argument" \
	wr $S "ms=4; ms=4 l1_bound=0 l2_bound=0 l3_bound=0 dram_bound=0 store_bound=0 mem_bandwidth=0 mem_latency=0"
check "skl: dmesg names phase 2" bash -c 'dmesg | grep -q "schedule phase 2: on skl memory_bound > 0 needs"'
tdsim_unload

t_done
