#!/usr/bin/env bash
# serial: runs unpriv.sh, which sets /proc/sys/kernel/perf_event_paranoid
# private-checkout.sh - the suite in a checkout the unprivileged user cannot
# reach: a clone under /root, in a 0700 home or in `mktemp -d`, where
# root's newcomers clone.  The tests that run something as nobody (uid
# 65534) give it copies that it may read, in the test's $TMP
# (tests/lib.sh: for_nobody, nobody_ebs).  Checked two ways:
#  - unpriv.sh, through tests/run.sh, from copies of tests/, ebs and the
#    workloads in a 0700 directory: every check passes (before: 21 of its
#    27 failed, "ebs record: cannot run '.../leafloop': Permission
#    denied");
#  - no test hands nobody $EBS, $WORKLOADS, $TOP, $BUILD or $SQLWORK
#    themselves (a line that runs $NOBODY, as_nobody, nobody_ebs or $ALICE
#    names none of them but inside for_nobody "..."), as badinput, cache,
#    stat, neighbours and calibrate did.
. "$(dirname "$0")/../lib.sh"

# ---- no checkout path handed to nobody ----
python3 - "$TOP"/tests/integration/*.sh >lint.txt <<'PY'
import re, sys
runs = re.compile(r'\$NOBODY\b|\bas_nobody\b|\bnobody_ebs\b|\$ALICE\b')
staged = re.compile(r'\$\(for_nobody "[^"]*"\)')
ours = re.compile(r'\$\{?(EBS|WORKLOADS|TOP|BUILD|SQLWORK)\b')
for path in sys.argv[1:]:
    if path.endswith('/private-checkout.sh'):
        continue
    for n, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
        if line.lstrip().startswith('#'):
            continue
        m = runs.search(line)
        if m and ours.search(staged.sub('', line[m.end():])):
            print('%s:%d: %s' % (path.rsplit('/', 1)[-1], n, line.strip()))
PY
check "no test hands nobody a path of the checkout but through for_nobody ($(wc -l <lint.txt) lines: $(head -n 3 lint.txt | tr '\n' ' '))" \
	[ ! -s lint.txt ]

# ---- unpriv.sh from a 0700 checkout ----
can_play_nobody "unpriv.sh from a 0700 checkout" "to drop to nobody" || exit 0
CO=$TMP/private/ebs	# the checkout: tests/ and build/ (ebs, the workloads)
mkdir -m 700 "$TMP/private" && mkdir -p "$CO/build/tests" &&
	cp -R "$TOP/tests" "$CO/tests" && cp "$EBS" "$CO/build/ebs" &&
	cp -R "$WORKLOADS" "$CO/build/tests/workloads" ||
	{ fail "unpriv.sh from a 0700 checkout" "cannot copy the tests and the build into $CO"; exit 0; }
check "the copy is out of nobody's reach" not $NOBODY test -x "$CO/build/ebs"
# run.sh as make test runs it there: its own build directory, artefacts and
# environment, not this run's (its FAIL lines are counted here, not by the
# run.sh around this test)
(cd "$CO" && env -u EBS -u WORKLOADS -u TOP -u ARTEFACTS BUILD=build TESTS=unpriv \
	bash tests/run.sh) >unpriv.out 2>&1
keep unpriv.out
read -r np nf ns < <(awk '/^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ { p = $1; f = $3; s = $5 }
	END { print p + 0, f + 0, s + 0 }' unpriv.out)
if [ "$np" -eq 0 ] && [ "$nf" -eq 0 ]; then
	skip "unpriv.sh from a 0700 checkout" "it ran no check: $(grep -m 1 '^SKIP: ' unpriv.out)"
else
	check "unpriv.sh from a 0700 checkout: $np passed, $nf failed, $ns skipped ($(grep -m 2 '^FAIL: ' unpriv.out | tr '\n' ' '))" \
		[ "$nf" -eq 0 -a "$np" -ge 20 ]
fi
