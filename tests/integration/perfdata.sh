#!/usr/bin/env bash
# perfdata.sh - ebs reads perf.data (data/perfdata.c, docs/perfdata.md):
# recordings made by perf at test time, each read by ebs and by perf itself.
#
#  1. file mode: on the same perf.data, `ebs report --sort func --no-inline`
#     and `perf report --sort sym --no-inline` count the same samples for
#     every function above 1% (calltree, split, and tests/real's SQLite
#     driver), and `--sort line` against `--sort srcline` for every line
#     (perf's srcline being the innermost line of inlined code, ebs's
#     --sort line without --no-inline is the one to compare);
#  2. pipe mode: a file of `perf record -o -`, and `perf record -o - | ebs
#     report -i -`;
#  3. two events: each event's samples, as perf script counts them; the
#     samples of four threads in perf script's order (tid, time, ip);
#  4. -g: the chains are read, and --children's inclusive shares are perf's;
#  5. fork and exec: both programs' functions resolve, with perf's counts;
#  6. LOST: a ring starved (perf stopped while its workload runs): ebs
#     counts the losses perf's LOST records hold;
#  7. cut and corrupted files: one line naming the file and the offset,
#     exit status 2, never a crash (the sanitizer build runs this too);
#  8. ebs convert: the report of the converted file is the perf.data's, and
#     the converted file is smaller;
#  9. the kernel's symbols: a perf.data holds none, so /proc/kallsyms is
#     read on a thread of its own while the file is converted (strace -f:
#     not by the main thread), the kernel rows as with --kallsyms of a
#     copy; for nobody, whose kallsyms hides its addresses, the warning
#     once for a recording with kernel samples, none without (dd: a real
#     program, in the kernel for most of its time).
# Same samples, so the counts are compared exactly: a row's count in ebs is
# perf's, and so are the shares (each prints to 0.01 points; ebs's JSON
# percent is its count over the total, checked within 0.005 points).
# perf is only ever asked for software clocks (cpu-clock, task-clock) at 1-2
# kHz; without perf every check skips, saying so.
. "$(dirname "$0")/../lib.sh"

CMP="$TMP/perfcmp.py"
cat >"$CMP" <<'PY'
# perfcmp.py KIND PERF_REPORT EBS_JSON [EVENT [FILES]]: compare a perf report
# --stdio -n table with an ebs report --json table on the same samples.
#   KIND func: perf --sort sym rows ("[.] name", "[k] name") by function name;
#   KIND line: perf --sort srcline rows ("file.c:12") by file basename:line;
#   KIND children: perf --children --sort sym rows' Children % against
#   ebs --children's children share, within 0.01 points plus rounding.
# Rows above 1% of either total must agree: counts equal; unresolved
# addresses (perf "0x...", ebs "[unknown] ...") are left out and counted.
# The one disagreement allowed: two names of one address (glibc's
# __memmove_avx_unaligned_erms is __memcpy_avx_unaligned_erms), each tool
# picking one; decided by the raw data, the symbol tables of the mapped
# FILES (a file listing them) and of their debug files by build-id: a row
# of perf's alone and one of ebs's alone with the same count, whose names
# have the same address in one of them, are one row.
import json, os, re, sys
sys.path.insert(0, os.path.join(os.environ['TOP'], 'tests', 'tools'))
import elfsyms

kind, ptxt, ejson = sys.argv[1:4]
event = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
files = open(sys.argv[5]).read().split() if len(sys.argv) > 5 else []

def aliases(a, b):
    """The mapped file in which names a and b are one address, or None."""
    for path in files:
        if elfsyms.aliases(path, a, b):
            return path
    return None

def merge_aliases(p, e, keys, same, lines):
    """Rows of p alone and of e alone whose values are the same and whose names alias: one row."""
    alias = {}
    # every row of p's: one name may sit at the 1% threshold in one tool and
    # just above it in the other (perf's clock_gettime@@GLIBC_2.17 1.00%)
    for k in sorted(p):
        if k not in e:
            for x in keys:
                if x in e and x not in p and same(e[x], p[k]) and x not in alias.values():
                    where = aliases(k, x)
                    if where:
                        alias[k] = x
                        lines.append('~~ %s is %s: one address in %s' % (k, x, where))
                        break
    for k, x in alias.items():
        e[k] = e.pop(x)
        keys.remove(x)
        if k not in keys:
            keys.append(k)

