#!/usr/bin/env bash
# rust.sh - ebs on Rust: tests/real/rust's rustwork (std only), built at
# test time by cargo (--release --offline, with debug info; $CARGO, else
# rustup's in /root/.cargo/bin, else Debian's with rustc 1.63: both pass)
# twice: with rustc's default legacy symbol names, and with -C
# symbol-mangling-version=v0 (the standard library's own names are v0 in
# both, with rustc 1.95).  For each build:
#  a. names demangled everywhere, as perf and binutils show them: no legacy
#     hash ("17h<16 hex>E", "::h<16 hex>"), no "$LT$"-style escape, no
#     ".llvm.N", no "_R"/"_ZN" name in report (the inline column too),
#     script, flamegraph, export (folded, pprof), addr2line, annotate;
#  b. report --json gives each demangled function its mangled name
#     ("mangled", the symbol table's), and --no-demangle the mangled names;
#  c. annotate, --func and --no-inline take the demangled names: a trait
#     method "<rustwork::Half as rustwork::Mixer>::run", the inlined
#     "<core::hash::sip::Hasher<S> as core::hash::Hasher>::write" (legacy)
#     and a v0 name with commas in its generic arguments; diff of the
#     legacy and v0 recordings matches each function by its demangled name;
#  d. known shares: rustwork::mix does twice the work of Half::run (the
#     same loop, half the iterations): mix / (mix + run) = 2/3 within 0.08
#     (5 standard deviations of a binomial share over >= 300 samples);
#  e. the known hot line: the loop body of mix (HOT-LINE in main.rs) holds
#     >= 70% of mix's samples (--no-inline: inlined code at its call site;
#     the rest is the loop's own line);
#  f. on one perf.data (perf record of the same binary), ebs report
#     --no-inline and perf report --sort dso,sym count the same samples for
#     every function of rustwork by name (same samples: tolerance 0), and
#     ebs --sort line and perf --sort srcline the same for the hot line.
# Call chains are not checked: rustc 1.95 links with rust-lld.  Without cargo
# (or when it fails) one SKIP line says why; without perf, f skips.
. "$(dirname "$0")/../lib.sh"

ROUNDS=40 # ~0.9 s of CPU here: ~1700 samples at 2 kHz, ~600 in mix
HZ=2000

CARGO=${CARGO:-/root/.cargo/bin/cargo}
[ -x "$CARGO" ] || CARGO=$(command -v cargo)
if [ -z "$CARGO" ]; then
	skip "all" "no cargo (rustup's in /root/.cargo/bin, or Debian's cargo): no Rust program to profile"
	exit 0
fi
# the project is copied: cargo writes Cargo.lock beside Cargo.toml
cp -r "$TOP/tests/real/rust" "$TMP/src" || exit 1
build() { # build DIR [RUSTFLAGS]: DIR/release/rustwork
	CARGO_TARGET_DIR="$TMP/$1" RUSTFLAGS="${2:-}" timeout 600 "$CARGO" build --release \
		--offline --quiet --manifest-path "$TMP/src/Cargo.toml" >"$1.log" 2>&1
}
if ! build legacy || ! build v0 "-C symbol-mangling-version=v0"; then
	skip "all" "cargo build --release --offline failed: $(grep -m 1 -i error ./*.log || tail -n 1 ./*.log)"
	exit 0
fi
HOT=$(grep -n '// HOT-LINE$' "$TMP/src/src/main.rs" | cut -d: -f1)
HALF='<rustwork::Half as rustwork::Mixer>::run'
# what no name shown may hold: a legacy hash, an escape, .llvm.N, a v0 or Itanium name
MANGLED='17h[0-9a-f]{16}E|::h[0-9a-f]{16}\b|\$(LT|GT|u20|u7b|u7d|C|RF|BP)\$|\.llvm\.[0-9]|\b_R[A-Z][A-Za-z0-9_]{4}|\b_ZN[0-9]'
demangled() { not grep -qE "$MANGLED" "$1"; }
leak() { grep -m 1 -oE "$MANGLED" "$1"; }
command -v perf >/dev/null || skip "perf" "perf is not installed (linux-perf): no oracle on perf.data"

