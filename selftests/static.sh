#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host checks of the kernel code: warning-free W=1 builds, stack frames of
# at most 512 bytes, and sparse (C=2)
# against Debian's 6.1 and 6.12 headers, for amd64 and cross-built for
# arm64, and 7.3's (amd64, in its trixie root: gcc-14 and sid's sparse,
# selftests/vm/kernel-root), tdnl cross-built for arm64, and checkpatch.pl
# --strict from linux-source-6.12 and linux-source-7.3 and 6.12's
# kernel-doc -Wall, used in place.
set -u
cd "$(dirname "$0")/.."
source selftests/lib.sh
TOP=$PWD

# amd64, then the same releases cross-built for arm64 (Debian's arm64
# headers, unpacked by selftests/vm/arm64-root)
arm64_root=$(selftests/vm/arm64-root) || t_fail "arm64 headers unpacked (selftests/vm/arm64-root)"
for rel in 6.1 6.12 7.3 6.1-arm64 6.12-arm64; do
	short=${rel%-arm64}
	kver=$(selftests/vm/kver "$short") || { t_fail "headers for $short installed"; continue; }
	kdir=/lib/modules/$kver/build
	kmake=(make)
	hroot=
	if [[ $short == 7.* ]]; then
		hroot=$(selftests/vm/kernel-root --find "$kver")/root
		kdir=/usr/src/linux-headers-$kver
		kmake=(selftests/vm/in-root "$hroot" make)
	fi
	karch=()
	if [[ $rel == *-arm64 ]]; then
		kver=${kver%-amd64}-arm64
		kdir=$arm64_root/usr/src/linux-headers-$kver
		karch=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	fi
	# a tree of its own (make check's VMs load build/KVER's, beside it)
	obj=$TOP/build/static/$kver
	# rebuild from scratch so every warning shows
	find "$obj" \( -name "*.o" -o -name "*.su" \) -delete 2>/dev/null
	log=$(make -s modules KVER="$kver" OBJ="$obj" KCFLAGS=-fstack-usage 2>&1)
	rc=$?
	warn=$(grep -E "warning:|error:" <<<"$log")
	if [ $rc -eq 0 ] && [ -z "$warn" ] && [ -f "$obj/tdsim.ko" ]; then
		t_ok "$kver: modules build with W=1, no warnings"
	else
		t_fail "$kver: modules build with W=1, no warnings"
		echo "$log" | sed 's/^/# /' | tail -40
	fi
	# every function's stack frame at most 512 bytes (gcc's -fstack-usage)
	su=$(cat "$obj"/kmod/*.su "$obj"/kmod/tdsim/*.su 2>/dev/null | sort -t$'\t' -k2 -n)
	big=$(awk -F'\t' '$2 > 512' <<<"$su")
	most=$(tail -1 <<<"$su" | awk -F'\t' '{ n = split($1, f, ":"); print f[n] " " $2 }')
	if [ -n "$su" ] && [ -z "$big" ]; then
		t_ok "$kver: every stack frame at most 512 bytes ($(wc -l <<<"$su") functions; largest $most)"
	else
		t_fail "$kver: every stack frame at most 512 bytes ($(wc -l <<<"$su") functions)"
		echo "$big" | sed 's/^/# /' | head -20
	fi
	# C=2 runs sparse on every source, whether rebuilt or not
	log=$("${kmake[@]}" -C "$kdir" M="$obj" "${karch[@]}" W=1 C=2 modules 2>&1
	      "${kmake[@]}" -C "$kdir" M="$obj/test" "${karch[@]}" W=1 C=2 modules 2>&1)
	checked=$(grep -c "  CHECK " <<<"$log")
	warn=$(grep -E "warning:|error:" <<<"$log")
	# before 6.4 a policy's range pointer is not const and ynl-gen's
	# ranges are (the validation only reads them; Kbuild says the same
	# to gcc): that one line of kmod/td_nl_gen.c, and only there
	hdrs=$(readlink -f "$hroot$kdir")
	if ! grep -qs 'const struct netlink_range_validation \*range;' \
		"$hdrs/include/net/netlink.h" "${hdrs%-*}-common/include/net/netlink.h"; then
		warn=$(grep -v 'kmod/td_nl_gen\.c:[0-9:]*: warning: incorrect type in initializer (different modifiers)' <<<"$warn")
	fi
	if [ "$checked" -gt 0 ] && [ -z "$warn" ]; then
		t_ok "$kver: sparse clean ($checked files checked)"
	else
		t_fail "$kver: sparse clean ($checked files checked)"
		echo "$warn" | sed 's/^/# /' | head -40
	fi
done

# tdnl for arm64 (-Werror), against the arm64 libmnl
log=$(make -s tools-arm64 2>&1)
if [ $? -eq 0 ] && file build/arm64/bin/tdnl | grep -q "ARM aarch64"; then
	t_ok "tdnl cross-builds for arm64 with -Wall -Wextra -Werror"
else
	t_fail "tdnl cross-builds for arm64 with -Wall -Wextra -Werror"
	echo "$log" | sed 's/^/# /' | tail -20
fi

mapfile -t srcs < <(git ls-files 'kmod/*.[ch]' 'uapi/*.h' 'selftests/kmod/*.c'; ls kmod/*.[ch] kmod/tdsim/*.[ch] selftests/kmod/*.c uapi/linux/*.h 2>/dev/null)
# not ynl-gen's output (kmod/td_nl_gen.[ch]), which netlink/spec.py keeps
# equal to what the kernel's generator makes of the spec
mapfile -t srcs < <(printf '%s\n' "${srcs[@]}" | grep -v '^kmod/td_nl_gen\.[ch]$' | sort -u)
for lsrc in linux-source-6.12 linux-source-7.3; do
	out=$(perl "build/$lsrc/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types -f "${srcs[@]}" 2>&1)
	bad=$(grep -E "^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK)" <<<"$out")
	if [ -z "$bad" ] && [ "${#srcs[@]}" -gt 0 ] && [ -r "build/$lsrc/scripts/checkpatch.pl" ]; then
		t_ok "checkpatch.pl --strict of $lsrc clean on ${#srcs[@]} kernel files"
	else
		t_fail "checkpatch.pl --strict of $lsrc clean on ${#srcs[@]} kernel files"
		echo "${bad:-$out}" | sed 's/^/# /' | head -40
	fi
done

# the kernel-doc comments parse, with every parameter and return described
out=$(perl build/linux-source-6.12/scripts/kernel-doc -none -Wall "${srcs[@]}" 2>&1)
if [ -z "$out" ] && [ -r build/linux-source-6.12/scripts/kernel-doc ]; then
	t_ok "kernel-doc -Wall of linux-source-6.12 clean on ${#srcs[@]} kernel files"
else
	t_fail "kernel-doc -Wall of linux-source-6.12 clean on ${#srcs[@]} kernel files"
	echo "$out" | sed 's/^/# /' | head -40
fi

t_done
