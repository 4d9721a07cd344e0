#!/usr/bin/env bash
# options-doc.sh - the man pages, --help and the options ebs takes cannot
# drift apart: each command's option table (cli/options.h, printed by the
# hidden `ebs --dump-options CMD`) against its page's OPTIONS section (every
# option of the table there with the same argument name, its short and
# long names in one tag, and every option the page lists in the table) and
# its SYNOPSIS (every option named there), and against its --help (generated
# from the table: every option shown, none hidden shown).  Then the checker
# is shown to fail on a page with an option left out, one that does not
# exist, and an argument renamed.
. "$(dirname "$0")/../lib.sh"

if ! command -v python3 >/dev/null; then
	skip "man pages against the option tables" "python3 is not installed"
	exit 0
fi
MANOPTS=$TOP/tests/tools/manopts.py
CMDS="record report stat monitor top calibrate diff annotate flamegraph export script convert archive list addr2line view"

page() { if [ "$1" = ebs ]; then echo "$TOP/docs/ebs.1"; else echo "$TOP/docs/ebs-$1.1"; fi; }

for cmd in ebs $CMDS; do
	if ! "$EBS" --dump-options "$cmd" >"$cmd.opts" 2>"$cmd.err" || [ ! -s "$cmd.opts" ]; then
		fail "ebs --dump-options $cmd" "$(head -n 1 "$cmd.err")"
		continue
	fi
	python3 "$MANOPTS" "$(page "$cmd")" "$cmd.opts" >"$cmd.diff" 2>&1
	rc=$?
	check "$cmd: its page's OPTIONS and its option table agree ($(head -n 1 "$cmd.diff"))" \
		[ $rc -eq 0 ]
	python3 "$MANOPTS" --synopsis "$(page "$cmd")" "$cmd.opts" >"$cmd.syn" 2>&1
	rc=$?
	check "$cmd: its page's SYNOPSIS names every option ($(head -n 1 "$cmd.syn"))" [ $rc -eq 0 ]
done

# --help is printed from the same table: every option shown, the hidden not
for cmd in $CMDS; do
	"$EBS" "$cmd" --help >"$cmd.help" 2>&1
	missing=$(awk -F'\t' '$4 != "hidden" { print ($2 != "" ? $2 : $1) }' "$cmd.opts" |
		while read -r o; do grep -qE -- "(^|[ ,])$o([ =[]|\$)" "$cmd.help" || echo "$o"; done)
	shown=$(awk -F'\t' '$4 == "hidden" && $2 != "" { print $2 }' "$cmd.opts" |
		while read -r o; do grep -qE -- "^ +(-., )?$o([ =[]|\$)" "$cmd.help" && echo "$o"; done)
	check "$cmd --help: every option of the table${missing:+ (not: $missing)}, no hidden one${shown:+ (shown: $shown)}" \
		sh -c "[ -z '$missing' ] && [ -z '$shown' ] && grep -q '^usage: ebs $cmd' $cmd.help"
done

# the shared input options are one table: the same lines in every reader's --help
for cmd in annotate diff export flamegraph script; do
	for o in --debug-dir --no-cache --force; do
		grep -E -- "^ +$o( |\$)" report.help >want.line
		grep -E -- "^ +$o( |\$)" "$cmd.help" >got.line
		check "$cmd --help: $o's line is report's" sh -c "[ -s want.line ] && cmp -s want.line got.line"
	done
done

# ---- the checker fails on drift -------------------------------------------
# a page without an option ebs takes (record's --clean: its tag and text)
awk '/^\.TP$/ { if (skip) skip = 0; held = 1; tp = $0; next }
     held { held = 0; if ($0 ~ /^\.B \\-\\-clean$/) { skip = 1; next } print tp }
     /^\.SH/ { skip = 0 }
     !skip' "$TOP/docs/ebs-record.1" >record.1
python3 "$MANOPTS" record.1 record.opts >drift.out 2>&1
rc=$?
check "a page without --clean: the check fails, naming it" \
	sh -c "[ $rc -eq 1 ] && grep -q -- '--clean: not in the page' drift.out && [ \$(wc -l <drift.out) -eq 1 ]"
# a page with an option ebs does not take
sed '/^\.SH OPTIONS/a .TP\n.BI \\-\\-frobnicate " n"\nFrobnicates.' "$TOP/docs/ebs-report.1" >report.1
python3 "$MANOPTS" report.1 report.opts >drift.out 2>&1
rc=$?
check "a page with --frobnicate: the check fails, naming it" \
	sh -c "[ $rc -eq 1 ] && grep -q -- '--frobnicate: in the page, but the command has no such option' drift.out"
# an argument the page names otherwise
sed 's/^\.BI \\-\\-width " N"$/.BI \\-\\-width " columns"/' "$TOP/docs/ebs-report.1" >report.1
python3 "$MANOPTS" report.1 report.opts >drift.out 2>&1
rc=$?
check "a page whose --width takes 'columns': the check fails, naming both" \
	sh -c "[ $rc -eq 1 ] && grep -q -- \"--width: the page's argument is 'columns', the table's 'n'\" drift.out"
# a synopsis without -g and --call-graph
sed '/^\.RB \[ \\-g " | " \\-\\-call\\-graph$/,+1d' "$TOP/docs/ebs-record.1" >record.1
python3 "$MANOPTS" --synopsis record.1 record.opts >drift.out 2>&1
rc=$?
check "a synopsis without -g and --call-graph: the check fails, naming both" \
	sh -c "[ $rc -eq 1 ] && grep -q -- 'neither -g\$' drift.out && grep -q -- 'neither --call-graph' drift.out"
# the table's side: a --help entry only ebs takes, not documented, is found too
printf -- '-Z\t--zap\t\t\n' >>report.opts
python3 "$MANOPTS" "$TOP/docs/ebs-report.1" report.opts >drift.out 2>&1
rc=$?
check "a table with --zap, which the page lacks: the check fails, naming -Z and --zap" \
	sh -c "[ $rc -eq 1 ] && grep -q -- '-Z: not in the page' drift.out && grep -q -- '--zap: not in the page' drift.out"

# ---- ebs --dump-options itself ----------------------------------------------
expect "ebs --dump-options nosuch: exit 2, one line" 2 "^ebs: 'nosuch' is not an ebs command" \
	"$EBS" --dump-options nosuch
check "ebs --dump-options: hidden from ebs --help" sh -c "! '$EBS' --help | grep -q dump-options"
