#!/usr/bin/env bash
# bench-json.sh - the performance table cannot rot silently.  `make bench`
# (never run here: no timing is asserted in make test) writes
# bench/results.json and README.md's table through bench/table.py.  This
# checks that the committed results.json has every row of issue 14's table,
# each with its issue target, its comparison, "met" (true or false, and true
# only when the value meets the target), a unit, and a value or a reason it
# was skipped; that table.py renders a sample and refuses files that break
# the schema, naming the row and the field; and that README.md's table is
# the rendering of the committed results.json.
. "$(dirname "$0")/../lib.sh"

TABLE=$TOP/bench/table.py
RESULTS=$TOP/bench/results.json

# rows FILE: every row of issue 14, once, with its target and comparison
# (the ids are bench/bench.py's); the first problem on stdout, status 1
rows() {
	python3 - "$1" 2>&1 <<'PY'
import json, sys
want = {  # id: (comparison, target)
    # issue 34: the warm-cache rows (func_warm, noinline_warm, annotate_warm) at <= 0.25
    'func': ('<=', 0.5), 'func_warm': ('<=', 0.25), 'noinline': ('<=', 0.5),
    'noinline_warm': ('<=', 0.25), 'line': ('<=', 0.02), 'line_func': ('<=', 1.5),
    'annotate': ('<=', 0.5), 'rss': ('<=', 1.0), 'size': ('<=', 0.5), 'rec_cpu': ('<=', 0.5),
    # issue 34: the two-core slowdown rows are information (no target)
    'slow_1k': ('info', None), 'slow_10k': ('info', None), 'drain': ('>=', 1.0),
    'growth_time': ('<=', 1.0), 'growth_rss': ('<=', 0.1), 'annotate_warm': ('<=', 0.25),
    'merge': ('<=', 1.0),  # issue 32: a merged report of N recordings
    'top_cpu': ('<=', 2.0),  # issue 33: ebs top's own CPU, % of a CPU
    # issue 33: ebs view's page of the SQLite recordings
    'view_write': ('<=', 3.0), 'view_size': ('<=', 20.0), 'view_open': ('<=', 2.0),
    'view_update': ('<=', 200.0),
    # issue 34: call-graph reports, flame graphs, perf.data, the dwarf report's memory
    'children_fp': ('<=', 0.5), 'children_dwarf': ('<=', 0.5), 'flamegraph': ('<=', 0.5),
    'perfdata_cold': ('<=', 1.0), 'perfdata_warm': ('<=', 1.0), 'rss_dwarf': ('<=', 1.0),
    # issue 34: the recorder competing with the program on one CPU; stat's,
    # monitor's and libebs's overhead
    'pin_1k': ('<=', 0.8), 'pin_10k': ('<=', 0.8), 'stat_100': ('<=', 1.0),
    'monitor_cpu': ('<=', 1.0), 'libebs_read': ('<=', 1.1),
    # issue 34: a -g (frame pointers) and a --call-graph dwarf recording's bytes per sample
    'size_fp': ('<=', 1.0), 'size_dwarf': ('<=', 0.1),
}
try:
    doc = json.load(open(sys.argv[1]))
    ids = [r.get('id') for r in doc['rows']]
    for k in want:
        if ids.count(k) != 1:
            sys.exit('row %s: %d times, not once' % (k, ids.count(k)))
    for r in doc['rows']:
        k = r.get('id')
        if k not in want:
            sys.exit('row %r: not one of issue 14' % k)
        for f in ('name', 'target', 'met', 'unit', 'value', 'min', 'max'):
            if f not in r:
                sys.exit('row %s: no %s' % (k, f))
        if (r.get('cmp'), r['target']) != want[k]:
            sys.exit('row %s: target %s %s, the issue says %s %s'
                     % ((k, r.get('cmp'), r['target']) + want[k]))
        if r['cmp'] == 'info':  # information: neither met nor missed
            if r['met'] is not None:
                sys.exit('row %s: information, but met is %s, not null' % (k, r['met']))
        elif not isinstance(r['met'], bool):
            sys.exit('row %s: met not a bool' % k)
        if not r['unit'] or not r['name']:
            sys.exit('row %s: no unit or name' % k)
        if r['value'] is None:
            if r['met'] or not r.get('skipped'):
                sys.exit('row %s: no value, and met or no reason' % k)
        elif r['met'] and not (r['value'] <= r['target'] if r['cmp'] == '<=' else r['value'] >= r['target']):
            sys.exit('row %s: met, but %s is not %s %s' % (k, r['value'], r['cmp'], r['target']))
    sq = doc['machine'].get('programs', {}).get('sqlite')
    if sq and min(sq['samples']['16x']['ebs'], sq['samples']['16x']['perf']) < 500000:
        sys.exit('the large SQLite recordings hold fewer than 500,000 samples: %s' % sq['samples']['16x'])
except (OSError, ValueError, KeyError, TypeError) as e:
    sys.exit('%s: %s' % (sys.argv[1], e))
PY
}

