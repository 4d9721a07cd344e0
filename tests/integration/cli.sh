#!/usr/bin/env bash
# cli.sh - the ebs command itself: the pager on a terminal, ebs help, the
# alignment of its tables, the hint for a missing ebs.data.
#
# The terminal is a pseudo-terminal (python3's pty module), 100 columns
# wide; the pager is a script that writes a marker line (with $LESS as it saw
# it) and then its whole input into $PAGED, so what went through the pager
# and what reached the terminal are told apart.  The data is the golden
# recording of report.sh (mkdata, golden.s), so nothing here samples.
. "$(dirname "$0")/../lib.sh"

MKDATA=$(dirname "$EBS")/tests/tools/mkdata
GOLD=$TOP/tests/report
if ! as --64 -o golden.o "$GOLD/golden.s" 2>as.err ||
   ! ld -o golden -Ttext=0x401000 --build-id=none -e work golden.o 2>>as.err; then
	fail "build the golden program" "$(head -n 1 as.err)"
	exit 0
fi
mkdir src && cp "$GOLD/golden.c" src/
SRCMAP=/build/ebs-golden/a-long-source-directory=$TMP/src
# the JIT's pid: not report.sh's, whose /tmp/perf-PID.map may come and go meanwhile
sed -e "s|@GOLDEN@|$TMP/golden|; s|@JITPID@|4194997|g" "$GOLD/golden.script" |
	"$MKDATA" ebs.data || { fail "mkdata" "cannot write ebs.data"; exit 0; }
# A dump far longer than a pipe's buffer (64 KiB): writing it to a pager that
# read nothing and quit must meet EPIPE.
printf 'event cpu-clock cpu-clock 100000\ncomm 100 100 big\nsample 0 100 100 401004 5000\n' |
	"$MKDATA" big.data || { fail "mkdata" "cannot write big.data"; exit 0; }

# tty OUT CMD...: run CMD with a pseudo-terminal as its stdin, stdout and
# stderr; what the terminal showed goes to OUT (CR LF as LF); CMD's status.
cat >onpty.py <<'PY'
import fcntl, os, pty, signal, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)	# python ignores it; a shell would not
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 100, 0, 0))
    os.execvp(sys.argv[2], sys.argv[2:])
out = b''
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:	# EIO: every holder of the terminal closed it
        break
    if not d:
        break
    out += d
_, st = os.waitpid(pid, 0)
open(sys.argv[1], 'wb').write(out.replace(b'\r\n', b'\n'))
code = os.waitstatus_to_exitcode(st)
sys.exit(code if code >= 0 else 128 - code)	# killed: 128 + the signal, as a shell says
PY
tty() { python3 "$TMP/onpty.py" "$@"; }

# The pager: it lets go of the terminal before PAGER_SLEEP seconds, so
# that only an ebs that waits for it sees $PAGED complete when it is done.
export PAGED=$TMP/paged
cat >pager.sh <<'SH'
#!/bin/sh
{ echo "PAGER $* LESS=${LESS-unset}"; cat; } >"$PAGED.part"
exec >/dev/null 2>&1
sleep "${PAGER_SLEEP:-0}"
mv "$PAGED.part" "$PAGED"
exit "${PAGER_STATUS:-0}"
SH
chmod +x pager.sh
mkdir bin && cp pager.sh bin/less	# the default pager, found in PATH
export EBS_PAGER=$TMP/pager.sh
unset PAGER LESS

R() { "$EBS" report --kallsyms "$GOLD/kallsyms" "$@"; }
A() { "$EBS" annotate --source-dir "$SRCMAP" "$@"; }

# paged NAME WANT: $PAGED is the marker and then exactly the file WANT.
paged() {
	if [ ! -e "$PAGED" ]; then
		fail "$1" "the pager never ran (or ebs did not wait for it)"
	elif ! tail -n +2 "$PAGED" | cmp -s - "$2"; then
		fail "$1" "the pager got other text than $2: $(tail -n +2 "$PAGED" | head -c 200)"
	else
		pass "$1"
	fi
}

# ---- the pager ---------------------------------------------------------------
R --color=always --width 100 >report.want
A work --color=always >annotate.want
"$EBS" list >list.want

rm -f "$PAGED"
tty tty.out "$EBS" report --kallsyms "$GOLD/kallsyms"
rc=$?
paged "report on a terminal: the whole listing, in color, as wide as the terminal, to the pager" report.want
check "report on a terminal: exit 0, nothing on the terminal itself" sh -c "[ $rc -eq 0 ] && [ ! -s tty.out ]"
check "report: LESS=FRX set for the pager when unset" grep -qs "^PAGER  LESS=FRX\$" "$PAGED"

