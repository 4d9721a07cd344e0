#!/usr/bin/env bash
# calibrate.sh - ebs calibrate and ebs record --calibrate: N solved from a
# counting pass, the cost fit, the verifying run and its retries, --focus,
# -o, and bad input.  Nothing here depends on this machine's speed: the
# rates asked are low (200-1000/s), the overhead budget generous where the
# rate is what is checked, and the checks are on what ebs promises (the
# rounding rule, the rate of a clock, counts of known work, the fit's own
# arithmetic), with the tolerance named at each check.
. "$(dirname "$0")/../lib.sh"

L=$WORKLOADS/leafloop
# the rule of calib_solve: N = events/s / rate, rounded up to 1-2-5 (a
# value within 2% below counts); ROUND E R prints it
round() {
	python3 -c 'import math, sys
e, r = map(float, sys.argv[1:3])
n = max(1, math.ceil(math.ceil(e / r) / 1.02))
d = 1
while True:
    for m in (1, 2, 5):
        if m * d >= n:
            print(m * d); sys.exit(0)
    d *= 10' "$1" "$2"
}

# 1. cpu-clock at --rate 500: N follows the rule (2000000 for a clock's
# 1e9 events per CPU-second), and the verifying run's rate is within 20% of
# 500 (the issue's bound; a clock's rate per CPU-second is 1e9 / N whatever
# the machine: the timer is late by microseconds in 2 ms).
"$EBS" calibrate -e cpu-clock --cost-probe loop --rate 500 --overhead 90 --min-samples 100 \
	--json -o c1.data -- "$L" 0.6 >c1.json 2>c1.err
rc=$?
keep c1.json
check "cpu-clock: exit 0 ($rc), one JSON object" [ $rc -eq 0 -a -s c1.json ]
eps=$(json c1.json "j['events'][0]['events_per_sec']")
n=$(json c1.json "j['events'][0]['sample_after']")
check "cpu-clock: events/s per CPU-second is a clock's (1e9 +- 5%: $eps)" within "$eps" 1e9 5e7
check "cpu-clock: N = $n follows the rule from $eps events/s at 500/s ($(round "$eps" 500))" \
	[ "$n" = "$(round "$eps" 500)" -a "$n" = 2000000 ]
rate=$(json c1.json "j['events'][0]['achieved_rate']")
check "cpu-clock: the verifying run's rate $rate within 20% of --rate 500" within "$rate" 500 100
check "cpu-clock: the table's samples are the kept file's" \
	[ "$(json c1.json "j['events'][0]['achieved_samples']")" = \
	  "$("$EBS" report -i c1.data --json -e cpu-clock | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')" ]
"$EBS" report -i c1.data >c1.report 2>&1
check "-o: report says how N was chosen" \
	grep -qE '^# sampling: one sample after every 2000000 events \(calibrated: 500/s asked, [0-9]+/s achieved, [0-9.]+% overhead\)$' c1.report
"$EBS" report --dump -i c1.data >c1.dump 2>&1
check "-o: the CALIBRATION record: N, the rate asked, the budget (90%)" \
	grep -qE '^# calibration of event 0: sample_after 2000000 rate_hz 500 .* budget_ppm 900000$' c1.dump
check "-o: no run left beside it" sh -c '! ls -A | grep -q "^\.ebs-calibrate"'

# 2. The cost fit: the cost and residuals printed are the least squares of
# the points printed (to their printed precision); a measured cost is
# positive and above twice its error, else a note says it is not measurable.
check "cost fit: cost, base and residuals are the least squares of the points" jtrue c1.json "
all(abs(e['fit']['base_seconds'] - b) < 2e-6 and abs(e['cost_us_per_sample'] - c * 1e6) < 2e-3
    and all(abs(r - (p[1] - b - c * p[0])) < 2e-6 for r, p in zip(e['fit']['residuals'], e['fit']['points']))
    for e in j['events']
    for (xs, ys) in [([p[0] for p in e['fit']['points']], [p[1] for p in e['fit']['points']])]
    for (mx, my) in [(sum(xs) / len(xs), sum(ys) / len(ys))]
    for c in [sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)]
    for b in [my - c * mx])"
