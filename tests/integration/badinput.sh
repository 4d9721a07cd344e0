#!/usr/bin/env bash
# badinput.sh - every kind of bad input gets one line naming the event,
# command, pid, file or byte offset involved, and a nonzero exit status;
# never a crash or a partial output file.
. "$(dirname "$0")/../lib.sh"

L="$WORKLOADS/leafloop"
expect "unknown event" 2 "unknown event 'nosuch'" "$EBS" record -e nosuch -o x.data "$L" 0.1
expect_code "unknown event in a list" 2 EBS_E_UNKNOWN_EVENT "$EBS" record -e cpu-clock,bogus -o x.data "$L" 0.1
expect "bad modifier" 2 "event 'cpu-clock:q'.*modifier" "$EBS" record -e cpu-clock:q -o x.data "$L" 0.1
expect "nonexistent command" 127 "cannot run '/no/such/cmd': No such file" "$EBS" record -e cpu-clock -o x.data /no/such/cmd
check "nonexistent command: no output file" [ ! -e x.data ]
# checked before the events are opened: one line, not the default event's
# fall-back notice (cycles without a PMU) first
expect "nonexistent command, default event: one line" 127 "^ebs record: cannot run '/no/such/cmd': No such file" \
	"$EBS" record -o x.data /no/such/cmd
expect "a name not in \$PATH" 127 "^ebs record: cannot run 'no-such-cmd-xyz': No such file" \
	"$EBS" record -o x.data no-such-cmd-xyz
expect "a directory" 127 "^ebs record: cannot run '/tmp': Permission denied" "$EBS" record -o x.data /tmp
expect "calibrate: nonexistent command, default event: one line" 2 \
	"^ebs calibrate: cannot run '/no/such/cmd': No such file" "$EBS" calibrate -- /no/such/cmd
expect "command not executable" 127 "cannot run '/etc/passwd': Permission denied" "$EBS" record -e cpu-clock -o x.data /etc/passwd
expect "command path through a file" 127 "cannot run '/etc/passwd/x': Not a directory" "$EBS" record -e cpu-clock -o x.data /etc/passwd/x
expect "output directory missing" 1 "/no/such/dir/x.data: cannot write: No such file" "$EBS" record -e cpu-clock -o /no/such/dir/x.data "$L" 0.1
mkdir ro && chmod 755 ro
expect "output directory not writable (unprivileged)" 1 "ro/x.data: cannot write: Permission denied" \
	$NOBODY "$(for_nobody "$EBS")" record -e cpu-clock:u -o ro/x.data "$(for_nobody "$L")" 0.1
# ebs list unprivileged: an event refused for the kernel part and missing in
# user space too is missing, and says so (not "not permitted": lowering
# perf_event_paranoid would not bring a PMU)
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" -le 2 ] 2>/dev/null; then
	nobody_ebs list --no-pager >nb-list.txt 2>&1
	check "list as nobody: no unavailable event's reason is permission alone ($(grep -c ' unavailable ' nb-list.txt) unavailable)" \
		sh -c "! grep -vE '^(context-switches|cpu-migrations) ' nb-list.txt | grep -q ' unavailable .*not permitted'"
	# the scheduler counts these in the kernel: with :u they count 0
	check "list as nobody: context-switches, cpu-migrations never available:u, said to happen in the kernel" \
		sh -c "! grep -qE '^(context-switches|cpu-migrations) .*available:u' nb-list.txt &&
		       { ! grep -qE '^context-switches .* unavailable ' nb-list.txt || grep -qE '^context-switches .* only in the kernel' nb-list.txt; }"
else
	skip "list as nobody: reasons" "perf_event_paranoid above 2: nothing opens unprivileged"
fi
"$WORKLOADS/exitcode" 0 & dead=$!
wait $dead
expect "-p of a dead pid" 2 "pid $dead: no such process" "$EBS" record -e cpu-clock -p $dead -o x.data
expect "-p of a non-number" 2 "-p: 'abc' is not a pid" "$EBS" record -p abc -o x.data
expect "-c and -F together" 2 "-c and -F exclude each other" "$EBS" record -c 1000 -F 100 -o x.data "$L"
expect "-c 0" 2 "-c wants a positive number" "$EBS" record -c 0 -o x.data "$L"
expect "-m not a power of two" 2 "-m wants a power of two" "$EBS" record -m 3 -o x.data "$L"
expect "-p and -a together" 2 "-p and -a exclude each other" "$EBS" record -a -p 1 -o x.data
expect "nothing to record" 2 "nothing to record" "$EBS" record -o x.data
expect "unknown option" 2 "unknown option '--frob'" "$EBS" record --frob
expect "missing option argument" 2 "option '-e' wants an argument" "$EBS" record -e
expect "unknown subcommand" 2 "'frobnicate' is not an ebs command" "$EBS" frobnicate
expect "report: unknown --sort" 2 "--sort 'color'" "$EBS" report --sort color
check "no output file from any of these" [ ! -e x.data ]

