#!/usr/bin/env python3
"""The table of NOTES.md from nn-ack-queue-vs-defaults.csv: NameNode CPU per operation without JIT, ratio of
medians to the do-nothing logger's, for ack.policy=queue and the defaults, with queue's writer thread per
operation; and the median of the cells.

    python3 benchmarks/experiments/mapped-ring/table.py
"""
import collections
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    cells = collections.defaultdict(list)
    with open(os.path.join(HERE, "nn-ack-queue-vs-defaults.csv")) as f:
        for r in csv.DictReader(f):
            cells[(r["op"], int(r["threads"]), r["variant"])].append(r)

    def med(op, t, v, f):
        return statistics.median(f(r) for r in cells[(op, t, v)])

    cpu = lambda r: float(r["nn_cpu_no_jit_us_per_op"])
    writer = lambda r: float(r["nn_writer_ms"]) * 1000.0 / float(r["ops"])
    print("| op | threads | do-nothing logger µs/op | `queue` × do-nothing | defaults × do-nothing | "
          "`queue`'s writer thread µs/op |")
    print("|---|---:|---:|---:|---:|---:|")
    ratios = collections.defaultdict(list)
    for op in ("create", "mkdirs", "fileStatus"):
        for t in (16, 64):
            noop = [cpu(r) for r in cells[(op, t, "noop-logger")]]
            base = statistics.median(noop)
            q = med(op, t, "nnaudit-ack-queue", cpu) / base
            b = med(op, t, "nnaudit-block", cpu) / base
            ratios["queue"].append(q)
            ratios["defaults"].append(b)
            print("| %s | %d | %.1f (%.1f–%.1f) | %.2f | %.2f | %.2f |" % (
                op, t, base, min(noop), max(noop), q, b, med(op, t, "nnaudit-ack-queue", writer)))
    print()
    print("Median of the six cells: `queue` %.2f, the defaults %.2f." % (
        statistics.median(ratios["queue"]), statistics.median(ratios["defaults"])))


if __name__ == "__main__":
    main()
