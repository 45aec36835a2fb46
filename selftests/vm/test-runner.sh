#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of selftests/vm/run, on each of Debian's kernels:
#
#   selftests/vm/test-runner.sh [--kernel 6.1|6.12]...
#
# (default: both, or $TD_KERNELS).  Prints "ok N - name" / "not ok N - name"
# per check, with the runner's output as "# " lines when one fails, and
# exits non-zero if any failed.  About a minute per kernel.
# shellcheck disable=SC2016  # (the guest commands are single-quoted on purpose)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
runner=$here/run
kernels=()
while (($#)); do
	case $1 in
	--kernel) kernels+=("${2:?}"); shift 2 ;;
	*) echo "usage: $0 [--kernel 6.1|6.12]..." >&2; exit 2 ;;
	esac
done
((${#kernels[@]})) || read -ra kernels <<< "${TD_KERNELS:-6.1 6.12}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

# vm ARGS...: run the runner, keeping its status in $rc and its stdout and
# stderr in $tmp/out and $tmp/err.
vm() {
	rc=0
	"$runner" "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
}

# check NAME CONDITION...: one result line from a test command.
check() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		failed=$((failed + 1))
		echo "# exit status $rc; stdout, then the end of stderr:"
		sed 's/^/#   /' "$tmp/out"
		tail -n 40 "$tmp/err" | sed 's/^/#   /'
	fi
}

status_is() { ((rc == $1)); }
stdout_is() { [[ $(< "$tmp/out") == "$1" ]]; }
stderr_has() { grep -qE -- "$1" "$tmp/err"; }

# The boot line, with the boot at most 20 s.
boot_ok() {
	local s
	s=$(sed -n 's/^vm: .* booted in \([0-9.]*\) s (smp [0-9]*)$/\1/p' "$tmp/err")
	[[ -n $s ]] && awk -v s="$s" 'BEGIN { exit !(s <= 20) }'
}

for k in "${kernels[@]}"; do
	echo "# kernel $k"

	# The first run builds the modules; the others reuse them.
	vm --kernel "$k" -- true
	check "$k: 'true' exits 0" status_is 0
	check "$k: boot time printed, at most 20 s ($(grep -o 'booted in [0-9.]* s' \
		"$tmp/err" || echo none))" boot_ok

	vm --kernel "$k" --no-build -- 'exit 3'
	check "$k: 'exit 3' exits 3" status_is 3

	vm --kernel "$k" --no-build -- printf '%s|' 'a b' "c'd"
	check "$k: several arguments are a command, quoted" stdout_is "a b|c'd|"

	vm --kernel "$k" --no-build -- 'echo out; echo err >&2'
	check "$k: stdout and stderr stay apart" \
		eval 'stdout_is out && stderr_has "^err$" && ! stderr_has "^out$"'

	vm --kernel "$k" --no-build -- \
		'test -f "$TD_KO_DIR/tdsim.ko" && [ "$TD_KO_DIR" = "$PWD/build/$(uname -r)" ] &&
		insmod "$TD_KO_DIR/tdsim.ko" && rmmod tdsim'
	check "$k: TD_KO_DIR has tdsim.ko; insmod and rmmod work" status_is 0

	vm --kernel "$k" --no-build -- \
		'echo "WARNING: test injected" > /dev/kmsg'
	check "$k: a WARNING in dmesg fails the run and prints the log" \
		eval '((rc != 0)) && stderr_has "WARNING: test injected" &&
			stderr_has "guest kernel log" && stderr_has "Linux version"'

	vm --kernel "$k" --no-build -- \
		'dmesg -C; echo "BUG: test injected before dmesg -C" > /dev/kmsg; dmesg -C'
	check "$k: dmesg -C does not hide a BUG" \
		eval '((rc != 0)) && stderr_has "BUG: test injected"'

	vm --kernel "$k" --no-build -- 'echo 512 > /proc/sys/kernel/tainted'
	check "$k: a W taint fails the run" \
		eval '((rc != 0)) && stderr_has "kernel tainted: 512 \(W\)"'

	vm --kernel "$k" --no-build --smp 4 -- \
		'c=/sys/devices/system/cpu/cpu1/online
		[ "$(nproc)" = 4 ] && echo 0 > $c && [ "$(nproc)" = 3 ] &&
		echo 1 > $c && [ "$(nproc)" = 4 ]'
	check "$k: --smp 4 gives 4 CPUs, cpu1 goes offline and online" status_is 0

	vm --kernel "$k" --no-build -- \
		'setpriv --reuid=65534 --regid=65534 --clear-groups id -u'
	check "$k: commands run as root; nobody is usable" \
		eval 'status_is 0 && stdout_is 65534'

	vm --kernel "$k" --no-build -- 'echo c > /proc/sysrq-trigger'
	check "$k: a kernel panic fails cleanly (125, console shown)" \
		eval 'status_is 125 && stderr_has "panicked" && stderr_has "Kernel panic" &&
		      ! stderr_has "booting again"'

	# a panic before CMD starts (here: no init) is booted once more, then fails
	vm --kernel "$k" --no-build --append rdinit=/nonexistent -- true
	check "$k: a panic while booting: one more boot, then 125" \
		eval 'status_is 125 && stderr_has "before CMD started" &&
		      [[ $(grep -c "booting again" "$tmp/err") == 1 ]] &&
		      stderr_has "panicked"'

	vm --kernel "$k" --no-build --timeout 15 -- 'sleep 600'
	check "$k: --timeout stops a hung guest (124)" \
		eval 'status_is 124 && stderr_has "timed out"'
done

echo "1..$n"
((failed == 0))
