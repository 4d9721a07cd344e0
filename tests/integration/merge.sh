#!/usr/bin/env bash
# merge.sh - several recordings in one report (ebs report -i a -i b): one
# binary, copied to two directories (two paths, one build-id), run twice
# (two pids), each run recorded to its own file; the second on "another
# host" (recorded inside `unshare --uts` under another host name).
#  a. the merged report's rows are the sums of the two single reports' rows,
#     exactly (rows keyed by build-id and symbol, not by path or pid), and
#     the DSO is one DSO (--stats: one row; the file opened, its DWARF read,
#     as often as for one recording: strace);
#  b. the header says 2 recordings from 2 hosts and the samples of both;
#  c. --sort host splits them exactly into the two recordings' totals;
#     --sort pid says whose pid ("HOST:PID"), the JSON the recording;
#  d. export --format pprof carries the host as each sample's label
#     ("host"), decoded here; folded stacks, flamegraph and annotate of the
#     two are the sums of each alone; script prints both, one after the other;
#  e. one input that cannot be read: one line naming it, status 2, no output;
#  f. SQLite (a real program nobody here wrote) recorded twice, merged: the
#     rows are the sums of the two.
. "$(dirname "$0")/../lib.sh"

W=$WORKLOADS/split
HOST=$(uname -n)
OTHER=merge-other-host
mkdir -p a b
cp "$W" a/prog && cp "$W" b/prog

record a.data -e cpu-clock -F 500 a/prog 0.4
check "record a/prog" [ $? -eq 0 ]
# the second "host": the same machine under another UTS name
if unshare --uts true 2>/dev/null; then
	unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' sh "$OTHER" \
		"$EBS" record -q -o b.data -e cpu-clock -F 500 b/prog 0.4 2>b.data.err
	check "record b/prog as host $OTHER (unshare --uts)" [ $? -eq 0 ]
	HOSTS=2
	LB=$OTHER
	LA=$HOST
else
	skip "another host" "unshare --uts is not allowed here: both recordings are of $HOST"
	record b.data -e cpu-clock -F 500 b/prog 0.4
	OTHER=$HOST
	HOSTS=1
	LA="$HOST#1"
	LB="$HOST#2"
fi

"$EBS" report -i a.data --top 0 --json >a.json
"$EBS" report -i b.data --top 0 --json >b.json
"$EBS" report -i a.data -i b.data --top 0 --json >ab.json 2>ab.err
check "report -i a.data -i b.data: exit 0, nothing said" [ $? -eq 0 -a ! -s ab.err ]

# ---- a. rows: the sums, exactly --------------------------------------------------------
SUM_PY='
import json, sys
def rows(p, keys):
    j = json.load(open(p))
    out = {}
    for r in j["rows"]:
        k = tuple(r.get(x) for x in keys)
        out[k] = out.get(k, 0) + r["samples"]
    return j, out
keys = sys.argv[1].split(",")
ja, a = rows(sys.argv[2], keys)
jb, b = rows(sys.argv[3], keys)
jm, m = rows(sys.argv[4], keys)
want = dict(a)
for k, v in b.items():
    want[k] = want.get(k, 0) + v
bad = [(k, m.get(k), want.get(k)) for k in set(m) | set(want) if m.get(k) != want.get(k)]
ok = not bad and jm["samples"] == ja["samples"] + jb["samples"]
print("ok" if ok else "differ: %s; samples %s vs %s + %s" % (bad[:5], jm["samples"], ja["samples"], jb["samples"]))
'
LABEL_PY='
import json, sys
def labels(p):
    out = {}
    for r in json.load(open(p))["rows"]:
        names = out.setdefault((r.get("file"), r.get("line"), r.get("dso")), set())
        names.add(r.get("function"))
        names.update(c["function"] for c in r.get("inlined_into", []))
    return out
a, b, m = (labels(p) for p in sys.argv[1:4])
bad = [(k, f) for k, fs in m.items() for f in fs if f not in a.get(k, set()) | b.get(k, set())]
print("ok" if not bad else "not in either: %s" % bad[:5])
'
res=$(python3 -c "$SUM_PY" function,dso a.json b.json ab.json)
check "merged rows (function, dso) are the sums of the two reports' ($res)" [ "$res" = ok ]
check "a/prog and b/prog are one DSO: one row each for split_a and split_b" \
	jtrue ab.json "[r['function'] for r in j['rows']].count('split_a') == 1 and [r['function'] for r in j['rows']].count('split_b') == 1 and j['samples'] >= 200"