# Data files: missing, empty, garbage, truncated, corrupted, foreign, future.
record good.data -e cpu-clock -F 1000 "$L" 0.1
size=$(stat -c %s good.data)
# the commands that take their file with -i: an operand is refused, naming it
for c in report script flamegraph export convert; do
	expect "$c: an operand (the file goes after -i)" 2 \
		"^ebs $c: unexpected argument 'extra\.data' \(the file goes after -i\)$" \
		"$EBS" $c -i x.data extra.data
done
expect "report: missing file" 2 "^ebs report: nosuch.data: No such file" "$EBS" report -i nosuch.data
: >empty.data
expect_code "report: empty file" 2 EBS_E_NOT_EBS_DATA "$EBS" report -i empty.data
# the line as people read it: no code unless EBS_ERROR_CODES=1 asks for it
expect "report: empty file, as said" 2 "^ebs report: empty.data: offset 0: empty file, not an ebs.data file\$" \
	"$EBS" report -i empty.data
head -c 4096 /dev/urandom >garbage.data
expect_code "report: garbage" 2 EBS_E_NOT_EBS_DATA "$EBS" report -i garbage.data
expect "report: a directory" 2 "ro: is a directory" "$EBS" report -i ro
for cut in 40 200 $((size / 2)) $((size - 8)); do
	head -c $cut good.data >trunc.data
	expect "report: truncated to $cut bytes" 2 "trunc.data: offset [0-9]+: " "$EBS" report -i trunc.data
	expect_code "report --dump: truncated to $cut bytes" 2 EBS_E_TRUNCATED "$EBS" report --dump -i trunc.data
done
# A record size that is not a multiple of 8, in the first data record.
data_off=$(python3 -c "import struct; print(struct.unpack_from('<Q', open('good.data','rb').read(), 24)[0])")
python3 - "$data_off" <<'PY'
import sys, struct
off = int(sys.argv[1])
b = bytearray(open('good.data', 'rb').read())
struct.pack_into('<I', b, off + 4, 13)
open('badsize.data', 'wb').write(b)
b = bytearray(open('good.data', 'rb').read())
struct.pack_into('<H', b, 12, 99)
open('future.data', 'wb').write(b)
b = bytearray(open('good.data', 'rb').read())
b[8:12] = b[8:12][::-1]
open('swapped.data', 'wb').write(b)
PY
expect "report: bad record size" 2 "badsize.data: offset $data_off: bad record size 13" "$EBS" report -i badsize.data
expect_code "report: bad record size, its code" 2 EBS_E_BAD_RECORD "$EBS" report -i badsize.data
expect_code "report: future major version" 2 EBS_E_BAD_VERSION "$EBS" report -i future.data
expect_code "report: other byte order" 2 EBS_E_BYTE_ORDER "$EBS" report -i swapped.data
# perf.data is read (perfdata.sh): 16 bytes of one are cut in its header
expect "report: a perf.data cut in its header" 2 "offset 16: truncated inside the perf.data header" \
	"$EBS" report -i <(printf 'PERFILE2\0\0\0\0\0\0\0\0')

# Number options are strict: decimal (and 0x hexadecimal for -c only, as
# documented); no sign, no blank, no octal.  One line naming the option.
expect "-c ' 5'" 2 "^ebs record: -c wants a positive number .*, not ' 5'\$" "$EBS" record -c ' 5' -o x.data -- "$L" 0.1
expect "-c +5" 2 "^ebs record: -c wants a positive number .*, not '\+5'\$" "$EBS" record -c +5 -o x.data -- "$L" 0.1
expect "-F ' 100'" 2 "^ebs record: -F wants a positive number .*, not ' 100'\$" "$EBS" record -F ' 100' -o x.data -- "$L" 0.1
expect "-F 0x100 (hexadecimal only for -c)" 2 "^ebs record: -F wants a positive number .*, not '0x100'\$" \
	"$EBS" record -F 0x100 -o x.data -- "$L" 0.1
expect "-m 010" 2 "^ebs record: -m wants a power of two .*, not '010'\$" "$EBS" record -m 010 -o x.data -- "$L" 0.1
check "strict numbers: no file written" [ ! -e x.data ]
# -c 010000000 is ten million, not octal's 2,097,152
"$EBS" record -q -e cpu-clock -c 010000000 -o dec.data -- "$L" 0.05 2>/dev/null
check "-c 010000000 is decimal: one sample after every 10000000 events" \
	sh -c "'$EBS' report -i dec.data 2>/dev/null | grep -q '^# sampling: one sample after every 10000000 events'"
# --width's range is the one it says, above it too
expect "--width 2147483648" 2 "--width wants a whole number from 20 to 2147483647, not '2147483648'" \
	"$EBS" report --width 2147483648 -i dec.data
expect "--width 4294967296" 2 "--width wants a whole number from 20 to 2147483647, not '4294967296'" \
	"$EBS" report --width 4294967296 -i dec.data

