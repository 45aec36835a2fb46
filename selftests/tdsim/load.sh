#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tdsim loads and unloads for every model, shows the model's raw format in
# sysfs, refuses bad parameters and refuses to unload while perf holds events.
set -u
source "$(dirname "$0")/../lib.sh"

PMU=/sys/bus/event_source/devices/tdsim
tdsim_unload

expect_format() {	# model -> expected format/event
	case $1 in
	zen*) echo "config:0-7,32-35" ;;
	neoverse*|ampereone*) echo "config:0-15" ;;
	*) echo "config:0-7" ;;
	esac
}

ncpu=$(ls -d /sys/devices/system/cpu/cpu[0-9]* | wc -l)
for m in $TDSIM_MODELS; do
	if ! tdsim_load model="$m"; then
		t_fail "load model=$m"
		continue
	fi
	ok=1
	[ -r $PMU/type ] || ok=0
	[ "$(cat $PMU/format/event)" = "$(expect_format "$m")" ] || ok=0
	[ "$(cut -d' ' -f1 $TDSIM_DBG/model)" = "$m" ] || ok=0
	[ "$(ls -d $TDSIM_DBG/cpu*/profile | wc -l)" -eq "$ncpu" ] || ok=0
	case $m in
	skl|icl|spr|gnr|lioncove|gracemont|crestmont|skymont) [ "$(cat $PMU/format/cmask)" = "config:24-31" ] &&
		[ "$(cat $PMU/format/any)" = "config:21" ] || ok=0 ;;
	zen*) [ ! -e $PMU/format/any ] || ok=0 ;;
	esac
	if rmmod tdsim && [ ! -e $PMU ] && [ "$ok" = 1 ]; then
		t_ok "load, sysfs format and unload, model=$m"
	else
		t_fail "load, sysfs format and unload, model=$m"
		tdsim_unload
	fi
done

check_err "unknown model is refused" "Invalid" tdsim_load model=pentium4
check "refusal names the parameter in dmesg" \
	bash -c 'dmesg | tail -5 | grep -q "model=pentium4: unknown model"'
check_err "counters=17 is refused" "Invalid" tdsim_load counters=17
check_err "noise_ppm=2000000 is refused" "Invalid" tdsim_load noise_ppm=2000000

# perf holds an event: rmmod must fail until perf is gone.
tdsim_load model=spr
perf stat -a -e tdsim/event=0x3c/ >/dev/null 2>&1 &
perf_pid=$!
refs=0
for _ in $(seq 100); do
	refs=$(awk '$1 == "tdsim" { print $3 }' /proc/modules)
	[ "${refs:-0}" -gt 0 ] && break
	sleep 0.1
done
t_info "tdsim refcount with perf running: $refs"
check_err "rmmod refused while perf holds tdsim events" "in use" rmmod tdsim
kill -INT $perf_pid
wait $perf_pid 2>/dev/null
check "rmmod succeeds once perf exits" rmmod tdsim

# An unknown config fails event init, as on real hardware; exact errnos.
OPEN=selftests/perf_open.py
tdsim_load model=skl
check "a known config opens" [ "$($OPEN tdsim 0x003c)" = ok ]
check "unknown raw config: EINVAL" [ "$($OPEN tdsim 0xffff)" = EINVAL ]
check "an spr-only event on skl: EINVAL" [ "$($OPEN tdsim 0x08a4)" = EINVAL ]
check "sampling: EOPNOTSUPP (ENOTSUP)" [ "$($OPEN tdsim 0x003c 0 --sample)" = ENOTSUP ]
check_err "perf record explains that sampling is unsupported" "support sampling" \
	perf record -a -e tdsim/event=0x3c/ -o /tmp/perf.data true
tdsim_unload

t_done
