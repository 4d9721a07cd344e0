#!/usr/bin/env python3
"""readme.py - the command lines README.md shows, for tests/integration/readme.sh.

  readme.py list README       one line per command, in order, tab-separated:
                              SECTION, BLOCK (its number), COMMAND, and the
                              output shown under it, lines joined by \\x1f
  readme.py shape SHOWN OUT   does OUT have the shape SHOWN (files)?  Exit 0,
                              or 1 after one line naming the first difference

The README's runnable blocks are its ```console blocks: a line "$ CMD" is a
command, the lines under it up to the next "$ " its output as shown (stdout
and stderr); a line "..." stands for lines left out.  Other fenced blocks
(```c) are not commands.

The shape, not the numbers: every number becomes N, every absolute path P,
white space one blank; a row of a table (a line that starts with a number)
keeps only its leading numeric columns, since the names after them differ
from run to run.  Each shown line must be such a line of OUT; with no
"..." in SHOWN, OUT must also have as many non-empty lines.
"""
import re
import sys

NUM = re.compile(r"(?<![\w.])[-+]?\d[\d.,]*(?:e[-+]?\d+)?%?(?![\w])")
PATH = re.compile(r"(?<![\w.])/[^\s,)'\"]*")


def skeleton(line):
    s = PATH.sub("P", line)
    s = NUM.sub("N", s)
    s = " ".join(s.split())
    if re.match(r"^N\b", s):
        # a table row: its numeric columns, up to the first name
        keep = []
        for tok in s.split(" "):
            if re.fullmatch(r"[N\[\],+%-]+|N\S*", tok) and not re.search(r"[A-Za-z_]{2}", tok):
                keep.append(tok)
            else:
                break
        s = " ".join(keep) + " ..."
    return s


def commands(path):
    section, block, inblock = "", 0, False
    cur = None
    out = []

    def flush():
        if cur is not None:
            out.append((section, block, cur[0], cur[1]))

    for line in open(path, encoding="utf-8").read().split("\n"):
        if not inblock:
            if line.startswith("## "):
                section = line[3:].strip()
            if line.strip() == "```console":
                inblock, block, cur = True, block + 1, None
            continue
        if line.strip() == "```":
            flush()
            inblock, cur = False, None
            continue
        if line.startswith("$ "):
            flush()
            cur = (line[2:], [])
        elif cur is not None:
            cur[1].append(line)
        else:
            print("readme.py: %s: output before any command in block %d: %s" % (path, block, line),
                  file=sys.stderr)
            sys.exit(2)
    for sec, blk, cmd, shown in out:
        print("\t".join([sec, str(blk), cmd, "\x1f".join(shown)]))


def shape(shown_path, out_path):
    shown = [l for l in open(shown_path, encoding="utf-8").read().split("\n") if l.strip()]
    out = [l for l in open(out_path, encoding="utf-8", errors="replace").read().split("\n")
           if l.strip()]
    have = {skeleton(l) for l in out}
    for l in shown:
        if l.strip() == "...":
            continue
        if skeleton(l) not in have:
            print("no line shaped like: %s  (%s)" % (l.strip(), skeleton(l)))
            return 1
    if not any(l.strip() == "..." for l in shown) and len(shown) != len(out):
        print("%d lines shown, %d printed" % (len(shown), len(out)))
        return 1
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "list":
        commands(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "shape":
        sys.exit(shape(sys.argv[2], sys.argv[3]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


main()
