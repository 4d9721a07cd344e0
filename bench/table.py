#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""table.py - bench/results.json (written by `make bench`) as a Markdown table.

  bench/table.py [RESULTS]                 print the machine line and the table
  bench/table.py --update FILE [RESULTS]   replace what is between FILE's lines
                                           <!-- bench:begin --> and <!-- bench:end -->
  bench/table.py --check [RESULTS]         only check the schema

RESULTS defaults to bench/results.json next to this script.  The schema is
checked first (every row: name, value, target, met, min, max, unit; a row
without a value says why in "skipped"); a file that breaks it is refused
with one line naming the row and the field, status 1.  An information row
(issue 34: "cmp": "info") is measured and shown but has no target: its
"target" and "met" are null, and the table says "information" and "-".
A row the machine cannot tell from noise (issue 34: "unmeasurable", the
reason) keeps its value, "met" false, and the table says "not measurable".
Python 3 stdlib only.
"""
import json
import os
import sys

BEGIN, END = '<!-- bench:begin -->', '<!-- bench:end -->'
ROW_KEYS = ('name', 'value', 'target', 'met', 'min', 'max', 'unit')
MACHINE_KEYS = ('kernel', 'cpu', 'cores', 'memory_gb', 'perf', 'ebs_rev', 'ebs_dirty', 'date',
                'runs')


class Bad(Exception):
    pass


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check(doc):
    """Raise Bad naming what breaks the schema."""
    if not isinstance(doc, dict) or not isinstance(doc.get('machine'), dict) \
            or not isinstance(doc.get('rows'), list):
        raise Bad('not {"machine": {...}, "rows": [...]}')
    for k in MACHINE_KEYS:
        if k not in doc['machine']:
            raise Bad('machine: no "%s"' % k)
    if not doc['rows']:
        raise Bad('no rows')
    for i, r in enumerate(doc['rows']):
        where = 'row %d (%s)' % (i + 1, r.get('name', '?') if isinstance(r, dict) else '?')
        if not isinstance(r, dict):
            raise Bad('%s: not an object' % where)
        for k in ROW_KEYS:
            if k not in r:
                raise Bad('%s: no "%s"' % (where, k))
        if not isinstance(r['name'], str) or not r['name']:
            raise Bad('%s: "name" is not a string' % where)
        cmp = r.get('cmp', '<=')
        if cmp not in ('<=', '>=', 'info'):
            raise Bad('%s: "cmp" is %r, not <=, >= or info' % (where, cmp))
        if cmp == 'info':  # information: no target, neither met nor missed
            if r['target'] is not None:
                raise Bad('%s: an information row with a "target"' % where)
            if r['met'] is not None:
                raise Bad('%s: an information row with "met" %s, not null' % (where, r['met']))
        else:
            if not isinstance(r['met'], bool):
                raise Bad('%s: "met" is not true or false' % where)
            if not number(r['target']):
                raise Bad('%s: "target" is not a number' % where)
        if 'unmeasurable' in r:  # the value cannot be told from noise here
            if not isinstance(r['unmeasurable'], str) or not r['unmeasurable']:
                raise Bad('%s: "unmeasurable" is not a reason' % where)
            if r['met'] is not False:
                raise Bad('%s: not measurable but "met" %s, not false' % (where, r['met']))
        if not isinstance(r['unit'], str) or not r['unit']:
            raise Bad('%s: "unit" is not a string' % where)
        if r['value'] is None:
            if not isinstance(r.get('skipped'), str) or not r['skipped']:
                raise Bad('%s: no value and no "skipped" reason' % where)
            if r['met']:
                raise Bad('%s: skipped but met' % where)
            continue
        for k in ('value', 'min', 'max'):
            if not number(r[k]):
                raise Bad('%s: "%s" is not a number' % (where, k))
        if not r['min'] <= r['value'] <= r['max']:
            raise Bad('%s: value %s outside [min %s, max %s]' % (where, r['value'], r['min'], r['max']))


def fmt(v, unit=''):
    """3 significant digits (whole numbers from 1,000 on), with a unit."""
    if v is None:
        return '-'
    if not number(v):
        return str(v)
    a = abs(v)
    if a >= 1000:
        s = '{:,.0f}'.format(v)
    elif a >= 100:
        s = '%.0f' % v
    elif a >= 10:
        s = '%.1f' % v
    elif a >= 1 or a == 0:
        s = '%.2f' % v
    else:
        s = '%.3g' % v
    return s + (' ' + unit if unit else '')


def sides(r):
    """The two measured figures behind a row: (ebs, peer), as text."""
    u = r.get('component_unit', '')
    if 'bare_median' in r:  # libebs_read: against a bare read(2), not perf
        return fmt(r.get('ebs_median'), u), 'read(2) ' + fmt(r['bare_median'], u)
    if 'ebs_median' in r or 'perf_median' in r:
        peer = fmt(r.get('perf_median'), u)
        if r.get('perf_timed_out'):
            peer = '> %s s (timed out)' % fmt(r['perf_timed_out'])
        return fmt(r.get('ebs_median'), u), 'perf ' + peer
    if 'ebs_merged_median' in r:
        return 'merged ' + fmt(r['ebs_merged_median'], u), \
            'one by one ' + fmt(r['ebs_singles_median'], u)
    if 'ebs_line_median' in r:
        return 'line ' + fmt(r['ebs_line_median'], u), 'func ' + fmt(r['ebs_func_median'], u)
    if 'ebs_slowdown_median' in r:
        return '+%.1f%%' % (100 * r['ebs_slowdown_median']), \
            'perf +%.1f%%' % (100 * r['perf_slowdown_median'])
    if 'ebs_seconds' in r:
        return ' / '.join(fmt(v, 's') for v in r['ebs_seconds'].values()), \
            'perf exponent %s' % fmt(r.get('perf_exponent'))
    if 'ebs_rss_mb' in r:
        return ' / '.join(fmt(v, 'MB') for v in r['ebs_rss_mb'].values()), \
            'perf exponent %s' % fmt(r.get('perf_exponent'))
    if 'by_size' in r:
        sizes = ' / '.join(fmt(v, u) for v in r['by_size'].values())
        if 'ebs_report_median' in r:
            return sizes, 'report ' + fmt(r['ebs_report_median'], u)
        return sizes, '(1x / 4x / 16x)'
    return '', ''


def machine_line(m):
    progs = m.get('programs', {})
    sq = progs.get('sqlite', {}).get('samples', {}).get('16x')
    gen = progs.get('gen2000', {}).get('samples')
    parts = ['Linux %s' % m['kernel'], '%s, %s cores, %s GB' % (m['cpu'], m['cores'], m['memory_gb']),
             m['perf'], 'ebs %s%s' % (m['ebs_rev'], ' (uncommitted changes)' if m['ebs_dirty'] else ''),
             'RUNS=%s' % m['runs']]
    if sq:
        parts.append('SQLite large profile %s samples (ebs) / %s (perf)%s'
                     % (fmt(sq['ebs']), fmt(sq['perf']),
                        ' (NOT comparable: more than the bound apart after 3 tries)'
                        if sq.get('comparable') is False else ''))
    if gen:
        parts.append('2,000-function program %s / %s' % (fmt(gen['ebs']), fmt(gen['perf'])))
    if 'loadavg_start' in m:
        parts.append('load average %s at the start' % fmt(m['loadavg_start']))
    return 'Measured %s on %s.' % (m['date'][:10], '; '.join(parts))


def alone_line(rows):
    """The rows measured alone (ONLY=), not in the machine line's run: when, how."""
    runs = {}
    for i, r in enumerate(rows, 1):
        a = r.get('alone')
        if a:
            load = a['load'] if isinstance(a['load'], str) else fmt(a['load'])
            runs.setdefault((a['date'], a['runs'], load), []).append(str(i))
    return ' '.join('Rows %s were measured alone (ONLY=) on %s, RUNS=%s, load average %s.'
                    % (', '.join(ids), d, n, load) for (d, n, load), ids in sorted(runs.items()))


