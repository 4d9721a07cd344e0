#!/usr/bin/env bash
# timeout: 600
# go.sh - Go binaries without a symbol table or DWARF (-ldflags='-s -w', as
# Go's own tools ship): names and lines from Go's pclntab
# (symbolize/gopclntab.c, docs/symbolize.md).
#
#   1. A Go program of ours (hot does 3 times cold's loop; //go:noinline),
#      built plain, with -s -w, as a stripped PIE, and with its section
#      headers removed: ebs addr2line of every function's start and of 3
#      addresses inside each answers what `go tool addr2line` answers for
#      the plain build, function and file:line (its ":-1", no line, is
#      ebs's "??:0"); so too the file:line of -w alone (.symtab, no
#      DWARF) and, for Go's functions, a stripped cgo program (linked by
#      gcc).
#   2. Recorded plain and stripped (cpu-clock, 1000 Hz, about 1000 samples
#      each): the same functions with the same shares (hot 75% of hot+cold,
#      within 8 points; each function's share of the other run's within 8
#      points: 4 standard deviations of the difference of two such runs),
#      and as perf on the plain build; no [unknown] row of the program
#      above 1%; every sampled address's file:line is Go's.
#   3. A real Go program nobody here wrote: Debian's compile (the Go
#      compiler, shipped stripped), recorded compiling fmt, strconv and
#      encoding/json: its samples named (before: every one
#      "[unknown] compile+0x..."), and each sampled address's function and
#      file:line what `go tool addr2line` reads from the same binary.
#   4. Hostile tables: the stripped program's .gopclntab corrupted (seeded
#      byte runs, bit flips, header words, truncation; GO_MUTANTS, default
#      150) and read by addr2line and report: no death by a signal, no
#      sanitizer report, messages ebs's own; a table whose function count
#      runs past its end is refused with one line naming its offset.
. "$(dirname "$0")/../lib.sh"

if ! command -v go >/dev/null 2>&1; then
	skip "all" "go is not installed (apt-get install golang-go; scripts/deps.sh installs it)"
	exit 0
fi
export GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GO111MODULE=off GOFLAGS= CGO_ENABLED=0

cat >hot.go <<'EOF'
package main

import (
	"fmt"
	"os"
	"strconv"
)

var sink uint64

//go:noinline
func hot(n int) uint64 {
	var a uint64
	for i := 0; i < 3*n; i++ {
		a = a*2654435761 + uint64(i)
	}
	return a
}

//go:noinline
func cold(n int) uint64 {
	var a uint64
	for i := 0; i < n; i++ {
		a = a*2654435761 + uint64(i)
	}
	return a
}

func main() {
	n := 1000000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	sink = hot(n) + cold(n)
	fmt.Println(sink != 1)
}
EOF
built=1
build() {	# NAME GO-BUILD-FLAGS...
	if ! go build "${@:2}" -o "$1" hot.go 2>"$1.err"; then
		fail "build $1" "$(head -n 1 "$1.err")"
		built=
	fi
}
build plain
build stripped -ldflags='-s -w'
build pie -buildmode=pie
build pie-stripped -buildmode=pie -ldflags='-s -w'
build nodwarf -ldflags=-w
[ -n "$built" ] || exit 0
check "the stripped builds have no .symtab and no DWARF" \
	bash -c '! readelf -SW stripped pie-stripped | grep -qE "\.symtab|\.debug_info"'
# noshdr: the stripped build without section headers: the table found by its header
python3 - stripped noshdr <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<Q', b, 0x28, 0)		# e_shoff
struct.pack_into('<HH', b, 0x3c, 0, 0)		# e_shnum, e_shstrndx
open(sys.argv[2], 'wb').write(b)
PY
chmod +x noshdr
check "noshdr has no section headers" bash -c '[ -z "$(readelf -SW noshdr 2>/dev/null | grep gopclntab)" ]'