for s in line dso comm; do
	"$EBS" report -i a.data --sort $s --top 0 --json >a.$s.json
	"$EBS" report -i b.data --sort $s --top 0 --json >b.$s.json
	"$EBS" report -i a.data -i b.data --sort $s --top 0 --json >ab.$s.json
	case $s in line) k=file,line,dso ;; *) k=$s ;; esac
	res=$(python3 -c "$SUM_PY" $k a.$s.json b.$s.json ab.$s.json)
	check "merged --sort $s rows are the sums ($res)" [ "$res" = ok ]
done
"$EBS" report -i a.data -i b.data --stats --width 0 >stats.txt 2>&1
check "--stats: one DSO for both paths (a/prog), none for b/prog" \
	bash -c "grep -q 'a/prog' stats.txt && ! grep -q 'b/prog' stats.txt"

# the DWARF read once: the merged report opens the program's file as often as a
# report of one recording does (its symbols, its DWARF), not as two reports do
if command -v strace >/dev/null; then
	opens() {
		# LeakSanitizer stops the world with ptrace, which strace already holds
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -e trace=openat -o opens.strace "$EBS" report "$@" --no-cache --sort line \
			>/dev/null 2>&1
		grep -cE '"[^"]*/(a|b)/prog"' opens.strace | tr -d ' '
	}
	oa=$(opens -i a.data)
	ob=$(opens -i b.data)
	oab=$(opens -i a.data -i b.data)
	check "the program's file opened as often by the merged report as by one ($oab; a $oa, b $ob)" \
		[ "$oa" -ge 1 -a "$oab" = "$oa" ]
else
	skip "the DWARF read once" "strace is not installed"
fi

# ---- b. the header ---------------------------------------------------------------------
na=$(json a.json "j['samples']")
nb=$(json b.json "j['samples']")
total=$(python3 -c "print(f'{$na + $nb:,}')")
"$EBS" report -i a.data -i b.data >ab.txt 2>&1
want="# 2 recordings from $HOSTS host$([ "$HOSTS" = 1 ] || echo s) (a.data: $LA, b.data: $LB), $total samples"
check "header: '$want'" grep -qxF "$want" ab.txt
check "JSON: hosts $HOSTS, the two recordings with their hosts and samples" \
	jtrue ab.json "j['hosts'] == $HOSTS and [(r['file'], r['host'], r['samples']) for r in j['recordings']] == [('a.data', '$HOST', $na), ('b.data', '$OTHER', $nb)]"
single=$("$EBS" report -i a.data | grep -c 'recordings from')
check "one recording: no such line" [ "$single" = 0 ]

# ---- c. --sort host, --sort pid --------------------------------------------------------
MAN=$TOP/docs/ebs-report.1
check "--fields host: accepted, and named by --help and by the man page's two lists" \
	bash -c "'$EBS' report -i a.data -i b.data --sort host --fields samples,host >/dev/null &&
		'$EBS' report --help 2>&1 | grep -A2 -- '--fields' | grep -q 'event, host)' &&
		[ \$(grep -cxF '.BR host ).' '$MAN') = 1 ] && [ \$(grep -cxF '.BR host ),' '$MAN') = 1 ]"
"$EBS" report -i a.data -i b.data --sort host --json >host.json
if [ "$HOSTS" = 2 ]; then
	check "--sort host: two rows, each a recording's total ($HOST $na, $OTHER $nb)" \
		jtrue host.json "sorted((r['host'], r['samples']) for r in j['rows']) == sorted([('$HOST', $na), ('$OTHER', $nb)])"
	"$EBS" report -i a.data -i b.data --sort host,func --top 0 --json >hostfunc.json
	res=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
for host, f in ((sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5])):
    one = {(r["function"], r["dso"]): r["samples"] for r in json.load(open(f))["rows"]}
    got = {(r["function"], r["dso"]): r["samples"] for r in m["rows"] if r["host"] == host}
    if one != got:
        print("host %s: %s vs %s" % (host, sorted(got.items())[:4], sorted(one.items())[:4]))
        sys.exit()
print("ok")' hostfunc.json "$HOST" a.json "$OTHER" b.json)
	check "--sort host,func: each host's rows are its recording's ($res)" [ "$res" = ok ]
else
	check "--sort host: one host, all samples" jtrue host.json "[r['samples'] for r in j['rows']] == [$na + $nb]"