def perf_rows(text):
    """{event: [(cols..., key)]} of a perf report --stdio."""
    out, ev = {}, None
    for line in text.splitlines():
        m = re.match(r"# Samples: .* of event '([^']*)'", line)
        if m:
            ev = m.group(1)
            out.setdefault(ev, [])
            continue
        if line.startswith('#') or not line.strip():
            continue
        if kind == 'children':
            m = re.match(r'\s+([\d.]+)%\s+([\d.]+)%\s+(\d+)\s+(.*\S)\s*$', line)
            if m:
                out.setdefault(ev, []).append((float(m.group(1)), int(m.group(3)), m.group(4)))
        else:
            m = re.match(r'\s+([\d.]+)%\s+(\d+)\s+(.*\S)\s*$', line)
            if m:
                out.setdefault(ev, []).append((float(m.group(1)), int(m.group(2)), m.group(3)))
    return out

def perf_key(k):
    if kind == 'line':
        m = re.match(r'(.*):(\d+)$', k)
        if not m or m.group(1) in ('??', '') or '[' in m.group(1):
            return None
        return '%s:%s' % (os.path.basename(m.group(1)), m.group(2))
    m = re.match(r'\[[.kgHu]\] (.*)$', k)
    if not m:
        return None
    name = m.group(1)
    return None if re.match(r'0x[0-9a-f]+$', name) else name

def ebs_key(r):
    if kind == 'line':
        if not r.get('file') or r.get('line') is None:
            return None
        return '%s:%d' % (os.path.basename(r['file']), r['line'])
    f = r.get('function')
    return None if not f or f.startswith('[unknown]') else f

rows = perf_rows(open(ptxt).read())
if event is None:
    event = next(iter(rows)) if rows else None
prow = rows.get(event, [])
j = json.load(open(ejson))
total_e = j['samples']
bad, lines = 0, []
if kind == 'children':
    total_p = sum(r[1] for r in prow)  # self samples: every sample once
    pch = {}
    for ch, _, k in prow:
        key = perf_key(k)
        if key:
            pch[key] = max(ch, pch.get(key, 0))
    ech = {}
    for r in j['rows']:  # a name in two DSOs (ld.so's _start and the program's): the larger, as for perf
        if ebs_key(r):
            ech[ebs_key(r)] = max(100.0 * r['children'] / total_e, ech.get(ebs_key(r), 0))
    keys = [k for k in set(pch) | set(ech) if max(pch.get(k, 0), ech.get(k, 0)) > 1.0]
    merge_aliases(pch, ech, keys, lambda a, b: abs(a - b) <= 0.015, lines)
    for k in sorted(keys, key=lambda k: -ech.get(k, 0)):
        d = abs(pch.get(k, 0) - ech.get(k, 0))
        ok = d <= 0.015
        bad += not ok
        lines.append('%s %-40s perf %6.2f%%  ebs %6.2f%%' % ('  ' if ok else '!!', k, pch.get(k, 0), ech.get(k, 0)))
else:
    total_p = sum(r[1] for r in prow)
    pc, ec, pun, eun = {}, {}, 0, 0
    for _, n, k in prow:
        key = perf_key(k)
        if key is None:
            pun += n
        else:
            pc[key] = pc.get(key, 0) + n
    for r in j['rows']:
        key = ebs_key(r)
        if key is None:
            eun += r['samples']
        else:
            ec[key] = ec.get(key, 0) + r['samples']
            p = 100.0 * r['samples'] / total_e
            if abs(p - r['percent']) > 0.005:
                bad += 1
                lines.append('!! %s: percent %.4f is not %d/%d' % (key, r['percent'], r['samples'], total_e))
    if total_p != total_e:
        bad += 1
        lines.append('!! totals differ: perf %d, ebs %d' % (total_p, total_e))
    keys = [k for k in set(pc) | set(ec)
            if 100.0 * pc.get(k, 0) / max(total_p, 1) > 1.0 or 100.0 * ec.get(k, 0) / max(total_e, 1) > 1.0]
    merge_aliases(pc, ec, keys, lambda a, b: a == b, lines)
    for k in sorted(keys, key=lambda k: -pc.get(k, 0)):
        ok = pc.get(k, 0) == ec.get(k, 0)
        bad += not ok
        lines.append('%s %-40s perf %6d %6.2f%%  ebs %6d %6.2f%%' % (
            '  ' if ok else '!!', k, pc.get(k, 0), 100.0 * pc.get(k, 0) / max(total_p, 1),
            ec.get(k, 0), 100.0 * ec.get(k, 0) / max(total_e, 1)))
    lines.append('   unresolved: perf %d, ebs %d; rows above 1%%: %d' % (pun, eun, len(keys)))
    if not keys:
        bad += 1
        lines.append('!! no row above 1%')