# ---- 1. addr2line against go's own -------------------------------------------
# addrs PROG: every function's start (nm) and 3 addresses inside each, in hex
addrs() {
	nm -n "$1" | awk '$2 ~ /^[tT]$/ {print $1}' | python3 -c '
import random, sys
a = [int(l, 16) for l in sys.stdin]
random.seed(7)
out = set(a)
for x, y in zip(a, a[1:]):
    out.update(random.randrange(x, y) for _ in range(3) if y - x > 1)
print("\n".join("%x" % v for v in sorted(out)))'
}
# goanswers PROG <ADDRS: "FUNCTION at FILE:LINE" per address, as go tool
# addr2line answers (":-1": no line, ebs's "??:0")
goanswers() {
	go tool addr2line "$1" | python3 -c '
import sys
l = sys.stdin.read().split("\n")
for f, fl in zip(l[0::2], l[1::2]):
    print("%s at %s" % ("??" if f == "?" else f, "??:0" if fl.endswith(":-1") or fl == "?:0" else fl))'
}
# agree NAME WANT GOT: GOT's lines are WANT's; the first difference said
agree() {
	local n d
	n=$(wc -l <"$2")
	d=$(diff "$2" "$3" | grep -c '^>')
	check "$1: $n addresses, $d answered otherwise ($(diff "$2" "$3" | grep '^[<>]' | head -n 2 | tr '\n' '|'))" \
		bash -c '[ "$1" -gt 100 ] && [ "$2" -eq 0 ]' sh "$n" "$d"
}
addrs plain >plain.addrs
goanswers plain <plain.addrs >plain.go
for b in stripped noshdr; do
	"$EBS" addr2line -e $b <plain.addrs >$b.a2l 2>$b.a2l.err
	check "$b: addr2line exits 0, nothing on stderr ($(head -c 200 $b.a2l.err))" [ $? -eq 0 -a ! -s $b.a2l.err ]
	agree "$b: addr2line is go tool addr2line's of the plain build" plain.go $b.a2l
done
# -w alone: the .symtab kept, no DWARF: the lines from the table (the
# names, the .symtab's as before: internal/cpu.cpuid.abi0 where Go says
# internal/cpu.cpuid, none for the padding after a function)
"$EBS" addr2line -e nodwarf <plain.addrs | sed 's/.* at //' >nodwarf.a2l 2>/dev/null
sed 's/.* at //' plain.go >plain.lines
agree "nodwarf (a .symtab, no DWARF): addr2line's file:line is go tool addr2line's of the plain build" plain.lines nodwarf.a2l

# cgo, linked by gcc: C code before runtime.text in .text (the table's
# entries count from the header's textStart), C functions from .dynsym;
# Go's answers for Go's functions (the others are "??" to go)
cat >cgo.go <<'EOF'
package main

/*
static int add(int a, int b) { return a + b; }
*/
import "C"

import "fmt"

func main() { fmt.Println(int(C.add(1, 2))) }
EOF
if ! command -v gcc >/dev/null; then
	skip "cgo" "no gcc: cgo cannot link"
elif CGO_ENABLED=1 go build -o cgo cgo.go 2>cgo.err && CGO_ENABLED=1 go build -ldflags='-s -w' -o cgo-stripped cgo.go 2>>cgo.err; then
	addrs cgo | tee cgo.addrs | goanswers cgo >cgo.go.a2l
	"$EBS" addr2line -e cgo-stripped <cgo.addrs >cgo.a2l 2>/dev/null
	paste -d '\n' cgo.go.a2l cgo.a2l | paste - - | awk -F '\t' '$1 !~ /^\?\? at/' >cgo.pairs
	cut -f 1 cgo.pairs >cgo.want
	cut -f 2 cgo.pairs >cgo.got
	agree "cgo-stripped (gcc-linked): addr2line is go tool addr2line's for Go's functions" cgo.want cgo.got
else
	fail "build cgo" "$(head -n 1 cgo.err)"
fi

# go tool addr2line (1.19) answers "?" for a PIE: there, Go's debug/gosym
# (the reader go tool addr2line uses) is asked directly, by gosym.go
cat >gosym.go <<'EOF'
package main

import (
	"bufio"
	"debug/elf"
	"debug/gosym"
	"fmt"
	"os"
	"strconv"
)

