#!/usr/bin/env python3
"""manexamples.py PAGE: the examples of a man page that were made from the
report tests' synthetic recording, one per line: ARGS<TAB>MODE<TAB>shown
line<TAB>..., unescaped from troff.  An example is a `$ ebs report ARGS`
line in an .EX block with output below it naming the DSO "golden", or an
.EX block after a troff comment `.\\" golden: ARGS` (MODE "json": the block
is the one JSON object, laid over several lines).  MODE is "lines" or
"json".  tests/integration/report.sh runs ARGS on that recording and
checks that every shown line is a line of the output (JSON: the same text
but for white space), so the page's numbers cannot go stale."""
import re
import sys


def untroff(s):
    return s.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")


def main():
    lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
    marked = None
    i = 0
    while i < len(lines):
        m = re.match(r'^\.\\" golden( json)?: ?(.*)$', lines[i])
        if m:
            marked = (m.group(2), "json" if m.group(1) else "lines")
        if lines[i] != ".EX":
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != ".EE":
            j += 1
        block = [untroff(x) for x in lines[i + 1:j]]
        i = j
        if marked:
            print("\t".join([marked[0], marked[1]] + block))
            marked = None
            continue
        cmd, out = None, []
        for line in block + ["$ ebs report"]:
            m = re.match(r"^\$ ebs report ?(.*)$", line)
            if m:
                if cmd is not None and any(" golden" in o for o in out):
                    print("\t".join([cmd, "lines"] + out))
                cmd, out = m.group(1), []
            elif cmd is not None and line.strip():
                out.append(line)


main()