for l in lines:
    print('#   ' + l)
sys.exit(1 if bad else 0)
PY

# mapped PERF.DATA: the files its samples may hit (its MMAPs, as ebs reads
# them) into PERF.DATA.files, for perfcmp.py's aliases
mapped() {
	"$EBS" report -i "$1" --dump 2>/dev/null | awk '$2 == "MMAP" && $NF ~ /^\// { print $NF }' |
		sort -u >"$1.files"
}

# prow PERF.DATA SORT OUT: perf report's table (-n: the sample counts) into OUT
prow() {
	perf report -i "$1" --stdio --no-inline -n --no-children --sort "$2" >"$3" 2>"$3.err"
}

# compare NAME KIND PERF.DATA [EVENT]: ebs report and perf report of the file, row by row
compare() {
	local name=$1 kind=$2 f=$3 ev=${4:-} esort psort inl
	# perf's srcline is the innermost line of inlined code, --no-inline or
	# not (addr2line's first answer): ebs's --sort line without --no-inline
	# (with it, inlined code counts at its call site in the caller)
	case $kind in
	func) esort=func psort=sym inl=--no-inline ;;
	line) esort=line psort=srcline inl= ;;
	esac
	# perf record killed or failed (seen once on a loaded machine): the
	# header it writes first, data size 0, which perf report cannot read
	if [ "$(od -An -tu8 -j8 -N8 "$f" | tr -d ' ')" = 104 ] &&
		[ "$(od -An -tu8 -j48 -N8 "$f" | tr -d ' ')" = 0 ]; then
		skip "$name" "perf record did not finish $f (its data size is 0): perf's failure, no oracle"
		return
	fi
	if ! prow "$f" "$psort" "$f.$kind.perf"; then
		fail "$name" "perf report --sort $psort failed: $(tail -n 1 "$f.$kind.perf.err")"
		return
	fi
	if ! "$EBS" report -i "$f" --sort "$esort" $inl --json ${ev:+--event "$ev"} \
		>"$f.$kind.json" 2>"$f.$kind.err"; then
		fail "$name" "ebs report failed: $(head -n 1 "$f.$kind.err")"
		return
	fi
	mapped "$f"
	python3 "$CMP" "$kind" "$f.$kind.perf" "$f.$kind.json" "$ev" "$f.files" >"$f.$kind.cmp"
	local rc=$?
	cat "$f.$kind.cmp"
	check "$name: every row above 1% has perf's sample count" [ $rc -eq 0 ]
	if [ $rc -ne 0 ]; then	# for whoever reads the artefacts: both tables and the recording
		keep "$f"
		keep "$f.$kind.perf"
		keep "$f.$kind.json"
	fi
}

if ! command -v perf >/dev/null; then
	skip "all" "perf is not installed (linux-perf): no perf.data to read"
	exit 0
fi
if ! perf record -q -e cpu-clock -F 1000 -o probe.data -- "$WORKLOADS/leafloop" 0.05 \
	>/dev/null 2>probe.err; then
	skip "all" "perf record cannot sample cpu-clock here: $(tail -n 1 probe.err)"
	exit 0
fi

# ---- 1. file mode -------------------------------------------------------------------
perf record -q -e cpu-clock -F 1000 -o ct.data -- "$WORKLOADS/calltree" 0.6 >/dev/null 2>ct.err
check "perf record calltree: exit 0" [ $? -eq 0 ]
"$EBS" report -i ct.data >ct.txt 2>ct.txt.err
check "ebs report -i perf.data (file mode): exit 0, nothing on stderr" \
	sh -c "[ $? -eq 0 ] && [ ! -s ct.txt.err ]"
check "ebs report: calltree's tree_leaf resolved" grep -qE ' tree_leaf +calltree' ct.txt
compare "file mode, calltree, --sort func" func ct.data
compare "file mode, calltree, --sort line" line ct.data

perf record -q -e cpu-clock -F 1000 -o split.data -- "$WORKLOADS/split" 0.6 >/dev/null 2>&1
compare "file mode, split, --sort func" func split.data
compare "file mode, split, --sort line" line split.data