rm -f "$PAGED"
tty tty.out env LESS=-i "$EBS" annotate --source-dir "$SRCMAP" work
paged "annotate on a terminal: to the pager" annotate.want
check "annotate: a LESS of the user's kept" grep -qs "^PAGER  LESS=-i\$" "$PAGED"

rm -f "$PAGED"
tty tty.out "$EBS" list
paged "list on a terminal: to the pager" list.want

rm -f "$PAGED"
tty tty.out env -u EBS_PAGER PAGER="$TMP/pager.sh" "$EBS" list
check "no EBS_PAGER: \$PAGER" [ -e "$PAGED" ]

rm -f "$PAGED"
tty tty.out env -u EBS_PAGER PATH="$TMP/bin:$PATH" "$EBS" list
check "neither set: less -FRX, with LESS=FRX" grep -qs "^PAGER -FRX LESS=FRX\$" "$PAGED"
rm -f "$PAGED"
tty tty.out env -u EBS_PAGER PATH="$TMP/bin:$PATH" TERM=dumb "$EBS" list
check "neither set, TERM=dumb: no pager" sh -c '[ ! -e "$PAGED" ] && cmp -s tty.out list.want'

for how in "--no-pager report" "report --no-pager" "--no-pager annotate" "annotate --no-pager" \
	   "--no-pager list" "list --no-pager"; do
	rm -f "$PAGED"
	# shellcheck disable=SC2086	# the words of $how are the arguments
	set -- $how
	case $how in *annotate*) set -- "$@" --source-dir "$SRCMAP" work --color=never ;;
		     *report*) set -- "$@" --kallsyms "$GOLD/kallsyms" --color=never ;; esac
	tty tty.out "$EBS" "$@"
	rc=$?
	check "ebs $how: exit 0, no pager, the listing on the terminal" \
		sh -c "[ $rc -eq 0 ] && [ ! -e \"\$PAGED\" ] && grep -qE '^(# event|event  |.*work)' tty.out"
done
rm -f "$PAGED"
tty tty.out "$EBS" --no-pager report --kallsyms "$GOLD/kallsyms" --width 100 --color=always
check "--no-pager: the same listing on the terminal" cmp -s tty.out report.want

for p in "" cat; do
	rm -f "$PAGED"
	tty tty.out env EBS_PAGER="$p" PAGER="$TMP/pager.sh" "$EBS" report \
		--kallsyms "$GOLD/kallsyms"
	check "EBS_PAGER='$p' (PAGER set): no pager, the listing on the terminal" \
		sh -c '[ ! -e "$PAGED" ] && cmp -s tty.out report.want'
done

# stdout a pipe or a file, stderr the terminal: never paged
rm -f "$PAGED"
tty tty.out sh -c 'exec "$@" | cat >piped.out' sh "$EBS" report --kallsyms "$GOLD/kallsyms"
check "stdout a pipe: no pager" sh -c '[ ! -e "$PAGED" ] && [ -s piped.out ] && [ ! -s tty.out ]'
tty tty.out sh -c 'exec "$@" >file.out' sh "$EBS" report --kallsyms "$GOLD/kallsyms"
check "stdout a file: no pager" sh -c '[ ! -e "$PAGED" ] && [ -s file.out ]'
tty tty.out "$EBS" annotate --source-dir "$SRCMAP" work --html page.html
rc=$?
check "annotate --html FILE: no pager" sh -c "[ $rc -eq 0 ] && [ ! -e \"\$PAGED\" ] && [ -s page.html ]"

# ebs's exit status is its own; it waits for the pager
rm -f "$PAGED"
PAGER_STATUS=7 tty tty.out "$EBS" report --kallsyms "$GOLD/kallsyms"
rc=$?
check "a pager exiting with 7: ebs's status 0" sh -c "[ $rc -eq 0 ] && [ -e \"\$PAGED\" ]"
rm -f "$PAGED"
PAGER_SLEEP=1 tty tty.out "$EBS" report --kallsyms "$GOLD/kallsyms"
paged "ebs waits for its pager (it has finished when ebs has)" report.want

# the user quits the pager before reading it all
tty tty.out env EBS_PAGER=true "$EBS" report --dump -i big.data
rc=$?
check "a pager that quits at once: exit 0, nothing on the terminal (no write error)" \
	sh -c "[ $rc -eq 0 ] && [ ! -s tty.out ]"

