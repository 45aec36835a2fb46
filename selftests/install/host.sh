#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installing, on the host: make install into a DESTDIR for the Debian
# kernels 6.1, 6.12 and 7.3 (the modules in updates/ with the version and the kernel they
# were built for, tdnl that runs, the man pages tdnl.8, topdown.4 and
# tdsim.4, the examples), kept in
# build/install/KVER for the VM's test (selftests/install/guest.sh copies
# it into the guest's root and modprobes from it) with the index depmod
# makes of the kernel's modules and these (depmod under TCG takes
# minutes), and DKMS:
# make dkms-src, then dkms add and build for the host's own kernels (6.1, 6.12), each module
# built for its kernel; removed again at the end, whatever happened.
set -u
cd "$(dirname "$0")/../.." || exit 1
TD_PREFIX=install
# shellcheck source=selftests/lib.sh
source selftests/lib.sh

# the Debian kernels installed (make deps takes the newest of each series;
# the archive moves on: 6.1.0-56 gave way to 6.1.0-57), and 7.3 from its
# root (selftests/vm/kernel-root).  DKMS builds with the host's compiler
# for the host's kernels: 7.3's headers want trixie's gcc-14, so a DKMS
# build for it is a trixie host's, not this one's.
KVERS="" DKMS_KVERS=""
declare -A KTREE=()
for series in 6.1 6.12 7.3; do
	k=$(selftests/vm/kver "$series") || { t_fail "no Debian $series kernel with headers (make deps)"; continue; }
	KVERS="$KVERS $k"
	KTREE[$k]=/lib/modules/$k
	if [ "$series" = 7.3 ]; then
		KTREE[$k]=$(selftests/vm/kernel-root --find "$k")/root/usr/lib/modules/$k
	else
		DKMS_KVERS="$DKMS_KVERS $k"
	fi
done
VERSION=$(sed -n 's/^#define TD_VERSION\t"\(.*\)"$/\1/p' kmod/td_types.h)
stage=build/install
tmp=$(mktemp -d /tmp/td-install.XXXXXX)
dkms_src=/usr/src/topdown-$VERSION
dkms_clean() {
	dkms remove "topdown/$VERSION" --all > /dev/null 2>&1
	rm -rf "$dkms_src"
}
trap 'rm -rf "$tmp"; dkms_clean' EXIT

# modinfo FIELD of a module file
field() { modinfo -F "$1" "$2" 2>/dev/null; }

for k in $KVERS; do
	dest=$stage/$k
	rm -rf "$dest"
	# modules built in a tree of their own (make check's VMs load build/KVER's)
	if ! make -s install KVER="$k" OBJ="$PWD/build/install-obj/$k" DESTDIR="$PWD/$dest" \
		PREFIX=/usr/local > "$tmp/make-$k.log" 2>&1; then
		t_fail "make install KVER=$k DESTDIR=$dest: $(tail -3 "$tmp/make-$k.log" | tr '\n' ' ')"
		continue
	fi
	# depmod as a package's postinst would, over the kernel's tree and ours
	base=$tmp/depmod-$k/lib/modules/$k
	mkdir -p "$base"
	ln -s "${KTREE[$k]}/kernel" "$base/kernel"
	cp "${KTREE[$k]}"/modules.builtin* "${KTREE[$k]}"/modules.order "$base/"
	cp -a "$dest/lib/modules/$k/updates" "$base/"
	depmod -b "$tmp/depmod-$k" "$k" && cp "$base"/modules.* "$dest/lib/modules/$k/"
	n=$(grep -c '^updates/' "$base/modules.dep" 2> /dev/null)
	check "depmod of $k's modules and the installed ones: $n in updates/ in modules.dep" [ "$n" = 2 ]
	for m in topdown tdsim; do
		ko=$(find "$dest/lib/modules/$k/updates" -name "$m.ko*" 2> /dev/null | head -1)
		magic=$(field vermagic "$ko")
		v=$([ $m = topdown ] && echo ", version $(field version "$ko")")
		[ -n "$ko" ] && [ "${magic%% *}" = "$k" ] &&
			{ [ $m = tdsim ] || [ "$(field version "$ko")" = "$VERSION" ]; }
		check_rc "make install KVER=$k: updates/${ko##*/}$v, vermagic ${magic%% *}" $?
	done
