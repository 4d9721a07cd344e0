#!/usr/bin/env python3
"""manopts.py PAGE DUMP: a man page's OPTIONS section against a command's
option table (`ebs --dump-options CMD`, cli/options.h).

Every option of the table that --help shows is in the page, with the same
argument name (case and spaces aside), and its short and long names in one
tag; every option the page lists is in the table (a hidden one, an alias
or one refused, may be listed).  Prints one line per difference, exits 1
if there is any, 0 if none.

The page is troff (man(7)): each option is the tag line after a .TP, set
in .B/.I (words joined by spaces) or .BI/.BR/.IR/.RB... (alternating
fonts, joined without), e.g.
    .BI \\-i ", " \\-\\-input " file"
    .BR \\-\\-calibrate [=\\fItargets\\fP]
    .BI \\-\\-pid " pid" "\\fR, \\fP" \\-\\-tid " tid"
"""
import re
import shlex
import sys


def tag_text(line):
    """The text a tag line sets, fonts and escapes gone."""
    macro, _, rest = line.partition(' ')
    try:
        args = shlex.split(rest.replace('\\', '\\\\'), posix=True)
    except ValueError:
        args = rest.split()
    joined = (' ' if macro in ('.B', '.I') else '').join(args)
    joined = re.sub(r'\\f[BIRPC]', '', joined)
    joined = joined.replace('\\-', '-').replace('\\&', '').replace('\\ ', ' ')
    return joined.strip()


def page_options(path):
    """[(tag number, name, arg)] of the OPTIONS section; arg normalised, '' for none."""
    lines = open(path, encoding='utf-8').read().split('\n')
    out, inside, tag_next, same, ntag = [], False, False, False, 0
    for line in lines:
        if line.startswith('.SH'):
            inside = line.split(None, 1)[1:] == ['OPTIONS']
            continue
        if not inside:
            continue
        if line.startswith('.TP'):
            tag_next, same = True, False
            continue
        if line.startswith('.TQ'):  # one more tag of the same item
            tag_next, same = True, True
            continue
        if not tag_next or line.startswith(('.PD', '.\\"')):
            continue
        tag_next = False
        ntag += 0 if same else 1
        items = re.split(r',\s+', tag_text(line))
        opts = []
        for item in items:
            m = re.match(r'(--?[A-Za-z0-9][-A-Za-z0-9]*)(.*)$', item.strip())
            if not m:
                continue  # "help", the subcommand beside ebs's --help
            name, rest = m.group(1), m.group(2)
            if rest.startswith('[='):
                arg = rest
            elif rest[:1] in ('=', ' '):
                arg = rest[1:]
            else:
                arg = rest
            opts.append([name, norm(arg)])
        # "-i, --input file": the short one's argument is the long one's
        for i in range(len(opts) - 1):
            if not opts[i][0].startswith('--') and not opts[i][1] and \
               opts[i + 1][0].startswith('--'):
                opts[i][1] = opts[i + 1][1]
        out.extend((ntag, n, a) for n, a in opts)
    return out


def norm(arg):
    return re.sub(r'\s+', '', arg).lower()


def synopsis_missing(page, dump):
    """Options of the table (but --help, and hidden ones) the SYNOPSIS names by neither name."""
    text, inside = [], False
    for line in open(page, encoding='utf-8').read().split('\n'):
        if line.startswith('.SH'):
            inside = line.split(None, 1)[1:] == ['SYNOPSIS']
        elif inside and not line.startswith('.\\"'):
            text.append(tag_text(line) if line.startswith('.') else
                        tag_text('.B ' + line))
    words = set(re.findall(r'--?[A-Za-z0-9][-A-Za-z0-9]*', ' '.join(text)))
    bad = []
    for line in open(dump, encoding='utf-8').read().split('\n'):
        short, long_, _, flags = (line.split('\t') + ['', '', '', ''])[:4]
        if not line or flags == 'hidden' or long_ == '--help':
            continue
        if short not in words and long_ not in words:
            bad.append('%s: SYNOPSIS names neither %s' % (page, ' nor '.join(
                n for n in (short, long_) if n)))
    return bad


def main():
    if sys.argv[1] == '--synopsis':
        bad = synopsis_missing(sys.argv[2], sys.argv[3])
        for b in bad:
            print(b)
        return 1 if bad else 0
    page, dump = sys.argv[1], sys.argv[2]
    have = {}
    for ntag, name, arg in page_options(page):
        have.setdefault(name, (ntag, arg))
    bad = []
    known = set()
    for line in open(dump, encoding='utf-8').read().split('\n'):
        if not line:
            continue
        short, long_, arg, flags = (line.split('\t') + ['', '', '', ''])[:4]
        arg = norm(arg)
        hidden = flags == 'hidden'
        known.update(n for n in (short, long_) if n)
        tags = set()
        for name in (short, long_):
            if not name:
                continue
            if name not in have:
                if not hidden:
                    bad.append('%s: not in the page (its table has it%s)'
                               % (name, ', argument ' + arg if arg else ''))
                continue
            tags.add(have[name][0])
            if have[name][1] != arg:
                bad.append("%s: the page's argument is '%s', the table's '%s'"
                           % (name, have[name][1], arg))
        if len(tags) > 1:
            bad.append('%s and %s: in different tags of the page' % (short, long_))
    for name in have:
        if name not in known:
            bad.append('%s: in the page, but the command has no such option' % name)
    for b in bad:
        print('%s: %s' % (page, b))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
