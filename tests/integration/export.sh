#!/usr/bin/env bash
# export.sh - ebs export --format pprof and --format speedscope, read back
# by the tools they are for, on the calltree workload (-g) and on a
# recording without call chains:
#
#   pprof       go tool pprof (golang-go, scripts/deps.sh): -raw's samples
#               add up to the report's; -top's flat and cum of the top
#               functions are report --children's self and children, to
#               the sample; -traces holds tree_a -> tree_left; the first
#               mapping's build ID is readelf -n's; inlined frames are
#               Lines of one Location, innermost first.
#   speedscope  the file validates against the schema speedscope ships; its
#               weights add up to the report's events; and speedscope's own
#               importer (npm's speedscope, a browser bundle only: run in
#               headless chromium, its sandwich view read back) shows the
#               total and self of the tree functions as the report has them.
# And bad input: one line naming the file or option, status 2, no file.
. "$(dirname "$0")/../lib.sh"

SS_PKG=speedscope@1.25.0
SS_TGZ=speedscope-1.25.0.tgz
SS_SHA256=2831f1e0d26df914b477e522d78b8485511495a6af81a0b88158f8b48f9e0d03
SS_CACHE=$TOP/build/real-cache

"$EBS" record -q -g -e cpu-clock -F 2000 -o fp.data "$WORKLOADS/calltree" 1 2>fp.err
check "record -g calltree" [ $? -eq 0 ]
"$EBS" record -q -e cpu-clock -F 2000 -o flat.data "$WORKLOADS/calltree" 0.5 2>flat.err
check "record calltree (no -g)" [ $? -eq 0 ]
"$EBS" record -q -e cpu-clock -F 2000 -o inl.data "$WORKLOADS/inlmany" 0.3 2>inl.err
for f in fp flat; do
	"$EBS" report -i $f.data --children --json >$f.json
	keep $f.json
done

# ---- pprof ---------------------------------------------------------------------------
# rows_vs_top F TOP: "NAME self children flat cum" for report rows of at
# least 1% whose name is one row only (pprof merges functions by name).
CMP_PY='
import json, sys
j = json.load(open(sys.argv[1]))
top = {}
for line in open(sys.argv[2]):
    f = line.split(None, 5)
    if len(f) == 6 and f[0].isdigit() and f[3].isdigit():
        top[f[5].strip()] = (int(f[0]), int(f[3]))
names = [r["function"] for r in j["rows"]]
for r in j["rows"]:
    if names.count(r["function"]) == 1 and r["children"] * 100 >= j["samples"]:
        print(r["function"], r["self"], r["children"], *top.get(r["function"], ("-", "-")))
'
if ! command -v go >/dev/null 2>&1; then
	skip "pprof" "go is not installed (apt-get install golang-go; scripts/deps.sh installs it)"