check "cost fit: four points, the first and the last unsampled" jtrue c1.json \
	"len(j['events'][0]['fit']['points']) == 4 and j['events'][0]['fit']['points'][0][0] == 0 == j['events'][0]['fit']['points'][3][0]"
check "cost fit: a measured cost is positive and above its 95% half-width; else said" jtrue c1.json \
	"all((e['cost_us_per_sample'] > 0 and e['cost_us_per_sample'] > e['cost_us_spread']) if e['cost_measured'] else any('not measurable' in n for n in j['notes']) for e in j['events'])"
# the half-width is t(0.975, 2) = 4.303 standard errors of a 4-point fit;
# the cost used is the fit's when measured, else the interval's upper end
# and at least its half-width (a fit below 0 is noise, never a free sample)
check "cost fit: the half-width is 4.303 standard errors of the printed points' fit" jtrue c1.json "
all(abs(e['cost_us_spread'] - 4.303 * (sum(r * r for r in e['fit']['residuals']) / 2 / sum((p[0] - mx) ** 2 for p in e['fit']['points'])) ** 0.5 * 1e6) < 0.01 + 0.01 * e['cost_us_spread']
    for e in j['events']
    for mx in [sum(p[0] for p in e['fit']['points']) / len(e['fit']['points'])])"
check "cost fit: the cost used: the fit's, or max(fit + half-width, half-width)" jtrue c1.json \
	"all(abs(e['cost_us_used'] - (e['cost_us_per_sample'] if e['cost_measured'] else max(e['cost_us_per_sample'], 0) + e['cost_us_spread'])) < 2e-3 for e in j['events'])"

# 3. --min-samples: reached when the run is long enough (1000/s for 1 s of
# CPU time is about 1000 samples, 400 asked: 2.5x margin); a run too short
# says so, which target it kept, how much longer to run, and promises
# nothing: the expected samples are what the rate gives.
"$EBS" calibrate -q -e cpu-clock --cost-probe loop --rate 1000 --overhead 90 --min-samples 400 \
	--json -- "$L" 1.0 >c2.json 2>c2.err
check "--min-samples 400 in a 1 s run at 1000/s: reached ($(json c2.json "j['events'][0]['achieved_samples']"))" \
	jtrue c2.json "j['events'][0]['achieved_samples'] >= 400 and not j['events'][0]['short_run']"
"$EBS" calibrate -q -e cpu-clock --cost-probe loop --rate 1000 --overhead 90 \
	--min-samples 100000 -- "$L" 0.4 >c3.txt 2>c3.err
rc=$?
keep c3.txt
check "a run too short for --min-samples: exit 0 ($rc), the conflict said: the rate cap kept, run longer, or accept fewer" \
	sh -c "[ $rc -eq 0 ] && grep -q '^# note: cpu-clock: 100000 samples need .* kept the rate cap .* Run it [0-9.]*x longer .* or accept [0-9]*: a function holding 10% is then known to +-' c3.txt"
check "a run too short: the summary does not say every target was met, it says the samples target cannot be had" \
	sh -c "! grep -q 'met every target' c3.txt && grep -q '^# cpu-clock: N set by the rate cap; the verifying run met the rate and overhead targets; the samples target cannot be had (note below)\$' c3.txt"
"$EBS" calibrate -q -e cpu-clock --cost-probe loop --rate 1000 --overhead 90 \
	--min-samples 100000 --json -- "$L" 0.4 >c3.json 2>&1
check "a run too short: no promise: expected samples = what 1000/s gives (< 100000), longer = 100000 / them" \
	jtrue c3.json "j['events'][0]['short_run'] and j['events'][0]['expected_samples'] < 1000 and abs(j['events'][0]['longer'] * j['events'][0]['expected_samples'] - 100000) < 10"

