#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host unit tests: builds each selftests/unit/*_test.c against the shared
# kernel sources it tests (in userspace) and the kselftest harness from
# linux-source-6.12, then runs it; then perf_metrics.py.  A build failure
# is a failed test.
# Exits 1 after a failure, 4 when every program skipped, else 0.
set -u
cd "$(dirname "$0")/../.." || exit 1
source selftests/lib.sh
out=build/unit
mkdir -p "$out"
harness=build/linux-source-6.12/tools/testing/selftests
n=0
sts=()	# each program's exit status
for t in selftests/unit/*_test.c; do
	name=$(basename "$t" .c)
	# the kernel sources under test: td_math_test.c tests kmod/td_math.c
	case $name in
	td_sets_test) srcs=(kmod/td_sets.c kmod/td_model.c kmod/td_intel.c kmod/td_atom.c kmod/td_amd.c kmod/td_arm.c kmod/td_math.c) ;;
	td_model_test) srcs=(kmod/td_model.c kmod/td_intel.c kmod/td_atom.c kmod/td_amd.c kmod/td_arm.c kmod/td_math.c) ;;
	# tdnl's Level 3/4 and sample arithmetic, on the module's model tables
	td_l34_test) srcs=(tools/tdnl/l34.c tools/tdnl/calc.c kmod/td_model.c kmod/td_intel.c kmod/td_atom.c kmod/td_amd.c kmod/td_arm.c kmod/td_math.c) ;;
	# tdnl's printing: out.c is included by the test, its callees linked
	tdnl_out_test) srcs=(tools/tdnl/calc.c tools/tdnl/l34.c tools/tdnl/msg.c tools/tdnl/names.c tools/tdnl/flags.c kmod/td_model.c kmod/td_intel.c kmod/td_atom.c kmod/td_amd.c kmod/td_arm.c kmod/td_math.c -lmnl -lm) ;;
	*) srcs=(kmod/"${name%_test}".c) ;;
	esac
	n=$((n + 1))
	# AddressSanitizer and UBSan: the kernel sources out of bounds or overflowing fail here
	if ! gcc -Wall -Werror -O2 -g -fsanitize=address,undefined -fno-sanitize-recover=all -I"$harness" -Iuapi -Ikmod -Itools/tdnl -o "$out/$name" "$t" "${srcs[@]}" 2> "$out/$name.log"; then
		echo "not ok $n - unit: $name builds"
		sed 's/^/# /' "$out/$name.log"
		sts+=(1)
		continue
	fi
	# the kselftest harness exits 1 after a failure, 4 when all skipped
	"$out/$name"
	sts+=($?)
done
# every model's formulas against perf's metric JSON of 6.12 and 7.3
/usr/bin/python3 selftests/unit/perf_metrics.py
sts+=($?)
t_merge "${sts[@]}"