func main() {
	f, err := elf.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	s := f.Section(".gopclntab")
	if s == nil {
		s = f.Section(".data.rel.ro.gopclntab")
	}
	data, err := s.Data()
	if err != nil {
		panic(err)
	}
	t, err := gosym.NewTable(nil, gosym.NewLineTable(data, f.Section(".text").Addr))
	if err != nil {
		panic(err)
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		pc, _ := strconv.ParseUint(in.Text(), 16, 64)
		file, line, fn := t.PCToLine(pc)
		switch {
		case fn == nil:
			fmt.Println("?? at ??:0")
		case line <= 0 || file == "":
			fmt.Printf("%s at ??:0\n", fn.Name)
		default:
			fmt.Printf("%s at %s:%d\n", fn.Name, file, line)
		}
	}
}
EOF
if go build -o gosym gosym.go 2>gosym.err; then
	addrs pie >pie.addrs
	./gosym pie <pie.addrs >pie.go
	"$EBS" addr2line -e pie-stripped <pie.addrs >pie-stripped.a2l 2>/dev/null
	agree "pie-stripped (.data.rel.ro.gopclntab): addr2line is debug/gosym's of the plain PIE" pie.go pie-stripped.a2l
else
	fail "build gosym.go" "$(head -n 1 gosym.err)"
fi

# ---- 2. the profiles --------------------------------------------------------------
# funcs FILE.json DSO: "FUNCTION SHARE" of every row of DSO, share of all its samples
funcs() {
	json "$1" "'\n'.join('%s %.4f' % (r['function'], r['samples'] / max(1, sum(x['samples'] for x in j['rows'] if x['dso'] == '$2'))) for r in j['rows'] if r['dso'] == '$2')"
}
N=180000000
for b in plain stripped; do
	if ! record $b.data -e cpu-clock -F 1000 ./$b $N; then
		fail "record $b" "$(head -n 1 $b.data.err)"
		exit 0
	fi
	"$EBS" report -i $b.data --sort func --json >$b.json 2>$b.json.err
	funcs $b.json $b >$b.funcs
	keep $b.funcs
done
check "stripped: named, no [unknown] row above 1% ($(head -n 3 stripped.funcs | tr '\n' ' '))" \
	jtrue stripped.json "not any(r['function'].startswith('[unknown]') and r['samples'] > 0.01 * j['samples'] for r in j['rows'] if r['dso'] == 'stripped')"
# hot's share of hot and cold: 3/4 by construction
for b in plain stripped; do
	read -r h c <<<"$(json $b.json "'%d %d' % tuple(sum(r['samples'] for r in j['rows'] if r['function'] == f) for f in ('main.hot', 'main.cold'))")"
	check "$b: main.hot holds 75% of main.hot + main.cold, +-8 points ($h against $c)" \
		bash -c '[ $(($1 + $2)) -ge 400 ] && python3 -c "import sys; h, c = map(int, sys.argv[1:]); sys.exit(abs(h / (h + c) - 0.75) > 0.08)" $1 $2' sh "$h" "$c"
done
# the same functions, with the same shares: every one above 2% in either run
same_shares() {	# NAME A B: "FUNCTION SHARE" files
	python3 - "$2" "$3" <<'PY'
import sys
a, b = ({l.split(' ')[0]: float(l.split(' ')[1]) for l in open(p) if l.strip()} for p in sys.argv[1:3])
bad = ['%s %.3f/%.3f' % (f, a.get(f, 0), b.get(f, 0)) for f in set(a) | set(b)
       if max(a.get(f, 0), b.get(f, 0)) > 0.02 and abs(a.get(f, 0) - b.get(f, 0)) > 0.08]
print(' '.join(bad))
sys.exit(1 if bad or not a or not b else 0)
PY
}
check "stripped against plain: the same functions, shares within 8 points ($(same_shares x plain.funcs stripped.funcs))" \
	same_shares x plain.funcs stripped.funcs
if command -v perf >/dev/null 2>&1 && perf record -q -e cpu-clock -F 1000 -o perf.data ./plain $N >/dev/null 2>perf.err; then
	perf report -i perf.data --comm plain --dso plain --percentage relative --sort sym --stdio -q 2>/dev/null |
		awk '$1 ~ /%$/ {sub("%", "", $1); print $3, $1 / 100}' >perf.funcs
	keep perf.funcs
	check "stripped against perf on plain: the same functions, shares within 8 points ($(same_shares x perf.funcs stripped.funcs))" \
		same_shares x perf.funcs stripped.funcs
