#!/usr/bin/env bash
# timeout: 1200
# neighbours.sh - root runs ebs on a machine shared with a hostile user
# (nobody, uid 65534), who can write into a world-writable sticky directory
# ($SHARED, as /tmp) and owns programs that root's `record -a` samples
# (docs/security.md, "Hostile neighbours").  Each part plays that user
# against one door:
#  outputs:  a FIFO, a symbolic link (to a file of root's, to a device), a
#            device and a file of nobody's at each output path root writes;
#            two recorders into one name at once;
#  ...       (the parts below say what they cover)
# Every check here failed on the code before issue 28's fixes.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "all" "needs root, to play root against nobody (uid 65534)"
	exit 0
fi
if ! $NOBODY true 2>/dev/null; then
	skip "all" "setpriv cannot drop to uid 65534 here"
	exit 0
fi

# The shared directory: world-writable and sticky, as /tmp ($TMP is 0755).
SHARED=$TMP/shared
mkdir -m 1777 "$SHARED"

# as_nobody CMD...: run CMD as uid/gid 65534 with no groups.
as_nobody() { $NOBODY "$@"; }

# ---- DWARF that hangs the decoder ----
# nobody's program, in nobody's own directory, profiled by root, then
# rewritten in place by nobody (the same inode and build-id: the file
# recorded, as far as anything tells) with one byte of a DIE's
# DW_AT_sibling changed so that it points at the DIE itself, in a DIE that
# libdwarf passes through on its way past its parent
# (tests/tools/dwsiblings.py).  Debian 12's libdwarf went round for ever
# inside dwarf_siblingof_b on it: root's report, annotate and addr2line
# hung.  Each must end, exit 0, and say once which unit and DIE of the
# file are bad.
DW_HOME=$TMP/dwarf-home
mkdir -m 0755 "$DW_HOME" && chown 65534:65534 "$DW_HOME"
as_nobody cp "$WORKLOADS/inlmany" "$DW_HOME/inlmany"
if ! record nb-dwarf.data -e cpu-clock -F 2000 $NOBODY "$DW_HOME/inlmany" 0.2; then
	fail "dwarf: root records nobody's inlmany" "$(head -n 1 nb-dwarf.data.err)"
elif ! pick=$(python3 "$TOP/tests/tools/dwsiblings.py" pick "$DW_HOME/inlmany"); then
	fail "dwarf: a DIE libdwarf passes through in inlmany" "none found (gcc's DWARF changed?)"
else
	read -r die _ unit _ <<<"$pick"
	ino=$(stat -c %i "$DW_HOME/inlmany")
	python3 "$TOP/tests/tools/dwsiblings.py" set "$DW_HOME/inlmany" nb-dwarf.mutant "$die" "$die"
	chmod 644 nb-dwarf.mutant
	as_nobody sh -c 'cat "$1" >"$2"' sh nb-dwarf.mutant "$DW_HOME/inlmany"
	check "dwarf: nobody rewrote inlmany in place (inode $ino)" \
		bash -c '[ "$(stat -c %i "$1")" = "$2" ] && ! cmp -s "$1" "$3"' sh "$DW_HOME/inlmany" "$ino" "$WORKLOADS/inlmany"
	bad="$DW_HOME/inlmany: the unit at \.debug_info offset $(printf '%#x' "$unit"): the DW_AT_sibling of the DIE at $(printf '%#x' "$die") points at the DIE itself"
	expect "dwarf: root's report of nobody's rewritten inlmany ends, one warning" 0 \
		"^ebs report: warning: $bad" "$EBS" report -i nb-dwarf.data --no-pager
	expect "dwarf: root's annotate caller_a of it ends, one warning" 0 \
		"^ebs annotate: warning: $bad" "$EBS" annotate -i nb-dwarf.data --no-pager caller_a
	nm "$DW_HOME/inlmany" | awk '$2 ~ /^[tT]$/ {print $1}' >nb-dwarf.addrs
	expect "dwarf: root's addr2line of it ends, one warning" 0 \
		"^ebs addr2line: warning: $bad" "$EBS" addr2line --no-cache -e "$DW_HOME/inlmany" $(cat nb-dwarf.addrs)
fi
