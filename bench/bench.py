#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/bench.py - the measurements of `make bench`: every row of issue 14's
table, ebs against perf on the same work, into bench/results.json (which
bench/table.py prints as a Markdown table).  bench/bench.sh builds the two
programs and runs this; docs/bench.md says what each row measures and how.

Environment (bench.sh sets the first ones):
  TOP, EBS, OUT          the tree, the ebs binary, a scratch directory
  BIG                    the generated 2,000-function program (bench/gen.py)
  SQLWORK, SQLITE_WHY    the SQLite driver (tests/real/build-sqlite.sh), or
                         empty and why it could not be built
  SQLWORK_FP             the same built with frame pointers (bench.sh), for
                         the -g rows (issue 34; SQLWORK when empty)
  CG_ITERS, CG_DWARF_HZ, CG_PERFDATA_ITERS
                         the call-graph rows' recordings (default 1, 4000, 4:
                         docs/bench.md)
  RESULTS                where the JSON goes (default TOP/bench/results.json)
  RUNS                   runs per measurement (default 5): a row's value is
                         the median of RUNS runs, or of RUNS ratios of
                         ebs/perf run pairs, interleaved (ebs first in one
                         round, perf first in the next)
  LARGE_ITERS            iterations of each of the two SQLite loops for the
                         large recordings (default 16; 4x and 1x: a quarter
                         and a sixteenth of it)
  MIN_SAMPLES            samples each tool's large recording must hold
                         (default 500000; recorded again, longer, when short)
  SAMPLES_BOUND          how far apart ebs's and perf's recordings of the
                         same work may be in samples (default 1.15: within
                         15% either way; both recorded again, twice at most)
  SQL_ROWS               rows of one sqlwork run (default 400000, ~1.5 s)
  DRAIN_HZ, DRAIN_WORK   row 10's rate cap (default 40000) and the work of each
                         of its two busy programs (./big rounds, default 2000)
  SRCLINE_TIMEOUT        seconds perf report --sort srcline may take (600)
  TOP_SECONDS            how long each ebs top and perf top run lasts (default 60)
  CHROMIUM               the browser of the ebs view rows (default: chromium)
  STAT_CMD               the short command of row stat_100 (default /bin/true)
  MONITOR_SECONDS        how long each monitor_cpu run lasts (default 20)
  READPAIR_ROUNDS        libebs_read's rounds of 1,000 reads (default 201)
  PIN_ROUNDS             rounds of the pinned rows pin_1k and pin_10k, when
                         more than RUNS (default 9)

Nothing here writes outside OUT and RESULTS: ebs runs with XDG_CACHE_HOME
under OUT, perf with PERF_BUILDID_DIR under OUT (its ~/.debug).
"""
import json
import math
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

T0 = time.monotonic()


def progress(msg):
    print('bench [%4.0f s] %s' % (time.monotonic() - T0, msg), flush=True)


def env_int(name, default):
    v = os.environ.get(name, '')
    try:
        return int(v) if v else default
    except ValueError:
        sys.exit('bench: %s=%r is not a number' % (name, v))


TOP = os.environ['TOP']
EBS = os.environ['EBS']
OUT = os.environ['OUT']
BIG = os.environ.get('BIG', '')
SQLWORK = os.environ.get('SQLWORK', '')
SQLITE_WHY = os.environ.get('SQLITE_WHY', '') or 'not built'
RESULTS = os.environ.get('RESULTS') or os.path.join(TOP, 'bench', 'results.json')
RUNS = max(1, env_int('RUNS', 5))
LARGE_ITERS = max(1, env_int('LARGE_ITERS', 16))
MIN_SAMPLES = env_int('MIN_SAMPLES', 500000)
SAMPLES_BOUND = float(os.environ.get('SAMPLES_BOUND') or 1.15)
SQL_ROWS = env_int('SQL_ROWS', 400000)
TOP_SECONDS = env_int('TOP_SECONDS', 60)
TOP_STEADY = 10  # s: what a top run took after this is its steady state
DRAIN_HZ = env_int('DRAIN_HZ', 40000)
DRAIN_WORK = env_int('DRAIN_WORK', 2000)
SRCLINE_TIMEOUT = env_int('SRCLINE_TIMEOUT', 600)
CHROMIUM = os.environ.get('CHROMIUM') or shutil.which('chromium') or ''
GEN_ROUNDS = env_int('GEN_ROUNDS', 15000)  # one ./big at 10 kHz: ~30,000 samples
HZ = 10000  # the recordings that are reported: 10 kHz per CPU
MERGE_N = max(2, env_int('MERGE_N', 4))  # the merge row's recordings
# ONLY=id[,id...]: measure those rows alone (the merge row: ONLY=merge), and
# put them into RESULTS, the other rows kept as they are
ONLY = [k for k in os.environ.get('ONLY', '').split(',') if k]
# REUSE=1 (with ONLY=warm or ONLY=view): OUT's recordings of an earlier run, if good
REUSE = bool(os.environ.get('REUSE'))

os.makedirs(OUT, exist_ok=True)
SCRATCH = os.path.join(OUT, 'runs')
shutil.rmtree(SCRATCH, ignore_errors=True)
os.makedirs(SCRATCH)
# perf record copies what it sampled into its build-id cache (~/.debug by
# default) and perf report looks there: this run's own, as a user's would be
BASE_ENV = dict(os.environ, LC_ALL='C', PERF_BUILDID_DIR=os.path.join(OUT, 'perf-buildid'),
                XDG_CACHE_HOME=os.path.join(OUT, 'xdg-misc'))
for k in ('PAGER', 'EBS_PAGER', 'PERF_PAGER'):
    BASE_ENV.pop(k, None)


class Failed(Exception):
    """A step that could not be measured; its rows are skipped with this."""


def last_line(data):
    lines = [l for l in data.decode(errors='replace').splitlines() if l.strip()]
    return lines[-1].strip()[:200] if lines else 'no message'


def measure(cmd, env=None, timeout=900, allow_timeout=False):
    """Run cmd (output thrown away); (wall s, CPU s, peak RSS MB) from
    wait4(2), as bench/limits.sh does: the child's own rusage, with that of
    the children it waited for.  None when allow_timeout and it took longer
    than timeout; Failed when it failed."""
    name = os.path.basename(cmd[0]) + ' ' + ' '.join(
        os.path.basename(a) if a.startswith('/') else a for a in cmd[1:4])
    with tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=err, env=env or BASE_ENV, start_new_session=True)
        killed = []

        def kill():
            killed.append(True)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if killed:
            if allow_timeout:
                return None
            raise Failed('%s: still running after %d s, killed' % (name, timeout))
        if p.returncode != 0:
            err.seek(0)
            raise Failed('%s: exit status %d: %s' % (name, p.returncode, last_line(err.read())))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def capture(cmd, env=None, timeout=600):
    try:
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                           env=env or BASE_ENV, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failed('%s: still running after %d s' % (' '.join(cmd[:3]), timeout))
    if r.returncode != 0:
        raise Failed('%s: exit status %d: %s' % (' '.join(cmd[:3]), r.returncode,
                                                 last_line(r.stderr)))
    return r.stdout.decode(errors='replace')


_n = [0]


def scratch(tag):
    _n[0] += 1
    d = os.path.join(SCRATCH, '%s.%d' % (tag, _n[0]))
    os.makedirs(d)
    return d


# ---- the recorders -----------------------------------------------------------
def recorder(tool, hz, out, pid=None):
    """Both recorders' defaults for cpu-clock at hz per CPU: IP-only samples
    (no -g), default buffer sizes (128 data pages per CPU for both)."""
    base = [EBS, 'record'] if tool == 'ebs' else ['perf', 'record']
    cmd = base + ['-q', '-e', 'cpu-clock', '-F', str(hz), '-o', out]
    return cmd + (['-p', str(pid)] if pid else ['--'])


def ebs_stats(path):
    j = json.loads(capture([EBS, 'report', '-i', path, '--json', '--no-inline', '--top', '1']))
    return {'samples': j['samples'], 'lost': j.get('lost', 0), 'throttled': j.get('throttled', 0)}


def perf_stats(path):
    """perf report --stats: the SAMPLE events, and lost samples (the event's
    LOST_SAMPLES, which counts the ring buffer's losses too) and the
    PERF_RECORD_LOST chunks."""
    out = capture(['perf', 'report', '-i', path, '--stats'])
    m = re.search(r'^\S.* stats:\s*$', out, re.M)  # "cpu-clock stats:"
    agg, per = (out[:m.start()], out[m.start():]) if m else (out, out)

    def count(text, what):
        m = re.search(r'^\s*%s events:\s*(\d+)' % what, text, re.M)
        return int(m.group(1)) if m else 0
    samples = count(per, 'SAMPLE') or count(agg, 'SAMPLE')
    if not samples:
        raise Failed('perf report --stats %s: no SAMPLE events' % path)
    return {'samples': samples, 'lost': count(per, 'LOST_SAMPLES'), 'lost_chunks': count(agg, 'LOST')}


def stats(tool, path):
    return ebs_stats(path) if tool == 'ebs' else perf_stats(path)


# The program's own wall and CPU time, under a recorder or alone: the
# recorders' start and end (perf's build-id pass over the file) are outside
# it.  bash's times builtin gives its children's user and system time.
WRAP = ['bash', '-c', 's=$EPOCHREALTIME; "$@"; r=$?; e=$EPOCHREALTIME; '
        '{ echo "$s $e"; times; } >"$BENCH_TIMES"; exit $r', 'wrap']


def timed(cmd, timeout=900, recorder_cpu=False):
    """Run cmd (whose last part is WRAP + program): (program wall s,
    total wall s, program CPU s); recorder_cpu (PIN_WRAP): and the
    recorder's CPU s while the program ran."""
    d = scratch('t')
    tf = os.path.join(d, 'times')
    total = measure(cmd, env=dict(BASE_ENV, BENCH_TIMES=tf), timeout=timeout)[0]
    with open(tf) as f:
        lines = f.read().splitlines()
    shutil.rmtree(d)
    try:
        s, e = map(float, lines[0].split())
        # "0m1.405s 0m0.020s": the children's user and system time
        cpu = sum(int(m) * 60 + float(x) for m, x in re.findall(r'(\d+)m([\d.]+)s', lines[2]))
        rc = 0
        if recorder_cpu:  # PIN_WRAP's line: the recorder's ns before and after
            r0, r1 = map(int, lines[3].split())
            rc = (r1 - r0) * 1e-9
    except (IndexError, ValueError):
        raise Failed('the timing wrapper wrote %r' % lines)
    return (e - s, total, cpu, rc) if recorder_cpu else (e - s, total, cpu)


# ---- statistics and rows -----------------------------------------------------
def med(v):
    return statistics.median(v) if v else None


def mad(v):
    """The median absolute deviation from the median: the rounds' spread."""
    m = med(v)
    return med([abs(x - m) for x in v]) if v else None


def rnd(x, digits=4):
    if x is None or isinstance(x, bool) or not isinstance(x, float):
        return x
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, max(0, digits - 1 - int(math.floor(math.log10(abs(x))))))


ROWS = {}
ORDER = []


def row(key, name, target, cmp, unit, note=''):
    ORDER.append(key)
    ROWS[key] = {'name': name, 'value': None, 'target': target, 'cmp': cmp,
                 'met': None if cmp == 'info' else False,
                 'min': None, 'max': None, 'unit': unit, 'note': note}


def met(r, v):
    """Whether v meets r's target; None for an information row (cmp 'info')."""
    if r['cmp'] == 'info':
        return None
    return v is not None and (v <= r['target'] if r['cmp'] == '<=' else v >= r['target'])


def set_ratio(key, num, den, **extra):
    """A ratio row from paired runs: value, min, max of num[i]/den[i]."""
    r = ROWS[key]
    ratios = [a / b for a, b in zip(num, den) if b > 0]
    if not ratios:
        raise Failed('no run pair with a nonzero denominator')
    r.update(value=med(ratios), min=min(ratios), max=max(ratios), n=len(ratios),
             ratios=ratios, **extra)
    r['met'] = met(r, r['value'])


def unmeasurable(key, why):
    """A row whose value this machine cannot tell from noise: neither met
    nor missed on it, whatever the ratio says; why in "unmeasurable"."""
    ROWS[key].update(met=False, unmeasurable=why)
    progress('  not measurable here: %s: %s' % (ROWS[key]['name'], why))


