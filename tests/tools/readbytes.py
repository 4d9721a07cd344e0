#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""readbytes.py OUT CMD [ARG...] - run CMD, and write into OUT the bytes it
read: rchar of /proc/PID/io (read, pread, readv, sendfile, copy_file_range
...; its threads' too), taken when it has exited and before it is reaped.
Exits with CMD's status.  No timing: what a run reads, not how long."""
import os
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__.split(' - ')[0])
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # a zombie: /proc/PID/io still there
with open('/proc/%d/io' % pid) as f:
    io = dict(line.split(': ') for line in f.read().splitlines())
_, status = os.waitpid(pid, 0)
with open(sys.argv[1], 'w') as f:
    f.write('%d\n' % int(io['rchar']))
sys.exit(os.waitstatus_to_exitcode(status))