# -p: empty items are refused (they were read as pid 0 or 1); a pid given
# twice is attached to once (counts were doubled)
expect "-p 1,,2" 2 "^ebs record: -p wants pids, comma-separated, not '1,,2'\$" "$EBS" record -p 1,,2 -o x.data
expect "-p 1," 2 "^ebs record: -p wants pids, comma-separated, not '1,'\$" "$EBS" record -p 1, -o x.data
expect "-p ' 1'" 2 "^ebs record: -p: ' 1' is not a pid\$" "$EBS" record -p ' 1' -o x.data
"$WORKLOADS/sleeper" 2 >pid.txt &
spid=$!
wait_line pid.txt
"$EBS" record -q -e cpu-clock -F 200 -p $spid,$spid -p $spid -o pp.data 2>/dev/null &
rpid=$!
wait_polling $rpid	# attached: its counters are open
kill -INT $rpid
wait $rpid
wait $spid
ncpu=$("$EBS" report --dump -i pp.data 2>/dev/null | grep -c ' COUNT .* tid '"$spid"'$')
cpus=$(getconf _NPROCESSORS_ONLN)
check "-p P,P -p P: one counter per CPU for P ($ncpu COUNT records, $cpus CPUs), not three" \
	[ "$ncpu" -ge 1 -a "$ncpu" -le "$cpus" ]

# -o must name a file: refused before the command runs
expect "-o ''" 2 "^ebs record: -o wants a file name, not ''\$" "$EBS" record -o '' -- sh -c ': >ran'
check "-o '': the command did not run, no temporary file" sh -c '[ ! -e ran ] && ! ls -A | grep -q "^\.\.tmp\|^\.tmp"'
expect "-o dir/" 2 "-o wants a file name, not 'nodir/'" "$EBS" record -o nodir/ -- sh -c ': >ran'
check "-o dir/: the command did not run" [ ! -e ran ]

# ---- an output that cannot be written: exit 1 in every command --------------------------
# ebs(1)'s rule (EXIT STATUS): a missing directory, no permission, a full disk, an I/O error
# are the system's, exit 1 (bad input is 2), with one line naming the file and
# the reason.  Each command that writes a file, into a directory that is not
# there and into /dev/full (every write ENOSPC).  @OUT@ is the output's name.
# The commands' own output goes elsewhere (stat's table to -o or a file,
# calibrate -q), so stderr holds the error alone.
record good-w.data -e cpu-clock -F 1000 "$L" 0.1
PERFDATA=""
if command -v perf >/dev/null &&
   perf record -q -e cpu-clock -F 1000 -o perf-w.data -- "$L" 0.1 >/dev/null 2>perf-w.err; then
	PERFDATA=perf-w.data
fi
while IFS='|' read -r what cmd; do
	for out in /nonexistent/dir/x /dev/full; do
		case $out in
		/dev/full) why="No space left on device" ;;
		*) why="No such file or directory" ;;
		esac
		if [ "$out" = /dev/full ] && [ ! -w /dev/full ]; then
			skip "$what into $out" "no writable /dev/full here"
			continue
		fi
		if [ "${cmd#convert}" != "$cmd" ] && [ -z "$PERFDATA" ]; then
			skip "$what into $out" "no perf to write a perf.data: $(head -n 1 perf-w.err 2>/dev/null)"
			continue
		fi
		# the file's name and the reason, on one line; exit 1
		eval "expect \"\$what into \$out: exit 1\" 1 \"\$out.*\$why\" \"\$EBS\" ${cmd//@OUT@/$out}"
	done
done <<'EOT'
record -o|record -q -e cpu-clock -F 1000 -o @OUT@ "$L" 0.1
convert -o|convert -q -i "$PERFDATA" -o @OUT@
annotate --html|annotate -i good-w.data --html @OUT@
flamegraph -o|flamegraph -i good-w.data -o @OUT@
export -o (folded)|export -i good-w.data --format folded -o @OUT@
export -o (pprof)|export -i good-w.data --format pprof -o @OUT@
export -o (speedscope)|export -i good-w.data --format speedscope -o @OUT@
stat -o|stat -e task-clock -o @OUT@ true
stat --plot|stat -e task-clock -o stat-w.txt --plot @OUT@ true
stat -x, -o|stat -x, -e task-clock -o @OUT@ true
monitor --csv|monitor --csv @OUT@ -e task-clock -- true
calibrate -o|calibrate -q -e task-clock -o @OUT@ -- "$L" 0.1
EOT
# annotate --html opens its page before the work: the output's failure
# comes before what the work would find (here a function with no samples)
expect "annotate --html into a missing directory: said before the work" 1 \
	"^ebs annotate: /nonexistent/a\.html: cannot write" \
	"$EBS" annotate -i good-w.data --html /nonexistent/a.html no_such_function
# calibrate renamed its run over the node: /dev/full was a regular file after
check "/dev/full is still a character device" [ -c /dev/full ]
check "no output left under /nonexistent" [ ! -e /nonexistent ]