fi
first() { "$EBS" report -i "$1" --sort pid --json | python3 -c "import json,sys; print(json.load(sys.stdin)['rows'][0]['$2'])"; }
pa=$(first a.data pid)
sa=$(first a.data samples)
pb=$(first b.data pid)
"$EBS" report -i a.data -i b.data --sort pid --width 0 >pid.txt
check "--sort pid: $LA:$pa and $LB:$pb" \
	bash -c "grep -qE ' $LA:$pa( |\$)' pid.txt && grep -qE ' $LB:$pb( |\$)' pid.txt"
"$EBS" report -i a.data -i b.data --sort pid --json >pid.json
check "--sort pid --json: each pid with its recording" \
	jtrue pid.json "sorted((r['recording'], r['pid']) for r in j['rows'] if r['samples'] > 10) == sorted([('$LA', $pa), ('$LB', $pb)])"
# the same pid in both recordings stays two rows: a recording against its copy
cp a.data a2.data
"$EBS" report -i a.data -i a2.data --sort pid --json >aa.json
check "one recording and its copy: pid $pa twice (two recordings), each with its $sa samples" \
	jtrue aa.json "sorted((r['recording'], r['samples']) for r in j['rows'] if r['pid'] == $pa) == [('$HOST#1', $sa), ('$HOST#2', $sa)]"

# ---- d. exports, flame graph, annotate, script ----------------------------------------
PPROF_PY='
import gzip, os, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests", "tools"))
from protobuf import varint, fields as all_fields
def fields(b):
    return all_fields(b, (0, 2))  # pprof has no fixed-size fields
p = gzip.open(sys.argv[1]).read()
strings, samples = [], []
for f, v in fields(p):
    if f == 6:
        strings.append(v.decode())
    elif f == 2:
        samples.append(v)
hosts = {}
for s in samples:
    count, labels = None, {}
    for f, v in fields(s):
        if f == 2:
            count = varint(v, 0)[0] if isinstance(v, bytes) else v
        elif f == 3:
            lab = dict(fields(v))
            labels[lab.get(1)] = lab.get(2)
    host = strings[labels[strings.index("host")]] if "host" in strings and strings.index("host") in labels else None
    hosts[host] = hosts.get(host, 0) + count
print(" ".join("%s=%d" % (h, n) for h, n in sorted(hosts.items(), key=lambda x: str(x[0]))))
'
"$EBS" export -i a.data -i b.data --format pprof -o ab.pb.gz 2>pprof.err
check "export --format pprof of both: exit 0, nothing said" [ $? -eq 0 -a ! -s pprof.err ]
got=$(python3 -c "$PPROF_PY" ab.pb.gz 2>&1)
if [ "$HOSTS" = 2 ]; then
	want=$(printf '%s\n' "$HOST=$na" "$OTHER=$nb" | sort | tr '\n' ' ' | sed 's/ $//')
else
	want="$HOST=$((na + nb))"
fi
check "pprof: every sample labelled host, the samples per host as recorded ($got; want $want)" [ "$got" = "$want" ]
if command -v go >/dev/null; then
	go tool pprof -tags ab.pb.gz >tags.txt 2>/dev/null
	check "go tool pprof -tags: the host label, $OTHER among its values" \
		bash -c "grep -q 'host:' tags.txt && grep -q '$OTHER' tags.txt"
else
	skip "go tool pprof -tags" "go is not installed (golang-go)"
fi
for f in a b ab; do
	"$EBS" export $( [ $f = ab ] && echo "-i a.data -i b.data" || echo "-i $f.data") \
		--format speedscope -o $f.ss.json
done
if [ "$HOSTS" = 2 ]; then
	check "speedscope of both: a profile per host, each the weights of its recording" \
		jtrue ab.ss.json "[(p['name'].split(' on ')[-1], sum(p['weights'])) for p in j['profiles']] == [('$HOST', sum(json.load(open('a.ss.json'))['profiles'][0]['weights'])), ('$OTHER', sum(json.load(open('b.ss.json'))['profiles'][0]['weights']))]"
fi
check "speedscope of one: one profile, no host in its name" \
	jtrue a.ss.json "len(j['profiles']) == 1 and ' on ' not in j['profiles'][0]['name']"
