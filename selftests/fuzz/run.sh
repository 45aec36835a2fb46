#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: clang's libFuzzer on tdnl's message parser (tdnl_msg.c, from a seed
# corpus of the module's own models, seeds.c) and its command line
# (tdnl_cli.c), with AddressSanitizer and UBSan.  A fixed seed and
# TD_FUZZ_RUNS inputs each (100000 unless set) in make check; make soak
# gives more.  A crash, leak or sanitizer report fails the test, and the
# input that made it is kept in build/fuzz/.
set -u
cd "$(dirname "$0")/../.."
TD_PREFIX=tdnl_fuzz
source selftests/lib.sh

out=build/fuzz
runs=${TD_FUZZ_RUNS:-100000}
seed=${TD_FUZZ_SEED:-1}
mkdir -p "$out"
model_srcs=(kmod/td_model.c kmod/td_intel.c kmod/td_atom.c kmod/td_amd.c kmod/td_arm.c kmod/td_math.c)
tdnl_srcs=(tools/tdnl/calc.c tools/tdnl/l34.c tools/tdnl/msg.c tools/tdnl/out.c tools/tdnl/names.c tools/tdnl/flags.c "${model_srcs[@]}")
cflags=(-g -O1 -Wall -Werror -Iuapi -Ikmod -Itools/tdnl -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=all)

build() {	# name srcs...
	local name=$1
	shift
	if clang "${cflags[@]}" -o "$out/$name" "$@" -lmnl -ljson-c -lncursesw -ltinfo -lpthread -lm -ldl 2> "$out/$name.log"; then
		t_ok "$name builds with libFuzzer, ASan and UBSan"
	else
		t_fail "$name builds with libFuzzer, ASan and UBSan"
		sed 's/^/# /' "$out/$name.log" | head -20
		return 1
	fi
}

fuzz() {	# name corpus: run it, say what it did
	local name=$1 corpus=$2 log last
	log="$out/$name.run.log"
	if (cd "$out" && "./$name" -seed="$seed" -runs="$runs" -max_len=8192 \
		-artifact_prefix="$name-" "$corpus") > "$log" 2>&1; then
		last=$(grep -E '^#[0-9]+' "$log" | tail -1)
		t_ok "$name: $runs inputs from seed $seed, no crash, leak or sanitizer report (${last%%  *}; $(grep -o 'cov: [0-9]*' <<< "$last"), $(grep -o 'corp: [0-9]*' <<< "$last") inputs kept)"
	else
		t_fail "$name: $runs inputs from seed $seed: $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$log")"
		grep -E 'ERROR|runtime error|SUMMARY|artifact' "$log" | head -10 | sed 's/^/# /'
	fi
}

if ! command -v clang > /dev/null; then
	t_fail "clang is installed (make deps)"
	t_done
	exit
fi
if build tdnl_msg selftests/fuzz/tdnl_msg.c "${tdnl_srcs[@]}" &&
   gcc -Wall -Werror -Iuapi -Ikmod -o "$out/seeds" selftests/fuzz/seeds.c "${model_srcs[@]}" -lmnl; then
	rm -rf "$out/msg-corpus"
	mkdir -p "$out/msg-corpus"
	"$out/seeds" "$out/msg-corpus"
	fuzz tdnl_msg msg-corpus
fi
# tdnl.c's main() as tdnl_main(), the netlink layer the harness's
if build tdnl_cli -Dmain=tdnl_main selftests/fuzz/tdnl_cli.c tools/tdnl/tdnl.c tools/tdnl/export.c \
	tools/tdnl/stat.c tools/tdnl/diff.c tools/tdnl/explain.c tools/tdnl/top.c \
	"${tdnl_srcs[@]}"; then
	rm -rf "$out/cli-corpus"
	mkdir -p "$out/cli-corpus"
	fuzz tdnl_cli cli-corpus
fi
t_done
