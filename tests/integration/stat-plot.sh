#!/usr/bin/env bash
# stat-plot.sh - ebs stat --plot OUT.svg: the intervals as a line chart, one
# panel per event over a shared time axis (count/plot.c).  The SVG is read
# as XML (python's xml.etree) and held against the same run's --json
# intervals: one polyline per event, one point per interval, each point
# where its time and count put it; then rendered in headless Chromium
# (tests/tools/render.py), whose text must name the events and the axes
# and whose screenshot must show each event's line in its colour.  Also
# --plot beside the other outputs, a run shorter than one interval, names
# that need escaping, and bad input.
. "$(dirname "$0")/../lib.sh"

# facts SVG: the chart as JSON in SVG.json, or false when it is not
# well-formed XML.  j['n']: data-n; j['lines'][NAME]: the polyline's
# points; j['frames'][NAME]: its panel's frame (x, y, w, h); j['legend'],
# j['labels'] (the panels'), j['xticks'], j['yticks'][NAME]: texts.
FACTS_PY='
import json, sys, xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
try:
    svg = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    sys.exit("not well-formed: %s" % e)
text = lambda e: "".join(e.itertext()) if e is not None else None
j = dict(n=int(svg.get("data-n")), width=int(svg.get("width")), height=int(svg.get("height")),
         title=svg.find(S + "title").text, lines={}, frames={}, labels=[], yticks={}, tops={},
         colours={}, nlines=0)
byid = {t.get("id"): text(t) for t in svg.iter(S + "text") if t.get("id")}
j.update(drawn_title=byid.get("title"), subtitle=byid.get("subtitle"), xlabel=byid.get("xlabel"),
         note=byid.get("note"), empty=byid.get("empty"))
j["legend"] = [text(t) for t in svg.find(S + "g[@id=\"legend\"]").iter(S + "text")]
j["legend_colours"] = [l.get("stroke") for l in svg.find(S + "g[@id=\"legend\"]").iter(S + "line")]
j["xticks"] = [t.text for t in svg.iter(S + "text") if t.get("class") == "xtick"]
for g in svg.iter(S + "g"):
    if g.get("class") != "panel":
        continue
    name = g.get("data-name")
    r = g.find(S + "rect")
    j["frames"][name] = [float(r.get(k)) for k in ("x", "y", "width", "height")]
    j["tops"][name] = float(g.get("data-top"))
    j["labels"].append(text(g.find(S + "text[@class=\"label\"]")))
    j["yticks"][name] = [t.text for t in g.iter(S + "text") if t.get("class") == "ytick"]
    for p in g.iter(S + "polyline"):
        j["nlines"] += 1
        j["lines"][p.get("data-name")] = [list(map(float, xy.split(","))) for xy in p.get("points").split()]
        j["colours"][p.get("data-name")] = p.get("stroke")
json.dump(j, open(sys.argv[1] + ".json", "w"))
'
facts() { python3 -c "$FACTS_PY" "$1" 2>"$1.err"; }

# placed SVG.json JSON: every point of every line is where its interval's
# time and count put it (within 0.06 px: the points are written to 0.1 px):
# x from the frame's left edge at 0 s to its right edge at the last
# interval's end, y from the bottom at 0 to the top at the panel's top
# value; the clocks in ms.  Prints what differs.
PLACED_PY='
import json, sys
j, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
iv = r["intervals"]
bad = []
for name, pts in j["lines"].items():
    x, y, w, h = j["frames"][name]
    top = j["tops"][name]
    scale = 1e-6 if name.startswith(("task-clock", "cpu-clock")) else 1
    for k, (px, py) in enumerate(pts):
        wx = x + iv[k]["t"] / iv[-1]["t"] * w
        wy = y + h - iv[k]["counts"][name] * scale / top * h
        if abs(px - wx) > 0.06 or abs(py - wy) > 0.06:
            bad.append("%s point %d: (%.1f, %.1f), want (%.2f, %.2f)" % (name, k, px, py, wx, wy))
    if max(iv[k]["counts"][name] * scale for k in range(len(iv))) > top:
        bad.append("%s: a count above the panel top %g" % (name, top))