# 4. page-faults: memtouch writes one byte in each of 16384 fresh pages (64
# MiB x 4, no huge pages); the counting pass counts them within 10% (the
# loader's and libc's own faults are a few hundred), and N follows.
"$EBS" calibrate -q -e page-faults --rate 1000 --overhead 90 --min-samples 100 --json \
	-- "$WORKLOADS/memtouch" 64 4 >pf.json 2>pf.err
rc=$?
keep pf.json
ev=$(json pf.json "j['events'][0]['events']")
check "page-faults: exit 0 ($rc); counted $ev, want 65536 +- 10%" within "$ev" 65536 6554
# events_per_sec is the counting pass's, or after a retry that changed N
# the rate the missed run showed: either way N follows from it, the rate
# cap being the bound (a retry that broke no cap never steps N past it)
eps=$(json pf.json "j['events'][0]['events_per_sec']")
check "page-faults: N = $(json pf.json "j['events'][0]['sample_after']") follows from $eps faults/s at 1000/s" \
	[ "$(json pf.json "j['events'][0]['sample_after']")" = "$(round "$eps" 1000)" ]

# 4b. A rate misjudged, no cap broken: the counting pass and the cost runs
# (the first four runs) spend 0.4 s of CPU in a loop before memtouch, the
# verifying run does not, so it shows more faults per CPU-second than
# expected (by about 1.5x here) while staying under --rate.  That is a
# miss, but not a reason for fewer samples: N is solved again at the rate
# seen (the same 1-2-5 step or the next one up, per the machine), never
# stepped past what that rate asks.  Rounding makes the same N likely
# (then "no other N" is said); a larger N would be the rule's own.
cat >mixed.sh <<EOS
#!/bin/sh
n=\$(cat runs 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >runs
[ \$n -le 4 ] && "$L" 0.4
exec "$WORKLOADS/memtouch" 64 4
EOS
chmod +x mixed.sh
rm -f runs
"$EBS" calibrate -q -e page-faults --rate 1000 --overhead 90 --min-samples 100 --json \
	-- ./mixed.sh >mx.json 2>mx.err
rc=$?
keep mx.json mx.err
check "a misjudged rate: 5 runs or more (the verifying run was the fifth: $(cat runs))" \
	[ $rc -eq 0 -a "$(cat runs)" -ge 5 ]
check "a misjudged rate: the counted events are the counting pass's (65536 + the loader's, +- 10%)" \
	within "$(json mx.json "j['events'][0]['events']")" 65536 6554
eps=$(json mx.json "j['events'][0]['events_per_sec']")
check "a misjudged rate: N = $(json mx.json "j['events'][0]['sample_after']") follows from $eps faults/s at 1000/s, not stepped past it" \
	[ "$(json mx.json "j['events'][0]['sample_after']")" = "$(round "$eps" 1000)" ]
check "a misjudged rate: the last verifying run stayed under --rate (x1.2)" \
	jtrue mx.json "j['events'][0]['achieved_rate'] <= 1200"

# 5. --focus: split_b holds a quarter of split's samples.  The pilot's
# share is 0.25 within 5 binomial sd + 0.02; the verifying run gives
# split_b at least --min-samples 150 (about 250 expected at 1000/s for 1 s:
# 7 sd of margin); 400 in split_b cannot be had in 1 s at 1000/s, and
# that is said for the focus (it could be without --focus).
"$EBS" calibrate -q -e cpu-clock --cost-probe loop --rate 1000 --overhead 90 --min-samples 150 \
	--focus split_b --json -- "$WORKLOADS/split" 1.0 >fo.json 2>fo.err
rc=$?
keep fo.json
read -r sh tot < <(json fo.json "'%f %d' % (j['events'][0]['focus_share'], j['events'][0]['achieved_samples'])")
check "--focus split_b: exit 0 ($rc), its share $sh near 0.25" \
	jtrue fo.json "abs(j['events'][0]['focus_share'] - 0.25) <= 5 * (0.25 * 0.75 / 200) ** 0.5 + 0.02"
check "--focus split_b: at least 150 samples there in the verifying run ($(json fo.json "j['events'][0]['focus_samples']"))" \
	jtrue fo.json "j['events'][0]['focus_samples'] >= 150"
"$EBS" calibrate -q -e cpu-clock --cost-probe loop --rate 1000 --overhead 90 --min-samples 400 \
	--focus split_b -- "$WORKLOADS/split" 1.0 >fo2.txt 2>fo2.err
check "--focus: 400 samples in split_b need a longer run, said for the focus" \
	grep -q '^# note: cpu-clock: 400 samples in the focus need' fo2.txt

# 6. A deliberately expensive N, forced with -c and --exact: 5000 samples/s
# against --rate 200 is a miss however fast the machine; the retry says
# why and moves N to the rule's value (5000000 for a clock at 200/s).
"$EBS" calibrate -q -e cpu-clock --cost-probe loop --rate 200 --overhead 90 --min-samples 10 \
	-c 200000 --exact --json -- "$L" 0.4 >ex.json 2>ex.err
rc=$?
keep ex.json
check "-c 200000 --exact at --rate 200: exit 0 ($rc), a retry, said why (above --rate)" \
	jtrue ex.json "j['events'][0]['retries'] >= 1 and any(n.startswith('retry 1:') and 'above --rate 200' in n and 'N 200000 -> ' in n for n in j['notes'])"
check "... and N corrected ($(json ex.json "j['events'][0]['sample_after']")): the rate within 20% of 200" \
	jtrue ex.json "j['events'][0]['sample_after'] >= 4000000 and abs(j['events'][0]['achieved_rate'] - 200) <= 40"

# 7. ebs record --calibrate: the recording with the chosen N; report says how.
"$EBS" record -q --calibrate="--cost-probe loop --rate 500 --overhead 90 --min-samples 50 -q" \
	-e cpu-clock -o rc.data -- "$L" 0.5 >rc.out 2>rc.err
rc=$?
"$EBS" report -i rc.data >rc.report 2>&1
check "record --calibrate: exit 0 ($rc), recorded at the chosen N, report says so" \
	grep -qE '^# sampling: one sample after every 2000000 events \(calibrated: 500/s asked, [0-9]+/s achieved' rc.report
check "record --calibrate: the achieved rate in report's header within 20% of 500" \
	sh -c "a=\$(sed -n 's/.*asked, \([0-9]*\)\/s achieved.*/\1/p' rc.report); [ -n \"\$a\" ] && [ \$a -ge 400 ] && [ \$a -le 600 ]"
check "record -c N1,N2: one N per event in the file" sh -c "
	'$EBS' record -q -e cpu-clock,task-clock -c 1000000,2000000 -o two.data -- '$L' 0.1 &&
	'$EBS' report --dump -i two.data | grep -q '^# event 0: cpu-clock .* period 1000000 ' &&
	'$EBS' report --dump -i two.data | grep -q '^# event 1: task-clock .* period 2000000 '"

# 8. Bad input: one line naming what is wrong, exit 2, nothing under -o.
bad() {	# NAME ARGS...: one line on stderr, exit 2, kept.data untouched
	local name=$1
	shift
	echo keep-me >kept.data # each case its own: one failure is not the next's
	"$EBS" "$@" >bad.out 2>bad.err
	local rc=$?
	check "bad input, $name: exit 2 ($rc), one line: $(head -c 150 bad.err)" \
		sh -c "[ $rc -eq 2 ] && [ \$(wc -l <bad.err) -eq 1 ] && [ \"\$(cat kept.data)\" = keep-me ] && ! ls -A | grep -q '^\.ebs-calibrate'"
	rm -f .ebs-calibrate* # the same: a leftover is this case's failure only
}
bad "--rate 0" calibrate --rate 0 -o kept.data -- "$L" 0.1
bad "--rate -5" calibrate --rate -5 -- "$L" 0.1
bad "--rate abc" calibrate --rate abc -- "$L" 0.1
bad "--min-samples 0" calibrate --min-samples 0 -- "$L" 0.1
bad "--min-samples x" calibrate --min-samples x -- "$L" 0.1
bad "--overhead 0" calibrate --overhead 0 -- "$L" 0.1
bad "--overhead 150" calibrate --overhead 150 -- "$L" 0.1
bad "--retries -1" calibrate --retries -1 -- "$L" 0.1
bad "--retries 21" calibrate --retries 21 -- "$L" 0.1
bad "--min-samples ' 5'" calibrate --min-samples ' 5' -- "$L" 0.1
bad "-c 5x" calibrate -c 5x -- "$L" 0.1
bad "--cost-probe fast" calibrate --cost-probe fast -- "$L" 0.1
bad "an unknown event" calibrate -e nosuchevent -o kept.data -- "$L" 0.1
bad "no command" calibrate -e cpu-clock
bad "a command not found" calibrate -e cpu-clock -o kept.data -- ./no-such-program
bad "a command that fails" calibrate -e cpu-clock -o kept.data -- sh -c 'exit 3'
# -q: one line, whichever run refuses it.  The bound holds the command's
# CPU time from exec: ebs's own code between fork and exec, 10 ms and more
# under the sanitizers with the machine loaded, once let true through.
bad "a command that exits at once" calibrate -q -e cpu-clock -o kept.data -- true
bad "kmod with two events" calibrate --backend kmod -e cpu-clock,task-clock -- "$L" 0.1
bad "-o -" calibrate -e cpu-clock -o - -- "$L" 0.1
bad "--focus on nothing there" calibrate -q -e cpu-clock --cost-probe loop --focus no_such_function \
	-o kept.data -- "$L" 0.2
bad "record --calibrate with -c" record --calibrate -c 1000 -e cpu-clock -o kept.data -- "$L" 0.1
bad "record -c with an empty value" record -c 1000000,,2000000 -e cpu-clock,task-clock -o kept.data -- "$L" 0.1
bad "record --calibrate=--json" record --calibrate=--json -e cpu-clock -o kept.data -- "$L" 0.1
"$EBS" calibrate -q -e cpu-clock -- sh -c 'exit 3' 2>fail.err
check "a command that fails: its status said" grep -q "'sh' exited with status 3" fail.err

# a hardware event without a PMU: the fall-back notice names calibrate, the command run
"$EBS" calibrate -q -e cycles --cost-probe loop --rate 500 --overhead 90 --min-samples 10 \
	-- "$L" 0.2 >hw.out 2>hw.err
rc=$?
if grep -q "^cycles " hw.out; then
	skip "calibrate -e cycles: the notice" "cycles is counted here (a PMU): no fall-back"
else
	check "calibrate -e cycles without a PMU: exit 0 ($rc), one notice named 'ebs calibrate:'" \
		sh -c "[ $rc -eq 0 ] && [ \"\$(grep -c \"^ebs calibrate: event 'cycles' cannot be opened: .*; sampling 'cpu-clock' instead\$\" hw.err)\" -eq 1 ] && ! grep -q '^ebs record:' hw.err"
fi

# 9. Unprivileged (nobody): a clear line or a calibration, never a crash.
nobody_ebs calibrate -q -e cpu-clock --cost-probe loop --rate 500 --overhead 90 \
	--min-samples 10 -- "$(for_nobody "$L")" 0.2 >nb.out 2>nb.err
rc=$?
check "as nobody: exit 0 with the table, or 1/2 with one line ($rc: $(head -c 120 nb.err))" \
	sh -c "{ [ $rc -eq 0 ] && grep -q '^cpu-clock' nb.out; } || { [ $rc -eq 1 -o $rc -eq 2 ] && [ \$(wc -l <nb.err) -eq 1 ]; }"