else
	skip "perf" "perf cannot record here ($(head -n 1 perf.err 2>/dev/null))"
fi
# every sampled address of the stripped program: its file:line is go's
"$EBS" script -i stripped.data --json -F ip,dso 2>/dev/null |
	python3 -c '
import json, sys
print("\n".join(sorted({"%x" % int(json.loads(l)["ip"], 16) for l in sys.stdin if json.loads(l)["dso"].endswith("/stripped")})))' >sampled.addrs
goanswers plain <sampled.addrs >sampled.go
"$EBS" addr2line -e stripped <sampled.addrs >sampled.a2l 2>/dev/null
n=$(wc -l <sampled.addrs)
d=$(diff sampled.go sampled.a2l | grep -c '^>')
check "stripped: the file:line of each of its $n sampled addresses is go tool addr2line's ($d otherwise)" \
	bash -c '[ "$1" -gt 5 ] && [ "$2" -eq 0 ]' sh "$n" "$d"
"$EBS" report -i stripped.data --sort line --json >line.json 2>/dev/null
check "stripped: report --sort line puts main.hot's samples at hot.go lines" \
	jtrue line.json "sum(r['samples'] for r in j['rows'] if r.get('function') == 'main.hot' and (r.get('file') or '').endswith('hot.go')) > 0.5 * sum(r['samples'] for r in j['rows'] if r.get('function') == 'main.hot')"

# ---- 3. Debian's Go compiler, stripped ----------------------------------------------
COMPILE=$(go env GOTOOLDIR)/compile
if [ ! -x "$COMPILE" ]; then
	skip "compile" "no $COMPILE"
elif readelf -SW "$COMPILE" | grep -q '\.symtab'; then
	skip "compile" "$COMPILE has a symbol table here: not the stripped case"
else
	: >compile.sh
	for p in fmt strconv encoding/json; do
		echo "$COMPILE -p $p -o $TMP/$(basename $p).a $(go list -f '{{range .GoFiles}}{{$.Dir}}/{{.}} {{end}}' $p)" >>compile.sh
	done
	if record compile.data -e cpu-clock -F 1000 -- bash compile.sh; then
		"$EBS" report -i compile.data --sort func --json --dso compile >compile.json 2>compile.err
		read -r named all <<<"$(json compile.json "'%d %d' % (sum(r['samples'] for r in j['rows'] if not r['function'].startswith('[unknown]')), sum(r['samples'] for r in j['rows']))")"
		check "compile: $named of its $all samples named (before: none), at least 99%" \
			bash -c '[ "$2" -ge 300 ] && [ $(($1 * 100)) -ge $(($2 * 99)) ]' sh "$named" "$all"
		"$EBS" script -i compile.data --json -F ip,dso 2>/dev/null |
			python3 -c '
import json, sys
print("\n".join(sorted({"%x" % int(json.loads(l)["ip"], 16) for l in sys.stdin if json.loads(l)["dso"].endswith("/compile")})))' >compile.addrs
		goanswers "$COMPILE" <compile.addrs >compile.go
		"$EBS" addr2line -e "$COMPILE" <compile.addrs >compile.a2l 2>/dev/null
		agree "compile: each sampled address's function and file:line is go tool addr2line's" compile.go compile.a2l
		keep compile.json
	else
		fail "record compile" "$(head -n 1 compile.data.err)"
	fi
fi

# ---- 4. hostile tables ----------------------------------------------------------
# The one crafted case: the header's function count past the table's end.
# OFF SIZE: stripped's .gopclntab, in the file
read -r OFF SIZE < <(readelf -SW stripped | sed -n 's/.* \.gopclntab *[A-Z]* *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p')
python3 - stripped bigcount "$((16#$OFF))" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
struct.pack_into('<Q', b, int(sys.argv[3]) + 8, 1 << 40)
open(sys.argv[2], 'wb').write(b)
PY
expect "a function count past the table's end: one line naming the table's offset" 0 \
	"^ebs addr2line: warning: .*bigcount: Go's function table \(\.gopclntab at file offset 0x${OFF#"${OFF%%[!0]*}"}\) is malformed: its function table at 0x[0-9a-f]+ \(1099511627776 functions\) runs past its end: its names and lines are not read$" \
	"$EBS" addr2line -e bigcount "$(head -n 1 plain.addrs)"