# The real program: tests/real's SQLite driver (built once, cached; see sqlite.sh).
SQLWORK=$("$TOP/tests/real/build-sqlite.sh" 2>sqlbuild.err)
rc=$?
if [ $rc -eq 77 ]; then
	skip "SQLite" "no SQLite to build: $(tail -n 1 sqlbuild.err)"
elif [ $rc -ne 0 ] || [ ! -x "$SQLWORK" ]; then
	fail "SQLite" "tests/real/build-sqlite.sh failed: $(tail -n 1 sqlbuild.err)"
else
	perf record -q -e cpu-clock -F 1000 -o sq.data -- "$SQLWORK" 200000 >/dev/null 2>&1
	check "perf record sqlwork: exit 0" [ $? -eq 0 ]
	compare "file mode, SQLite, --sort func" func sq.data
	keep sq.data.func.cmp
	compare "file mode, SQLite, --sort line" line sq.data
	# the side by side of the closing note: the top rows, and what each report took
	t0=$(date +%s%N)
	"$EBS" report -i sq.data --sort func --no-inline --top 10 --no-ci >sq.ebs.txt 2>&1
	t1=$(date +%s%N)
	perf report -i sq.data --stdio --no-inline --no-children --sort sym -n 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 10 >sq.perf.txt
	t2=$(date +%s%N)
	echo "# SQLite, $(stat -c %s sq.data) bytes of perf.data: ebs report took" \
		"$(((t1 - t0) / 1000000)) ms, perf report $(((t2 - t1) / 1000000)) ms"
	sed 's/^/#   ebs: /' sq.ebs.txt | head -n 16
	sed 's/^/#   perf: /' sq.perf.txt
fi

# ---- 2. pipe mode ---------------------------------------------------------------------
perf record -q -e cpu-clock -F 1000 -o - -- "$WORKLOADS/calltree" 0.6 >pipe.data 2>/dev/null
check "perf record -o - writes pipe mode (a 16-byte header)" \
	[ "$(od -An -tu8 -j8 -N8 pipe.data | tr -d ' ')" = 16 ]
compare "pipe mode file, --sort func" func pipe.data
perf record -q -e cpu-clock -F 1000 -o - -- "$WORKLOADS/calltree" 0.4 2>/dev/null |
	"$EBS" report -i - --json >live.json 2>live.err
st="${PIPESTATUS[*]}"
check "perf record -o - | ebs report -i -: both exit 0 ($st), nothing on stderr ($(head -c 300 live.err))" \
	sh -c "[ '$st' = '0 0' ] && [ ! -s live.err ]"
check "perf record -o - | ebs report -i -: calltree's functions, the leaf hottest" \
	jtrue live.json "j['samples'] > 50 and j['rows'][0]['function'] == 'tree_leaf'"

# a file-mode perf.data through a pipe, /dev/zero after it: copied as far as
# its header, its data and its feature sections say, then read
"$EBS" report -i ct.data --json >ct.json 2>/dev/null
cat ct.data /dev/zero | head -c $(($(stat -c %s ct.data) + 65536)) |
	"$EBS" report -i - --json >ct-pipe.json 2>ct-pipe.err
check "a file-mode perf.data through a pipe (zeros after it): the same report" \
	python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); sys.exit(a['rows'] != b['rows'] or a['samples'] != b['samples'])" ct.json ct-pipe.json

# ---- 3. two events --------------------------------------------------------------------
perf record -q -e cpu-clock,task-clock -F 1000 -o two.data -- "$WORKLOADS/split" 0.5 >/dev/null 2>&1
perf script -i two.data -F event 2>/dev/null | tr -d ' :' | sort | uniq -c >two.count
for ev in cpu-clock task-clock; do
	want=$(awk -v e=$ev '$2 == e { print $1 }' two.count)
	"$EBS" report -i two.data --event $ev --json >two.$ev.json 2>two.$ev.err
	got=$(json two.$ev.json "j['samples']" 2>/dev/null)
	check "two events: $ev has perf script's ${want:-?} samples (ebs: ${got:-?})" \
		[ -n "$want" -a "$want" = "${got:-x}" ]
	compare "two events: $ev, --sort func" func two.data $ev
done