done
p=$dest/usr/local
v=$("$p/bin/tdnl" -V 2>&1)
check "tdnl installed under PREFIX/bin runs and is of this version (-V: $v)" [ "$v" = "tdnl $VERSION" ]
for page in tools/tdnl/tdnl.8 docs/topdown.4 docs/tdsim.4; do
	f=${page##*/}
	sec=${f##*.}
	check "${f%.*}($sec) installed under PREFIX/share/man/man$sec, as in the tree" \
		cmp -s "$p/share/man/man$sec/$f" "$page"
	if command -v man > /dev/null; then
		out=$(MANWIDTH=80 man --warnings -l "$p/share/man/man$sec/$f" 2>&1 > /dev/null)
		check "${f%.*}($sec) renders without warnings${out:+ ($out)}" [ -z "$out" ]
	fi
done
check "tdnl's bash completion installed under PREFIX/share/bash-completion/completions" \
	bash -c 'source "$1" && complete -p tdnl' _ "$p/share/bash-completion/completions/tdnl"
check "the modules-load.d and modprobe.d examples installed" \
	grep -qx topdown "$p/share/doc/topdown/examples/modules-load.d/topdown.conf"
unit=$p/lib/systemd/system/tdnl-export.service
check "the exporter's systemd unit runs $(sed -n 's/^ExecStart=//p' "$unit")" \
	grep -qx "ExecStart=/usr/local/bin/tdnl export --listen 127.0.0.1:9739" "$unit"
if command -v systemd-analyze > /dev/null; then
	out=$(systemd-analyze verify --man=no "$unit" 2>&1 | grep -v "Command .* is not executable" | grep -i "tdnl-export")
	check "systemd-analyze verify finds nothing wrong in the unit${out:+ ($out)}" [ -z "$out" ]
fi
check "the modprobe.d example names start=1" \
	grep -q "^options topdown start=1" "$p/share/doc/topdown/examples/modprobe.d/topdown.conf"

if ! command -v dkms > /dev/null; then
	t_skip "dkms build" "no dkms (make deps installs it)"
	t_done
	exit $?
fi
dkms_clean
if make -s dkms-src DKMS_SRC="$dkms_src" > "$tmp/dkms-src.log" 2>&1 &&
	dkms add "topdown/$VERSION" > "$tmp/dkms-add.log" 2>&1; then
	t_ok "make dkms-src and dkms add topdown/$VERSION"
else
	t_fail "make dkms-src and dkms add topdown/$VERSION: $(cat "$tmp"/dkms-*.log | tail -3 | tr '\n' ' ')"
fi
check "dkms.conf has the version ($VERSION) and no placeholder" \
	bash -c "grep -qx 'PACKAGE_VERSION=\"$VERSION\"' '$dkms_src/dkms.conf' && ! grep -q @VERSION@ '$dkms_src/dkms.conf'"
for k in $DKMS_KVERS; do
	if ! dkms build "topdown/$VERSION" -k "$k" > "$tmp/dkms-$k.log" 2>&1; then
		t_fail "dkms build -k $k: $(tail -3 "$tmp/dkms-$k.log" | tr '\n' ' ')"
		continue
	fi
	dir=/var/lib/dkms/topdown/$VERSION/$k/x86_64/module
	for m in topdown tdsim; do
		ko=$(find "$dir" -name "$m.ko*" 2> /dev/null | head -1)
		magic=$(field vermagic "$ko")
		[ -n "$ko" ] && [ "${magic%% *}" = "$k" ]
		check_rc "dkms build -k $k: ${ko##*/} for ${magic%% *}" $?
	done
	check "dkms status: built for $k" bash -c "dkms status topdown/$VERSION -k '$k' 2> /dev/null | grep -q ': built'"
done
t_done