def set_value(key, value, lo=None, hi=None, **extra):
    r = ROWS[key]
    r.update(value=value, min=lo if lo is not None else value,
             max=hi if hi is not None else value, **extra)
    r['met'] = met(r, value)


def skip(keys, why):
    for k in keys:
        if ROWS[k]['value'] is None and 'skipped' not in ROWS[k]:
            ROWS[k]['skipped'] = why
            progress('  skipped: %s: %s' % (ROWS[k]['name'], why))


def step(keys, fn):
    """Run one part of the bench; its rows are skipped, saying why, when it fails."""
    try:
        fn()
    except Failed as e:
        skip(keys, str(e))


CMP_SORT = 'perf report --stdio --sort sym'
row('func', 'report --sort func (inline-aware), first report / perf report --sort sym',
    0.5, '<=', 'ratio', 'large SQLite profile; ebs with an empty XDG_CACHE_HOME and a fresh copy '
    'of the file each run')
row('func_warm', 'report --sort func (inline-aware), warm DWARF cache / perf report --sort sym',
    0.25, '<=', 'ratio', 'large SQLite profile; the DSO cache as an earlier report of another '
    'recording of the same program left it')
row('noinline', 'report --sort func --no-inline, first report / perf report --sort sym',
    0.5, '<=', 'ratio', 'large SQLite profile; empty XDG_CACHE_HOME')
row('noinline_warm', 'report --sort func --no-inline, warm DWARF cache / perf report --sort sym',
    0.25, '<=', 'ratio', 'large SQLite profile; warm DWARF cache')
row('line', 'report --sort line / perf report --sort srcline', 0.02, '<=', 'ratio',
    'small SQLite profile; perf once (it takes long), with a timeout; min/max from ebs\'s runs')
row('line_func', 'report --sort line / report --sort func (ebs alone)', 1.5, '<=', 'ratio',
    'large SQLite profile; empty XDG_CACHE_HOME')
row('annotate', 'annotate of the hottest function / perf annotate --stdio of it', 0.5, '<=',
    'ratio', 'large SQLite profile; ebs annotate FUNC (source); asm_* fields: --asm')
row('rss', 'peak RSS of report --sort func / perf report --sort sym\'s', 1.0, '<=', 'ratio',
    'large SQLite profile; ru_maxrss through wait4')
row('size', 'file size per sample, IP-only recording / perf.data\'s', 0.5, '<=', 'ratio',
    'sqlwork at 10 kHz, cpu-clock, both recorders\' defaults')
# ---- issue 34 (H5 "size"): the -g recordings' size per sample, size_cg() -----
row('size_fp', 'file size per sample, -g (frame pointers) / perf record -g\'s perf.data', 1.0, '<=',
    'ratio', 'issue 34: sqlwork at 10 kHz, cpu-clock, -g: both recorders\' defaults (ebs: fp,512)')
row('size_dwarf', 'file size per sample, --call-graph dwarf / perf\'s perf.data', 0.1, '<=', 'ratio',
    'issue 34: sqlwork at 1 kHz, cpu-clock, --call-graph dwarf: both copy 8 KiB of stack')
# ---- end of issue 34 (H5) rows ------------------------------------------------
row('rec_cpu', 'ebs record\'s own CPU time per sample / perf record\'s', 0.5, '<=', 'ratio',
    'attached with -p to a running sqlwork at 10 kHz; the recorder process alone')
# issue 34: information now (cmp 'info', no target): with the recorder on the
# other core these measure the sample interrupt, which both tools take alike;
# pin_1k and pin_10k are the rows with a target
row('slow_1k', 'program slowdown under record at 1 kHz / perf\'s (two cores; information)', None,
    'info', 'ratio', '(t_under - t_alone) / t_alone of sqlwork, ebs\'s over perf\'s')
row('slow_10k', 'program slowdown under record at 10 kHz / perf\'s (two cores; information)', None,
    'info', 'ratio', '(t_under - t_alone) / t_alone of sqlwork, ebs\'s over perf\'s')
row('drain', 'samples per second written without loss / perf\'s', 1.0, '>=', 'ratio',
    'two busy programs at the highest rate used here; met only when ebs lost nothing')
row('growth_time', 'report --sort func time growth exponent over 1x, 4x, 16x samples', 1.0,
    '<=', 'exponent', 'SQLite recordings; least-squares slope of log time on log samples')
row('growth_rss', 'report --sort func peak RSS growth exponent over 1x, 4x, 16x samples', 0.1,
    '<=', 'exponent', 'bound: memory does not grow with the samples (16x the samples, '
    'at most 16^0.1 = 1.32x the peak RSS)')
row('annotate_warm', 'annotate of the hottest function, warm DWARF cache / perf annotate --stdio of it',
    0.25, '<=', 'ratio', 'large SQLite profile; the DSO cache as an earlier annotate of another '
    'recording of the same program left it (after_report_*: as row 2\'s, left by a report of '
    'functions, which reads no line table)')

# ---- issue 34, H1: call graphs and perf.data (cg_rows(); ONLY=cg) ----------------
CG_ROWS = ('children_fp', 'children_dwarf', 'flamegraph', 'perfdata_cold', 'perfdata_warm',
           'rss_dwarf')
row('children_fp', 'report --children of a -g (frame-pointer) recording / perf report --children '
    '-g none', 0.5, '<=', 'ratio', 'issue 34; SQLite built with frame pointers, 2 loops of sqlwork '
    'at 10 kHz, -g; first report (empty XDG_CACHE_HOME, fresh copy); warm_*: with a warm cache')
row('children_dwarf', 'report --children of a --call-graph dwarf recording / perf report '
    '--children -g none', 0.5, '<=', 'ratio', 'issue 34; one sqlwork (-O2, no frame pointers) at '
    'CG_DWARF_HZ, --call-graph dwarf; first report; warm_*: with a warm cache')
row('flamegraph', 'ebs flamegraph / perf script of the same work', 0.5, '<=', 'ratio',
    'issue 34; the -g recordings of children_fp; no stackcollapse-perf.pl/flamegraph.pl here, so '
    'perf script alone (a lower bound of the pipeline); perf_stackcollapse_*: perf script report '
    'stackcollapse, for information')
row('perfdata_cold', 'ebs report -i perf.data, first report / perf report of the same file', 1.0,
    '<=', 'ratio', 'issue 34; perf record of 2 loops of 4 x sqlwork at 10 kHz (IP only); ebs '
    'report --sort func against perf report --stdio --sort sym; empty XDG_CACHE_HOME')
row('perfdata_warm', 'ebs report -i perf.data, warm DSO cache / perf report of the same file', 1.0,
    '<=', 'ratio', 'issue 34; as perfdata_cold, ebs with the cache an ebs report of another '
    'perf.data of the same program left')
row('rss_dwarf', 'peak RSS of report --children of a dwarf recording / perf report\'s', 1.0, '<=',
    'ratio', 'issue 34; the runs of children_dwarf; ru_maxrss through wait4')
# ---- end of issue 34, H1's rows ------------------------------------------------

row('merge', 'merged report of %d recordings / the %d reports one by one' % (MERGE_N, MERGE_N),
    1.0, '<=', 'ratio', '%d recordings of one sqlwork each; ebs report -i a -i b ... over the sum '
    'of the ebs reports of each, one after another with one cache (time); rss_ratio: peak RSS '
    'over the sum of theirs; perf_ratio: over perf report of each (it takes one -i)'
    % MERGE_N)

row('top_cpu', 'ebs top\'s own CPU, every CPU sampled at 1 kHz, both busy (% of a CPU)',
    2.0, '<=', '%', 'issue 33: ebs top -a -F 1000 -d 1, its tables to /dev/null, for TOP_SECONDS '
    '(default 60 s) while two busy loops take both CPUs; its CPU time (wait4) over its wall time, '
    'start included (*_steady_median: after its first 10 s); perf_median: perf top --stdio '
    '-F 1000 -e cpu-clock the same way')
# ---- issue 34, H2 "ovh": the recorder's, stat's, monitor's and libebs's overhead ----
row('pin_1k', 'program slowdown under record at 1 kHz, program and recorder on one CPU / perf\'s',
    0.8, '<=', 'ratio', 'issue 34: sqlwork alone, under ebs record, under perf record, all pinned '
    'to one CPU (taskset), so that the recorder competes with the program; the program\'s wall '
    'time (t_under - t_alone) / t_alone, ebs\'s over perf\'s per round')
row('pin_10k', 'program slowdown under record at 10 kHz, program and recorder on one CPU / perf\'s',
    0.8, '<=', 'ratio', 'issue 34: as pin_1k, at 10 kHz')
row('stat_100', 'ebs stat -r 100 of a short command, overhead / perf stat -r 100\'s', 1.0, '<=',
    'ratio', 'issue 34: STAT_CMD (default /bin/true) 100 times under each, the default events; '
    'overhead: the wall time less that of a shell loop running the command 100 times')
row('monitor_cpu', 'ebs monitor\'s own CPU at 10 Hz (-i 100) / perf stat -I 100\'s', 1.0, '<=',
    'ratio', 'issue 34: ebs monitor -a -i 100 -e task-clock,page-faults (no terminal: a line per '
    'interval) and perf stat -a -I 100 -e task-clock,page-faults, each MONITOR_SECONDS (default 20 s); '
    'CPU time (wait4) over wall time, ebs\'s over perf\'s per round')
row('libebs_read', 'libebs ebs_count_read() / a bare read(2) of the same group, ns per read', 1.1,
    '<=', 'ratio', 'issue 34: bench/readpair.c, task-clock,page-faults,context-switches (the read '
    'path: software events), READPAIR_ROUNDS rounds of 1,000 reads of each alternating; '
    'the least batch\'s ratio per run (median_ratios: the medians\')')
# ---- end of issue 34 H2 rows ----
# the page's size bound (MB) that docs/view.md states for SQLite's 500,000-sample recording
VIEW_MAX_MB = 20.0
VIEW_ROWS = ('view_write', 'view_size', 'view_open', 'view_update')
row('view_write', 'ebs view: time to write the page / ebs report --sort func of the same file', 3.0,
    '<=', 'ratio', 'issue 33; large SQLite profile; fresh copy, empty XDG_CACHE_HOME each run; '
    'by_size: ebs view\'s own seconds at 1x, 4x, 16x')
row('view_size', 'ebs view: the page\'s size, large SQLite profile', VIEW_MAX_MB, '<=', 'MB',
    'issue 33: the bound docs/view.md states; by_size: 1x, 4x, 16x')
row('view_open', 'ebs view: open and draw in headless Chromium, large SQLite profile', 2.0, '<=', 's',
    'issue 33; navigation to ebsView.ready, a new Chromium each run (tests/tools/browse.py); '
    'by_size: 1x, 4x, 16x')
row('view_update', 'ebs view: a time selection\'s update, large SQLite profile', 200.0, '<=', 'ms',
    'issue 33; ebsView.timings.update_ms after selectTime of the middle half of the buckets; '
    'wall_*: selectTime and the next frame, timed from outside; by_size: 1x, 4x, 16x')

if not SQLWORK:
    skip([k for k in ORDER if k not in ('drain', 'top_cpu')], 'SQLite: ' + SQLITE_WHY)

