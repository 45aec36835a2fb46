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
NOTLOADED='the topdown module is not loaded (no generic netlink family "topdown")'

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
	# past the arguments: the kernel has no topdown family here
	"1|info|$NOTLOADED"
	"1|-j info|$NOTLOADED"
	"1|--csv info|$NOTLOADED"
	"1|show|$NOTLOADED"
	"1|show -c 0-3,5|$NOTLOADED"
	"1|show -c 8191|$NOTLOADED"
	"1|-j show -c 0|$NOTLOADED"
	"1|watch|$NOTLOADED"
	"1|--json watch -c 1 -n 3|$NOTLOADED"
	"1|set interval 200|$NOTLOADED"
	"1|set interval 5|$NOTLOADED"
	"1|set level 3|$NOTLOADED"
	"1|set interval 500 level 2|$NOTLOADED"
	"1|-- info|$NOTLOADED"
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
t_done