# ---- 3b. order: records come in perf's order, as perf script prints them ------------------
# four threads on two CPUs: perf.data's rings interleave them; perf sorts
# within its FINISHED_ROUND windows, and so does the conversion
perf record -q -e cpu-clock -F 1000 -o th.data -- "$WORKLOADS/threads" 0.3 >/dev/null 2>&1
perf script -i th.data -F tid,time,ip 2>/dev/null | awk '{ sub(":", "", $2); print $1, $2, $3 }' >th.perf
"$EBS" report -i th.data --dump 2>/dev/null | awk '$2 == "SAMPLE" {
	for (i = 3; i < NF; i++) { if ($i == "tid") t = $(i + 1); if ($i == "time") tm = $(i + 1); if ($i == "ip") ip = $(i + 1) }
	sub("^0x", "", ip); printf "%s %d.%06d %s\n", t, int(tm / 1e9), int((tm % 1e9) / 1e3), ip }' >th.ebs
check "order: the samples of 4 threads in perf script's order, tid, time and ip ($(wc -l <th.perf) of them)" \
	sh -c "[ -s th.perf ] && cmp -s th.perf th.ebs"

# ---- 4. -g (frame pointers) ------------------------------------------------------------
perf record -q -g -e cpu-clock -F 1000 -o g.data -- "$WORKLOADS/calltree" 0.8 >/dev/null 2>&1
"$EBS" report -i g.data --dump >g.dump 2>g.dump.err
check "-g: the converted file says call-graph fp" grep -qx '# call-graph: fp' g.dump
check "-g: samples carry chains with kernel or user markers" \
	bash -c "grep ' SAMPLE ' g.dump | grep -q 'chain' && grep -q '\[user\]' g.dump"
perf report -i g.data --stdio --no-inline -n --children --sort sym >g.perf 2>g.perf.err
"$EBS" report -i g.data --children --no-inline --json >g.json 2>g.err
mapped g.data
python3 "$CMP" children g.perf g.json "" g.data.files >g.cmp
rc=$?
cat g.cmp
check "-g: --children's inclusive shares are perf's (within 0.015 points)" [ $rc -eq 0 ]
# (a frame-pointer chain skips the caller of the frameless tree_leaf: both
# tools put it under tree_a; ebs record -g recovers it, perf.data has no
# stack copy to recover it from)
check "-g: main, tree_a and tree_leaf compared" \
	bash -c "grep -qE '^#     +main ' g.cmp && grep -qE '^#     +tree_a ' g.cmp && grep -qE '^#     +tree_leaf ' g.cmp"

# --call-graph dwarf: the registers and stack copies converted, unwound by
# ebs through the CFI of calltree-nofp (no frame pointers), as perf unwinds
perf record -q --call-graph dwarf -e cpu-clock -F 1000 -o dw.data -- \
	"$WORKLOADS/calltree-nofp" 0.5 >/dev/null 2>&1
"$EBS" report -i dw.data --dump 2>/dev/null | grep -m 1 '^# call-graph' >dw.mode
check "--call-graph dwarf: the converted file says dwarf,8192 ($(cat dw.mode))" \
	grep -qx '# call-graph: dwarf,8192' dw.mode
perf report -i dw.data --stdio --no-inline -n --children --sort sym >dw.perf 2>/dev/null
"$EBS" report -i dw.data --children --no-inline --json >dw.json 2>dw.err
mapped dw.data
python3 "$CMP" children dw.perf dw.json "" dw.data.files >dw.cmp
rc=$?
cat dw.cmp
check "--call-graph dwarf: --children's inclusive shares are perf's (within 0.015 points)" [ $rc -eq 0 ]
# glibc's separate debug file names versioned functions in its .symtab
# (__libc_start_main@@GLIBC_2.34): ebs names them without the version, so
# that --callees and annotate find them
check "--call-graph dwarf: no function named with its symbol version (@@VERSION)" \
	not grep -qE '"[A-Za-z_0-9]+@@?[A-Z]+_[0-9.]+"' dw.json
check "--call-graph dwarf: tree_left and tree_right unwound, in both" \
	bash -c "grep -qE '^#     +tree_left ' dw.cmp && grep -qE '^#     +tree_right ' dw.cmp"