for kind in legacy v0; do
	BIN=$TMP/$kind/release/rustwork
	record "$kind.data" -e cpu-clock -F $HZ "$BIN" $ROUNDS >/dev/null
	check "$kind: ebs record rustwork $ROUNDS: exit 0" [ $? -eq 0 ]

	# ---- a, b. names ----------------------------------------------------------------
	"$EBS" report -i "$kind.data" --no-pager >"$kind-report.txt" 2>&1
	keep "$kind-report.txt"
	check "$kind: report (inline column too): names demangled ($(leak "$kind-report.txt"))" \
		eval 'demangled "$kind-report.txt" && grep -q "(inlined into rustwork::mix)" "$kind-report.txt"'
	"$EBS" report -i "$kind.data" --json --dso rustwork --no-inline >"$kind.json"
	keep "$kind.json"
	mix_mangled=$(nm "$BIN" | awk '$3 ~ /8rustwork3mix/ {print $3}')
	check "$kind: report --json: rustwork::mix, its mangled name $mix_mangled beside it" \
		jtrue "$kind.json" "[r.get('mangled') for r in j['rows'] if r['function'] == 'rustwork::mix'] == ['$mix_mangled']"
	check "$kind: report --json: $HALF demangled, with its mangled name" \
		jtrue "$kind.json" "[r['mangled'][:2] for r in j['rows'] if r['function'] == '$HALF'] == ['$([ $kind = v0 ] && echo _R || echo _Z)']"
	check "$kind: report --json: every row of rustwork demangled, none with a name unchanged" \
		jtrue "$kind.json" "all(r.get('mangled', 'x') != r['function'] and not r['function'].startswith(('_R', '_ZN')) for r in j['rows'])"
	"$EBS" report -i "$kind.data" --json --dso rustwork --no-inline --no-demangle >"$kind-raw.json"
	check "$kind: report --no-demangle: the mangled names, no mangled field" \
		jtrue "$kind-raw.json" "'$mix_mangled' in [r['function'] for r in j['rows']] and not any('mangled' in r for r in j['rows'])"
	"$EBS" script -i "$kind.data" >"$kind-script.txt" 2>&1
	check "$kind: script: names demangled ($(leak "$kind-script.txt"))" \
		eval 'demangled "$kind-script.txt" && grep -q " rustwork::mix+0x" "$kind-script.txt"'
	"$EBS" flamegraph -i "$kind.data" -o "$kind.svg" 2>/dev/null
	check "$kind: flamegraph: names demangled ($(leak "$kind.svg"))" \
		eval 'demangled "$kind.svg" && grep -q "&lt;rustwork::Half as rustwork::Mixer&gt;::run" "$kind.svg"'
	"$EBS" export -i "$kind.data" --format folded -o "$kind.folded" 2>/dev/null
	check "$kind: export folded: names demangled ($(leak "$kind.folded"))" \
		eval 'demangled "$kind.folded" && grep -q "^rustwork::mix " "$kind.folded"'
	"$EBS" export -i "$kind.data" --format pprof -o "$kind.pb.gz" 2>/dev/null
	zcat "$kind.pb.gz" >"$kind.pb"
	check "$kind: export pprof: the demangled name, and the mangled one as its system name" \
		eval 'grep -qaF "$HALF" "$kind.pb" && grep -qaF "$mix_mangled" "$kind.pb"'
	addr=$(nm "$BIN" | awk '$3 ~ /8rustwork3mix/ {print $1}')
	"$EBS" addr2line -e "$BIN" "$addr" >"$kind-a2l.txt" 2>&1
	check "$kind: addr2line: 'rustwork::mix at .../main.rs:N' ($(head -n 1 "$kind-a2l.txt"))" \
		grep -qE '^rustwork::mix at .*/main\.rs:[0-9]+$' "$kind-a2l.txt"

	# ---- c. the demangled names taken ------------------------------------------------
	"$EBS" annotate -i "$kind.data" --no-pager "$HALF" >"$kind-ann.txt" 2>&1
	check "$kind: annotate '$HALF': exit 0, its loop line annotated" \
		eval '[ $? -eq 0 ] && grep -qF "# annotate: $HALF (rustwork" "$kind-ann.txt" && demangled "$kind-ann.txt"'
	"$EBS" report -i "$kind.data" --json --no-inline --func "$HALF,rustwork::mix" >"$kind-func.json"
	check "$kind: --func '$HALF,rustwork::mix': those two rows only" \
		jtrue "$kind-func.json" "sorted(r['function'] for r in j['rows']) == sorted(['$HALF', 'rustwork::mix'])"

	# ---- d. shares by construction --------------------------------------------------
	mix=$(json "$kind.json" "sum(r['samples'] for r in j['rows'] if r['function'] == 'rustwork::mix')")
	half=$(json "$kind.json" "sum(r['samples'] for r in j['rows'] if r['function'] == '$HALF')")
	if [ $((mix + half)) -lt 300 ]; then
		skip "$kind: mix / (mix + run)" "only $((mix + half)) samples in the two (the machine gave few)"
	else
		share=$(python3 -c "print($mix / ($mix + $half))")
		check "$kind: rustwork::mix / (mix + Half::run) = $share ($mix, $half): 2/3 within 0.08" \
			within "$share" 0.6667 0.08
	fi

	# ---- e. the hot line ----------------------------------------------------------------
	"$EBS" report -i "$kind.data" --json --sort line --no-inline --func rustwork::mix >"$kind-line.json"
	check "$kind: main.rs:$HOT (mix's loop body) holds >= 70% of mix's samples" \
		jtrue "$kind-line.json" "sum(r['samples'] for r in j['rows'] if r['line'] == $HOT and r['file'].endswith('/main.rs')) >= 0.7 * j['samples'] > 0"