check "committed results.json: the schema (table.py --check)" python3 "$TABLE" --check "$RESULTS"
out=$(rows "$RESULTS" 2>&1)
check "committed results.json: every row of issue 14 with its target, met and unit (${out:-ok})" \
	[ -z "$out" ]

# the checks can fail: a row gone, a target changed, met where it is not
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["rows"] = [r for r in d["rows"] if r["id"] != "annotate"]
json.dump(d, open("gone.json", "w"))
d = json.load(open(sys.argv[1]))
d["rows"][0]["target"] = 0.9
json.dump(d, open("target.json", "w"))
d = json.load(open(sys.argv[1]))
r = [r for r in d["rows"] if r["id"] == "line"][0]
r.update(value=5.0, min=5.0, max=5.0, met=True)
r.pop("skipped", None)
json.dump(d, open("met.json", "w"))
d = json.load(open(sys.argv[1]))
r = [r for r in d["rows"] if r["id"] == "slow_10k"][0]
r.update(cmp="<=", target=1.0, met=False)
json.dump(d, open("slowtarget.json", "w"))
r.update(cmp="info", target=None, met=True)
json.dump(d, open("infomet.json", "w"))' "$RESULTS"
check "a row left out is found" eval 'rows gone.json | grep -q "row annotate: 0 times"'
check "a target other than the issue's is found" eval 'rows target.json | grep -q "the issue says <= 0.5"'
check "met for a value above its target is found" eval 'rows met.json | grep -q "row line: met, but 5.0"'
check "issue 34: a two-core slowdown row with a target again is found" \
	eval 'rows slowtarget.json | grep -q "row slow_10k: target <= 1.0, the issue says info None"'
check "issue 34: an information row marked met is found" \
	eval 'rows infomet.json | grep -q "row slow_10k: information, but met is True"'

# a sample: one measured row, one skipped
cat >sample.json <<'EOF'
{"machine": {"kernel": "6.1.0-test", "cpu": "Test CPU", "cores": 2, "memory_gb": 4.0,
  "perf": "perf version 6.1", "ebs_rev": "0123456789ab", "ebs_dirty": false,
  "date": "2025-01-02T03:04:05Z", "runs": 5,
  "programs": {"sqlite": {"samples": {"16x": {"ebs": 612345, "perf": 634567}}}}},
 "rows": [
  {"id": "func", "name": "report --sort func / perf", "value": 0.75, "target": 0.5, "cmp": "<=",
   "met": false, "min": 0.7, "max": 0.8, "unit": "ratio", "n": 5, "ebs_median": 0.45,
   "perf_median": 0.6, "component_unit": "s", "gen2000": {"ratio": 1.25}},
  {"id": "drain", "name": "samples per second / perf's", "value": null, "target": 1.0,
   "cmp": ">=", "met": false, "min": null, "max": null, "unit": "ratio",
   "skipped": "perf is not installed"},
  {"id": "slow_1k", "name": "slowdown (information)", "value": 0.95, "target": null,
   "cmp": "info", "met": null, "min": 0.9, "max": 1.2, "unit": "ratio", "n": 5,
   "ebs_slowdown_median": 0.1, "perf_slowdown_median": 0.105},
  {"id": "pin_1k", "name": "pinned slowdown / perf's", "value": 0.4, "target": 0.8, "cmp": "<=",
   "met": false, "min": -2.0, "max": 3.0, "unit": "ratio", "n": 9,
   "unmeasurable": "perf's median slowdown (+2.4%) is within the rounds' noise (4.6%)"}]}
EOF
python3 "$TABLE" sample.json >sample.md 2>sample.err
rc=$?
check "table.py renders a sample (status $rc, $(head -n 1 sample.err))" [ "$rc" -eq 0 ]
check "the machine line: date, kernel, ebs revision, sample counts" \
	grep -q '^Measured 2025-01-02 on Linux 6.1.0-test; Test CPU, 2 cores, 4.0 GB; perf version 6.1; ebs 0123456789ab; RUNS=5; SQLite large profile 612,345 samples (ebs) / 634,567 (perf)' sample.md