# ebs convert of recordings with chains: format 4.0's SAMPLES_CGZ records
# (chains as repeats of the chains before them, stack copies as repeats of
# the stack before, compressed with zstd) make the file at most half of perf.data's (the
# performance issue's target for IP-only recordings, held here too), and
# the converted file reads as the perf.data does
for f in g dw; do
	"$EBS" convert -q -i $f.data -o $f.conv.data
	in=$(stat -c %s $f.data) out=$(stat -c %s $f.conv.data)
	echo "# ebs convert of $f.data: $in bytes -> $out ($(awk "BEGIN { printf \"%.1f\", 100 * $out / $in }")%)"
	check "ebs convert of the $f.data recording: at most half its size ($out of $in bytes)" \
		[ $((2 * out)) -le "$in" ]
	check "ebs convert of the $f.data recording: datacheck.py reads it as docs/format.md says" \
		sh -c "python3 '$TOP/tests/tools/datacheck.py' $f.conv.data | grep -q '^ok: finished'"
	check "ebs convert of the $f.data recording: mode 0600, as the perf.data" [ "$(stat -c %a $f.conv.data)" = 600 ]
	check "ebs convert of the $f.data recording: written as format 4.0" \
		sh -c "'$EBS' report -i $f.conv.data --dump 2>/dev/null | head -n 1 | grep -q '^# ebs.data version 4\.0,'"
	"$EBS" script -i $f.data >$f.script 2>/dev/null
	"$EBS" script -i $f.conv.data >$f.conv.script 2>/dev/null
	check "ebs convert of the $f.data recording: ebs script reads every chain as from the perf.data ($(grep -c . $f.script) lines)" \
		sh -c "[ -s $f.script ] && cmp -s $f.script $f.conv.script"
done

# ---- 5. fork and exec ------------------------------------------------------------------
perf record -q -e cpu-clock -F 1000 -o fe.data -- "$WORKLOADS/forkexec" 0.5 >/dev/null 2>&1
"$EBS" report -i fe.data --sort func --no-inline --json >fe.json 2>fe.err
check "fork and exec: the parent's forkexec_parent_work and the exec'd leafloop's leaf resolve" \
	jtrue fe.json "{('forkexec_parent_work', 'forkexec'), ('leaf', 'leafloop')} <= {(r['function'], r['dso']) for r in j['rows']}"
compare "fork and exec, --sort func" func fe.data

# ---- 6. LOST: a starved ring ------------------------------------------------------------
# A one-page ring (4 KiB, some 80 samples) and perf stopped for 0.8 s while
# its workload runs (once it has exec'd): the kernel finds the ring full and
# counts what it drops.  perf writes LOST records, and perf 6.0 and later
# also LOST_SAMPLES at the end, read from the counters (PERF_FORMAT_LOST):
# the same losses twice.  perf report counts the LOST_SAMPLES ("Total Lost
# Samples"), else the LOST records; so must ebs (docs/perfdata.md).
perf record -q -m 1 -e cpu-clock -F 2000 -o lost.data -- "$WORKLOADS/leafloop" 1.5 >/dev/null 2>&1 &
perf_pid=$!
for _ in $(seq 200); do	# up to 10 s for the workload to start
	c=$(pgrep -P $perf_pid | head -n 1)
	[ -n "$c" ] && [ "$(cat /proc/"$c"/comm 2>/dev/null)" = leafloop ] && break
	sleep 0.05
done
sleep 0.2
kill -STOP $perf_pid 2>/dev/null
sleep 0.8
kill -CONT $perf_pid 2>/dev/null
wait $perf_pid
perf report -i lost.data -D 2>/dev/null | awk '
	/PERF_RECORD_LOST_SAMPLES/ { n = split($0, f, ":"); ls += f[n] + 0; next }
	/PERF_RECORD_LOST:/ { n = split($0, f, ":"); l += f[n] + 0 }
	END { print l + 0, ls + 0 }' >lost.perf