else
	for f in fp flat; do
		"$EBS" export -i $f.data --format pprof -o $f.pb.gz 2>$f.pprof.err
		check "$f: export --format pprof: status 0, nothing said" \
			[ $? -eq 0 -a ! -s $f.pprof.err ]
		keep $f.pb.gz
		check "$f: the file is gzip" gzip -t $f.pb.gz
		go tool pprof -raw $f.pb.gz >$f.raw 2>$f.raw.err
		check "$f: go tool pprof -raw reads it" [ $? -eq 0 -a -s $f.raw ]
		keep $f.raw
		check "$f: sample types samples/count and cpu-clock/nanoseconds" \
			grep -qx 'samples/count cpu-clock/nanoseconds' $f.raw
		check "$f: a comment names ebs" grep -q '^Comment: ebs ' $f.raw
		# the sample lines: "COUNT PERIOD: LOCATIONS"
		read -r n p < <(awk '/^Samples:/ {on = 1; next} /^Locations/ {on = 0}
			on && $2 ~ /:$/ {n += $1; p += $2} END {printf "%d %d\n", n, p}' $f.raw)
		check "$f: -raw: the samples add up to the report's ($n)" \
			[ "$n" = "$(json $f.json "j['samples']")" ]
		check "$f: -raw: the periods add up to the report's events ($p)" \
			[ "$p" = "$(json $f.json "j['estimate']['events']")" ]
		go tool pprof -top -sample_index=samples -nodecount=100000 -nodefraction=0 \
			-edgefraction=0 $f.pb.gz >$f.top 2>/dev/null
		keep $f.top
		python3 -c "$CMP_PY" $f.json $f.top >$f.cmp
		keep $f.cmp
		want=4
		[ $f = fp ] || want=1 # without chains only tree_leaf has samples of its own
		check "$f: -top: the tree functions are compared ($want)" \
			[ "$(grep -c '^tree_' $f.cmp)" = $want ]
		while read -r name self children flat cum; do
			check "$f: -top: $name's flat and cum are the report's self and children ($self $children; $flat $cum)" \
				[ "$self" = "$flat" -a "$children" = "$cum" ]
		done <$f.cmp
		# "1: START/LIMIT/OFFSET PATH BUILD-ID [FN]..."
		read -r path bid < <(awk '/^Mappings/ {on = 1; next} on && /^1: / {print $3, $4; exit}' $f.raw)
		check "$f: the first mapping is calltree's ($path)" [ "$path" = "$WORKLOADS/calltree" ]
		check "$f: its build ID is readelf -n's ($bid)" \
			[ "$bid" = "$(readelf -n "$WORKLOADS/calltree" | awk '/Build ID:/ {print $3}')" ]
	done
	go tool pprof -traces -sample_index=samples fp.pb.gz >fp.traces 2>/dev/null
	keep fp.traces
	check "fp: -traces: tree_leaf <- tree_left <- tree_a <- main" \
		awk '{$1 = $1} prev3 == "tree_leaf" && prev2 == "tree_left" && prev == "tree_a" && $NF == "main" {ok = 1}
		{prev3 = prev2; prev2 = prev; prev = $NF} END {exit !ok}' fp.traces
	# without chains a sample is one Location (with the frames inlined at its address)
	check "flat: -raw: one Location per sample" \
		awk '/^Samples:/ {on = 1; next} /^Locations/ {on = 0} on && $2 ~ /:$/ && NF != 3 {bad = 1} END {exit bad}' flat.raw
	"$EBS" export -i inl.data --format pprof -o inl.pb.gz &&
		go tool pprof -raw inl.pb.gz >inl.raw 2>/dev/null
	keep inl.raw
	# "N: 0xADDR M=1 step FILE:18 s=0", then "        caller_a FILE:25 s=0"
	check "inlined: step is a Line of caller_a's Location, innermost first" \
		awk '/^ +[0-9]+: 0x/ {prev = $4; next} prev == "step" && $1 == "caller_a" {ok = 1} {prev = ""} END {exit !ok}' inl.raw
fi

# ---- speedscope ----------------------------------------------------------------------
for f in fp flat; do
	"$EBS" export -i $f.data --format speedscope -o $f.ss.json 2>$f.ss.err
	check "$f: export --format speedscope: status 0, nothing said" [ $? -eq 0 -a ! -s $f.ss.err ]
	keep $f.ss.json
	check "$f: speedscope: the weights add up to the report's events" \
		[ "$(json $f.ss.json "sum(j['profiles'][0]['weights'])")" = "$(json $f.json "j['estimate']['events']")" ]
	check "$f: speedscope: endValue is their sum, unit nanoseconds, exporter ebs" \
		jtrue $f.ss.json "j['profiles'][0]['endValue'] == sum(j['profiles'][0]['weights']) and j['profiles'][0]['unit'] == 'nanoseconds' and j['exporter'].startswith('ebs ')"
	check "$f: speedscope: every sample's frames exist, one weight per sample" \
		jtrue $f.ss.json "all(0 <= i < len(j['shared']['frames']) for s in j['profiles'][0]['samples'] for i in s) and len(j['profiles'][0]['samples']) == len(j['profiles'][0]['weights'])"
done
check "fp: speedscope: the tree's frames, with their file" \
	jtrue fp.ss.json "all(any(fr['name'] == n and fr.get('file', '').endswith('calltree.c') for fr in j['shared']['frames']) for n in ('main', 'tree_a', 'tree_left', 'tree_right', 'tree_leaf'))"
check "fp: speedscope: stacks root first (main before tree_a before tree_left)" \
	jtrue fp.ss.json "any(',main,tree_a,tree_left,tree_leaf' in ',' + ','.join(j['shared']['frames'][i]['name'] for i in s) for s in j['profiles'][0]['samples'])"

# speedscope's package: pinned, checked, cached beside better-sqlite3's
ss_fetch() {
	local tmp
	[ "$(sha256sum "$SS_CACHE/$SS_TGZ" 2>/dev/null | cut -d' ' -f1)" = "$SS_SHA256" ] && return 0
	[ -z "${EBS_OFFLINE:-}" ] || { echo "$SS_TGZ is not in $SS_CACHE, and make check downloads nothing"; return 1; }
	command -v npm >/dev/null || { echo "npm is not installed (apt-get install npm)"; return 1; }
	mkdir -p "$SS_CACHE" && tmp=$(mktemp -d "$SS_CACHE/.fetch.XXXXXX") || return 1
	if ! (cd "$tmp" && npm pack "$SS_PKG" --fetch-retries=0 --fetch-timeout=30000 >npm.out 2>npm.err); then
		echo "npm pack $SS_PKG failed: $(grep -m 1 -E '^npm (ERR!|error)' "$tmp/npm.err" | cut -c1-200)"
		rm -rf "$tmp"
		return 1
	fi
	if [ "$(sha256sum "$tmp/$SS_TGZ" | cut -d' ' -f1)" != "$SS_SHA256" ]; then
		echo "$SS_PKG: $SS_TGZ is not the pinned one (SHA-256 $SS_SHA256)"
		rm -rf "$tmp"
		return 1
	fi
	mv -f "$tmp/$SS_TGZ" "$SS_CACHE/$SS_TGZ" && rm -rf "$tmp"
}
if ! why=$(ss_fetch); then
	skip "speedscope: schema and importer" "$why"
else
	tar -xzf "$SS_CACHE/$SS_TGZ" package/dist/release
	SS=$TMP/package/dist/release
	if python3 -c 'import jsonschema' 2>/dev/null; then
		for f in fp flat; do
			check "$f: speedscope: valid against the package's file-format-schema.json" \
				python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' \
				"$SS/file-format-schema.json" $f.ss.json
		done
	else
		skip "speedscope: schema" "python3-jsonschema is not installed"
	fi
	CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
	if [ -z "$CHROMIUM" ]; then
		skip "speedscope: importer" "speedscope ships only a browser bundle, and no chromium is installed to run it (apt-get install chromium)"
	else
		# what speedscope's own CLI does: a script that hands the file to the
		# page (#localProfilePath); the sandwich view lists every frame's
		# total and self, formatted
		python3 -c 'import base64, json, sys
b = base64.b64encode(open(sys.argv[1], "rb").read()).decode()
open(sys.argv[2], "w").write("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps("fp.ss.json"), json.dumps(b)))' \
			fp.ss.json "$TMP/load.js"
		# "TOTAL (PCT) | SELF (PCT) | NAME" rows: NAME total self, in ns,
		# with the resolution of the printed digits
		# the table's rows come a frame after its header, and the virtual
		# time budget sometimes ends between the two (1 run in 5 here, more
		# on a loaded machine, all 5 once in CI): up to 5 tries, each with
		# a budget 10 s of virtual time longer than the one before
		for try in 1 2 3 4 5; do
			timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --window-size=1600,8000 \
				--virtual-time-budget=$((10000 * try)) --user-data-dir="$TMP/chromium" --dump-dom \
				"file://$SS/index.html#localProfilePath=$TMP/load.js&view=sandwich" >ss.html 2>chromium.err
			python3 -c '
import html, re, sys
t = html.unescape(re.sub(r"<[^>]+>", "\n", open(sys.argv[1]).read()))
cells = [c.strip() for c in t.split("\n") if c.strip()]
unit = {"ns": 1, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9}
def ns(c):
    m = re.match(r"([0-9.]+)(ns|µs|us|ms|s|min) \(", c)
    if not m:
        return None
    d = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
    return float(m.group(1)) * unit[m.group(2)], 0.5 * 10 ** -d * unit[m.group(2)]
for i in range(len(cells) - 2):
    a, b = ns(cells[i]), ns(cells[i + 1])
    if a and b and ns(cells[i + 2]) is None:
        print(cells[i + 2].replace(" ", "_"), a[0], b[0], a[1])
' ss.html >ss.rows
			grep -q '^tree_a ' ss.rows && break
		done
		keep ss.html
		keep ss.rows
		if ! grep -q '^tree_a ' ss.rows; then
			fail "speedscope: importer" "no sandwich rows read back from chromium in 5 tries (ss.html, chromium.err: $(grep -v -e WebGL -e 'GL Driver' -e gles2 chromium.err | tail -n 2 | cut -c1-200))"
		else
			pass "speedscope: its importer loads the file (the sandwich view lists tree_a)"
			# every sample of cpu-clock at 2000 Hz stands for 500000 ns
			P=$(json fp.json "j['estimate']['events'] // j['samples'] if j['estimate']['events'] % j['samples'] == 0 else 0")
			if [ "$P" = 0 ]; then
				skip "speedscope: importer's totals" "the samples' periods differ: no exact total per function to expect"
			else
				for fn in main tree_a tree_left tree_right tree_leaf; do
					read -r _ total self res < <(grep "^$fn " ss.rows)
					read -r c s < <(json fp.json "'%d %d' % next((r['children'], r['self']) for r in j['rows'] if r['function'] == '$fn')")
					check "speedscope: $fn's total and self in the importer are the report's children and self x $P ns ($total $self; $c $s)" \
						python3 -c "import sys; r = $res; sys.exit(not (abs($total - $c * $P) <= r and abs($self - $s * $P) <= r))"
				done
			fi
		fi
	fi
fi

# ---- an event that is not a clock: counts, not nanoseconds -------------------------------
record pf.data -e page-faults -c 1 "$WORKLOADS/memtouch" 16 1
"$EBS" report -i pf.data --json >pf.json
"$EBS" export -i pf.data --format speedscope -o pf.ss.json
check "page-faults: speedscope: unit none, the weights the report's events" \
	jtrue pf.ss.json "j['profiles'][0]['unit'] == 'none' and sum(j['profiles'][0]['weights']) == $(json pf.json "j['estimate']['events']")"
if command -v go >/dev/null 2>&1; then
	"$EBS" export -i pf.data --format pprof -o pf.pb.gz && go tool pprof -raw pf.pb.gz >pf.raw 2>/dev/null
	check "page-faults: pprof: sample types samples/count and page-faults/count" \
		grep -qx 'samples/count page-faults/count' pf.raw
	check "page-faults: pprof: period type page-faults count" grep -qx 'PeriodType: page-faults count' pf.raw
fi

# ---- a name longer than the encoder's first buffer (a C++ template's can be) ------------
# (the key buffer grew once per write: a 1,000-character name overran it)
LONG=f_$(printf 'x%.0s' $(seq 1000))
cat >long.c <<EOF
volatile unsigned long sink;
__attribute__((noinline)) void $LONG(double s)
{
	for (unsigned long i = 0; i < (unsigned long)(s * 2e8); i++)
		sink += i;
}
int main(void) { $LONG(0.3); return 0; }
EOF
if cc -O1 -g -fno-omit-frame-pointer -o long long.c 2>long.err; then
	record long.data -g -e cpu-clock -F 1000 ./long
	for fmt in pprof speedscope folded; do
		"$EBS" export -i long.data --format $fmt -o long.$fmt 2>long-$fmt.err
		rc=$?
		check "a 1,002-character function name: --format $fmt exits 0 ($rc$(head -c 120 long-$fmt.err))" \
			[ $rc -eq 0 -a -s long.$fmt ]
	done
	if command -v go >/dev/null 2>&1; then
		check "a 1,002-character function name: pprof reads it whole" \
			bash -c "go tool pprof -top long.pprof 2>/dev/null | grep -q '$LONG\$'"
	fi
else
	skip "a long function name" "cc failed: $(head -n 1 long.err)"
fi

# ---- bad input ------------------------------------------------------------------------
expect "missing input" 2 "/no/such\.data: No such file" "$EBS" export -i /no/such.data --format pprof -o bad.pb.gz
check "missing input: no output file" [ ! -e bad.pb.gz ]
expect "-o into a missing directory: exit 1 (the system's)" 1 "/no/such/dir/x\.pb\.gz: cannot write" \
	"$EBS" export -i fp.data --format pprof -o /no/such/dir/x.pb.gz
expect "speedscope -o into a missing directory: exit 1" 1 "/no/such/dir/x\.json: cannot write" \
	"$EBS" export -i fp.data --format speedscope -o /no/such/dir/x.json
expect "pprof to standard output" 2 "--format pprof writes a file: give -o" "$EBS" export -i fp.data --format pprof
check "pprof to standard output: nothing written" [ ! -s out.txt ]
expect "pprof to -o -" 2 "--format pprof writes a file: give -o" "$EBS" export -i fp.data --format pprof -o -
expect "unknown format" 2 "--format 'gif': folded, pprof or speedscope" "$EBS" export -i fp.data --format gif -o x.gif
check "unknown format: no output file" [ ! -e x.gif ]
echo old >keep.pb.gz
expect "unknown event" 2 "nosuch" "$EBS" export -i fp.data --event nosuch --format pprof -o keep.pb.gz
check "unknown event: the old file is left whole" [ "$(cat keep.pb.gz)" = old ]
check "no temporary file left behind" bash -c "! ls -A | grep -q '\.tmp\.'"
