#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installing, in the VM (its root is an overlay of the host's, gone at
# power-off): what make install put in build/install/KVER on the host,
# with depmod's index of the kernel's modules and those
# (selftests/install/host.sh: building and depmod under TCG take minutes),
# copied into the root; then modprobe
# finds topdown in updates/ and loads it idle; tdnl from PREFIX/bin talks
# to it; with the modprobe.d example in /etc, modprobe gives it start=1,
# level=2 and interval_ms=1000 and it counts (on tdsim as spr); the
# exporter's systemd unit's command line serves its metrics.
set -u
TD_PREFIX=install_guest
# shellcheck source=selftests/lib.sh
source "$(dirname "$0")/../lib.sh"

if [ -z "${TD_VM:-}" ]; then
	t_skip "make install in the VM" "not in the VM"
	t_done
	exit $?
fi
cd "$TD_TOP" || exit 1
k=$(uname -r)
VERSION=$(sed -n 's/^#define TD_VERSION\t"\(.*\)"$/\1/p' kmod/td_types.h)
TDNL=/usr/local/bin/tdnl
rmmod topdown tdsim 2> /dev/null

check "before: modprobe does not find topdown" bash -c '! modinfo -n topdown > /dev/null 2>&1'
stage=build/install/$k
if [ ! -d "$stage/lib/modules/$k" ]; then
	t_fail "the host's make install for $k is in $stage (selftests/install/host.sh)"
	t_done
	exit $?
fi
# (/lib is a link to usr/lib: the trees go where they belong, not over it)
check "$stage copied into /" bash -c "cp -a '$stage/lib/modules/$k/.' '/lib/modules/$k/' &&
	cp -a '$stage/usr/local/.' /usr/local/"
path=$(modinfo -n topdown 2> /dev/null)
check "modinfo -n topdown: $path" [ "${path#/lib/modules/"$k"/updates/topdown.ko}" != "$path" ]
check "modprobe topdown" modprobe topdown
[ "$(cat /sys/module/topdown/version 2> /dev/null)" = "$VERSION" ] &&
	[ "$(cat /sys/module/topdown/parameters/start)" = N ]
check_rc "loaded: version $(cat /sys/module/topdown/version 2> /dev/null), start=$(cat /sys/module/topdown/parameters/start 2> /dev/null) (idle)" $?
out=$($TDNL info 2>&1)
check "$TDNL info answers (topdown $VERSION)" grep -q "^topdown $VERSION " <<< "$out"
check "modprobe -r topdown" modprobe -r topdown

install -m 0644 /usr/local/share/doc/topdown/examples/modprobe.d/topdown.conf /etc/modprobe.d/topdown.conf
modprobe tdsim model=spr
type=$(cat /sys/bus/event_source/devices/tdsim/type 2> /dev/null)
check "modprobe tdsim model=spr, then topdown on it" modprobe topdown pmu_type="$type" model=spr
p=/sys/module/topdown/parameters
[ "$(cat $p/start)" = Y ] && [ "$(cat $p/level)" = 2 ] && [ "$(cat $p/interval_ms)" = 1000 ]
check_rc "the example's options: start=$(cat $p/start) level=$(cat $p/level) interval_ms=$(cat $p/interval_ms)" $?
for _ in $(seq 40); do
	grep -qx "state ok" /sys/kernel/debug/topdown/cpu0/info && break
	sleep 0.25
done
out=$($TDNL show 2>&1)
check "it counts: cpu0 state ok, $TDNL show prints cpu0's Level 1" \
	bash -c 'grep -qx "state ok" /sys/kernel/debug/topdown/cpu0/info' && grep -q "retiring" <<< "$out"
# the exporter's unit, its command line as systemd would run it
ip link set lo up
unit=/usr/local/lib/systemd/system/tdnl-export.service
cmd=$(sed -n 's/^ExecStart=//p' "$unit")
$cmd 2> /tmp/td-export.err &
pid=$!
# served once it listens; cpu0's totals once the module has a sample
served() {
	grep -qx "topdown_up 1" <<< "$1" && grep -q "^topdown_slots_total{cpu=\"0\"} [1-9]" <<< "$1"
}
metrics=""
for _ in $(seq 50); do
	metrics=$(python3 -c 'import urllib.request as u; print(u.urlopen("http://127.0.0.1:9739/metrics", timeout=5).read().decode())' 2> /dev/null)
	served "$metrics" && break
	sleep 0.2
done
check "the unit's command line ($cmd) serves metrics: topdown_up 1, cpu0's slots counted" \
	served "$metrics"
if ! served "$metrics"; then
	grep -E "^topdown_(up|slots_total)" <<< "$metrics" | sed 's/^/# /'
	sed 's/^/# exporter: /' /tmp/td-export.err
fi
kill "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
rm -f /etc/modprobe.d/topdown.conf
check "modprobe -r topdown tdsim" modprobe -r topdown tdsim
t_done