read -r plost plost_samples <lost.perf
total=$(perf report -i lost.data --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: //p' | head -n 1)
want=$plost
[ "${plost_samples:-0}" -gt 0 ] && want=$plost_samples
"$EBS" report -i lost.data --json >lost.json 2>lost.err
elost=$(json lost.json "j['lost']" 2>/dev/null)
echo "# LOST: perf's LOST records lose $plost, its LOST_SAMPLES $plost_samples (Total Lost Samples: ${total:-?}); ebs counts ${elost:-?}"
if [ "${plost:-0}" -eq 0 ] && [ "${plost_samples:-0}" -eq 0 ]; then
	skip "LOST" "the starved ring lost nothing here (perf stopped too briefly?)"
else
	check "LOST: ebs counts the $want samples perf lost (its LOST_SAMPLES, else its LOST records)" \
		[ "${elost:-x}" = "$want" ]
	[ "${plost_samples:-0}" -gt 0 ] &&
		check "LOST: which perf report says too (Total Lost Samples: ${total:-?})" [ "${total:-x}" = "$want" ]
fi

# ---- 7. cut and corrupted files -----------------------------------------------------------
dsize=$(od -An -tu8 -j48 -N8 ct.data | tr -d ' ')
doff=$(od -An -tu8 -j40 -N8 ct.data | tr -d ' ')
fsize=$(stat -c %s ct.data)
for cut in 50 200 $((doff + 100)) $((doff + dsize / 2)) $((doff + dsize)) $((doff + dsize + 20)) $((fsize - 1)); do
	head -c $cut ct.data >cut.data
	expect "cut at byte $cut of $fsize: one line naming the file and an offset, exit 2" 2 \
		"^ebs report: cut\.data: offset [0-9]+: " "$EBS" report -i cut.data
done
# records: "OFFSET SIZE" of each record of a perf.data's data (file mode: from
# the header's data section; pipe mode: from byte 16 to the end)
records() {
	python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
if struct.unpack_from('<Q', b, 8)[0] == 16:
    off, end = 16, len(b)
else:
    off, size = struct.unpack_from('<QQ', b, 40)
    end = off + size
while off + 8 <= end:
    size = struct.unpack_from('<H', b, off + 6)[0]
    if size < 8 or off + size > end:
        break
    print(off, size)
    off += size
PY
}
# cut a pipe-mode file in the middle of a record halfway through it
records pipe.data >pipe.recs
read -r roff rsize < <(awk -v n="$(wc -l <pipe.recs)" 'NR == int(n / 2) { print; exit }' pipe.recs)
head -c $((roff + rsize / 2)) pipe.data >pcut.data
expect "pipe mode cut in a record: ebs report reads what is whole and says so" 0 \
	"^ebs report: warning: pcut\.data: recording did not finish: [0-9,]+ samples up to offset $roff \(an incomplete record after it left out\)$" \
	"$EBS" report -i pcut.data
expect "pipe mode cut in a record: ebs convert refuses it" 2 \
	"^ebs convert: pcut\.data: offset $roff: truncated" "$EBS" convert -i pcut.data -o pcut.ebs
# a record's size field: 4 (below a header's 8), then 65535 (past the data's
# end: the record taken is one that lies within the last 65535 bytes)
records ct.data >ct.recs
read -r soff _ < <(awk 'NR == 20' ct.recs)
read -r boff _ < <(awk -v end=$((doff + dsize)) 'end - $1 < 65535 { print; exit }' ct.recs)
python3 - "$soff" "$boff" <<'PY'
import struct, sys
b = open('ct.data', 'rb').read()
for name, off, val in (('small.data', int(sys.argv[1]), 4), ('big.data', int(sys.argv[2]), 65535)):
    c = bytearray(b)
    struct.pack_into('<H', c, off + 6, val)
    open(name, 'wb').write(c)
PY
expect "a record size of 4: one line naming its offset, exit 2" 2 \
	"^ebs report: small\.data: offset $soff: bad record size 4" "$EBS" report -i small.data
expect "a record size of 65535, past the data's end: one line naming its offset, exit 2" 2 \
	"^ebs report: big\.data: offset $boff: .* runs past the end of the data section" \
	"$EBS" report -i big.data
python3 -c "
import sys
b = bytearray(open('ct.data', 'rb').read())
b[0:8] = b[0:8][::-1]
open('swapped.data', 'wb').write(b)"
expect "the other byte order: one line, exit 2" 2 "^ebs report: swapped\.data: offset 0: .*other byte order" \
	"$EBS" report -i swapped.data

# ---- 8. ebs convert ----------------------------------------------------------------------
"$EBS" convert -i ct.data -o conv.data 2>conv.err
check "ebs convert: exit 0" [ $? -eq 0 ]
cat conv.err
check "ebs convert: says the sizes and the samples" \
	grep -qE "^ebs convert: ct\.data \(file mode, $fsize bytes\) -> conv\.data \([0-9]+ bytes, [0-9.]+% of it\): [0-9]+ samples$" conv.err
"$EBS" report -i ct.data --json >from-perf.json
"$EBS" report -i conv.data --json >from-conv.json
check "ebs convert: the converted file's report is the perf.data's" \
	python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); sys.exit(a['rows'] != b['rows'] or a['samples'] != b['samples'])" from-perf.json from-conv.json