print("; ".join(bad[:3]) or "ok")
sys.exit(1 if bad else 0)
'

# pixels PNG COLOUR...: "nonwhite N total" and, per colour (#rrggbb), how
# many pixels are within 40 of it on each channel.  PNG: 8-bit RGB or RGBA,
# not interlaced (Chromium's screenshots), decoded here (no PIL needed).
PIXELS_PY='
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6) and not lace, "PNG kind %d/%d/%d" % (depth, ctype, lace)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, at = bytearray(stride), [], 0
for _ in range(h):
    f, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
    at += 1 + stride
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
want = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in sys.argv[2:]]
nonwhite, near = 0, [0] * len(want)
for line in rows:
    for i in range(0, stride, bpp):
        px = line[i:i + 3]
        if min(px) < 245:
            nonwhite += 1
        for k, c in enumerate(want):
            if all(abs(px[q] - c[q]) <= 40 for q in range(3)):
                near[k] += 1
print(nonwhite, w * h, *near)
'

# the workload: 0.25 s of CPU time with no page faults, then 64 MiB of fresh
# pages touched 6 times (about 98,000 faults): a chart with two phases
WL="$WORKLOADS/leafloop 0.25; $WORKLOADS/memtouch 64 6"

# ---- the chart, against the run's own --json intervals ---------------------------------
"$EBS" stat --plot out.svg -I 50 --json -o out.json -e task-clock,page-faults -- sh -c "$WL" \
	>out.stdout 2>out.err
rc=$?
check "--plot out.svg -I 50 --json -o: exit 0 ($rc), nothing on stderr" [ $rc -eq 0 -a ! -s out.err ]
keep out.svg
if ! facts out.svg; then
	fail "the SVG is well-formed XML" "$(cat out.svg.err)"
else
	pass "the SVG is well-formed XML"
	ni=$(json out.json "len(j['intervals'])")
	check "one polyline per event, named by it ($(json out.svg.json "sorted(j['lines'])"))" \
		jtrue out.svg.json "j['nlines'] == 2 and sorted(j['lines']) == ['page-faults', 'task-clock']"
	check "each line has one point per interval ($ni intervals in --json; $(json out.svg.json "[len(v) for v in j['lines'].values()]"))" \
		jtrue out.svg.json "$ni >= 2 and j['n'] == $ni and all(len(v) == $ni for v in j['lines'].values())"
	check "each point where its interval's end and count put it ($(python3 -c "$PLACED_PY" out.svg.json out.json))" \
		python3 -c "$PLACED_PY" out.svg.json out.json
	check "the legend names both events" jtrue out.svg.json "j['legend'] == ['task-clock', 'page-faults']"
	check "each line its own colour, the legend's ($(json out.svg.json "j['colours']"))" jtrue out.svg.json \
		"[j['colours'][n] for n in j['legend']] == j['legend_colours'] and len(set(j['legend_colours'])) == 2"
	check "the panels say their units ($(json out.svg.json "j['labels']"))" jtrue out.svg.json \
		"j['labels'] == ['task-clock, ms of CPU time per interval', 'page-faults, count per interval']"
	check "the title names the command and the interval ($(json out.svg.json "j['title']"))" \
		jtrue out.svg.json "j['title'] == \"Counts of 'sh -c $WL' every 50 ms\""
	check "the drawn title: the command's start and end around '...' (a long one)" \
		jtrue out.svg.json "j['drawn_title'].startswith(\"Counts of 'sh -c \") and '...' in j['drawn_title'] and j['drawn_title'].endswith('memtouch 64 6\' every 50 ms')"
	check "the subtitle: the intervals, the last one partial" jtrue out.svg.json \
		"j['subtitle'].startswith('$ni intervals of 50 ms, the last partial')"
	check "the time axis: seconds from 0 in 1, 2 or 5 steps, labelled ($(json out.svg.json "j['xticks']"))" \
		jtrue out.svg.json "j['xticks'][0] == '0' and len(j['xticks']) >= 3 and j['xlabel'] == 'seconds since the command started' and any(abs(float(j['xticks'][1]) - m * 10.0 ** k) < 1e-9 for m in (1, 2, 5) for k in range(-3, 3))"
	# the value axes: 0 up to the panel's top in nice steps, SI-suffixed
	check "value axes: nice steps from 0, SI suffixes ($(json out.svg.json "j['yticks']"))" \
		python3 -c '