# errors found before any output: on the terminal's stderr, no pager
rm -f "$PAGED"
tty tty.out "$EBS" report --bogus
rc=$?
check "a bad option: exit 2, its line on the terminal, no pager" \
	sh -c "[ $rc -eq 2 ] && grep -q \"unknown option '--bogus'\" tty.out && [ ! -e \"\$PAGED\" ]"
# a long option shortened: to one option's prefix it is that option; to
# several options' prefix it is refused, naming them (getopt says only '?')
"$EBS" report --c 2>amb.err
rc=$?
check "an ambiguous prefix: exit 2, one line naming the options it could be" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <amb.err) -eq 1 ] && grep -q \"ambiguous option '--c': .*--children, --callers, --callees\" amb.err"
"$EBS" report --no-pag --chil -i nosuch.data 2>pre.err
check "a prefix of one option is that option" grep -q "nosuch.data: No such file" pre.err
rm -f "$PAGED"
tty tty.out "$EBS" annotate -i nosuch.data
rc=$?
check "a missing file: exit 2, its line on the terminal, no pager" \
	sh -c "[ $rc -eq 2 ] && grep -q 'nosuch.data: No such file' tty.out && [ ! -e \"\$PAGED\" ]"
rm -f "$PAGED"
tty tty.out "$EBS" report -e nosuch
rc=$?
check "an unknown event: exit 2, its line on the terminal, no pager" \
	sh -c "[ $rc -eq 2 ] && grep -q \"no event 'nosuch'\" tty.out && [ ! -e \"\$PAGED\" ]"

# ---- ebs help ------------------------------------------------------------------
for cmd in record report diff annotate script list addr2line; do
	"$EBS" help "$cmd" >help.out 2>&1
	rc=$?
	"$EBS" "$cmd" --help >want.out 2>&1
	check "help $cmd: exit 0, the same as '$cmd --help'" \
		sh -c "[ $rc -eq 0 ] && grep -q '^usage: ebs $cmd' help.out && cmp -s help.out want.out"
done
"$EBS" help >help.out 2>&1
rc=$?
"$EBS" --help >want.out 2>&1
check "help: exit 0, the general usage" sh -c "[ $rc -eq 0 ] && [ -s help.out ] && cmp -s help.out want.out"
"$EBS" help nosuch >help.out 2>help.err
rc=$?
check "help nosuch: exit 2, one line naming it, nothing on stdout" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <help.err) -eq 1 ] &&
	       grep -q \"'nosuch' is not an ebs command\" help.err && [ ! -s help.out ]"

# ---- the options every reader shares (cli/view.c) ------------------------------
# report, diff, annotate and script parse them with one parser: each bad
# value gets one line naming the command and the option, exit 2; aliases and
# the last of a pair win alike in all.
for cmd in report diff annotate script; do
	for bad in "--top x" "-n -1" "--min-percent 101" "--pid 0" "--tid x" "--color blue"; do
		# shellcheck disable=SC2086	# $bad is an option and its value
		"$EBS" "$cmd" $bad >bad.out 2>bad.err
		rc=$?
		opt=${bad%% *}
		[ "$opt" = -n ] && opt=--top
		check "$cmd $bad: exit 2, one line naming '$cmd' and $opt" \
			sh -c "[ $rc -eq 2 ] && [ ! -s bad.out ] && [ \$(wc -l <bad.err) -eq 1 ] &&
			       grep -q -- '^ebs $cmd: $opt' bad.err"
	done
done
# a shared option taken, then a bad one of the command's own: still exit 2
for how in "report -n 3 --sort nosuch" "annotate -n 3 --context x"; do
	# shellcheck disable=SC2086	# the words of the command line
	"$EBS" $how >bad.out 2>bad.err
	rc=$?
	check "$how: exit 2 ($rc), one line" sh -c "[ $rc -eq 2 ] && [ \$(wc -l <bad.err) -eq 1 ]"
done
R --colour=always --width 100 >colour.out
check "report --colour: the same as --color" cmp -s colour.out report.want
A work --colour=always --no-demangle --demangle >colour.out
check "annotate --colour, --no-demangle then --demangle: the same as --color" \
	cmp -s colour.out annotate.want
