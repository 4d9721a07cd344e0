# tests/lib.sh - sourced by every integration test (tests/integration/*.sh).
#
# Each test prints "PASS: name", "FAIL: name: why" or "SKIP: name: why"
# lines, which tests/run.sh counts.  The environment comes from run.sh:
# EBS (the binary), WORKLOADS (built workloads), ARTEFACTS, TOP.
#
# Sampling rates stay at a few kHz and workloads at a fraction of a second:
# interrupts are expensive in the VMs this runs on.
set -u
: "${EBS:?run through tests/run.sh}" "${WORKLOADS:?}" "${ARTEFACTS:?}"

T=$(basename "$0" .sh)
TMP=$(mktemp -d "/tmp/ebs-test-$T.XXXXXX")
chmod 755 "$TMP"
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1

pass() { echo "PASS: $T: $1"; }
fail() { local n=$1; shift; echo "FAIL: $T: $n: $*"; }
skip() { local n=$1; shift; echo "SKIP: $T: $n: $*"; }

# check NAME CMD...: pass when CMD succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "($*) failed"; fi
}

# quiet CMD...: run CMD with its output thrown away (for check's CMD).
quiet() { "$@" >/dev/null 2>&1; }

# not CMD...: succeed when CMD fails (for check's CMD).
not() { ! "$@"; }

# Keep a file for whoever reads the test artefacts.
keep() { cp -f "$1" "$ARTEFACTS/$T-$(basename "$1")" 2>/dev/null; }

# json FILE EXPR: evaluate a Python expression over the JSON object j in FILE.
json() {
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
r = eval(sys.argv[2])
print(r if not isinstance(r, bool) else int(r))' "$1" "$2"
}

# share FILE FUNCTION: samples of FUNCTION in a --json report, and the total,
# as "samples total".
share() {
	json "$1" "'%d %d' % (sum(r['samples'] for r in j['rows'] if r.get('function') == '$2'), j['samples'])"
}

# within GOT WANT TOL: |GOT - WANT| <= TOL (floating point).
within() {
	python3 -c 'import sys; g, w, t = map(float, sys.argv[1:4]); sys.exit(0 if abs(g - w) <= t else 1)' "$1" "$2" "$3"
}

# at_least GOT MIN (floating point).
at_least() {
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' "$1" "$2"
}

# one_line FILE: the file holds exactly one line.
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }

# Record quietly into $1, the rest being ebs record arguments; stderr into $1.err.
record() {
	local out=$1
	shift
	"$EBS" record -q -o "$out" "$@" 2>"$out.err"
}

# The user that unprivileged tests drop to.
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