import json, math, sys
j = json.load(open("out.svg.json"))
si = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}
ok = True
for name, t in j["yticks"].items():
    v = [float(x.rstrip("KMG")) * si[x[-1] if x[-1] in "KMG" else ""] for x in t]
    step = v[1] - v[0]
    mant = step / 10 ** math.floor(math.log10(step))
    ok &= v[0] == 0 and abs(v[-1] - j["tops"][name]) < 1e-9 * v[-1] and round(mant, 6) in (1, 2, 5)
    ok &= all(abs(v[k] - k * step) < 1e-9 * v[-1] for k in range(len(v)))
ok &= any(x.endswith("K") for x in j["yticks"]["page-faults"])
sys.exit(not ok)'
fi

# ---- in Chromium: the text as laid out, and a screenshot --------------------------------
if ! command -v chromium >/dev/null; then
	EBS_DEPS_EXTRA=chromium "$TOP/scripts/deps.sh" >deps.out 2>&1
fi
if ! command -v chromium >/dev/null; then
	skip "in Chromium" "chromium is not installed and could not be ($(tail -n 1 deps.out))"
elif [ ! -s out.svg.json ]; then
	skip "in Chromium" "no well-formed SVG to render"
else
	# render.py reads an HTML page's innerText: the SVG inline in one
	{
		printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>plot</title>'
		printf '<style>body { margin: 0; background: #fff; }</style></head><body>\n'
		sed 1d out.svg
		printf '</body></html>\n'
	} >out.html
	if ! python3 "$TOP/tests/tools/render.py" out.html out.png >rendered.txt 2>render.err; then
		fail "in Chromium: the chart renders" "$(head -n 1 render.err)"
	else
		keep out.png
		keep rendered.txt
		check "in Chromium: the text names both events, in the legend and over the panels" \
			sh -c '[ "$(grep -c "^task-clock" rendered.txt)" -ge 2 ] && [ "$(grep -c "^page-faults" rendered.txt)" -ge 2 ]'
		# the time axis's ticks come just before its label, increasing: 0.5 s
		# apart on a quiet machine, whole seconds when the run took 4 s
		check "in Chromium: the axes' labels are laid out (the time axis's, its ticks, the value axes' K)" \
			python3 -c 'import re, sys
t = [l.strip() for l in open("rendered.txt")]
i = t.index("seconds since the command started")
ticks = []
while i > 0 and re.fullmatch(r"[0-9]+(\.[0-9]+)?", t[i - 1]):
    i -= 1
    ticks.insert(0, float(t[i]))
sys.exit(not (len(ticks) >= 2 and ticks == sorted(set(ticks)) and
              any(re.fullmatch(r"[0-9.]+K", l) for l in t)))'
		read -r nonwhite total blue orange < <(python3 -c "$PIXELS_PY" out.png '#0072b2' '#d55e00')
		check "in Chromium: the screenshot is not blank ($nonwhite of $total pixels not white; at least 1%)" \
			[ "${nonwhite:-0}" -ge $((${total:-1} / 100)) ]
		check "in Chromium: each line drawn in its colour ($blue pixels of task-clock's blue, $orange of page-faults' orange; at least 300 each)" \
			[ "${blue:-0}" -ge 300 -a "${orange:-0}" -ge 300 ]
	fi
	# the SVG alone, as a browser opens the file: no error
	printf 'size 960 %s\nshot alone.png\n' "$(json out.svg.json "j['height']")" |
		python3 "$TOP/tests/tools/browse.py" out.svg >alone.browse 2>browse.err
	check "in Chromium: the SVG opened as a document of its own, no error ($(tail -n 1 alone.browse))" \
		grep -qx 'errors.\[\]' alone.browse
	keep alone.png
