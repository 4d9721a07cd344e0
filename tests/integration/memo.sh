#!/usr/bin/env bash
# memo.sh - what the views keep to spare the work of a sample like one seen
# before changes nothing they show.  report counts a sample of an address
# already counted into the row the last one went to (annotate into its
# function, address and line), and call chains take
# the frames an address gave before (report.c, callchain.c); with
# EBS_DEBUG_NO_MEMO set they do neither.  Every view of recordings with
# frame-pointer chains, DWARF-unwound chains, inlined code and none must be
# the same byte for byte either way.
. "$(dirname "$0")/../lib.sh"

record fp.data -g -e cpu-clock -F 2000 "$WORKLOADS/calltree" 0.5
check "record -g calltree" [ $? -eq 0 ]
record dw.data --call-graph dwarf -e cpu-clock -F 2000 "$WORKLOADS/calltree-nofp" 0.5
check "record --call-graph dwarf calltree-nofp" [ $? -eq 0 ]
record inl.data -e cpu-clock -F 2000 "$WORKLOADS/inlmany" 0.5
check "record inlmany" [ $? -eq 0 ]

# same NAME ARGS...: ebs ARGS (@OUT@ in them: the file written) gives the
# same stdout, stderr, status and file with the memos and without
n=0
same() {
	local name=$1 how out
	shift
	n=$((n + 1))
	for how in memo none; do
		out=$n.$how.file
		if [ $how = none ]; then
			EBS_DEBUG_NO_MEMO=1 "$EBS" "${@//@OUT@/$out}" >$n.$how.out 2>$n.$how.err
		else
			"$EBS" "${@//@OUT@/$out}" >$n.$how.out 2>$n.$how.err
		fi
		echo "status $?" >>$n.$how.out
	done
	check "$name: the same with the memos and without" \
		sh -c "cmp -s $n.memo.out $n.none.out && cmp -s $n.memo.err $n.none.err &&
			{ [ ! -e $n.memo.file ] || cmp -s $n.memo.file $n.none.file; }"
}

for f in fp dw inl; do
	same "$f: report" report -i $f.data
	same "$f: report --sort line" report -i $f.data --sort line
	same "$f: report --sort func,line --no-inline" report -i $f.data --sort func,line --no-inline
	same "$f: report --sort pid,tid,comm,dso,func" report -i $f.data --sort pid,tid,comm,dso,func
	same "$f: report --children" report -i $f.data --children
	same "$f: report --children --no-inline" report -i $f.data --children --no-inline
	same "$f: report --tree" report -i $f.data --tree
	same "$f: annotate" annotate -i $f.data
	same "$f: annotate FILE" annotate -i $f.data "$([ $f = inl ] && echo inlmany.c || echo calltree.c)"
	same "$f: annotate --no-inline --top 3" annotate -i $f.data --no-inline --top 3
	same "$f: flamegraph" flamegraph -i $f.data -o @OUT@
	same "$f: export --format pprof" export -i $f.data --format pprof -o @OUT@
	same "$f: export --format speedscope" export -i $f.data --format speedscope
	same "$f: export --format folded --no-inline" export -i $f.data --format folded --no-inline
done