def render(doc):
    alone = alone_line(doc['rows'])
    out = [machine_line(doc['machine']) + (' ' + alone if alone else ''), '',
           '| # | row | value | target | met | min-max | ebs | peer | 2,000-function program |',
           '|---|---|---|---|---|---|---|---|---|']
    for i, r in enumerate(doc['rows'], 1):
        info = r.get('cmp') == 'info'
        target = 'information' if info else '%s %g' % (r.get('cmp', '<='), r['target'])
        met = '-' if info else 'yes' if r['met'] else 'no'
        if r.get('unmeasurable'):
            met = 'not measurable: ' + r['unmeasurable'].replace('|', '\\|')
        name = r['name'].replace('|', '\\|')
        if r['value'] is None:
            why = r['skipped'].replace('|', '\\|')
            out.append('| %d | %s | - | %s | skipped: %s | | | | |' % (i, name, target, why))
            continue
        e, p = sides(r)
        n = r.get('n')
        rng = '%s-%s' % (fmt(r['min']), fmt(r['max'])) + (' (n=%d)' % n if n else '')
        g = r.get('gen2000') or {}
        gen = fmt(g['ratio']) if number(g.get('ratio')) else ''
        out.append('| %d | %s | **%s** %s | %s | %s | %s | %s | %s | %s |' % (
            i, name, fmt(r['value']), r['unit'], target, met, rng, e, p, gen))
    return '\n'.join(out) + '\n'


def update(path, text):
    with open(path) as f:
        old = f.read()
    b, e = old.find(BEGIN), old.find(END)
    if b < 0 or e < b:
        raise Bad('%s: no %s ... %s lines to replace' % (path, BEGIN, END))
    new = old[:b + len(BEGIN)] + '\n' + text + old[e:]
    if new != old:
        with open(path + '.tmp', 'w') as f:
            f.write(new)
        os.replace(path + '.tmp', path)


def main(argv):
    mode, target = 'print', None
    if argv and argv[0] == '--update':
        if len(argv) < 2:
            sys.exit('usage: table.py [--update FILE | --check] [RESULTS]')
        mode, target, argv = 'update', argv[1], argv[2:]
    elif argv and argv[0] == '--check':
        mode, argv = 'check', argv[1:]
    if len(argv) > 1 or (argv and argv[0].startswith('-')):
        sys.exit('usage: table.py [--update FILE | --check] [RESULTS]')
    path = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results.json')
    try:
        with open(path) as f:
            doc = json.load(f)
        check(doc)
        text = render(doc)
        if mode == 'update':
            update(target, text)
        elif mode == 'print':
            sys.stdout.write(text)
    except (OSError, ValueError, Bad) as e:
        print('table.py: %s: %s' % (path, e), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