done

# legacy names of the DWARF of inlined std code (rustc names std's generics
# in the caller's mangling)
"$EBS" annotate -i legacy.data --no-pager '<core::hash::sip::Hasher<S> as core::hash::Hasher>::write' \
	>sip-ann.txt 2>&1
check "legacy: annotate '<core::hash::sip::Hasher<S> as core::hash::Hasher>::write' (inlined): exit 0" \
	eval '[ $? -eq 0 ] && grep -qF "# annotate: <core::hash::sip::Hasher<S> as core::hash::Hasher>::write (inlined" sip-ann.txt'
# a v0 name with commas inside its generic arguments, in a --func list: the
# report's own (with rustc 1.95, <hashbrown::map::HashMap<alloc::vec::Vec<u8>,
# u64, std::hash::random::RandomState>>::rustc_entry)
ENTRY=$(json v0.json "next((r['function'] for r in j['rows'] if ', ' in r['function'] and r['mangled'].startswith('_R')), '')")
if [ -z "$ENTRY" ]; then
	skip "v0: --func with commas" "no function of rustwork with samples has ', ' in its v0 name"
else
	"$EBS" report -i v0.data --json --no-inline --func "$ENTRY,rustwork::mix" >entry.json
	check "v0: --func '$ENTRY,rustwork::mix': both rows (commas in <> are the name's)" \
		jtrue entry.json "sorted(r['function'] for r in j['rows']) == sorted([\"$ENTRY\", 'rustwork::mix'])"
fi
# diff by the names shown: one function of the legacy and the v0 build is one row
"$EBS" diff legacy.data v0.data --json --no-inline --func "$HALF,rustwork::mix" >diff.json
check "diff legacy.data v0.data --func '$HALF,rustwork::mix': both functions, each in both builds" \
	jtrue diff.json "sorted(r['name'] for r in j['rows']) == sorted(['$HALF', 'rustwork::mix']) and all(r['base_samples'] and r['new_samples'] for r in j['rows'])"

# ---- f. against perf, on the same samples ---------------------------------------------
if command -v perf >/dev/null; then
	for kind in legacy v0; do
		BIN=$TMP/$kind/release/rustwork
		if ! perf record -q -e cpu-clock -F $HZ -o "p-$kind.data" "$BIN" $ROUNDS >/dev/null 2>perf.err; then
			skip "$kind: perf" "perf record failed: $(tail -n 1 perf.err)"
			continue
		fi
		perf report -i "p-$kind.data" --stdio -n --sort dso,sym 2>/dev/null >"p-$kind.txt"
		"$EBS" report -i "p-$kind.data" --json --no-inline >"e-$kind.json" 2>/dev/null
		keep "p-$kind.txt"
		check "$kind: on one perf.data, every function of rustwork has perf's count, by name" \
			python3 - "p-$kind.txt" "e-$kind.json" <<'PY'
import collections, json, re, sys
perf = collections.Counter()
for line in open(sys.argv[1]):
    m = re.match(r'\s+[\d.]+%\s+(\d+)\s+(\S+)\s+\[.\] (.*\S)\s*$', line)
    if m and m.group(2) == 'rustwork':
        perf[m.group(3)] += int(m.group(1))
j = json.load(open(sys.argv[2]))
ebs = collections.Counter()
for r in j['rows']:
    if r['dso'] == 'rustwork':
        ebs[r['function']] += r['samples']
bad = [(k, perf[k], ebs[k]) for k in set(perf) | set(ebs) if perf[k] != ebs[k]]
for k, p, e in sorted(bad, key=lambda b: -max(b[1], b[2]))[:10]:
    print('    %-70.70s perf %5d ebs %5d' % (k, p, e))
sys.exit(1 if bad or perf['rustwork::mix'] < 100 else 0)
PY
		perf report -i "p-$kind.data" --stdio -n --sort srcline 2>/dev/null >"p-$kind-line.txt"
		"$EBS" report -i "p-$kind.data" --json --sort line >"e-$kind-line.json" 2>/dev/null
		pl=$(awk -v l="main.rs:$HOT" '$3 == l {print $2}' "p-$kind-line.txt")
		el=$(json "e-$kind-line.json" "sum(r['samples'] for r in j['rows'] if r['line'] == $HOT and (r['file'] or '').endswith('/main.rs'))")
		check "$kind: main.rs:$HOT: perf --sort srcline's count ($pl) is ebs --sort line's ($el)" \
			[ -n "$pl" ] && [ "$pl" = "$el" ]
	done
fi