for how in "record --backend x -- true|record: --backend 'x': perf or kmod" \
	   "record --kmod-mode x -- true|record: --kmod-mode 'x': perf-kernel or msr" \
	   "calibrate --cost-probe x -- true|calibrate: --cost-probe 'x': cmd or loop" \
	   "calibrate --overhead 0 -- true|calibrate: --overhead wants a number above 0 and at most 100, not '0'" \
	   "calibrate --rate -1 -- true|calibrate: --rate wants a number above 0, not '-1'"; do
	# shellcheck disable=SC2086	# the words of the command line
	"$EBS" ${how%%|*} >bad.out 2>bad.err
	rc=$?
	check "${how%%|*}: exit 2, the line 'ebs ${how#*|}'" \
		sh -c "[ $rc -eq 2 ] && [ ! -s bad.out ] && [ \"\$(cat bad.err)\" = \"ebs ${how#*|}\" ]"
done

# ---- the tables line up --------------------------------------------------------
# aligned FILE [K]: every row of the table at the top of FILE (up to its
# first empty line) has a column starting, after a space, where each of the
# header's starts; with K, the table has no header and the first K columns
# (one word each) of its first row are the reference.
aligned() {
	python3 - "$@" <<'PY'
import re, sys
rows = open(sys.argv[1]).read().split('\n')
rows = rows[:rows.index('')]
if len(sys.argv) > 2:
    starts = [m.start() for m in re.finditer(r'\S+', rows[0])][:int(sys.argv[2])]
else:
    head, rows = rows[0], rows[1:]
    starts = [m.start() for m in re.finditer(r'\S+', head)]
bad = [r for r in rows if any(r[p - 1:p] != ' ' or r[p:p + 1] in ('', ' ') for p in starts[1:])]
for r in bad:
    print('misaligned: ' + r, file=sys.stderr)
sys.exit(1 if bad or len(rows) < 2 else 0)
PY
}
check "list: every row's columns start under the header's" aligned list.want
# ebs --help: a table of commands and what they do
"$EBS" --help | grep '^   ' >cmds.out
check "--help: the commands' descriptions in one column" aligned cmds.out 2

# ---- a missing ebs.data ------------------------------------------------------------
mkdir empty
for cmd in report annotate script; do
	(cd empty && "$EBS" "$cmd" >out.txt 2>err.txt)
	rc=$?
	check "$cmd with no ebs.data: exit 2, one line, says to record first" \
		sh -c "[ $rc -eq 2 ] && [ \$(wc -l <empty/err.txt) -eq 1 ] &&
		       grep -qx \"ebs $cmd: ebs.data: No such file or directory (run 'ebs record' first, or give -i FILE)\" empty/err.txt"
done
"$EBS" report -i nosuch.data >/dev/null 2>err.txt
check "report -i a missing file: the hint names it, not -i" \
	grep -qx "ebs report: nosuch.data: No such file or directory (write it with 'ebs record -o nosuch.data')" err.txt
"$EBS" report -i nosuch.perf.data >/dev/null 2>err.txt
check "report -i a missing perf.data: the hint is perf's record" \
	grep -qx "ebs report: nosuch.perf.data: No such file or directory (write it with 'perf record -o nosuch.perf.data')" err.txt
head -c 4096 /dev/zero >zero.data
R -i zero.data >/dev/null 2>err.txt
check "a file that exists but is bad: no hint" not grep -q "ebs record" err.txt
R -e nosuch >/dev/null 2>err.txt
check "an unknown event (also ENOENT): no hint" sh -c "grep -q \"no event 'nosuch'\" err.txt && ! grep -q 'ebs record' err.txt"
A nosuch >/dev/null 2>err.txt
check "annotate of an unknown function (also ENOENT): no hint" \
	sh -c "grep -q \"no function 'nosuch'\" err.txt && ! grep -q 'ebs record' err.txt"

# an ebs.data onto a terminal: refused, as gzip refuses (script(1) gives a terminal)
for cmd in "record -o - -- true" "convert -i nosuch.perf.data -o -"; do
	script -qec "$EBS $cmd; echo status \$?" /dev/null >tty.out 2>&1
	check "ebs ${cmd%% *} -o - onto a terminal: one line, exit 2, no bytes" \
		sh -c "tr -d '\r' <tty.out | grep -qx 'ebs ${cmd%% *}: -o -: standard output is a terminal, and an ebs.data is binary: redirect it (> FILE, or | ebs report -i -)' &&
		       tr -d '\r' <tty.out | tail -n 1 | grep -qx 'status 2' && [ \$(wc -l <tty.out) -eq 2 ]"
done
