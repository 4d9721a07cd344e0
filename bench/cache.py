#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/cache.py - what the DWARF cache's digest costs against what the
cache saves, on the SQLite driver (docs/bench.md, "The DWARF cache's
digest").  Prints figures; asserts nothing (not part of make test);
`make bench` runs it after the table.

An entry of the cache is found by the SHA-256 of what decoding reads of
the DWARF file (symbolize/digest.c), taken by every report that uses the
cache, cold or warm.  Measured, in RUNS interleaved rounds (default 5; the
median of each):
  - ebs report (and --sort line) of a recording of sqlwork: --no-cache;
    with an empty cache (cold: digest, decode, write the entries and libc's
    inflated copy); with the cache that one such report left (warm: digest,
    read the entries);
  - the digest alone of the DWARF files the warm cache holds entries for
    (build/tests/tools/digest: the best of RUNS, per file).

Environment: BUILD (default build: its ebs and tests/tools/digest, made by
`make all BUILD/tests/tools/digest`), EBS (another ebs to time, e.g. an
older one), RUNS, HZ (the recording's rate, default 4000), SQL_ROWS
(sqlwork's argument, default 400000).  Files go to BUILD/bench-cache.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD', 'build')
BUILD = BUILD if os.path.isabs(BUILD) else os.path.join(TOP, BUILD)
EBS = os.environ.get('EBS') or os.path.join(BUILD, 'ebs')
DIGEST = os.path.join(BUILD, 'tests', 'tools', 'digest')
OUT = os.path.join(BUILD, 'bench-cache')
RUNS = int(os.environ.get('RUNS') or 5)
HZ = os.environ.get('HZ') or '4000'
SQL_ROWS = os.environ.get('SQL_ROWS') or '400000'


def die(msg):
    sys.exit('bench/cache.py: ' + msg)


def measure(cmd, xdg):
    """(wall s, CPU s) of cmd, its output thrown away; it must succeed."""
    env = dict(os.environ, LC_ALL='C', XDG_CACHE_HOME=xdg)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status):
        die('%s failed (status %d)' % (' '.join(cmd), os.waitstatus_to_exitcode(status)))
    return wall, ru.ru_utime + ru.ru_stime


def build_id(path):
    out = subprocess.run(['readelf', '-n', path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if 'Build ID' in line:
            return line.split()[-1]
    return ''


def main():
    for f in (EBS, DIGEST):
        if not os.access(f, os.X_OK):
            die('%s is not built (make all %s)' % (f, os.path.relpath(DIGEST, TOP)))
    r = subprocess.run([os.path.join(TOP, 'tests', 'real', 'build-sqlite.sh')], capture_output=True,
                       text=True)
    sqlwork = r.stdout.strip()
    if r.returncode or not os.access(sqlwork, os.X_OK):
        die('no SQLite driver (tests/real/build-sqlite.sh): ' + (r.stderr.strip().splitlines() or
                                                                   ['?'])[-1])
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    data = os.path.join(OUT, 'sq.data')
    if subprocess.run([EBS, 'record', '-q', '-e', 'cpu-clock', '-F', HZ, '-o', data, sqlwork,
                       SQL_ROWS]).returncode:
        die('ebs record of sqlwork failed')
    samples = subprocess.run([EBS, 'report', '-i', data, '--no-cache'], capture_output=True,
                             text=True).stdout
    samples = next((l.split()[2].rstrip(',') for l in samples.splitlines()
                    if l.startswith('# samples:')), '?')
    warm = os.path.join(OUT, 'warm')
    os.makedirs(warm)
    for sort in ([], ['--sort', 'line']):
        measure([EBS, 'report', '-i', data] + sort, warm)

    kinds = [('report --no-cache', [], 'off'), ('report, cold cache', [], 'cold'),
             ('report, warm cache', [], 'warm'),
             ('report --sort line --no-cache', ['--sort', 'line'], 'off'),
             ('report --sort line, cold cache', ['--sort', 'line'], 'cold'),
             ('report --sort line, warm cache', ['--sort', 'line'], 'warm')]
    res = {k[0]: [] for k in kinds}
    for i in range(RUNS):
        for name, sort, cache in (kinds if i % 2 == 0 else kinds[::-1]):
            xdg = os.path.join(OUT, 'xdg')
            shutil.rmtree(xdg, ignore_errors=True)
            if cache == 'warm':
                shutil.copytree(warm, xdg)
            else:
                os.makedirs(xdg)
            extra = ['--no-cache'] if cache == 'off' else []
            res[name].append(measure([EBS, 'report', '-i', data] + sort + extra, xdg))

    # the files whose digest a report takes: those the warm cache has entries of
    sq_bid = build_id(sqlwork)
    files = []
    for e in sorted(os.listdir(os.path.join(warm, 'ebs'))):
        if not e.endswith('.dwarf') or e.endswith('.mangled.dwarf'):
            continue
        bid = e.split('.')[0]
        dbg = '/usr/lib/debug/.build-id/%s/%s.debug' % (bid[:2], bid[2:])
        if bid == sq_bid:
            files.append(sqlwork)
        elif os.path.exists(dbg):
            files.append(dbg)
    out = subprocess.run([DIGEST, '-n', str(RUNS)] + files, capture_output=True, text=True)
    if out.returncode:
        die('tests/tools/digest failed: ' + out.stderr.strip())
    lines = out.stdout.splitlines()
    _, dbytes, dsec = lines[-1].split()
    dsec = float(dsec)

    print('== the DWARF cache on the SQLite driver: the digest against the saving')
    print('  %s samples of sqlwork %s (cpu-clock, %s Hz); median of %d interleaved runs'
          % (samples, SQL_ROWS, HZ, RUNS))
    print('  %-34s %8s %8s' % ('', 'wall s', 'cpu s'))
    med = {}
    for name, _, _ in kinds:
        w = statistics.median(x[0] for x in res[name])
        c = statistics.median(x[1] for x in res[name])
        med[name] = c
        print('  %-34s %8.3f %8.3f' % (name, w, c))
    print('  the digest (SHA-256) of the %d DWARF files those reports read: %.1f MB hashed, '
          '%.4f s (best of %d each)' % (len(files), int(dbytes) / 1e6, dsec, RUNS))
    for l in lines[:-1]:
        f = l.split()
        print('    %s: %.1f MB, %.4f s' % (f[3], int(f[1]) / 1e6, float(f[2])))
    for sort in ('report', 'report --sort line'):
        off, cold, warm_s = (med['%s%s' % (sort, s)] for s in
                             (' --no-cache', ', cold cache', ', warm cache'))
        print('  %s: the digest is %.1f%% of a warm run\'s CPU time, %.1f%% of what the warm '
              'cache saves (%.3f s), %.1f%% of a cold run\'s' % (
                  sort, 100 * dsec / warm_s, 100 * dsec / (off - warm_s) if off > warm_s else
                  float('nan'), off - warm_s, 100 * dsec / cold))


if __name__ == '__main__':
    main()