# ---- ebs's DSO cache -----------------------------------------------------------
try:
    HELP = subprocess.run([EBS, 'report', '--help'], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.decode(errors='replace')
except OSError as e:
    sys.exit('bench: cannot run %s: %s' % (EBS, e))
HAVE_CACHE = '--no-cache' in HELP
if not HAVE_CACHE:
    skip(['func_warm', 'noinline_warm', 'annotate_warm'], 'this ebs has no DSO cache (no --no-cache in '
         'ebs report --help): every report is a first one')


def ebs_run(sub, data, args, cache='empty', warm=None):
    """ebs SUB -i (a fresh copy of data) ARGS: as the first report of that file.
    cache: 'empty' (a new, empty XDG_CACHE_HOME), 'warm' (a copy of warm),
    'off' (--no-cache)."""
    d = scratch('e')
    copy = os.path.join(d, os.path.basename(data))
    shutil.copyfile(data, copy)
    xdg = os.path.join(d, 'xdg')
    if cache == 'warm':
        shutil.copytree(warm, xdg)
    else:
        os.mkdir(xdg)
    extra = ['--no-cache'] if cache == 'off' else []
    try:
        return measure([EBS, sub, '-i', copy] + args + extra, env=dict(BASE_ENV, XDG_CACHE_HOME=xdg))
    finally:
        shutil.rmtree(d)


def perf_run(sub, data, args, timeout=900, allow_timeout=False):
    d = scratch('p')
    copy = os.path.join(d, os.path.basename(data))
    shutil.copyfile(data, copy)
    try:
        return measure(['perf', sub, '-i', copy] + args, timeout=timeout, allow_timeout=allow_timeout)
    finally:
        shutil.rmtree(d)


def interleave(tasks):
    """Run RUNS rounds of tasks [(key, fn)], in order in even rounds and in
    reverse in odd ones; {key: [result of each round]}."""
    res = {k: [] for k, _ in tasks}
    for i in range(RUNS):
        for k, fn in (tasks if i % 2 == 0 else tasks[::-1]):
            res[k].append(fn())
    return res


def hottest(data, dso):
    j = json.loads(capture([EBS, 'report', '-i', data, '--json', '--no-inline', '--dso', dso,
                            '--top', '1']))
    if not j['rows']:
        raise Failed('no samples in %s in %s' % (dso, data))
    return j['rows'][0]['function']


MACHINE_PROGRAMS = {}


def report_block(data_e, data_p, dso, warm, warm_ann=None):
    """The report and annotate runs of one profile (rows func, noinline,
    line_func, annotate, rss, and their warm-cache forms): a dict of fields."""
    hot = hottest(data_e, dso)
    tasks = [
        ('e_func', lambda: ebs_run('report', data_e, ['--sort', 'func'])),
        ('p_sym', lambda: perf_run('report', data_p, ['--stdio', '--sort', 'sym'])),
        ('e_noinl', lambda: ebs_run('report', data_e, ['--sort', 'func', '--no-inline'])),
        ('e_line', lambda: ebs_run('report', data_e, ['--sort', 'line'])),
        ('e_ann', lambda: ebs_run('annotate', data_e, [hot])),
        ('p_ann', lambda: perf_run('annotate', data_p, ['--stdio', hot])),
        ('e_asm', lambda: ebs_run('annotate', data_e, [hot, '--asm'])),
    ]
    if HAVE_CACHE and warm:
        tasks += [
            ('e_func_warm', lambda: ebs_run('report', data_e, ['--sort', 'func'], 'warm', warm)),
            ('e_noinl_warm', lambda: ebs_run('report', data_e, ['--sort', 'func', '--no-inline'],
                                             'warm', warm)),
            ('e_ann_warm', lambda: ebs_run('annotate', data_e, [hot], 'warm', warm_ann)),
            ('e_ann_after_report', lambda: ebs_run('annotate', data_e, [hot], 'warm', warm)),
            ('e_func_off', lambda: ebs_run('report', data_e, ['--sort', 'func'], 'off')),
            ('e_noinl_off', lambda: ebs_run('report', data_e, ['--sort', 'func', '--no-inline'],
                                            'off')),
        ]
    res = interleave(tasks)
    res['hot'] = hot
    return res


def wall(rs):
    return [r[0] for r in rs]


def rss(rs):
    return [r[2] for r in rs]


def pair_fields(num, den, unit='s'):
    return {'ebs_median': med(num), 'perf_median': med(den), 'component_unit': unit}


def cput(rs):
    return [r[1] for r in rs]


def summary(num, den):
    """A second program's figures for a row: medians and the median ratio."""
    ratios = [a / b for a, b in zip(num, den) if b > 0]
    return {'ebs_median': med(num), 'other_median': med(den), 'ratio': med(ratios),
            'min': min(ratios), 'max': max(ratios)}


def fill_report_rows(res, samples):
    set_ratio('func', wall(res['e_func']), wall(res['p_sym']),
              **pair_fields(wall(res['e_func']), wall(res['p_sym'])), samples=samples,
              ebs_cpu_median=med(cput(res['e_func'])), perf_cpu_median=med(cput(res['p_sym'])))
    if 'e_func_off' in res:
        ROWS['func'].update(ebs_no_cache_median=med(wall(res['e_func_off'])),
                            no_cache_ratio=summary(wall(res['e_func_off']), wall(res['p_sym']))['ratio'])
        ROWS['noinline'].update(ebs_no_cache_median=med(wall(res['e_noinl_off'])),
                                no_cache_ratio=summary(wall(res['e_noinl_off']),
                                                       wall(res['p_sym']))['ratio'])
    set_ratio('noinline', wall(res['e_noinl']), wall(res['p_sym']),
              **pair_fields(wall(res['e_noinl']), wall(res['p_sym'])), samples=samples,
              ebs_cpu_median=med(cput(res['e_noinl'])), perf_cpu_median=med(cput(res['p_sym'])))
    if 'e_func_warm' in res:
        warm_rows(res, samples)
    set_ratio('line_func', wall(res['e_line']), wall(res['e_func']), ebs_line_median=med(
        wall(res['e_line'])), ebs_func_median=med(wall(res['e_func'])), component_unit='s',
        samples=samples)
    set_ratio('annotate', wall(res['e_ann']), wall(res['p_ann']),
              **pair_fields(wall(res['e_ann']), wall(res['p_ann'])), function=res['hot'],
              asm_ebs_median=med(wall(res['e_asm'])),
              asm_ratio=summary(wall(res['e_asm']), wall(res['p_ann']))['ratio'], samples=samples,
              ebs_cpu_median=med(cput(res['e_ann'])), perf_cpu_median=med(cput(res['p_ann'])))
    set_ratio('rss', rss(res['e_func']), rss(res['p_sym']),
              **pair_fields(rss(res['e_func']), rss(res['p_sym']), 'MB'), samples=samples,
              ebs_no_inline_rss_mb_median=med(rss(res['e_noinl'])),
              ebs_line_rss_mb_median=med(rss(res['e_line'])))


def fill_gen_rows(res, samples):
    """The 2,000-function program's figures, as a second opinion on each row."""
    g = lambda d: dict(d, samples=samples)  # noqa: E731
    ROWS['func']['gen2000'] = g(summary(wall(res['e_func']), wall(res['p_sym'])))
    ROWS['noinline']['gen2000'] = g(summary(wall(res['e_noinl']), wall(res['p_sym'])))
    ROWS['line_func']['gen2000'] = g(summary(wall(res['e_line']), wall(res['e_func'])))
    ROWS['annotate']['gen2000'] = g(summary(wall(res['e_ann']), wall(res['p_ann'])))
    ROWS['annotate']['gen2000']['function'] = res['hot']
    ROWS['rss']['gen2000'] = g(summary(rss(res['e_func']), rss(res['p_sym'])))
    if 'e_func_warm' in res:
        ROWS['func_warm']['gen2000'] = g(summary(wall(res['e_func_warm']), wall(res['p_sym'])))
        ROWS['annotate_warm']['gen2000'] = g(summary(wall(res['e_ann_warm']), wall(res['p_ann'])))
        ROWS['noinline_warm']['gen2000'] = g(summary(wall(res['e_noinl_warm']), wall(res['p_sym'])))


def srcline(data_e, data_p, samples):
    """ebs report --sort line RUNS times, perf report --sort srcline once."""
    e = [ebs_run('report', data_e, ['--sort', 'line']) for _ in range(RUNS)]
    p = perf_run('report', data_p, ['--stdio', '--sort', 'srcline'], timeout=SRCLINE_TIMEOUT,
                 allow_timeout=True)
    ew = wall(e)
    if p is None:
        # perf did not finish: the ratio is at most ebs / the timeout
        return dict(ebs_median=med(ew), perf_median=None, perf_timed_out=SRCLINE_TIMEOUT,
                    value=med(ew) / SRCLINE_TIMEOUT, min=min(ew) / SRCLINE_TIMEOUT,
                    max=max(ew) / SRCLINE_TIMEOUT, samples=samples)
    return dict(ebs_median=med(ew), perf_median=p[0], perf_runs=1, value=med(ew) / p[0],
                min=min(ew) / p[0], max=max(ew) / p[0], samples=samples)


# ---- the 2,000-function program's profile -------------------------------------
GEN = {}


def gen_profile():
    if not BIG:
        raise Failed('the 2,000-function program was not built')
    progress('recording the 2,000-function program (./big %d at %d Hz), ebs and perf'
             % (GEN_ROUNDS, HZ))
    e = os.path.join(OUT, 'gen.ebs')
    p = os.path.join(OUT, 'gen.perf')
    measure(recorder('ebs', HZ, e) + [BIG, str(GEN_ROUNDS)])
    measure(recorder('perf', HZ, p) + [BIG, str(GEN_ROUNDS)])
    GEN.update(ebs=e, perf=p, ebs_samples=ebs_stats(e)['samples'],
               perf_samples=perf_stats(p)['samples'])
    MACHINE_PROGRAMS['gen2000'] = {
        'what': 'bench/gen.py 2000: 2,000 functions, each a loop with an inlined helper; gcc -O2 -g',
        'profile': './big %d at %d Hz' % (GEN_ROUNDS, HZ),
        'samples': {'ebs': GEN['ebs_samples'], 'perf': GEN['perf_samples']}}


# ---- SQLite's recordings ------------------------------------------------------
# Two shell loops of `sqlwork SQL_ROWS` at once (both cores busy), at 10 kHz.
LOOPS = ('l() { i=0; while [ $i -lt "$1" ]; do "$0" "$2" >/dev/null || exit 1; i=$((i+1)); done; }; '
         'l "$1" "$2" & p=$!; l "$1" "$2"; a=$?; wait $p; exit $((a | $?))')
SQL = {}


def record_sqlite(tool, size, iters, minimum=0):
    path = os.path.join(OUT, 'sqlite-%s.%s' % (size, 'ebs' if tool == 'ebs' else 'perf'))
    for attempt in range(3):
        progress('recording SQLite %s: %s record, 2 loops of %d x sqlwork %d at %d Hz'
                 % (size, tool, iters, SQL_ROWS, HZ))
        w = measure(recorder(tool, HZ, path) + ['sh', '-c', LOOPS, SQLWORK, str(iters),
                                                 str(SQL_ROWS)], timeout=1800)[0]
        st = stats(tool, path)
        progress('  %d samples in %.0f s, %d lost' % (st['samples'], w, st['lost']))
        if st['samples'] >= minimum:
            break
        if attempt == 2:
            raise Failed('%s record held %d samples, fewer than %d after 3 tries'
                         % (tool, st['samples'], minimum))
        iters = math.ceil(iters * minimum * 1.1 / max(st['samples'], 1))
    st.update(path=path, iterations=iters, bytes=os.path.getsize(path))
    SQL[(tool, size)] = st


def comparable(n_ebs, n_perf):
    """Whether two recordings of the same work hold sample counts within
    SAMPLES_BOUND of each other (a report's cost grows with its samples)."""
    return n_ebs and n_perf and 1 / SAMPLES_BOUND <= n_ebs / n_perf <= SAMPLES_BOUND


def record_pair(what, record, samples):
    """Record ebs's and perf's recordings of the same work (record(tool)),
    again, both, at most twice more while their sample counts are not
    comparable(): the cost of a 10 kHz interrupt on a VM can swing by 2x
    within minutes, which stretches one tool's run and so its recording.
    samples(tool) reads the count; returns whether the last pair held."""
    for attempt in range(3):
        for tool in ('ebs', 'perf'):
            record(tool)
        n = {tool: samples(tool) for tool in ('ebs', 'perf')}
        if comparable(n['ebs'], n['perf']):
            return True
        progress('  %s: %d samples (ebs) against %d (perf), not within %.2fx: %s'
                 % (what, n['ebs'], n['perf'], SAMPLES_BOUND,
                    'both again' if attempt < 2 else 'kept, marked not comparable'))
    return False


def sqlite_recordings():
    sizes = [('1x', max(1, LARGE_ITERS // 16)), ('4x', max(1, LARGE_ITERS // 4)),
             ('16x', LARGE_ITERS)]
    held = {}
    for size, iters in sizes:
        held[size] = record_pair(
            'SQLite %s' % size,
            lambda tool, size=size, iters=iters: record_sqlite(
                tool, size, iters, MIN_SAMPLES if size == '16x' else 0),
            lambda tool, size=size: SQL[(tool, size)]['samples'])
    MACHINE_PROGRAMS['sqlite'] = {
        'what': 'SQLite %s amalgamation (npm pack better-sqlite3, deps/sqlite3/sqlite3.c), '
                'gcc -O2 -g, under tests/real/sqlwork.c' % sqlite_version(),
        'recordings': 'two concurrent loops of sqlwork %d at %d Hz, cpu-clock' % (SQL_ROWS, HZ),
        'samples': {size: {'ebs': SQL[('ebs', size)]['samples'], 'perf': SQL[('perf', size)]['samples'],
                           'iterations': {'ebs': SQL[('ebs', size)]['iterations'],
                                          'perf': SQL[('perf', size)]['iterations']},
                           'comparable': held[size]}
                    for size, _ in sizes}}


def sqlite_version():
    d = os.path.dirname(SQLWORK)
    for n in sorted(os.listdir(d)):
        if n.startswith('sqlite-') and os.path.isdir(os.path.join(d, n)):
            return n[len('sqlite-'):]
    return '?'


def warm_cache(name, data, sub='report'):
    """A DSO cache as a returning user has it: what one default report (or
    annotate) of another recording of the same program left."""
    if not HAVE_CACHE:
        return None
    d = os.path.join(OUT, 'xdg-warm-' + name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    capture([EBS, sub, '-i', data], env=dict(BASE_ENV, XDG_CACHE_HOME=d))
    return d


def sqlite_reports():
    large_e, large_p = SQL[('ebs', '16x')], SQL[('perf', '16x')]
    samples = {'ebs': large_e['samples'], 'perf': large_p['samples']}
    warm = warm_cache('sqlite', SQL[('ebs', '1x')]['path'])
    warm_ann = warm_cache('sqlite-ann', SQL[('ebs', '1x')]['path'], 'annotate')
    progress('SQLite, large profile: reports and annotate, %d rounds' % RUNS)
    res = report_block(large_e['path'], large_p['path'], 'sqlwork', warm, warm_ann)
    fill_report_rows(res, samples)


def gen_reports():
    warm = warm_ann = None
    if HAVE_CACHE:
        # another recording of the same program for the warm cache
        other = os.path.join(OUT, 'gen-other.ebs')
        measure(recorder('ebs', HZ, other) + [BIG, '2000'])
        warm = warm_cache('gen', other)
        warm_ann = warm_cache('gen-ann', other, 'annotate')
    progress('2,000-function program: reports and annotate, %d rounds' % RUNS)
    res = report_block(GEN['ebs'], GEN['perf'], os.path.basename(BIG), warm, warm_ann)
    fill_gen_rows(res, {'ebs': GEN['ebs_samples'], 'perf': GEN['perf_samples']})


def line_rows():
    small_e, small_p = SQL[('ebs', '1x')], SQL[('perf', '1x')]
    progress('SQLite, small profile: ebs report --sort line x%d, perf report --sort srcline once '
             '(timeout %d s)' % (RUNS, SRCLINE_TIMEOUT))
    r = srcline(small_e['path'], small_p['path'], {'ebs': small_e['samples'], 'perf': small_p['samples']})
    value, lo, hi = r.pop('value'), r.pop('min'), r.pop('max')
    set_value('line', value, lo, hi, n=RUNS, component_unit='s', **r)


def gen_line_row():
    if 'ebs' not in GEN:
        return
    progress('2,000-function program: ebs report --sort line x%d, perf --sort srcline once' % RUNS)
    try:
        r = srcline(GEN['ebs'], GEN['perf'], {'ebs': GEN['ebs_samples'], 'perf': GEN['perf_samples']})
    except Failed as e:
        ROWS['line']['gen2000'] = {'skipped': str(e)}
        return
    r['ratio'] = r.pop('value')
    ROWS['line']['gen2000'] = r


def growth_rows():
    """Row 11: ebs report --sort func at 1x, 4x, 16x samples; the slopes of
    log time and log peak RSS on log samples (perf's too, for comparison)."""
    sizes = ('1x', '4x', '16x')
    tasks = []
    for s in sizes:
        tasks.append(('e' + s, lambda s=s: ebs_run('report', SQL[('ebs', s)]['path'], ['--sort', 'func'])))
        tasks.append(('p' + s, lambda s=s: perf_run('report', SQL[('perf', s)]['path'],
                                                     ['--stdio', '--sort', 'sym'])))
    progress('SQLite at 1x, 4x, 16x samples: report time and memory, %d rounds' % RUNS)
    res = interleave(tasks)

    def slope(ns, ys):
        xs = [math.log(n) for n in ns]
        ls = [math.log(y) for y in ys]
        mx, my = sum(xs) / len(xs), sum(ls) / len(ls)
        return sum((x - mx) * (y - my) for x, y in zip(xs, ls)) / sum((x - mx) ** 2 for x in xs)

    def fit(tool, pick):
        ns = [SQL[(tool, s)]['samples'] for s in sizes]
        ys = [med(pick(res[tool[0] + s])) for s in sizes]
        return slope(ns, ys), dict(zip(sizes, ns)), dict(zip(sizes, ys))

    e_t, ns, ts = fit('ebs', wall)
    e_m, _, ms = fit('ebs', rss)
    p_t, pns, pts = fit('perf', wall)
    p_m, _, pms = fit('perf', rss)
    # the exponent from each round's own times, for a spread
    per_round = [slope([ns[s] for s in sizes], [res['e' + s][i][0] for s in sizes])
                 for i in range(RUNS)]
    set_value('growth_time', e_t, min(per_round + [e_t]), max(per_round + [e_t]), n=RUNS, samples=ns,
              ebs_seconds=ts, perf_exponent=p_t, perf_samples=pns, perf_seconds=pts)
    per_round = [slope([ns[s] for s in sizes], [res['e' + s][i][2] for s in sizes])
                 for i in range(RUNS)]
    set_value('growth_rss', e_m, min(per_round + [e_m]), max(per_round + [e_m]), n=RUNS, samples=ns,
              ebs_rss_mb=ms, perf_exponent=p_m, perf_rss_mb=pms)


def merge_row():
    """The merge row: MERGE_N recordings of one sqlwork each (by both tools);
    ebs report of all of them at once against ebs report of each, one after
    another (the first cold, the others with the cache it left: a user's
    "one by one"), and perf report of each (perf report reads one file)."""
    paths = {'ebs': [], 'perf': []}
    for i in range(MERGE_N):
        for tool in ('ebs', 'perf'):
            path = os.path.join(OUT, 'merge-%d.%s' % (i, tool))
            progress('merge row: recording %d of %d, %s record sqlwork %d at %d Hz'
                     % (i + 1, MERGE_N, tool, SQL_ROWS, HZ))
            measure(recorder(tool, HZ, path) + [SQLWORK, str(SQL_ROWS)], timeout=600)
            paths[tool].append(path)
    samples = [stats('ebs', p)['samples'] for p in paths['ebs']]

    def copies(tag):
        d = scratch(tag)
        out = []
        for i, p in enumerate(paths['ebs']):
            out.append(os.path.join(d, '%d.data' % i))
            shutil.copyfile(p, out[-1])
        xdg = os.path.join(d, 'xdg')
        os.mkdir(xdg)
        return d, out, dict(BASE_ENV, XDG_CACHE_HOME=xdg)

    def merged():
        d, files, env = copies('m')
        try:
            return measure([EBS, 'report', '--sort', 'func'] + [a for f in files for a in ('-i', f)],
                           env=env)
        finally:
            shutil.rmtree(d)

    def singles():
        d, files, env = copies('s')
        try:
            rs = [measure([EBS, 'report', '--sort', 'func', '-i', f], env=env) for f in files]
        finally:
            shutil.rmtree(d)
        return (sum(r[0] for r in rs), sum(r[1] for r in rs), sum(r[2] for r in rs),
                max(r[2] for r in rs))

    def perf_singles():
        rs = [perf_run('report', p, ['--stdio', '--sort', 'sym']) for p in paths['perf']]
        return sum(r[0] for r in rs), sum(r[1] for r in rs), sum(r[2] for r in rs)

    progress('merge row: %d rounds' % RUNS)
    res = interleave([('m', merged), ('s', singles), ('p', perf_singles)])
    m, s1, p = res['m'], res['s'], res['p']
    set_ratio('merge', wall(m), wall(s1), ebs_merged_median=med(wall(m)),
              ebs_singles_median=med(wall(s1)), component_unit='s',
              ebs_merged_cpu_median=med(cput(m)), ebs_singles_cpu_median=med(cput(s1)),
              rss_ratio=summary(rss(m), rss(s1))['ratio'],
              ebs_merged_rss_mb_median=med(rss(m)), ebs_singles_rss_mb_sum_median=med(rss(s1)),
              ebs_singles_rss_mb_max_median=med([r[3] for r in s1]),
              perf_singles_median=med(wall(p)), perf_ratio=summary(wall(m), wall(p))['ratio'],
              perf_rss_mb_sum_median=med(rss(p)), perf_rss_ratio=summary(rss(m), rss(p))['ratio'],
              recordings=MERGE_N, samples=samples,
              measured=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()))
    # the row is met when neither the time nor the memory is more than one by one's
    ROWS['merge']['met'] = ROWS['merge']['met'] and ROWS['merge']['rss_ratio'] <= 1.0


# ---- issue 34, H1: call graphs and perf.data -----------------------------------
SQLWORK_FP = os.environ.get('SQLWORK_FP', '')
CG_ITERS = max(1, env_int('CG_ITERS', 1))  # the -g recordings: 2 loops of this many sqlworks
CG_DWARF_HZ = env_int('CG_DWARF_HZ', 4000)  # perf's dwarf samples are 8 KB each
CG_PERFDATA_ITERS = max(1, env_int('CG_PERFDATA_ITERS', 4))


def cg_record(tool, args, iters, prog, tag, hz=HZ):
    """tool record ARGS (-g, --call-graph dwarf, or none) of 2 loops of
    iters x prog SQL_ROWS (iters 0: one prog SQL_ROWS): the path and its
    sample count."""
    path = os.path.join(OUT, 'cg-%s.%s' % (tag, 'ebs' if tool == 'ebs' else 'perf'))
    cmd = recorder(tool, hz, path)
    work = ['sh', '-c', LOOPS, prog, str(iters), str(SQL_ROWS)] if iters else [prog, str(SQL_ROWS)]
    cmd = cmd[:-1] + args + ['--'] + work
    progress('call-graph rows: recording %s: %s record %s, %s %s %d at %d Hz'
             % (tag, tool, ' '.join(args) or '(IP only)', '2 loops of %d x' % iters if iters else 'one',
                os.path.basename(prog), SQL_ROWS, hz))
    # perf 6.1's record dies at exit now and then (util/build-id.c's
    # assertion, stack smashing): at most twice again, as size_cg does
    for attempt in range(3):
        try:
            measure(cmd, timeout=1800)
            break
        except Failed as e:
            if attempt == 2:
                raise
            progress('  %s: %s; again' % (tool, e))
    return path, stats(tool, path)['samples']


def cg_rows():
    """Issue 34's rows 1, 2, 3 and 7: report --children of a -g (frame
    pointers) and a --call-graph dwarf recording against perf report
    --children -g none --stdio of perf's recording of the same work, ebs
    flamegraph against perf script, ebs report of perf's own perf.data (cold
    and warm) against perf report of that file, and the dwarf report's peak
    RSS.  Each ebs run reads a fresh copy with an empty XDG_CACHE_HOME (the
    first report) unless it says warm; interleaved, ratios per round."""
    fp = SQLWORK_FP or SQLWORK
    rec = {}
    held = {}
    held['fp'] = record_pair(
        'the -g recordings',
        lambda tool: rec.__setitem__((tool, 'fp'), cg_record(tool, ['-g'], CG_ITERS, fp, 'fp')),
        lambda tool: rec[(tool, 'fp')][1])
    # dwarf: one sqlwork (perf's file holds 8 KB of stack per sample)
    held['dwarf'] = record_pair(
        'the dwarf recordings',
        lambda tool: rec.__setitem__((tool, 'dwarf'), cg_record(
            tool, ['--call-graph', 'dwarf'], 0, SQLWORK, 'dwarf', CG_DWARF_HZ)),
        lambda tool: rec[(tool, 'dwarf')][1])
    rec[('perf', 'ip')] = cg_record('perf', [], CG_PERFDATA_ITERS, SQLWORK, 'ip')
    # perfdata_warm's cache: an ebs report of another perf.data of the same program
    other = cg_record('perf', [], 0, SQLWORK, 'ip-other')[0]
    warm = warm_cache('cg-perfdata', other)
    # the -g rows' warm cache: what a report --children of another recording left
    warm_fp = warm_dw = None
    if HAVE_CACHE:
        warm_fp = os.path.join(OUT, 'xdg-warm-cg-fp')
        warm_dw = os.path.join(OUT, 'xdg-warm-cg-dwarf')
        for d, p in ((warm_fp, cg_record('ebs', ['-g'], 0, fp, 'fp-other')[0]),
                     (warm_dw, cg_record('ebs', ['--call-graph', 'dwarf'], 0, SQLWORK,
                                         'dwarf-other', CG_DWARF_HZ)[0])):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            capture([EBS, 'report', '--children', '-i', p], env=dict(BASE_ENV, XDG_CACHE_HOME=d))
    efp, pfp = rec[('ebs', 'fp')][0], rec[('perf', 'fp')][0]
    edw, pdw = rec[('ebs', 'dwarf')][0], rec[('perf', 'dwarf')][0]
    pip = rec[('perf', 'ip')][0]
    svg_dir = scratch('svg')
    svg = os.path.join(svg_dir, 'out.svg')
    children = ['--children', '-g', 'none', '--stdio']
    tasks = [
        ('e_fp', lambda: ebs_run('report', efp, ['--children'])),
        ('p_fp', lambda: perf_run('report', pfp, children)),
        ('e_dw', lambda: ebs_run('report', edw, ['--children'])),
        ('p_dw', lambda: perf_run('report', pdw, children)),
        ('e_flame', lambda: ebs_run('flamegraph', efp, ['-o', svg])),
        ('p_script', lambda: perf_run('script', pfp, [])),
        ('e_pd', lambda: ebs_run('report', pip, ['--sort', 'func'])),
        ('p_pd', lambda: perf_run('report', pip, ['--stdio', '--sort', 'sym'])),
    ]
    # perf's own collapse script (Python, one call per sample), for information:
    # Brendan Gregg's stackcollapse-perf.pl and flamegraph.pl are not in Debian
    collapse = os.path.join(sh(['perf', '--exec-path']), 'scripts', 'python', 'stackcollapse.py')
    if os.path.isfile(collapse):
        tasks.append(('p_collapse', lambda: perf_run('script', pfp, ['-s', collapse])))
    if HAVE_CACHE:
        tasks += [
            ('e_fp_warm', lambda: ebs_run('report', efp, ['--children'], 'warm', warm_fp)),
            ('e_dw_warm', lambda: ebs_run('report', edw, ['--children'], 'warm', warm_dw)),
            ('e_pd_warm', lambda: ebs_run('report', pip, ['--sort', 'func'], 'warm', warm)),
        ]
    progress('call-graph and perf.data rows: %d rounds' % RUNS)
    res = interleave(tasks)
    shutil.rmtree(svg_dir)
    n = lambda k: {'ebs': rec[('ebs', k)][1], 'perf': rec[('perf', k)][1]}  # noqa: E731
    stamp = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())

    def warm_fields(key):
        if key not in res:
            return {}
        return {'warm_ebs_median': med(wall(res[key])),
                'warm_ratio': summary(wall(res[key]), wall(res[key.replace('e_', 'p_', 1)
                                                              .replace('_warm', '')]))['ratio']}
    set_ratio('children_fp', wall(res['e_fp']), wall(res['p_fp']),
              **pair_fields(wall(res['e_fp']), wall(res['p_fp'])), samples=n('fp'),
              samples_comparable=held['fp'],
              ebs_cpu_median=med(cput(res['e_fp'])), perf_cpu_median=med(cput(res['p_fp'])),
              frame_pointers=bool(SQLWORK_FP), measured=stamp, **warm_fields('e_fp_warm'))
    set_ratio('children_dwarf', wall(res['e_dw']), wall(res['p_dw']),
              **pair_fields(wall(res['e_dw']), wall(res['p_dw'])), samples=n('dwarf'),
              samples_comparable=held['dwarf'],
              hz=CG_DWARF_HZ, ebs_cpu_median=med(cput(res['e_dw'])),
              perf_cpu_median=med(cput(res['p_dw'])), measured=stamp,
              bytes={'ebs': os.path.getsize(edw), 'perf': os.path.getsize(pdw)},
              **warm_fields('e_dw_warm'))
    set_ratio('flamegraph', wall(res['e_flame']), wall(res['p_script']),
              **pair_fields(wall(res['e_flame']), wall(res['p_script'])), samples=n('fp'),
              samples_comparable=held['fp'],
              measured=stamp)
    if 'p_collapse' in res:
        ROWS['flamegraph'].update(
            perf_stackcollapse_median=med(wall(res['p_collapse'])),
            perf_stackcollapse_ratio=summary(wall(res['e_flame']), wall(res['p_collapse']))['ratio'])
    pd_n = {'perf': rec[('perf', 'ip')][1]}
    set_ratio('perfdata_cold', wall(res['e_pd']), wall(res['p_pd']),
              **pair_fields(wall(res['e_pd']), wall(res['p_pd'])), samples=pd_n,
              ebs_rss_mb_median=med(rss(res['e_pd'])), perf_rss_mb_median=med(rss(res['p_pd'])),
              measured=stamp)
    if 'e_pd_warm' not in res:
        skip(['perfdata_warm'], 'this ebs has no DSO cache (no --no-cache in ebs report --help)')
    else:
        set_ratio('perfdata_warm', wall(res['e_pd_warm']), wall(res['p_pd']),
                  **pair_fields(wall(res['e_pd_warm']), wall(res['p_pd'])), samples=pd_n,
                  measured=stamp)
    set_ratio('rss_dwarf', rss(res['e_dw']), rss(res['p_dw']),
              **pair_fields(rss(res['e_dw']), rss(res['p_dw']), 'MB'), samples=n('dwarf'),
              samples_comparable=held['dwarf'],
              measured=stamp)
# ---- end of issue 34, H1's functions -------------------------------------------


# ---- ebs view's page (issue 33) ----------------------------------------------------
HAVE_VIEW = subprocess.run([EBS, 'view', '--help'], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL).returncode == 0
# what browse.py does with the page: load it, then select the middle half of the
# timeline's buckets once the first draw is done
VIEW_ACTIONS = """ready 120
time new Promise(function (r) { var B = ebsView.data.nbuckets; ebsView.selectTime(Math.floor(B / 4), Math.floor(3 * B / 4)); requestAnimationFrame(function () { setTimeout(r, 0); }); })
eval [ebsView.timings, ebsView.selection().cli, ebsView.data.nbuckets]
"""


def open_page(page):
    """The page in a new headless Chromium: (navigation to ebsView.ready in s,
    ebsView.timings after a time selection, the selection's wall ms to the next frame)."""
    r = subprocess.run([sys.executable, os.path.join(TOP, 'tests', 'tools', 'browse.py'), page, CHROMIUM],
                       input=VIEW_ACTIONS.encode(), capture_output=True, timeout=600)
    if r.returncode != 0:
        raise Failed('browse.py %s: %s' % (os.path.basename(page), last_line(r.stderr)))
    out = {}
    for l in r.stdout.decode().splitlines():
        k, v = l.split('\t', 1)
        out.setdefault(k, []).append(json.loads(v))
    if out['errors'][0] or out['requests'][0]:
        raise Failed('the page of %s: errors %s, requests %s' % (os.path.basename(page), out['errors'][0],
                                                               out['requests'][0]))
    timings, cli, _ = out['eval'][0]
    if not cli.startswith('--time '):
        raise Failed('selectTime gave the selection %r' % cli)
    return out['ready'][0]['ms'] / 1000.0, out['ready'][0].get('timings') or {}, timings, out['time'][0]['ms']


def view_rows():
    """ebs view of the ebs SQLite recordings 1x, 4x, 16x: its time against ebs
    report --sort func of the same file, the page's size, its open and draw time
    in headless Chromium and a time selection's update (ebsView.timings), RUNS
    rounds, the sizes in turn (reversed every other round)."""
    if not HAVE_VIEW:
        raise Failed('this ebs has no view command')
    if not CHROMIUM:
        raise Failed('no chromium to open the page (Debian: chromium; or CHROMIUM=PATH)')
    sizes = ('1x', '4x', '16x')
    res = {s: {'write': [], 'report': [], 'bytes': [], 'open': [], 'update': [], 'wall': [], 'draw': [],
               'parse': []} for s in sizes}
    progress('ebs view of SQLite at 1x, 4x, 16x: write, size, open and draw, a selection; %d rounds' % RUNS)
    for i in range(RUNS):
        for s in (sizes if i % 2 == 0 else sizes[::-1]):
            data = SQL[('ebs', s)]['path']
            page = os.path.join(OUT, 'view-%s.html' % s)
            res[s]['write'].append(ebs_run('view', data, ['-o', page])[0])
            res[s]['report'].append(ebs_run('report', data, ['--sort', 'func'])[0])
            res[s]['bytes'].append(os.path.getsize(page))
            ms, first, t, wall_ms = open_page(page)
            res[s]['open'].append(ms)
            res[s]['parse'].append(first.get('parse_ms'))
            res[s]['draw'].append(first.get('draw_ms'))
            res[s]['update'].append(t.get('update_ms'))
            res[s]['wall'].append(wall_ms)
    samples = {s: SQL[('ebs', s)]['samples'] for s in sizes}
    by = lambda k: {s: med([x for x in res[s][k] if x is not None]) for s in sizes}  # noqa: E731
    big = res['16x']
    set_ratio('view_write', big['write'], big['report'], by_size=by('write'), component_unit='s',
              ebs_view_median=med(big['write']), ebs_report_median=med(big['report']), samples=samples)
    mb = [b / 1048576.0 for b in big['bytes']]
    set_value('view_size', med(mb), min(mb), max(mb),
              by_size={s: med(res[s]['bytes']) / 1048576.0 for s in sizes}, component_unit='MB',
              bytes_per_sample={s: med(res[s]['bytes']) / samples[s] for s in sizes}, samples=samples)
    set_value('view_open', med(big['open']), min(big['open']), max(big['open']), n=RUNS,
              by_size=by('open'), component_unit='s', parse_ms=by('parse'), draw_ms=by('draw'),
              samples=samples)
    up = [x for x in big['update'] if x is not None]
    if not up:
        raise Failed('the page gives no ebsView.timings.update_ms')
    set_value('view_update', med(up), min(up), max(up), n=len(up), by_size=by('update'),
              component_unit='ms', wall_ms=by('wall'), samples=samples)
    for k in VIEW_ROWS:
        ROWS[k]['measured'] = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())


# ---- issue 34 (H4 "warm"): ONLY=warm, the warm-cache rows alone ---------------
def reuse_sqlite(tool, size, iters, minimum):
    """REUSE=1: an earlier run's recording in OUT, when it reads and holds
    minimum samples (ONLY=warm and ONLY=view while developing: recording
    takes minutes)."""
    path = os.path.join(OUT, 'sqlite-%s.%s' % (size, 'ebs' if tool == 'ebs' else 'perf'))
    try:
        st = stats(tool, path)
    except Exception:  # noqa: BLE001 - absent or unreadable: recorded again
        return False
    if st['samples'] < max(minimum, 1):
        return False
    progress('reusing %s (%d samples)' % (path, st['samples']))
    st.update(path=path, iterations=iters, bytes=os.path.getsize(path))
    SQL[(tool, size)] = st
    return True


def warm_rows(res, samples):
    """Rows 2, 4 and 16 from report_block's (or warm_only's) runs."""
    set_ratio('func_warm', wall(res['e_func_warm']), wall(res['p_sym']),
              **pair_fields(wall(res['e_func_warm']), wall(res['p_sym'])), samples=samples,
              ebs_rss_mb_median=med(rss(res['e_func_warm'])))
    set_ratio('noinline_warm', wall(res['e_noinl_warm']), wall(res['p_sym']),
              **pair_fields(wall(res['e_noinl_warm']), wall(res['p_sym'])), samples=samples)
    set_ratio('annotate_warm', wall(res['e_ann_warm']), wall(res['p_ann']),
              **pair_fields(wall(res['e_ann_warm']), wall(res['p_ann'])), function=res['hot'],
              samples=samples, ebs_rss_mb_median=med(rss(res['e_ann_warm'])),
              after_report_ebs_median=med(wall(res['e_ann_after_report'])),
              after_report_ratio=summary(wall(res['e_ann_after_report']),
                                         wall(res['p_ann']))['ratio'])


def warm_only():
    """ONLY=warm: the SQLite recordings the warm rows need (1x for the caches,
    16x measured, both tools; REUSE=1 takes OUT's from an earlier run),
    then func_warm, noinline_warm and annotate_warm against perf's report and
    annotate, RUNS rounds interleaved."""
    for tool in ('ebs', 'perf'):
        for size, iters, least in (('1x', max(1, LARGE_ITERS // 16), 0),
                                   ('16x', LARGE_ITERS, MIN_SAMPLES)):
            if not (REUSE and reuse_sqlite(tool, size, iters, least)):
                record_sqlite(tool, size, iters, least)
    large_e, large_p = SQL[('ebs', '16x')]['path'], SQL[('perf', '16x')]['path']
    warm = warm_cache('sqlite', SQL[('ebs', '1x')]['path'])
    warm_ann = warm_cache('sqlite-ann', SQL[('ebs', '1x')]['path'], 'annotate')
    if not warm:
        raise Failed('this ebs has no DSO cache')
    hot = hottest(large_e, 'sqlwork')
    progress('SQLite, large profile: warm reports and annotate, %d rounds' % RUNS)
    res = interleave([
        ('p_sym', lambda: perf_run('report', large_p, ['--stdio', '--sort', 'sym'])),
        ('e_func_warm', lambda: ebs_run('report', large_e, ['--sort', 'func'], 'warm', warm)),
        ('e_noinl_warm', lambda: ebs_run('report', large_e, ['--sort', 'func', '--no-inline'],
                                         'warm', warm)),
        ('p_ann', lambda: perf_run('annotate', large_p, ['--stdio', hot])),
        ('e_ann_warm', lambda: ebs_run('annotate', large_e, [hot], 'warm', warm_ann)),
        ('e_ann_after_report', lambda: ebs_run('annotate', large_e, [hot], 'warm', warm)),
    ])
    res['hot'] = hot
    warm_rows(res, {'ebs': SQL[('ebs', '16x')]['samples'], 'perf': SQL[('perf', '16x')]['samples']})
    for k in WARM_ROWS:
        ROWS[k]['measured'] = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())


WARM_ROWS = ['func_warm', 'noinline_warm', 'annotate_warm']


def view_only():
    """ONLY=view: ebs's three SQLite recordings (as the whole bench makes them), then the rows."""
    for size, iters in (('1x', max(1, LARGE_ITERS // 16)), ('4x', max(1, LARGE_ITERS // 4)),
                        ('16x', LARGE_ITERS)):
        least = MIN_SAMPLES if size == '16x' else 0
        if not (REUSE and reuse_sqlite('ebs', size, iters, least)):  # issue 34: REUSE=1
            record_sqlite('ebs', size, iters, least)
    view_rows()


# issue 34 (H3): ONLY=report, the first and warm reports and annotate of the large recording
REPORT_ROWS = ['func', 'func_warm', 'noinline', 'noinline_warm', 'line_func', 'annotate', 'rss',
               'annotate_warm']


def report_only():
    """ONLY=report: the SQLite recordings those rows read (ebs 1x for the warm caches, both
    tools' 16x, as the whole bench makes them), then the rows (sqlite_reports)."""
    record_sqlite('ebs', '1x', max(1, LARGE_ITERS // 16))
    for tool in ('ebs', 'perf'):
        record_sqlite(tool, '16x', LARGE_ITERS, MIN_SAMPLES)
    sqlite_reports()


def size_and_slowdown():
    """Rows 9 and 7: sqlwork alone, under ebs record and under perf record,
    interleaved (the order rotates each round), the program's own time
    through WRAP.  The slowdown is of the program's CPU time (user + system:
    the sample interrupts' cost is charged there): on this shared 2-core VM
    other work often runs alongside, and wall time then measures that more
    than the recorder (alone, sqlwork's wall time varied from 1.5 to 2.6 s
    within minutes while its CPU time stayed at 1.43 s).  On an idle machine
    a one-threaded program's wall and CPU time agree; the wall-time
    slowdowns are kept too (wall_*).  Row 7 takes the 10 kHz recordings'
    bytes per sample."""
    prog = WRAP + [SQLWORK, str(SQL_ROWS)]
    sizes = []
    for hz, key in ((1000, 'slow_1k'), (HZ, 'slow_10k')):
        progress('sqlwork %d alone, under ebs record, under perf record at %d Hz: %d rounds'
                 % (SQL_ROWS, hz, RUNS))
        d = scratch('slow')
        t = {'alone': [], 'ebs': [], 'perf': []}
        c = {'alone': [], 'ebs': [], 'perf': []}
        total = {'ebs': [], 'perf': []}
        kinds = ['alone', 'ebs', 'perf']
        for i in range(RUNS):
            for kind in kinds[i % 3:] + kinds[:i % 3]:
                if kind == 'alone':
                    w, _, cpu = timed(prog)
                    t[kind].append(w)
                    c[kind].append(cpu)
                    continue
                path = os.path.join(d, 'rec.' + kind)
                w, tot, cpu = timed(recorder(kind, hz, path) + prog)
                t[kind].append(w)
                c[kind].append(cpu)
                total[kind].append(tot)
                if hz == HZ:
                    st = stats(kind, path)
                    sizes.append((kind, i, os.path.getsize(path) / st['samples'], st['samples']))
        se = [(e - a) / a for e, a in zip(c['ebs'], c['alone'])]
        sp = [(p - a) / a for p, a in zip(c['perf'], c['alone'])]
        we = [(e - a) / a for e, a in zip(t['ebs'], t['alone'])]
        wp = [(p - a) / a for p, a in zip(t['perf'], t['alone'])]
        wr = [a / b for a, b in zip(we, wp) if b > 0]
        set_ratio(key, se, sp, ebs_slowdown_median=med(se), perf_slowdown_median=med(sp),
                  alone_cpu_median=med(c['alone']), ebs_cpu_median=med(c['ebs']),
                  perf_cpu_median=med(c['perf']), component_unit='s', hz=hz,
                  pairs_dropped=sum(1 for p in sp if p <= 0),
                  ratio_of_medians=med(se) / med(sp) if med(sp) > 0 else None,
                  wall_alone_median=med(t['alone']), wall_ebs_median=med(t['ebs']),
                  wall_perf_median=med(t['perf']), wall_ebs_slowdown_median=med(we),
                  wall_perf_slowdown_median=med(wp), wall_ratio_median=med(wr),
                  ebs_total_median=med(total['ebs']), perf_total_median=med(total['perf']))
        if hz == HZ:
            eb = [b for k, i, b, n in sizes if k == 'ebs']
            pb = [b for k, i, b, n in sizes if k == 'perf']
            set_ratio('size', eb, pb, ebs_median=med(eb), perf_median=med(pb),
                      component_unit='bytes/sample',
                      samples={'ebs': med([n for k, i, b, n in sizes if k == 'ebs']),
                               'perf': med([n for k, i, b, n in sizes if k == 'perf'])})
        shutil.rmtree(d)
    if ('ebs', '16x') in SQL:
        le, lp = SQL[('ebs', '16x')], SQL[('perf', '16x')]
        ROWS['size']['large'] = {'ebs': le['bytes'] / le['samples'], 'perf': lp['bytes'] / lp['samples'],
                                 'ratio': (le['bytes'] / le['samples']) / (lp['bytes'] / lp['samples']),
                                 'samples': {'ebs': le['samples'], 'perf': lp['samples']}}


def recorder_cpu():
    """Row 8, the recorder's own CPU time per sample.  Method: sqlwork is
    started first, then the recorder attaches to it with -p PID; both ebs
    record -p and perf record -p end by themselves when the process they
    follow exits (checked here: the recorder is waited for with a timeout,
    and its exit lag after the program's is kept).  The recorder is then a
    child of ours that never forked the program, so wait4's rusage for it
    (ru_utime + ru_stime) is its CPU time alone: draining the ring buffers,
    writing the file, its start and end (perf's build-id pass included);
    the kernel's cost of taking each sample is charged to the program, not
    to the recorder.  Divided by the samples the file holds."""
    progress('sqlwork %d with ebs record -p and perf record -p attached at %d Hz: %d rounds'
             % (SQL_ROWS, HZ, RUNS))
    d = scratch('cpu')
    cpu = {'ebs': [], 'perf': []}
    per = {'ebs': [], 'perf': []}
    lag = {'ebs': [], 'perf': []}
    nsamp = {'ebs': [], 'perf': []}
    for i in range(RUNS):
        for tool in (('ebs', 'perf') if i % 2 == 0 else ('perf', 'ebs')):
            path = os.path.join(d, 'rec.' + tool)
            work = subprocess.Popen([SQLWORK, str(SQL_ROWS)], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, env=BASE_ENV)
            ended = []
            waiter = threading.Thread(target=lambda: (work.wait(), ended.append(time.monotonic())))
            waiter.start()
            try:
                # a recorder that outlives its program by a minute is killed: Failed
                r = measure(recorder(tool, HZ, path, work.pid), timeout=120)
            except Failed:
                work.kill()
                raise
            finally:
                waiter.join()
            done = time.monotonic()
            st = stats(tool, path)
            cpu[tool].append(r[1])
            per[tool].append(r[1] / st['samples'])
            nsamp[tool].append(st['samples'])
            lag[tool].append(done - ended[0])
    set_ratio('rec_cpu', per['ebs'], per['perf'], ebs_median=med(per['ebs']) * 1e6,
              perf_median=med(per['perf']) * 1e6, component_unit='us/sample',
              ebs_cpu_s_median=med(cpu['ebs']), perf_cpu_s_median=med(cpu['perf']),
              samples={'ebs': med(nsamp['ebs']), 'perf': med(nsamp['perf'])},
              exit_lag_s={'ebs': med(lag['ebs']), 'perf': med(lag['perf'])})
    shutil.rmtree(d)


# ---- issue 34 (H5 "size"): the -g file size rows -------------------------------
def size_cg():
    """Rows size_fp and size_dwarf: sqlwork recorded with call graphs by ebs
    record and perf record in turn (the order alternating each round), each
    tool's defaults for -g (frame pointers: ebs also copies 512 bytes of
    stack and BP, SP, IP for the leaf's caller) at 10 kHz, and for
    --call-graph dwarf (8 KiB of stack and the user registers) at 1 kHz,
    where perf.data takes some 8.5 KB a sample; the file's bytes over the
    samples it holds (ebs report --json, perf report --stats), ebs's over
    perf's per round.  perf record 6.1 -g sometimes dies at its end (here
    two runs of some twenty: "assertion failed at util/build-id.c:1010", "stack
    smashing detected"): a recording that fails is made again, at most
    twice, and the retries are counted (retries)."""
    d = scratch('size_cg')
    for key, cg, hz in (('size_fp', ['-g'], HZ), ('size_dwarf', ['--call-graph', 'dwarf'], 1000)):
        progress('sqlwork %d under ebs record and perf record %s at %d Hz: %d rounds'
                 % (SQL_ROWS, ' '.join(cg), hz, RUNS))
        per = {'ebs': [], 'perf': []}
        nsamp = {'ebs': [], 'perf': []}
        nbytes = {'ebs': [], 'perf': []}
        retries = {'ebs': 0, 'perf': 0}
        for i in range(RUNS):
            for tool in (('ebs', 'perf') if i % 2 == 0 else ('perf', 'ebs')):
                path = os.path.join(d, 'rec.' + tool)
                cmd = recorder(tool, hz, path)
                for attempt in range(3):
                    try:
                        measure(cmd[:-1] + cg + ['--', SQLWORK, str(SQL_ROWS)], timeout=600)
                        break
                    except Failed as e:
                        if attempt == 2:
                            raise
                        progress('  %s: %s; again' % (tool, e))
                        retries[tool] += 1
                st = stats(tool, path)
                size = os.path.getsize(path)
                per[tool].append(size / st['samples'])
                nsamp[tool].append(st['samples'])
                nbytes[tool].append(size)
                os.unlink(path)
        set_ratio(key, per['ebs'], per['perf'], ebs_median=med(per['ebs']),
                  perf_median=med(per['perf']), component_unit='bytes/sample', hz=hz,
                  samples={t: med(nsamp[t]) for t in nsamp},
                  file_bytes={t: med(nbytes[t]) for t in nbytes}, retries=retries)
    shutil.rmtree(d)
# ---- end of issue 34 (H5) functions --------------------------------------------


def drain():
    """Row 10, how many samples a second each recorder writes without
    losing any, pushed as hard as this machine allows.  Method: two busy
    programs (the 2,000-function program, DRAIN_WORK rounds each, both cores
    busy) recorded at the highest rate used here: the kernel's
    perf_event_max_sample_rate, capped at DRAIN_HZ (default 40,000) because
    cpu-clock at this kernel's 100,000 Hz starves this VM (each interrupt
    costs ~25-45 us: soft lockups, the programs make no progress), with each
    recorder's default ring buffer (128 data pages per CPU, not the 1-page
    starvation case).  A recorder that drains too slowly loses samples
    (ebs: 'lost' in report --json; perf: LOST_SAMPLES in report --stats), and
    one that takes CPU from the programs lets fewer samples be taken.  The
    rate is the samples in the file over the programs' wall time under the
    recorder (WRAP); the row is ebs's rate over perf's, per run pair, and is
    met only when ebs lost none.  Samples per second of the programs' CPU
    time are kept too: cpu-clock samples the CPU time the programs get, so
    that figure moves only with losses, the wall-time rate also with the
    CPU the recorder (or other work on the machine) takes from them."""
    if not BIG:
        raise Failed('the 2,000-function program was not built')
    try:
        kmax = int(open('/proc/sys/kernel/perf_event_max_sample_rate').read())
    except (OSError, ValueError):
        kmax = DRAIN_HZ
    hz = min(kmax, DRAIN_HZ)
    progress('two busy programs at %d Hz (kernel max %d) under ebs and perf record: %d rounds'
             % (hz, kmax, RUNS))
    prog = WRAP + ['sh', '-c', '"$0" "$1" & "$0" "$1"; wait', BIG, str(DRAIN_WORK)]
    d = scratch('drain')
    rate = {'ebs': [], 'perf': []}
    per_cpu = {'ebs': [], 'perf': []}
    lost = {'ebs': [], 'perf': []}
    nsamp = {'ebs': [], 'perf': []}
    for i in range(RUNS):
        for tool in (('ebs', 'perf') if i % 2 == 0 else ('perf', 'ebs')):
            path = os.path.join(d, 'rec.' + tool)
            w, _, c = timed(recorder(tool, hz, path) + prog, timeout=300)
            st = stats(tool, path)
            rate[tool].append(st['samples'] / w)
            per_cpu[tool].append(st['samples'] / c)
            lost[tool].append(st['lost'] + st.get('lost_chunks', 0))
            nsamp[tool].append(st['samples'])
    set_ratio('drain', rate['ebs'], rate['perf'], ebs_median=med(rate['ebs']),
              perf_median=med(rate['perf']), component_unit='samples/s', hz=hz,
              kernel_max_hz=kmax, lost={'ebs': sum(lost['ebs']), 'perf': sum(lost['perf'])},
              samples={'ebs': med(nsamp['ebs']), 'perf': med(nsamp['perf'])},
              per_program_cpu_s={'ebs': med(per_cpu['ebs']), 'perf': med(per_cpu['perf'])})
    r = ROWS['drain']
    r['met'] = r['met'] and sum(lost['ebs']) == 0
    shutil.rmtree(d)


def proc_cpu(pid):
    """CPU seconds (user + system, all threads) of a running process, from /proc."""
    with open('/proc/%d/stat' % pid) as f:
        v = f.read().rsplit(')', 1)[1].split()
    return (int(v[11]) + int(v[12])) / os.sysconf('SC_CLK_TCK')


def top_run(cmd, seconds):
    """cmd (a live view that runs until stopped) for seconds, then SIGINT, as
    Ctrl-C: (wall s, CPU s) of its process from wait4 (its waited-for
    children included), and its CPU share after its first TOP_STEADY s
    (/proc/PID/stat then, the rusage at the end): its steady state."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=BASE_ENV, start_new_session=True)
    mark = []

    def at_steady():
        try:
            mark.append((time.monotonic(), proc_cpu(p.pid)))
        except (OSError, IndexError, ValueError):
            pass
    steady = threading.Timer(TOP_STEADY, at_steady)
    timer = threading.Timer(seconds, lambda: os.kill(p.pid, signal.SIGINT))
    kill = threading.Timer(seconds + 60, lambda: os.killpg(p.pid, signal.SIGKILL))
    for t in (steady, timer, kill):
        t.start()
    try:
        _, status, ru = os.wait4(p.pid, 0)
    finally:
        for t in (steady, timer, kill):
            t.cancel()
    t1 = time.monotonic()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, -signal.SIGINT, 130):
        raise Failed('%s: exit status %d' % (os.path.basename(cmd[0]), code))
    cpu = ru.ru_utime + ru.ru_stime
    if not mark:
        raise Failed('%s: ended before %d s' % (os.path.basename(cmd[0]), TOP_STEADY))
    return t1 - t0, cpu, (cpu - mark[0][1]) / (t1 - mark[0][0])


def top_cpu():
    """Issue 33, ebs top's own cost: its CPU time over its wall time (start
    and end included), every CPU sampled at 1 kHz while two busy loops take
    both CPUs, its tables (one a second) to /dev/null; and the same after
    its first TOP_STEADY s (its start: the walk of /proc, kallsyms, the
    symbol tables).  perf top --stdio the same way (cpu-clock, as ebs's
    cycles falls back to on a machine without a PMU), interleaved; each
    stopped by SIGINT after TOP_SECONDS.  min(RUNS, 3) rounds: each takes
    two minutes."""
    rounds = min(RUNS, 3)
    progress('ebs top -a and perf top -a at 1000 Hz for %d s each, 2 busy loops: %d rounds'
             % (TOP_SECONDS, rounds))
    busy = [subprocess.Popen(['sh', '-c', 'while :; do :; done'], stdin=subprocess.DEVNULL,
                             start_new_session=True) for _ in range(2)]
    pct = {'ebs': [], 'perf': []}
    steady = {'ebs': [], 'perf': []}
    try:
        for i in range(rounds):
            for tool in (('ebs', 'perf') if i % 2 == 0 else ('perf', 'ebs')):
                if tool == 'ebs':
                    cmd = [EBS, 'top', '-a', '-F', '1000', '-d', '1']
                else:
                    cmd = ['perf', 'top', '--stdio', '-a', '-F', '1000', '-d', '1',
                           '-e', 'cpu-clock']
                w, c, st = top_run(cmd, TOP_SECONDS)
                pct[tool].append(100.0 * c / w)
                steady[tool].append(100.0 * st)
    finally:
        for b in busy:
            os.killpg(b.pid, signal.SIGKILL)
            b.wait()
    e, p = pct['ebs'], pct['perf']
    set_value('top_cpu', med(e), min(e), max(e), ebs_median=med(e), perf_median=med(p),
              component_unit='%', ratio=med([a / b for a, b in zip(e, p) if b > 0]),
              seconds=TOP_SECONDS, n=len(e), ebs_runs=e, perf_runs=p,
              steady_after_s=TOP_STEADY, ebs_steady_median=med(steady['ebs']),
              perf_steady_median=med(steady['perf']),
              measured=time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()))


# ---- issue 34, H2 "ovh": pin_1k, pin_10k, stat_100, monitor_cpu, libebs_read ----
OVH_ROWS = ('pin_1k', 'pin_10k', 'stat_100', 'monitor_cpu', 'libebs_read')
STAT_CMD = os.environ.get('STAT_CMD') or '/bin/true'
STAT_N = 100
MONITOR_SECONDS = env_int('MONITOR_SECONDS', 20)
READPAIR_ROUNDS = env_int('READPAIR_ROUNDS', 201)
# the pinned rows' rounds: their slowdowns (a few % at 1 kHz) are smaller
# than the VM's drift between runs, so they take more rounds than RUNS
PIN_ROUNDS = env_int('PIN_ROUNDS', 9)


# WRAP, and the CPU time of the wrapper's parent (the recorder: ebs record
# and perf record fork the program themselves) just before the program
# starts and just after it ends, in ns: the sum over its threads of
# /proc/PID/task/TID/schedstat's first field (the time on a CPU), read by
# bash's builtins alone, so that the reading forks nothing
PIN_WRAP = ['bash', '-c', 'rc() { RC=0; for f in /proc/$PPID/task/*/schedstat; do '
            'read -r a b <"$f" && RC=$((RC + a)); done; }; rc; r0=$RC; '
            's=$EPOCHREALTIME; "$@"; r=$?; e=$EPOCHREALTIME; rc; '
            '{ echo "$s $e"; times; echo "$r0 $RC"; } >"$BENCH_TIMES"; exit $r', 'wrap']


def pinned_slowdown():
    """Rows pin_1k and pin_10k: the recorder's cost where it competes with
    the program.  sqlwork alone, under ebs record and under perf record, each
    started under taskset -c CPU (the last CPU this process may use), so that
    the recorder and the program (its child, which inherits the mask) share
    one CPU, the order rotating each round.  On one CPU the program's wall
    time is its own CPU time plus the recorder's while it ran (and whatever
    else runs there): the slowdown is ((program CPU + recorder CPU while the
    program ran) under the recorder - program CPU alone) / program CPU alone,
    ebs's over perf's per round.  The program's CPU time carries the sample
    interrupts (alike for both tools) and what the recorder's runs cost the
    program's caches; the recorder's is read from /proc (PIN_WRAP), its start
    and end (perf's build-id pass) left out.  The sum is measured rather than
    the wall time, which on this shared VM measures other work on that CPU
    (the wall-time slowdowns are kept: wall_*)."""
    cpu = str(sorted(os.sched_getaffinity(0))[-1])
    pin = ['taskset', '-c', cpu]
    prog = PIN_WRAP + [SQLWORK, str(SQL_ROWS)]
    for hz, key in ((1000, 'pin_1k'), (HZ, 'pin_10k')):
        rounds = max(RUNS, PIN_ROUNDS)
        progress('sqlwork %d alone, under ebs record, under perf record at %d Hz, all on CPU %s: '
                 '%d rounds' % (SQL_ROWS, hz, cpu, rounds))
        d = scratch('pin')
        t = {'alone': [], 'ebs': [], 'perf': []}
        c = {'alone': [], 'ebs': [], 'perf': []}
        rec = {'ebs': [], 'perf': []}
        nsamp = {'ebs': [], 'perf': []}
        kinds = ['alone', 'ebs', 'perf']
        for i in range(rounds):
            for kind in kinds[i % 3:] + kinds[:i % 3]:
                if kind == 'alone':
                    w, _, pc, _ = timed(pin + prog, recorder_cpu=True)
                else:
                    path = os.path.join(d, 'rec.' + kind)
                    w, _, pc, rc = timed(pin + recorder(kind, hz, path) + prog, recorder_cpu=True)
                    rec[kind].append(rc)
                    nsamp[kind].append(stats(kind, path)['samples'])
                t[kind].append(w)
                c[kind].append(pc)
        se = [(e + r - a) / a for e, r, a in zip(c['ebs'], rec['ebs'], c['alone'])]
        sp = [(p + r - a) / a for p, r, a in zip(c['perf'], rec['perf'], c['alone'])]
        noise = 2 * max(mad(se), mad(sp))
        we = [(e - a) / a for e, a in zip(t['ebs'], t['alone'])]
        wp = [(p - a) / a for p, a in zip(t['perf'], t['alone'])]
        set_ratio(key, se, sp, ebs_slowdown_median=med(se), perf_slowdown_median=med(sp),
                  alone_cpu_median=med(c['alone']), ebs_cpu_median=med(c['ebs']),
                  perf_cpu_median=med(c['perf']), component_unit='s', hz=hz, cpu=int(cpu),
                  pairs_dropped=sum(1 for p in sp if p <= 0),
                  ratio_of_medians=med(se) / med(sp) if med(sp) > 0 else None,
                  recorder_cpu_s={'ebs': med(rec['ebs']), 'perf': med(rec['perf'])},
                  samples={'ebs': med(nsamp['ebs']), 'perf': med(nsamp['perf'])},
                  slowdowns={'ebs': se, 'perf': sp},
                  wall_alone_median=med(t['alone']), wall_ebs_median=med(t['ebs']),
                  wall_perf_median=med(t['perf']), wall_ebs_slowdown_median=med(we),
                  wall_perf_slowdown_median=med(wp), noise=noise)
        if med(sp) <= noise:
            unmeasurable(key, "perf's median slowdown (%+.1f%%) is within the rounds' noise "
                         "(twice the larger median absolute deviation, %.1f%%)"
                         % (100 * med(sp), 100 * noise))
        shutil.rmtree(d)


def stat_row():
    """Row stat_100: ebs stat -r 100 and perf stat -r 100 of STAT_CMD (a
    short command: /bin/true), each with its default events, and a shell
    loop that runs STAT_CMD 100 times, interleaved.  The overhead of a
    stat is its wall time less the loop's (fork, exec and wait of the
    command a hundred times, which both tools do too); the row is ebs's
    overhead over perf's per round (ratio: the plain wall times')."""
    progress('ebs stat -r %d, perf stat -r %d and a shell loop of %s: %d rounds'
             % (STAT_N, STAT_N, STAT_CMD, RUNS))
    loop = ['sh', '-c', 'i=0; while [ $i -lt %d ]; do "$@"; i=$((i + 1)); done' % STAT_N,
            'loop', STAT_CMD]
    res = interleave([
        ('ebs', lambda: measure([EBS, 'stat', '-r', str(STAT_N), '--', STAT_CMD])),
        ('perf', lambda: measure(['perf', 'stat', '-r', str(STAT_N), '--', STAT_CMD])),
        ('loop', lambda: measure(loop))])
    w = {k: [r[0] for r in v] for k, v in res.items()}
    oe = [e - l for e, l in zip(w['ebs'], w['loop'])]
    op = [p - l for p, l in zip(w['perf'], w['loop'])]
    set_ratio('stat_100', oe, op, ebs_median=med(oe) / STAT_N * 1e3,
              perf_median=med(op) / STAT_N * 1e3, component_unit='ms/run',
              command=STAT_CMD, runs_per_stat=STAT_N, wall_ebs_median=med(w['ebs']),
              wall_perf_median=med(w['perf']), wall_loop_median=med(w['loop']),
              ratio=med([a / b for a, b in zip(w['ebs'], w['perf'])]),
              cpu_ebs_median=med([r[1] for r in res['ebs']]),
              cpu_perf_median=med([r[1] for r in res['perf']]),
              cpu_loop_median=med([r[1] for r in res['loop']]))


def monitor_row():
    """Row monitor_cpu: ebs monitor's own cost at its default 10 Hz.  ebs
    monitor -a -i 100 --duration MONITOR_SECONDS and perf stat -a -I 100 --
    sleep MONITOR_SECONDS, the same two software events (the events ebs
    monitor falls back to without a PMU), every CPU, output to /dev/null
    (ebs monitor without a terminal prints a line per interval, as perf
    stat -I does), interleaved; each one's CPU time (wait4, the sleep
    included for perf) over its wall time, ebs's over perf's per round."""
    ev = 'task-clock,page-faults'
    progress('ebs monitor -a -i 100 and perf stat -a -I 100 for %d s each: %d rounds'
             % (MONITOR_SECONDS, RUNS))
    res = interleave([
        ('ebs', lambda: measure([EBS, 'monitor', '-a', '-i', '100', '-e', ev, '--duration',
                                 str(MONITOR_SECONDS)], timeout=MONITOR_SECONDS + 60)),
        ('perf', lambda: measure(['perf', 'stat', '-a', '-I', '100', '-e', ev, '--', 'sleep',
                                  str(MONITOR_SECONDS)], timeout=MONITOR_SECONDS + 60))])
    pct = {k: [100.0 * r[1] / r[0] for r in v] for k, v in res.items()}
    set_ratio('monitor_cpu', pct['ebs'], pct['perf'], ebs_median=med(pct['ebs']),
              perf_median=med(pct['perf']), component_unit='%', seconds=MONITOR_SECONDS,
              events=ev, ebs_runs=pct['ebs'], perf_runs=pct['perf'])


def libebs_read():
    """Row libebs_read: bench/readpair.c, built here against the build's
    libebs.a, RUNS times: the medians over READPAIR_ROUNDS rounds of the
    ns per ebs_count_read() of a set of three software events and per bare
    read(2) of the same group opened by hand (the same read_format), in
    alternating batches of 1,000; the least batch's ns per read (the cost
    nothing disturbed), libebs's over the bare one's per run (the medians'
    ratios kept: median_ratios)."""
    src = os.path.join(TOP, 'bench', 'readpair.c')
    lib = os.path.join(os.path.dirname(EBS), 'libebs.a')
    exe = os.path.join(OUT, 'readpair')
    if not os.path.exists(lib):
        raise Failed('%s is not built (make all)' % lib)
    capture(['gcc', '-O2', '-I', os.path.join(TOP, 'include'), '-o', exe, src, lib, '-lm'])
    ev = 'task-clock,page-faults,context-switches'
    progress('libebs read pairs against bare read(2) of %s: %d runs' % (ev, RUNS))
    lib_ns, bare_ns, lib_med, bare_med, path = [], [], [], [], None
    for _ in range(RUNS):
        m = re.match(r'libebs_ns (\S+) bare_ns (\S+) libebs_median_ns (\S+) bare_median_ns (\S+) '
                     r'path (\S+)', capture([exe, ev, str(READPAIR_ROUNDS), '1000']))
        if not m:
            raise Failed('readpair printed no figures')
        lib_ns.append(float(m.group(1)))
        bare_ns.append(float(m.group(2)))
        lib_med.append(float(m.group(3)))
        bare_med.append(float(m.group(4)))
        path = m.group(5)
    set_ratio('libebs_read', lib_ns, bare_ns, ebs_median=med(lib_ns),
              bare_median=med(bare_ns), component_unit='ns/read', events=ev, read_path=path,
              rounds=READPAIR_ROUNDS, median_ratios=[a / b for a, b in zip(lib_med, bare_med)],
              ebs_median_of_medians=med(lib_med), bare_median_of_medians=med(bare_med))


def ovh_rows():
    """Issue 34's overhead rows (H2), in main() and ONLY=ovh."""
    if SQLWORK:
        step(['pin_1k', 'pin_10k'], pinned_slowdown)
    else:
        skip(['pin_1k', 'pin_10k'], 'SQLite: ' + SQLITE_WHY)
    step(['stat_100'], stat_row)
    step(['monitor_cpu'], monitor_row)
    step(['libebs_read'], libebs_read)
# ---- end of issue 34 H2 functions ----


# ---- the machine ----------------------------------------------------------------
def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, cwd=TOP).stdout.decode().strip()
    except OSError:
        return ''


