#!/usr/bin/env python3
"""The load a training run puts on the host's cores: the mean number of its threads that are
runnable (running, or ready and waiting for a core) over the epochs after the first.

Start it before the run. It waits for processes named NAME (up to 120 s), then every 0.1 s reads
the run and wait times of each of their threads (/proc/PID/task/TID/schedstat, cumulative
nanoseconds) and counts the epoch records in METRICS (Loom's --metrics file), until the processes
are gone. It prints the sum over threads of (run + wait time) between the first and the last
epoch record, divided by the time between them. A thread that starts or ends between two samples
loses at most 0.1 s."""
import argparse
import glob
import sys
import time

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("name", metavar="NAME", help="the processes' name (as in /proc/PID/stat, e.g. loom-torch)")
parser.add_argument("metrics", metavar="METRICS", help="the run's --metrics file (JSON lines, one per epoch)")
args = parser.parse_args()
name, metrics = f"({args.name})", args.metrics


def threads():
    """tid path -> run + wait seconds of every thread of the named processes."""
    seen = {}
    for stat in glob.glob("/proc/[0-9]*/task/[0-9]*/stat"):
        try:
            if name not in open(stat).read():
                continue
            run, wait, _ = open(stat[:-4] + "schedstat").read().split()
            seen[stat] = (int(run) + int(wait)) * 1e-9
        except (OSError, ValueError):  # the thread ended while being read
            pass
    return seen


def epochs():
    try:
        return sum('"epoch_seconds"' in line for line in open(metrics))
    except OSError:
        return 0


deadline = time.monotonic() + 120
while not threads():
    if time.monotonic() > deadline:
        sys.exit(f"thread_load: no process named {args.name} started within 120 s")
    time.sleep(0.05)
marks = []  # (time, runnable seconds accumulated so far) at each new epoch record
accumulated, previous, count = 0.0, threads(), epochs()
while True:
    time.sleep(0.1)
    current = threads()
    if not current:
        break
    accumulated += sum(v - previous[k] for k, v in current.items() if k in previous)
    previous = current
    recorded = epochs()
    if recorded > count:
        count = recorded
        marks.append((time.monotonic(), accumulated))
if len(marks) < 2:
    sys.exit(f"thread_load: {metrics} recorded {len(marks)} epochs while {args.name} ran; need 2")
(t0, a0), (t1, a1) = marks[0], marks[-1]
print(f"{(a1 - a0) / (t1 - t0):.2f}")
