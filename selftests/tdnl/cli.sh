#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tdnl's command line, on the host: a table of good and bad arguments, each
# with the exit status and a fragment of the message it must give.  The host
# has no topdown family (its kernel cannot load modules), so every command
# that gets past its arguments must say the module is not loaded; where the
# module is loaded (/sys/module/topdown), those rows are skipped.
#
#   bash selftests/tdnl/cli.sh
set -u
cd "$(dirname "$0")/../.."
TD_PREFIX=tdnl_cli
source selftests/lib.sh

tdnl=build/bin/tdnl
TD_ERR=$(mktemp)
trap 'rm -f "$TD_ERR"' EXIT
if ! make -s tools > /dev/null 2> build/tdnl-cli-make.log; then
	t_fail "tdnl builds ($(head -c 300 build/tdnl-cli-make.log))"
	t_done
	exit
fi
t_ok "tdnl builds"

HINT="Try 'tdnl --help'."
VERSION=$(sed -n 's/^#define TD_VERSION\t"\(.*\)"$/\1/p' kmod/td_types.h)
NOTLOADED='the topdown module is not loaded (no generic netlink family "topdown"): sudo modprobe topdown'

# exit status | arguments | fragment of stdout + stderr ("" for none)
# Exit 2 rows must also print the hint and nothing on stdout; exit 1 rows
# (the module is not loaded) nothing on stdout.
cases=(
	# options, help and version
	"0|-V|tdnl $VERSION"
	"0|--version|tdnl $VERSION"
	'0|-h|Usage: tdnl [OPTIONS] COMMAND [ARGS]'
	'0|--help|set interval MS'
	'0|help|watch [-c CPULIST] [-n COUNT]'
	'0|-j --help|Usage: tdnl'
	'2||no command'
	'2|-j|no command'
	'2|-x info|unknown option '"'"'-x'"'"
	'2|--jsn info|unknown option '"'"'--jsn'"'"
	'2|-json info|unknown option '"'"'-json'"'"
	'2|-j --csv info|-j and --csv: choose one'
	'2|info -j|-j goes before the command: tdnl -j info'
	'2|show --csv|--csv goes before the command'
	'2|show --perf-names|--perf-names goes before the command'
	'2|show --raw 1|show: unexpected argument '"'"'1'"'"''
	'2|help x|help: unexpected argument '"'"'x'"'"
	# exact keywords, no abbreviations
	'2|foo|unknown command '"'"'foo'"'"
	'2|inf|unknown command '"'"'inf'"'"
	'2|Info|unknown command '"'"'Info'"'"
	'2|sh|unknown command '"'"'sh'"'"
	'2|watc|unknown command '"'"'watc'"'"
	'2|set int 200|unknown setting '"'"'int'"'"
	'2|set Interval 200|unknown setting '"'"'Interval'"'"
	# extra and missing arguments
	'2|info now|info: unexpected argument '"'"'now'"'"
	'2|show 0|show: unexpected argument '"'"'0'"'"
	'2|show -n 3|show: unknown option '"'"'-n'"'"
	'2|watch -q|watch: unknown option '"'"'-q'"'"
	'2|watch 5|watch: unexpected argument '"'"'5'"'"
	# CPU lists
	'2|show -c|show: -c needs a CPU list'
	'2|show -c ""|show: bad CPU list'
	'2|show -c a|show: bad CPU list '"'"'a'"'"
	'2|show -c 1-|bad CPU list '"'"'1-'"'"
	'2|show -c -1|bad CPU list '"'"'-1'"'"
	'2|show -c 3-1|bad CPU list '"'"'3-1'"'"
	'2|show -c 1,,2|bad CPU list '"'"'1,,2'"'"
	'2|show -c ,1|bad CPU list '"'"',1'"'"
	'2|show -c 1,|bad CPU list '"'"'1,'"'"
	'2|show -c 0-3-5|bad CPU list '"'"'0-3-5'"'"
	'2|show -c +1|bad CPU list '"'"'+1'"'"
	'2|show -c 0x1|bad CPU list '"'"'0x1'"'"
	'2|show -c 8192|bad CPU list '"'"'8192'"'"
	'2|watch -c 1_2|watch: bad CPU list'
	# counts
	'2|watch -n|watch: -n needs a count'
	'2|watch -n 0|watch: bad count '"'"'0'"'"
	'2|watch -n -1|watch: bad count '"'"'-1'"'"
	'2|watch -n x|watch: bad count '"'"'x'"'"
	'2|watch -n 1.5|watch: bad count'
	# set: numbers are checked here, ranges by the kernel
	'2|set|set: what? interval MS or level N'
	'2|set interval|set interval: missing MS'
	'2|set level|set level: missing N'
	'2|set interval abc|set interval: '"'"'abc'"'"' is not a number of milliseconds'
	'2|set interval -5|is not a number of milliseconds'
	'2|set interval 1e3|is not a number of milliseconds'
	'2|set interval 4294967296|is not a number of milliseconds'
	'2|set level two|set level: '"'"'two'"'"' is not a number'
	'2|set level 1.5|set level: '"'"'1.5'"'"' is not a number'
	'2|set level 2 interval|set interval: missing MS'
	'2|set level 2 foo 3|unknown setting '"'"'foo'"'"
	# stat and diff
	'2|stat|stat: no command'
	'2|stat --|stat: no command'
	'2|stat -c 0|stat: no command'
	'2|stat -c|stat: -c needs a CPU list'
	'2|stat -c x -- true|stat: bad CPU list '"'"'x'"'"
	'2|stat -o|stat: -o needs a file'
	'2|stat -n 3 -- true|stat: unknown option '"'"'-n'"'"' (the command goes after --)'
	'2|diff|diff: give two files'
	'2|diff a.json|diff: give two files'
	'2|diff a b c|diff: give two files'
	'2|explain x|explain: unexpected '"'"'x'"'"
	'2|top x|top: unexpected '"'"'x'"'"
	'2|top -c z|top: bad CPU list '"'"'z'"'"
	'2|explain -t|explain: -t needs a value'
	'2|explain -t 0|explain: -t: '"'"'0'"'"' is not 1..3600000 ms'
	'2|explain -t 1e3|is not 1..3600000 ms'
	'2|explain -c 1-0|explain: bad CPU list'
	'2|explain --from|explain: --from needs a value'
	# past the arguments: the kernel has no topdown family here
	"1|info|$NOTLOADED"
	"1|-j info|$NOTLOADED"
	"1|--csv info|$NOTLOADED"
	"1|show|$NOTLOADED"
	"1|show -c 0-3,5|$NOTLOADED"
	"1|show -c 8191|$NOTLOADED"
	"1|show --raw|$NOTLOADED"
	"1|--perf-names --csv watch --raw -n 1|$NOTLOADED"
	"1|-j show -c 0|$NOTLOADED"
	"1|watch|$NOTLOADED"
	"1|--json watch -c 1 -n 3|$NOTLOADED"
	"1|set interval 200|$NOTLOADED"
	"1|set interval 5|$NOTLOADED"
	"1|set level 3|$NOTLOADED"
	"1|set interval 500 level 2|$NOTLOADED"
	"1|-- info|$NOTLOADED"
	"1|stat -- true|$NOTLOADED"
	"1|stat true|$NOTLOADED"
	"1|explain|$NOTLOADED"
	"1|-j explain -c 0 -t 100|$NOTLOADED"
	"1|-j stat -c 0-1 -o /dev/null -- sleep 1|$NOTLOADED"
)

