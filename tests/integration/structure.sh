#!/usr/bin/env bash
# structure.sh - the rules of docs/hacking.md's map, read from the sources:
# a module includes only itself and the modules below it; only symbolize/
# includes libelf's or libdwarf's headers and reads kallsyms; inside
# report/, printers depend on models and never the reverse, the tables
# never reach into the call graph, session/ knows none of its users;
# inside data/, the reader and the writer know nothing of each other; a
# source file over 900 lines says at its top why it is one file.
. "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1

# The modules, highest first (the Makefile's link order, cli/ on top):
# each may include its own headers and those of the modules after it.
order=(cli report count symbolize sampler data util)
[ -d count ] || order=(cli report symbolize sampler data util)
bad=""
for ((i = 0; i < ${#order[@]}; i++)); do
	m=${order[i]}
	allowed="include|${order[*]:i}"
	allowed=${allowed// /|}
	while IFS=: read -r file _ inc; do
		dir=${inc#*\"}
		dir=${dir%%/*}
		[[ "$dir" =~ ^($allowed)$ ]] || bad+=" $file($inc)"
	done < <(grep -rn --include='*.[ch]' '^#include "[a-z]*/' "$m" | sed 's/:[0-9]*:/::/' |
		grep -v '#include "count/rule\.h"')
done
check "each module includes only itself and the modules below it${bad:+:$bad}" [ -z "$bad" ]
# count/rule.c, counting's one rule, is below every module (its own archive,
# compiled into libebs too): any module may include count/rule.h, and it
# includes nothing of ebs's but include/ebs/
if [ -d count ]; then
	rule=$(grep -hE '^#include "' count/rule.c count/rule.h | grep -v '"count/rule\.h"' | tr '\n' ' ')
	check "count/rule.c takes nothing but include/ebs/${rule:+: $rule}" [ -z "$rule" ]
fi

elfdwarf=$(grep -rlE --include='*.[ch]' '^#include <(gelf|libelf|libdwarf|dwarf)\.h>|^#include "(dwarf_compat|dwarf_int)\.h"' \
	cli report sampler data util libebs $([ -d count ] && echo count) | tr '\n' ' ')
check "only symbolize/ includes libelf's and libdwarf's headers${elfdwarf:+: $elfdwarf}" [ -z "$elfdwarf" ]
# the sources git knows: not the build directories (a failed test's files
# are kept there, copies of the tree among them)
kread=$(git ls-files -z '*.c' | xargs -0 grep -lE '(fopen|open)\("/proc/kallsyms"' | grep -v '^symbolize/\|^tests/' | tr '\n' ' ')
check "only symbolize/ opens /proc/kallsyms${kread:+: $kread}" [ -z "$kread" ]

# report/: the model builds, run.c prints; the tables do not call the graph
check "annotate's model calls no printer" \
	bash -c 'test -f report/annotate/annotate.c && ! grep -nE "annotate_(text|html)\(" report/annotate/annotate.c'
check "report/'s tables include nothing of callgraph/, annotate/ or export/" \
	bash -c '! grep -nE "^#include \"report/(callgraph|annotate|export)/" report/*.c report/*.h'
check "report.c does not call the call graph's listings" \
	bash -c '! grep -nE "ebs_report_graph|report_graph\(" report/report.c'
check "session/ includes no other part of report/ but names and present" \
	bash -c 'test -f report/session/session.c && ! grep -hE "^#include \"report/" report/session/*.[ch] | grep -vE "report/(session/|names\.h|present\.h|report\.h)"'
# data/: the reader and the writer apart; the format chosen above both
check "the reader does not write" bash -c '! grep -nE "ebs_writer__|perf_data__convert" data/reader.c'
check "the writer does not read" bash -c '! grep -nE "ebs_data__(open|close|calibration)" data/writer.c'

long=""
while read -r n f; do
	[ "$f" = total ] && continue
	[ "$n" -gt 900 ] || continue
	sed -n '1,60p' "$f" | grep -q 'Why one file' || long+=" $f($n)"
done < <(git ls-files '*.c' '*.h' | grep -v '^tests/' | xargs wc -l)
check "every source file over 900 lines says why it is one file${long:+:$long}" [ -z "$long" ]