fi

# ---- beside the other outputs -------------------------------------------------------------
# no -I: 100 ms intervals for the chart, the text as it was (no interval lines)
"$EBS" stat --plot txt.svg -e task-clock -- "$WORKLOADS/leafloop" 0.3 >txt.out 2>txt.err
rc=$?
check "--plot without -I: exit 0 ($rc), the usual counts, no interval lines" \
	sh -c "[ $rc -eq 0 ] && grep -q 'seconds time elapsed' txt.err && ! grep -qE '^ +0\.[0-9]{6} ' txt.err"
if facts txt.svg; then
	check "--plot without -I: intervals of 100 ms, at least 3 over 0.3 s of CPU time ($(json txt.svg.json "j['n']"))" \
		jtrue txt.svg.json "j['n'] >= 3 and j['subtitle'].startswith('%d intervals of 100 ms' % j['n'])"
else
	fail "--plot without -I: well-formed" "$(cat txt.svg.err)"
fi
"$EBS" stat --plot csv.svg -I 50 --csv -e task-clock,page-faults -- "$WORKLOADS/memtouch" 64 4 \
	>/dev/null 2>iv.csv
if facts csv.svg; then
	check "--plot with -I --csv: the CSV's intervals, one point each ($(grep -c ',page-faults$' iv.csv) rows an event)" \
		jtrue csv.svg.json "all(len(v) == $(grep -c ',page-faults$' iv.csv) == j['n'] for v in j['lines'].values())"
else
	fail "--plot with -I --csv: well-formed" "$(cat csv.svg.err)"
fi
"$EBS" stat --plot x.svg -x ';' -e page-faults -- "$WORKLOADS/memtouch" 4 1 >/dev/null 2>x.txt
check "--plot with -x: the counts' table as before, and the chart" \
	sh -c 'head -n 1 x.txt | grep -q "^value;unit;event;" && [ "$(wc -l <x.txt)" -eq 2 ] && [ -s x.svg ]'

# ---- shorter than one interval: one partial interval, said --------------------------------
"$EBS" stat --plot short.svg -I 1000 -e task-clock,page-faults -- true 2>short.err
rc=$?
if facts short.svg; then
	keep short.svg
	check "a run shorter than one interval: exit 0 ($rc), a chart of its one partial interval" \
		jtrue short.svg.json "$rc == 0 and j['n'] == 1 and all(len(v) == 1 for v in j['lines'].values())"
	check "...the subtitle says there was no whole interval ($(json short.svg.json "j['subtitle']"))" \
		jtrue short.svg.json "j['subtitle'].startswith('no whole interval of 1000 ms: the counting ended after ')"
else
	fail "a run shorter than one interval: well-formed" "$(cat short.svg.err)"
fi

# ---- Ctrl-C: the chart of the intervals so far ------------------------------------------
"$EBS" stat --plot int.svg -e task-clock -- sleep 10 2>int.err &
pid=$!
wait_until 300 child_runs $pid sleep	# counting: the command runs
kill -INT $pid
wait $pid
rc=$?
if facts int.svg; then
	check "Ctrl-C: the command's status (130: $rc), the counts and the chart so far ($(json int.svg.json "j['n']") intervals)" \
		jtrue int.svg.json "$rc == 130 and j['n'] >= 1 and len(j['lines']['task-clock']) == j['n']"
else
	fail "Ctrl-C: a chart, well-formed" "$(cat int.svg.err)"
fi