csize=$(stat -c %s conv.data)
echo "# ebs convert: $fsize bytes of perf.data, $csize of ebs.data: $(awk "BEGIN { printf \"%.2f\", $fsize / $csize }") times smaller"
check "ebs convert: the ebs.data is smaller ($csize < $fsize bytes)" [ "$csize" -lt "$fsize" ]
"$EBS" convert -q -i - -o conv-pipe.data <pipe.data 2>convp.err
check "ebs convert -i - of a pipe-mode stream: exit 0, quiet" sh -c "[ $? -eq 0 ] && [ ! -s convp.err ]"
expect "ebs convert of an ebs.data: refused in one line" 2 "^ebs convert: conv\.data: an ebs\.data file already" \
	"$EBS" convert -i conv.data -o again.data
expect "ebs convert of a missing file: one line, exit 2" 2 "^ebs convert: nosuch\.data: No such file" \
	"$EBS" convert -i nosuch.data -o x.data
expect "ebs convert into a missing directory: one line, exit 1, nothing left" 1 \
	"^ebs convert: nodir/x\.data: cannot write" "$EBS" convert -i ct.data -o nodir/x.data
expect "ebs convert of a cut perf.data: one line, exit 2, no output" 2 "^ebs convert: cut\.data: offset [0-9]+: " \
	"$EBS" convert -i cut.data -o cut.ebs
check "ebs convert of a cut perf.data: no output file, no temporary file left" \
	sh -c "! ls cut.ebs .cut.ebs.tmp.* 2>/dev/null"

# ---- 9. the kernel's symbols ----------------------------------------------------------
perf record -q -e cpu-clock -F 1000 -o kern.data -- dd if=/dev/zero of=/dev/null bs=64 count=300000 \
	>/dev/null 2>&1
perf record -q -e cpu-clock:u -F 1000 -o user.data -- "$WORKLOADS/calltree" 0.3 >/dev/null 2>&1
chmod 644 kern.data user.data
"$EBS" report -i kern.data --no-cache --sort func,dso >kern.txt 2>kern.err
cat /proc/kallsyms >copy.kallsyms
"$EBS" report -i kern.data --no-cache --sort func,dso --kallsyms copy.kallsyms >kern-copy.txt 2>&1
nk=$(grep -c '\[kernel\]' kern.txt)
check "perf.data of dd: kernel functions named ($nk rows), nothing on stderr ($(head -c 200 kern.err))" \
	sh -c "[ $nk -ge 1 ] && [ ! -s kern.err ]"
check "...the same rows as with --kallsyms of a copy of /proc/kallsyms" cmp -s kern.txt kern-copy.txt
if command -v strace >/dev/null; then
	# LeakSanitizer stops the world with ptrace, which strace already holds
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat -o kern.strace "$EBS" report -i kern.data --no-cache >/dev/null 2>&1
	main=$(awk 'NR == 1 { print $1 }' kern.strace)
	check "perf.data: /proc/kallsyms read once, not by the main thread ($(grep kallsyms kern.strace | head -c 200))" \
		sh -c "[ \$(grep -c '\"/proc/kallsyms\"' kern.strace) -eq 1 ] && ! grep -q '^$main .*\"/proc/kallsyms\"' kern.strace"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat -o copy.strace "$EBS" report -i kern.data --no-cache \
		--kallsyms copy.kallsyms >/dev/null 2>&1
	check "perf.data with --kallsyms FILE: /proc/kallsyms not read" not grep -q '"/proc/kallsyms"' copy.strace
else
	skip "perf.data: /proc/kallsyms read on a thread of its own" "strace is not installed"
fi
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$TMP" XDG_CACHE_HOME="$TMP/nobody-cache" "$@"; }
nobody "$EBS" report -i kern.data >kern-nobody.txt 2>kern-nobody.err
st=$?
n=$(grep -c 'warning: /proc/kallsyms: addresses are hidden from this user' kern-nobody.err)
check "nobody, perf.data with kernel samples: exit 0 ($st), the hidden-kallsyms warning once ($n)" \
	sh -c "[ $st -eq 0 ] && [ $n -eq 1 ]"
nobody "$EBS" report -i user.data >user-nobody.txt 2>user-nobody.err
st=$?
check "nobody, perf.data without kernel samples: exit 0 ($st), no kallsyms warning ($(head -c 200 user-nobody.err))" \
	sh -c "[ $st -eq 0 ] && ! grep -q kallsyms user-nobody.err && grep -q tree_leaf user-nobody.txt"
