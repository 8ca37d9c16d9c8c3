#!/usr/bin/env python3
"""The tables of NOTES.md from the raw rows beside it: for each cell (op, threads), NameNode CPU per operation
without JIT as the ratio of each variant's median to the do-nothing logger's (min–max of the per-repeat ratios),
then the median of the cells; and per operation, median over the repeats, the writer thread's CPU and the handler
threads' CPU beyond the do-nothing logger's.

    python3 benchmarks/experiments/journal/table.py [file.csv ...]
"""
import collections
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = {"nnaudit-block": "defaults", "nnaudit-journal": "journal", "nnaudit-journal-linger20": "journal, 20 ms linger"}


def split(r, part):
    for kv in r["path_split"].split(","):
        k, _, v = kv.partition(":")
        if k == part:
            return float(v)
    return 0.0


def table(name):
    rows = list(csv.DictReader(open(os.path.join(HERE, name))))
    variants = [v for v in NAMES if any(r["variant"] == v for r in rows)]
    cells = collections.defaultdict(dict)
    for r in rows:
        cells[(r["op"], int(r["threads"]), r["variant"])][int(r["repeat"])] = r
    cpu = lambda r: float(r["nn_cpu_no_jit_us_per_op"])
    per_op = lambda r, ms: ms * 1000.0 / float(r["ops"])
    print("`%s`:" % name)
    print()
    print("| op | threads | do-nothing µs/op | " + " | ".join("%s × do-nothing" % NAMES[v] for v in variants)
          + " | " + " | ".join("%s: writer, handlers beyond do-nothing, µs/op" % NAMES[v] for v in variants) + " |")
    print("|---|---:|---:|" + "---:|" * (2 * len(variants)))
    medians = collections.defaultdict(list)
    for op, t in sorted({(k[0], k[1]) for k in cells}, key=lambda c: (-c[1], c[0])):
        base = cells.get((op, t, "noop-logger"))
        if not base:
            continue
        b = statistics.median(cpu(r) for r in base.values())
        bh = statistics.median(per_op(r, split(r, "handlers")) for r in base.values())
        ratio_cols, budget_cols = [], []
        for v in variants:
            c = cells.get((op, t, v), {})
            if not c:
                ratio_cols.append("")
                budget_cols.append("")
                continue
            m = statistics.median(cpu(r) for r in c.values()) / b
            medians[v].append(m)
            per = [cpu(c[k]) / cpu(base[k]) for k in c if k in base]
            ratio_cols.append("%.2f (%.2f–%.2f)" % (m, min(per), max(per)))
            w = statistics.median(per_op(r, float(r["nn_writer_ms"])) for r in c.values())
            h = statistics.median(per_op(r, split(r, "handlers")) for r in c.values()) - bh
            budget_cols.append("%.2f, %+.1f" % (w, h))
        print("| %s | %d | %.1f | %s | %s |" % (op, t, b, " | ".join(ratio_cols), " | ".join(budget_cols)))
    print()
    print("Median of the cells: " + ", ".join("%s %.2f" % (NAMES[v], statistics.median(medians[v]))
                                             for v in variants if medians[v]) + ".")
    print()


if __name__ == "__main__":
    for n in sys.argv[1:] or sorted(f for f in os.listdir(HERE) if f.endswith(".csv")):
        table(n)
