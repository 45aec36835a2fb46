# SPDX-License-Identifier: GPL-2.0
# bash completion for tdnl: make install puts it in
# PREFIX/share/bash-completion/completions/tdnl.
_tdnl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local i cmd="" at=0

	# the command is the first word after the global options
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-j | --json | --csv | --perf-names | -h | --help | -V | --version) ;;
		*) cmd=${COMP_WORDS[i]} at=$i; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "-j --json --csv --perf-names -h --help -V --version" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "info show watch stat diff explain top set start stop export help" -- "$cur")
		fi
		return
	fi
	case $cmd in
	stat)
		# after -- (or the command's name) it is the command's own line
		for ((i = at + 1; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			-c | -o) ((i++)) ;;
			--) _tdnl_cmd $((i + 1)); return ;;
			-*) ;;
			*) _tdnl_cmd "$i"; return ;;
			esac
		done
		case $prev in
		-c) return ;;
		-o) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		esac
		mapfile -t COMPREPLY < <(compgen -W "-c -o --" -- "$cur")
		[[ $cur == -* ]] || mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -c -- "$cur")
		;;
	diff)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	explain)
		case $prev in
		--from) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
		-c | -t) ;;
		*) mapfile -t COMPREPLY < <(compgen -W "-c -t --from" -- "$cur") ;;
		esac ;;
	show)
		[ "$prev" = -c ] || mapfile -t COMPREPLY < <(compgen -W "-c --raw" -- "$cur") ;;
	watch)
		[ "$prev" = -c ] || [ "$prev" = -n ] ||
			mapfile -t COMPREPLY < <(compgen -W "-c -n --raw" -- "$cur") ;;
	set)
		case $prev in
		set | [0-9]*) mapfile -t COMPREPLY < <(compgen -W "interval level" -- "$cur") ;;
		level) mapfile -t COMPREPLY < <(compgen -W "1 2 3" -- "$cur") ;;
		esac ;;
	top)
		[ "$prev" = -c ] || mapfile -t COMPREPLY < <(compgen -W "-c" -- "$cur") ;;
	export)
		[ "$prev" = --listen ] || mapfile -t COMPREPLY < <(compgen -W "--listen" -- "$cur") ;;
	esac
}

# the command tdnl stat runs, from word $1 on: its name, then files
_tdnl_cmd()
{
	local cur=${COMP_WORDS[COMP_CWORD]}

	if [ "$1" -eq "$COMP_CWORD" ]; then
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}

complete -F _tdnl tdnl