def machine():
    cpu = '?'
    try:
        for l in open('/proc/cpuinfo'):
            if l.startswith('model name'):
                cpu = l.split(':', 1)[1].strip()
                break
        mem = [int(l.split()[1]) for l in open('/proc/meminfo') if l.startswith('MemTotal:')][0]
    except (OSError, IndexError, ValueError):
        mem = 0
    rev = sh(['git', 'rev-parse', 'HEAD'])
    dirty = bool(sh(['git', 'status', '--porcelain', '--untracked-files=no']))
    try:
        kmax = int(open('/proc/sys/kernel/perf_event_max_sample_rate').read())
    except (OSError, ValueError):
        kmax = None
    return {
        'kernel': platform.release(), 'cpu': cpu, 'cores': os.cpu_count(),
        'memory_gb': round(mem / 1048576, 1), 'perf': sh(['perf', '--version']),
        'ebs_rev': rev[:12], 'ebs_dirty': dirty,
        'date': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
        'runs': RUNS, 'perf_event_max_sample_rate': kmax,
        'ebs_dso_cache': HAVE_CACHE, 'loadavg_start': os.getloadavg()[0],
    }


def main():
    m = machine()
    progress('ebs %s%s, %s, RUNS=%d, the DSO cache %s' % (
        m['ebs_rev'], ' (dirty)' if m['ebs_dirty'] else '', m['perf'], RUNS,
        'measured warm and empty' if HAVE_CACHE else 'absent'))
    if m['loadavg_start'] > 0.5:
        progress('load average %.2f: other work is running, the figures will be noisier'
                 % m['loadavg_start'])
    if ONLY:
        return only(m)
    step([], gen_profile)
    if SQLWORK:
        step([k for k in ORDER if k not in ('drain', 'size', 'rec_cpu', 'slow_1k', 'slow_10k')
              + OVH_ROWS + ('size_fp', 'size_dwarf')],  # size_cg's: no SQLite recording needed
             sqlite_recordings)
        if ('ebs', '16x') in SQL and ('perf', '16x') in SQL:
            step(['func', 'func_warm', 'noinline', 'noinline_warm', 'line_func', 'annotate', 'rss',
                  'annotate_warm'],
                 sqlite_reports)
            step(['line'], line_rows)
            step(['growth_time', 'growth_rss'], growth_rows)
        if ('ebs', '16x') in SQL:
            step(list(VIEW_ROWS), view_rows)
        step(['slow_1k', 'slow_10k', 'size'], size_and_slowdown)
        step(['rec_cpu'], recorder_cpu)
        step(['size_fp', 'size_dwarf'], size_cg)  # issue 34 (H5)
        step(['merge'], merge_row)
        step(list(CG_ROWS), cg_rows)  # issue 34, H1
    if 'ebs' in GEN:
        try:
            gen_reports()
        except Failed as e:
            progress('  the 2,000-function program\'s reports: %s' % e)
        gen_line_row()
    step(['drain'], drain)
    step(['top_cpu'], top_cpu)
    ovh_rows()  # issue 34, H2: pin_*, stat_100, monitor_cpu, libebs_read
    skip(ORDER, 'not measured (an earlier step failed)')

    m['programs'] = MACHINE_PROGRAMS
    m['loadavg_end'] = os.getloadavg()[0]
    m['seconds'] = round(time.monotonic() - T0)
    rows = []
    for k in ORDER:
        rows.append(clean(dict(ROWS[k], id=k)))
    write(clean(m), rows)


