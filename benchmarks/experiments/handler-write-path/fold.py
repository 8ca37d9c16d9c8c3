#!/usr/bin/env python3
"""Folds an async-profiler collapsed profile for keeping: drops the JIT compiler threads, names threads by kind
(the numbers in a thread's name left out, so that the 64 handlers are one), and folds every stack of fewer than
0.02% of the samples into its parent frame until none is left, which keeps the totals exact.

    python3 fold.py nn-PID.collapsed OUT.collapsed.gz
"""
import collections
import gzip
import re
import sys


def main():
    src, out = sys.argv[1], sys.argv[2]
    stacks = collections.Counter()
    with open(src) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if stack.startswith("[C1 CompilerThre") or stack.startswith("[C2 CompilerThre"):
                continue
            thread, _, rest = stack.partition(";")
            stacks[re.sub(r"\d+", "N", thread) + ";" + rest] += int(n)
    floor = sum(stacks.values()) * 0.0002
    while True:
        small = [s for s, n in stacks.items() if n < floor and ";" in s]
        if not small:
            break
        for s in small:
            stacks[s.rsplit(";", 1)[0]] += stacks.pop(s)
    with gzip.open(out, "wt") as f:
        for s, n in sorted(stacks.items()):
            f.write("%s %d\n" % (s, n))


if __name__ == "__main__":
    main()
