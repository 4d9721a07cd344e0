#!/usr/bin/env bash
# format.sh - the C files are as .clang-format has them (make format-check),
# with the clang-format the tree is kept with: Debian 12's, version 14.
# Another version formats some constructs differently, so with it (or
# without clang-format) this skips, saying so.
. "$(dirname "$0")/../lib.sh"

v=$(clang-format --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
if [ -z "$v" ]; then
	skip "make format-check" "clang-format is not installed (Debian's clang-format)"
	exit 0
fi
if [ "$v" != 14 ]; then
	skip "make format-check" "clang-format $v here; the tree is kept with version 14 (Debian 12's)"
	exit 0
fi
"$TOP/scripts/format.sh" check >format.diff 2>format.err
rc=$?
keep format.diff
check "make format-check: every C file as .clang-format has it ($(cat format.diff format.err | grep -h "^format-check:" | tail -n 1))" [ $rc -eq 0 ]

# and it finds a file that is not: a copy of the tree with one line misformatted
mkdir tree
(cd "$TOP" && git ls-files -z '*.c' '*.h' | xargs -0 cp --parents -t "$TMP/tree" &&
	cp --parents -t "$TMP/tree" .clang-format scripts/format.sh) ||
	{ fail "copy the tree" "cannot copy $TOP's C files"; exit 0; }
sed -i '0,/^static void test_hex(/s//static void   test_hex(/' tree/tests/unit/test-util.c
(cd tree && git init -q && git add -A) >/dev/null 2>&1
tree/scripts/format.sh check >bad.diff 2>bad.err
rc=$?
check "make format-check: a misformatted line fails it (exit $rc), naming the file" \
	sh -c "[ $rc -eq 1 ] && grep -q '^+++ b/tests/unit/test-util.c' bad.diff && grep -q '^format-check: 1 files' bad.err"