for f in a b; do "$EBS" export -i $f.data --format folded -o $f.folded; done
"$EBS" export -i a.data -i b.data --format folded -o ab.folded
res=$(python3 -c '
import sys
def read(p):
    d = {}
    for l in open(p):
        s, n = l.rsplit(" ", 1)
        d[s] = d.get(s, 0) + int(n)
    return d
a, b, m = (read(p) for p in sys.argv[1:4])
w = dict(a)
for k, v in b.items():
    w[k] = w.get(k, 0) + v
print("ok" if w == m else "differ")' a.folded b.folded ab.folded)
check "export --format folded of both: each stack the sum of the two ($res)" [ "$res" = ok ]
for f in a b; do "$EBS" flamegraph -i $f.data -o $f.svg; done
"$EBS" flamegraph -i a.data -i b.data -o ab.svg
FN_PY='
import re, sys
def n(p, name):
    return sum(int(m.group(1)) for m in re.finditer(r"data-name=\"%s\" data-dso=\"[^\"]*\" data-kind=\"[a-z]*\" data-n=\"(\d+)\"" % re.escape(name), open(p).read()))
a, b, m = sys.argv[1:4]
print(all(n(m, f) == n(a, f) + n(b, f) and n(m, f) > 0 for f in ("split_a", "split_b", "all")))'
check "flamegraph of both: split_a, split_b and the root are the sums" \
	[ "$(python3 -c "$FN_PY" a.svg b.svg ab.svg)" = True ]
check "flamegraph of both: its title names both files" grep -q 'Flame graph of a.data and b.data' ab.svg
for f in a b ab; do
	"$EBS" annotate $( [ $f = ab ] && echo "-i a.data -i b.data" || echo "-i $f.data") split_a >$f.ann 2>/dev/null
done
ann() { sed -n 's/^# event: cpu-clock: \([0-9]*\) samples\{0,1\} in it, .* of \([0-9]*\)$/\1 \2/p' "$1"; }
read -r fa ta <<<"$(ann a.ann)"
read -r fb tb <<<"$(ann b.ann)"
read -r fm tm <<<"$(ann ab.ann)"
check "annotate split_a of both: $fm of $tm samples = ($fa + $fb) of ($ta + $tb)" \
	[ -n "$fm" -a "$fm" = $((fa + fb)) -a "$tm" = $((ta + tb)) ]
"$EBS" script -i a.data -i b.data -F pid >script.txt
check "script of both: every sample of each, one recording after the other" \
	[ "$(grep -cv '^#' script.txt)" = $((na + nb)) ]
check "...each after a line naming it and its host" \
	bash -c "[ \"\$(grep '^#' script.txt | tr '\n' '|')\" = '# a.data (host $HOST)|# b.data (host $OTHER)|' ] &&
		[ \"\$(sed -n '$((na + 2))p' script.txt)\" = '# b.data (host $OTHER)' ]"
"$EBS" script -i a.data -i b.data --json >script.json
res=$(python3 -c '
import json, sys
n = {}
for l in open(sys.argv[1]):
    s = json.loads(l)
    k = (s["recording"], s["host"])
    n[k] = n.get(k, 0) + 1
print(sorted(n.items()))' script.json)
check "script --json of both: each sample's recording and host ($res)" \
	[ "$res" = "[(('a.data', '$HOST'), $na), (('b.data', '$OTHER'), $nb)]" ]
"$EBS" script -i a.data --json | head -1 >script1.json
check "...of one: neither member" jtrue script1.json "'recording' not in j and 'host' not in j"

# a perf.data among them: its host from perf's hostname feature
if ! command -v perf >/dev/null; then
	skip "a perf.data among them" "perf is not installed"
elif ! perf_rec p.data -e cpu-clock -F 500 b/prog 0.2; then
	skip "a perf.data among them" "perf record failed 3 times: $(tail -n 1 p.data.err)"
else
	"$EBS" report -i p.data --top 0 --json >p.json
	"$EBS" report -i a.data -i p.data --top 0 --json >ap.json 2>ap.err
	res=$(python3 -c "$SUM_PY" function,dso a.json p.json ap.json)
	check "a.data and perf's p.data merged: the rows are the sums ($res)" [ "$res" = ok ]
	check "...p.data's host is perf's hostname feature, $HOST" \
		jtrue ap.json "j['recordings'][1]['host'] == '$HOST'"
	# the kernel's functions: the ebs.data's own table (KSYMS) and, for the
	# perf.data, /proc/kallsyms: one row per function, not one per table
	record k.data -e cpu-clock -F 500 "$WORKLOADS/sysloop" 0.4
	perf_rec pk.data -e cpu-clock -F 500 "$WORKLOADS/sysloop" 0.4
	"$EBS" report -i k.data -i pk.data --top 0 --json >kp.json
	# perf.data has no counter totals: a sum of a.data's alone is no total
	"$EBS" report -i a.data -i p.data >ap.txt
	check "a.data and p.data: no '# counted:' line (a.data's alone is no total), none in JSON" \
		bash -c "grep -q '^# counted:' ab.txt && ! grep -q '^# counted:' ap.txt &&
			python3 -c 'import json,sys; sys.exit(\"counted\" in json.load(open(\"ap.json\")))'"
	check "a.data and p.data with kernel samples: each kernel function one row" \
		jtrue kp.json "sum(r['dso'] == '[kernel]' for r in j['rows']) >= 1 and len(j['rows']) == len({(r['function'], r['dso']) for r in j['rows']})"
fi

# one event at two rates: merged, and said in one warning line
record c.data -e cpu-clock -F 250 b/prog 0.2
"$EBS" report -i a.data -i c.data >ac.txt 2>ac.err
check "cpu-clock at 500 Hz and at 250 Hz: one table, one warning naming both rates" \
	bash -c "[ \$(grep -c '^# event: cpu-clock' ac.txt) = 1 ] && [ \$(wc -l <ac.err) = 1 ] &&
		grep -q 'cpu-clock is sampled at 500 Hz in a.data but at 250 Hz in c.data' ac.err"
"$EBS" report -i a.data -i b.data >ab2.txt 2>ab2.err
check "...and none for two at one rate" [ ! -s ab2.err ]

# ---- e. one input unreadable: one line naming it, no output ---------------------------
printf 'not a recording' >bad.data
expect "an unreadable one of three: one line naming it, status 2" 2 "bad\.data" \
	"$EBS" report -i a.data -i bad.data -i b.data
check "...nothing printed" [ ! -s out.txt ]
expect "a missing one: one line naming it, status 2" 2 "no/such\.data" \
	"$EBS" flamegraph -i a.data -i no/such.data -o none.svg
check "...no flame graph written" [ ! -e none.svg ]
expect "export: one unreadable: no file written" 2 "bad\.data" \
	"$EBS" export -i a.data -i bad.data --format pprof -o none.pb.gz
check "...no pprof written" [ ! -e none.pb.gz ]
expect "standard input twice" 2 "standard input" "$EBS" report -i - -i - </dev/null
# one file given twice, by one name or by two (one device and inode): refused,
# its samples would count twice
expect "one file given twice: one line, status 2" 2 "a\.data: one file given twice" \
	"$EBS" report -i a.data -i b.data -i a.data
expect "...by two names: one line naming both, status 2" 2 "a\.data and \./a\.data: one file given twice" \
	"$EBS" export -i a.data -i ./a.data --format folded -o twice.folded
check "...no export written" [ ! -e twice.folded ]

# ---- f. SQLite, recorded twice ---------------------------------------------------------
sqlite_build sqlite || exit 0
record sq1.data -e cpu-clock -F 1000 "$SQLWORK" 100000
record sq2.data -e cpu-clock -F 1000 "$SQLWORK" 100000
for f in sq1 sq2; do "$EBS" report -i $f.data --top 0 --json >$f.json; done
"$EBS" report -i sq1.data -i sq2.data --top 0 --json >sq.json
res=$(python3 -c "$SUM_PY" function,dso sq1.json sq2.json sq.json)
check "SQLite twice: merged rows are the sums ($res)" [ "$res" = ok ]
for f in sq1 sq2; do "$EBS" report -i $f.data --sort line --top 0 --json >$f.line.json; done
"$EBS" report -i sq1.data -i sq2.data --sort line --top 0 --json >sq.line.json
# a line row is keyed by its line; its function is what the samples show
# of it (an inline scope, else the code's own function), so one recording
# may name a line's caller where another (or the merge) saw the inline
# scope: the label must be a function the single reports showed at it
res=$(python3 -c "$SUM_PY" file,line,dso sq1.line.json sq2.line.json sq.line.json)
check "SQLite twice: merged --sort line rows are the sums ($res)" [ "$res" = ok ]
res=$(python3 -c "$LABEL_PY" sq1.line.json sq2.line.json sq.line.json)
check "SQLite twice: each merged line row names a function seen at it alone ($res)" \
	[ "$res" = ok ]
keep sq.json