loaded=0
[ -d /sys/module/topdown ] && loaded=1

for row in "${cases[@]}"; do
	IFS='|' read -r want args frag <<< "$row"
	eval "argv=($args)"
	name="tdnl $args -> exit $want"
	if [ "$want" = 1 ] && ((loaded)); then
		t_skip "$name" "the topdown module is loaded"
		continue
	fi
	out=$(timeout 10 "$tdnl" "${argv[@]}" 2> "$TD_ERR")
	rc=$?
	err=$(cat "$TD_ERR")
	why=""
	[ "$rc" = "$want" ] || why="exit $rc"
	[[ "$out$err" == *"$frag"* ]] || why="${why:+$why, }no '$frag'"
	if [ "$want" = 2 ]; then
		[[ $err == *"$HINT" ]] || why="${why:+$why, }no hint"
		[ -z "$out" ] || why="${why:+$why, }stdout not empty"
		[ "$(echo "$err" | wc -l)" = 2 ] || why="${why:+$why, }not 2 lines"
	fi
	if [ "$want" = 1 ]; then
		[ -z "$out" ] || why="${why:+$why, }stdout not empty"
		[ "$err" = "tdnl: $frag" ] || why="${why:+$why, }stderr '$err'"
	fi
	if [ -z "$why" ]; then
		t_ok "$name"
	else
		t_fail "$name ($why; stdout '${out:0:200}' stderr '${err:0:200}')"
	fi