# Mutants of the stripped program's .gopclntab, read by addr2line and, put
# back at the path recorded, by report.
GO_MUTANTS=${GO_MUTANTS:-150}
mkdir -p mut
python3 - stripped "${SEED:-30}" "$GO_MUTANTS" "$((16#$OFF))" "$((16#$SIZE))" <<'PY'
import random, struct, sys
b = bytes(open(sys.argv[1], 'rb').read())
rng = random.Random(int(sys.argv[2]))
off, size = int(sys.argv[4]), int(sys.argv[5])
words = struct.unpack_from('<8Q', b, off + 8)
nfunc, functab = words[0], off + words[7]
for k in range(int(sys.argv[3])):
    m = bytearray(b)
    kind = rng.choice(['run', 'flips', 'word', 'functab', 'truncate', 'zero'])
    if kind == 'run':			# random bytes somewhere in the table
        at = off + rng.randrange(size)
        n = rng.randrange(1, 64)
        m[at:at + n] = bytes(rng.randrange(256) for _ in range(n))
    elif kind == 'flips':		# bit flips
        for _ in range(rng.randrange(1, 32)):
            at = off + rng.randrange(size)
            m[at] ^= 1 << rng.randrange(8)
    elif kind == 'word':		# a header word
        w = rng.randrange(8)
        struct.pack_into('<Q', m, off + 8 + 8 * w, rng.choice(
            [0, 1, size - 1, size, size + 1, 1 << 31, (1 << 64) - 1, rng.randrange(1 << 64)]))
    elif kind == 'functab':		# a functab entry: its pc or its record's offset
        at = functab + 4 * rng.randrange(2 * nfunc + 1)
        struct.pack_into('<I', m, at, rng.choice([0, 0xffffffff, rng.randrange(1 << 32)]))
    elif kind == 'truncate':		# the file cut inside the table
        m = m[:off + rng.randrange(size)]
    else:				# a span zeroed
        at = off + rng.randrange(size)
        m[at:at + 4096] = bytes(len(m[at:at + 4096]))
    open('mut/%03d' % k, 'wb').write(m)
    print(k, kind)
PY
echo "ffffffff81000000 T _stext" >k.kallsyms
deaths=0 foreign=0 runs=0
cp stripped stripped.orig
for m in mut/*; do
	chmod +x "$m"
	timeout -s KILL 60 "$EBS" addr2line -e "$m" <plain.addrs >/dev/null 2>m.err
	rc=$?
	runs=$((runs + 1))
	[ $rc -lt 128 ] || { deaths=$((deaths + 1)); echo "mutant $m: addr2line status $rc" >>mut.log; }
	grep -qv '^ebs addr2line: ' m.err && { foreign=$((foreign + 1)); echo "mutant $m: $(head -n 1 m.err)" >>mut.log; }
	case ${m##*/} in
	*[02468]) # half of them through report too, at the recorded path
		cp "$m" stripped
		timeout -s KILL 60 "$EBS" report -i stripped.data --sort line --kallsyms k.kallsyms --no-pager >/dev/null 2>m.err
		rc=$?
		runs=$((runs + 1))
		[ $rc -lt 128 ] || { deaths=$((deaths + 1)); echo "mutant $m: report status $rc" >>mut.log; }
		grep -qv '^ebs report: ' m.err && { foreign=$((foreign + 1)); echo "mutant $m: $(head -n 1 m.err)" >>mut.log; }
		;;
	esac
done
cp stripped.orig stripped
[ -s mut.log ] && keep mut.log
check "$GO_MUTANTS mutated .gopclntab tables, $runs runs: none killed by a signal or timed out ($deaths), no message not ebs's own ($foreign)" \
	[ $deaths -eq 0 -a $foreign -eq 0 -a $runs -gt 0 ]