check "the header row" grep -qF '| # | row | value | target | met | min-max | ebs | peer | 2,000-function program |' sample.md
check "a measured row: value, target, met, range, both medians, the second program" \
	grep -qF '| 1 | report --sort func / perf | **0.75** ratio | <= 0.5 | no | 0.7-0.8 (n=5) | 0.45 s | perf 0.6 s | 1.25 |' sample.md
check "a skipped row says why" grep -qF '| 2 | samples per second / perf'"'"'s | - | >= 1 | skipped: perf is not installed |' sample.md
check "issue 34: an information row: no target, neither met nor missed" \
	grep -qF '| 3 | slowdown (information) | **0.95** ratio | information | - | 0.9-1.20 (n=5) | +10.0% | perf +10.5% |  |' sample.md
check "issue 34: a row the machine cannot tell from noise: not measurable, saying why" \
	grep -qF "| 4 | pinned slowdown / perf's | **0.4** ratio | <= 0.8 | not measurable: perf's median slowdown (+2.4%) is within the rounds' noise (4.6%) | -2.00-3.00 (n=9) |" sample.md
keep sample.md

# files that break the schema: refused, one line naming the row and the field
bad() {	# NAME PYTHON-EDIT EXPECTED-MESSAGE
	python3 -c 'import json, sys
d = json.load(open("sample.json"))
exec(sys.argv[1])
json.dump(d, open("bad.json", "w"))' "$2"
	python3 "$TABLE" bad.json >bad.out 2>bad.err
	rc=$? want=$3
	check "refused: $1 (status $rc: $(head -n 1 bad.err))" \
		eval '[ $rc -eq 1 ] && [ ! -s bad.out ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -qF "$want" bad.err'
}
bad "a row without met" 'del d["rows"][0]["met"]' 'row 1 (report --sort func / perf): no "met"'
bad "met not a bool" 'd["rows"][0]["met"] = "no"' 'row 1 (report --sort func / perf): "met" is not true or false'
bad "a row without unit" 'del d["rows"][0]["unit"]' 'no "unit"'
bad "a row without target" 'del d["rows"][1]["target"]' 'row 2 (samples per second / perf'"'"'s): no "target"'
bad "no value and no reason" 'del d["rows"][1]["skipped"]' 'no value and no "skipped" reason'
bad "value outside min-max" 'd["rows"][0]["value"] = 0.9' 'value 0.9 outside [min 0.7, max 0.8]'
bad "no machine date" 'del d["machine"]["date"]' 'machine: no "date"'
bad "no rows" 'd["rows"] = []' 'no rows'
bad "issue 34: an information row marked met" 'd["rows"][2]["met"] = False' \
	'row 3 (slowdown (information)): an information row with "met" False, not null'
bad "issue 34: an information row with a target" 'd["rows"][2]["target"] = 1.0' \
	'row 3 (slowdown (information)): an information row with a "target"'
bad "issue 34: a row without a target that is not information" \
	'd["rows"][0]["target"] = None' 'row 1 (report --sort func / perf): "target" is not a number'
bad "issue 34: a row not measurable but met" 'd["rows"][3]["met"] = True' \
	'row 4 (pinned slowdown / perf'"'"'s): not measurable but "met" True, not false'
bad "issue 34: a row not measurable without a reason" 'd["rows"][3]["unmeasurable"] = ""' \
	'row 4 (pinned slowdown / perf'"'"'s): "unmeasurable" is not a reason'
bad "issue 34: an unknown cmp" 'd["rows"][0]["cmp"] = "<"' '"cmp" is '"'"'<'"'"', not <=, >= or info'

# README.md's table is the committed results.json's rendering
python3 "$TABLE" "$RESULTS" >table.md
awk '/^<!-- bench:end -->$/ { p = 0 } p { print } /^<!-- bench:begin -->$/ { p = 1 }' \
	"$TOP/README.md" >readme.md
check "README.md's Performance table is bench/table.py's rendering of bench/results.json" \
	cmp -s table.md readme.md
cp "$TOP/README.md" readme-copy.md
python3 "$TABLE" --update readme-copy.md sample.json
check "table.py --update replaces README's table" eval \
	'grep -qF "| 1 | report --sort func / perf |" readme-copy.md && ! grep -qF "$(sed -n 1p table.md)" readme-copy.md && grep -qF "Measured 2025-01-02" readme-copy.md'
printf 'no markers\n' >plain.md
python3 "$TABLE" --update plain.md sample.json 2>plain.err
rc=$?
check "table.py --update refuses a file without the markers (status $rc)" \
	eval '[ $rc -eq 1 ] && grep -q "no <!-- bench:begin --> ... <!-- bench:end --> lines" plain.err && [ "$(cat plain.md)" = "no markers" ]'