done

# tdnl diff needs no module: two saved results, made here
tmp=$(mktemp -d)
result() {	# command retiring backend memory_bound dram_bound
	printf '{"command":["%s"],"status":0,"elapsed_s":1,"level":3,"interval_ms":100,"groups":[{"model":"spr","cpus":1,"slots":1000,"clockticks":200,"intervals":10,"not_counted":0,"multiplexed":0,"lost":0,"level1":{"retiring":%s,"bad_speculation":5,"frontend_bound":10,"backend_bound":%s},"level2":{"memory_bound":%s,"core_bound":15},"level3":{"dram_bound":%s},"level4":null,"events":{}}],"per_cpu":[]}\n' "$@"
}
result naive 20 65 50 30 > "$tmp/a.json"
result tiled 60 25 10 3 > "$tmp/b.json"
out=$("$tdnl" -j diff "$tmp/a.json" "$tmp/b.json" 2>&1)
changes=$(python3 -c "import json, sys
print(' '.join('%s=%+g' % (r['node'], r['change']) for r in json.load(sys.stdin)))" <<< "$out" 2> /dev/null)
want="retiring=+40 bad_speculation=+0 frontend_bound=+0 backend_bound=-40 memory_bound=-40 core_bound=+0 dram_bound=-27"
check "tdnl -j diff: each node's change B - A ($changes)" [ "$changes" = "$want" ]
out=$("$tdnl" diff "$tmp/a.json" "$tmp/b.json" 2>&1)
check "tdnl diff's text: both commands, a row per node with its change in pp" \
	bash -c '[[ $1 == *"A: naive"* && $1 == *"B: tiled"* ]] && grep -Eq "^ +memory_bound +50.00 +10.00 +-40.00 pp$" <<< "$1"' _ "$out"
out=$("$tdnl" --csv diff "$tmp/a.json" "$tmp/b.json" 2>&1)
check "tdnl --csv diff: a header and 7 rows" \
	bash -c '[ "$(head -1 <<< "$1")" = model,level,node,a,b,change ] && [ "$(wc -l <<< "$1")" = 8 ] &&
		grep -qx "spr,3,dram_bound,30.0000,3.0000,-27.0000" <<< "$1"' _ "$out"
path=$("$tdnl" -j explain --from "$tmp/a.json" 2>&1 | python3 -c "import json, sys
print(' > '.join(p['node'] + ('*' if p['flagged'] else '') for p in json.load(sys.stdin)[0]['path']))" 2> /dev/null)
check "tdnl -j explain --from A: $path" [ "$path" = "backend_bound* > memory_bound* > dram_bound*" ]
path=$("$tdnl" -j explain --from "$tmp/b.json" 2>&1 | python3 -c "import json, sys
print(' > '.join(p['node'] + ('*' if p['flagged'] else '') for p in json.load(sys.stdin)[0]['path']))" 2> /dev/null)
check "tdnl -j explain --from B: $path" [ "$path" = "backend_bound* > core_bound*" ]
# colours: flagged nodes in bold red on a terminal only (script(1) gives a pty)
n=$(TERM=xterm script -qc "$tdnl explain --from $tmp/a.json" /dev/null | grep -c $'\033\[1;31m')
check "explain on a terminal: the 4 flagged nodes in colour ($n lines)" [ "$n" = 4 ]
n=$(NO_COLOR=1 TERM=xterm script -qc "$tdnl explain --from $tmp/a.json" /dev/null | grep -c $'\033')
check "explain with NO_COLOR on a terminal: no escape ($n lines)" [ "$n" = 0 ]
n=$(TERM=xterm "$tdnl" explain --from "$tmp/a.json" | grep -c $'\033')
check "explain into a pipe: no escape ($n lines)" [ "$n" = 0 ]
echo '{"groups": 3}' > "$tmp/bad.json"
echo 'not json' > "$tmp/text.json"
result x 1 1 1 1 | sed 's/"spr"/"zen4"/' > "$tmp/zen.json"
for row in "/dev/null|is not a file saved by tdnl stat -o" \
	   "$tmp/none.json|No such file or directory" \
	   "$tmp/text.json|is not JSON" \
	   "$tmp/bad.json|is not a tdnl stat result" \
	   "$tmp/zen.json|have no CPU model in common"; do
	IFS='|' read -r file frag <<< "$row"
	err=$("$tdnl" diff "$tmp/a.json" "$file" 2>&1 > /dev/null)
	rc=$?
	check "tdnl diff A ${file##*/}: exit $rc, says '$frag'" bash -c '[ "$1" = 1 ] && [[ $2 == *"$3"* ]]' _ "$rc" "$err" "$frag"
done
rm -rf "$tmp"

# bash completion (tools/tdnl/tdnl.bash)
comp() {	# words...: what completes the last one
	bash -c 'source tools/tdnl/tdnl.bash
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		_tdnl; echo "${COMPREPLY[*]}"' _ "$@"
}
for row in "tdnl |info show watch stat diff explain top set start stop export help" \
	   "tdnl -j s|show stat set start stop" \
	   "tdnl explain |-c -t --from" \
	   "tdnl set |interval level" \
	   "tdnl set level |1 2 3" \
	   "tdnl set interval 100 |interval level" \
	   "tdnl watch |-c -n --raw" \
	   "tdnl --perf-names show |-c --raw" \
	   "tdnl --csv show -c |" \
	   "tdnl export |--listen"; do
	IFS='|' read -r words want <<< "$row"
	read -ra w <<< "$words"
	[[ $words == *" " ]] && w+=("")
	got=$(comp "${w[@]}")
	check "completion of '$words': '$got'" [ "$got" = "$want" ]
done
# the example workload of the README and docs/usage.md: both ways give
# the same sums (N not a multiple of the tile), and a bad mode or N is
# refused
a=$(build/bin/matmul naive 100 | sed 's/.*checksum //')
b=$(build/bin/matmul tiled 100 | sed 's/.*checksum //')
check "matmul: naive and tiled give the same checksum at N 100 ($a, $b)" \
	bash -c '[ -n "$1" ] && [ "$1" = "$2" ]' _ "$a" "$b"
build/bin/matmul fast > /dev/null 2>&1
rc1=$?
build/bin/matmul naive 8 > /dev/null 2>&1
rc2=$?
check "matmul: a bad mode or N exits 2 ($rc1, $rc2)" [ "$rc1$rc2" = 22 ]
got=$(comp tdnl stat -c 0 -- tru)
check "completion of 'tdnl stat -c 0 -- tru': commands ($got)" bash -c '[[ " $1 " == *" true "* ]]' _ "$got"
t_done