def clean(v):
    if isinstance(v, float):
        return rnd(v)
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v


def write(machine_, rows):
    tmp = RESULTS + '.tmp'
    with open(tmp, 'w') as f:
        json.dump({'machine': machine_, 'rows': rows}, f, indent=1)
        f.write('\n')
    os.replace(tmp, RESULTS)
    shutil.rmtree(SCRATCH, ignore_errors=True)
    progress('wrote %s' % RESULTS)


def only(m):
    """ONLY's rows measured, put into RESULTS in their places (the others kept)."""
    steps = {'merge': (merge_row, ['merge']), 'top_cpu': (top_cpu, ['top_cpu']),
             'view': (view_only, list(VIEW_ROWS)),
             'warm': (warm_only, WARM_ROWS),  # issue 34 (H4)
             # issue 34, H2: the overhead rows (ONLY=ovh: all of them), and the
             # two-core slowdown rows, now information (ONLY=slow; with size)
             'ovh': (ovh_rows, list(OVH_ROWS)),
             'pin': (pinned_slowdown, ['pin_1k', 'pin_10k']),
             'stat_100': (stat_row, ['stat_100']), 'monitor_cpu': (monitor_row, ['monitor_cpu']),
             'libebs_read': (libebs_read, ['libebs_read']),
             'slow': (size_and_slowdown, ['slow_1k', 'slow_10k', 'size']),
             'cg': (cg_rows, list(CG_ROWS)),  # issue 34, H1: call graphs, perf.data
             'size_cg': (size_cg, ['size_fp', 'size_dwarf']),  # issue 34 (H5)
             'report': (report_only, REPORT_ROWS)}  # issue 34 (H3)
    ids = []
    for k in ONLY:
        if k not in steps:
            sys.exit('bench: ONLY=%s: the rows that can be measured alone are %s'
                     % (k, ', '.join(steps)))
        fn, keys = steps[k]
        ids += keys
        if not SQLWORK and k not in ('top_cpu', 'ovh', 'stat_100', 'monitor_cpu', 'libebs_read'):
            skip(keys, 'SQLite: ' + SQLITE_WHY)
        else:
            step(keys, fn)
    try:
        doc = json.load(open(RESULTS))
    except (OSError, ValueError):
        doc = {'machine': clean(m), 'rows': []}
    rows = {r['id']: r for r in doc['rows']}
    for k in ids:
        # measured alone, not in the machine line's run: said beside the table
        rows[k] = clean(dict(ROWS[k], id=k, alone={'date': m['date'][:10], 'runs': RUNS,
                                                  'load': m['loadavg_start']}))
    write(doc['machine'], [rows[k] for k in ORDER if k in rows])


if __name__ == '__main__':
    main()