# ---- names that need escaping; an event not counted --------------------------------------
ESC=": \"<a&b>\" 'x'; exec $WORKLOADS/leafloop 0.1"
printf "Counts of 'sh -c %s' every 50 ms" "$ESC" >esc.want
"$EBS" stat --plot esc.svg -I 50 -e task-clock,cycles -- sh -c "$ESC" 2>esc.err
if facts esc.svg; then
	check "a command with <, & and quotes: the title as given ($(json esc.svg.json "j['title']"))" \
		jtrue esc.svg.json "j['title'] == open('esc.want').read()"
	if grep -q "cycles .*not supported" esc.err; then
		check "an event not counted (no PMU): not drawn, and the note says so" \
			jtrue esc.svg.json "list(j['lines']) == ['task-clock'] and j['note'] == 'not counted here, so not drawn: cycles'"
	else
		check "cycles counted (a PMU): drawn" jtrue esc.svg.json "sorted(j['lines']) == ['cycles', 'task-clock']"
	fi
else
	fail "a command with <, & and quotes: well-formed" "$(cat esc.svg.err)"
fi

# ---- bad input: one line, exit 2, the command not run, nothing written ----------------------
rm -f ran bad.svg
expect "--plot with -r 2" 2 "^ebs stat: --plot draws the intervals of one run: not with -r$" \
	"$EBS" stat --plot bad.svg -r 2 -- touch ran
expect "--plot with --all-events" 2 "^ebs stat: --plot draws the intervals of one run: not with --all-events$" \
	"$EBS" stat --plot bad.svg --all-events -- touch ran
expect "--plot into a missing directory: exit 1 (the system's)" 1 "^ebs stat: --plot nodir/bad.svg: cannot write: No such file or directory$" \
	"$EBS" stat --plot nodir/bad.svg -e task-clock -- touch ran
mkdir -p ro && chmod 555 ro
if [ "$(id -u)" -eq 0 ]; then
	expect "--plot into a directory not writable (as nobody): exit 1" 1 "^ebs stat: --plot ro/bad.svg: cannot write: Permission denied$" \
		$NOBODY "$(for_nobody "$EBS")" stat --plot ro/bad.svg -e task-clock -- touch ran
else
	expect "--plot into a directory not writable: exit 1" 1 "^ebs stat: --plot ro/bad.svg: cannot write: Permission denied$" \
		"$EBS" stat --plot ro/bad.svg -e task-clock -- touch ran
fi
expect "--plot -" 2 "^ebs stat: --plot wants a file name \('-' is none" \
	"$EBS" stat --plot - -e task-clock -- touch ran
expect "--plot and -o the same file" 2 "^ebs stat: --plot o.txt: the file -o writes the counts to$" \
	"$EBS" stat --plot o.txt -o o.txt -e task-clock -- touch ran
check "bad input: the command never ran, no chart, no temporary left" \
	sh -c '[ ! -e ran ] && [ ! -e bad.svg ] && [ ! -e ro/bad.svg ] && [ -z "$(ls -A . ro | grep "\.tmp\.")" ]'
# a write that fails midway (past RLIMIT_FSIZE: EFBIG, as a full disk gives
# ENOSPC): the old file kept, no temporary, exit 1, the counts printed (to a
# pipe, which the limit does not bound).  16 KiB: more than the run's own
# counting file (about 10 KiB), less than the chart of 4 events over 4 s of
# wall time in 10 ms intervals (about 25 KiB)
echo old >big.svg
bash -c "trap '' XFSZ; ulimit -f 16; exec \"$EBS\" stat --plot big.svg -I 10 \
	-e task-clock,page-faults,cpu-clock,context-switches -- \"$WORKLOADS/sleeper\" 4" 2>&1 >/dev/null |
	cat >big.err
rc=${PIPESTATUS[0]}
check "a chart whose write fails midway: exit 1 ($rc), the counts printed, then one line: $(tail -n 1 big.err)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'seconds time elapsed' big.err &&
	       tail -n 1 big.err | grep -qx 'ebs stat: --plot big.svg: write failed: File too large' &&
	       [ \$(grep -c '^ebs stat' big.err) -eq 1 ]"
check "a failed write: the old file kept, no temporary left" \
	sh -c '[ "$(cat big.svg)" = old ] && [ -z "$(ls -A | grep "\.tmp\.")" ]'
