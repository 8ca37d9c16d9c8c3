#!/usr/bin/env python3
"""The tables of NOTES.md from the raw rows beside it: NameNode CPU per operation without JIT, as the ratio of
each variant's median to the do-nothing logger's (min–max of the per-repeat ratios), the variant's writer thread
per operation, and the median of the six cells.

    python3 benchmarks/experiments/mapped-ring/table.py
"""
import collections
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = {"nnaudit-ack-queue": "`queue`", "nnaudit-block": "defaults", "mapped-ring": "mapped ring"}


def table(name, variants):
    cells = collections.defaultdict(dict)
    with open(os.path.join(HERE, name)) as f:
        for r in csv.DictReader(f):
            cells[(r["op"], int(r["threads"]), r["variant"])][int(r["repeat"])] = r
    cpu = lambda r: float(r["nn_cpu_no_jit_us_per_op"])
    writer = lambda r: float(r["nn_writer_ms"]) * 1000.0 / float(r["ops"])
    print("`%s`:" % name)
    print()
    print("| op | threads | do-nothing logger µs/op | " + " | ".join(
        "%s × do-nothing" % NAMES[v] for v in variants) + " | " + " | ".join(
        "%s's writer µs/op" % NAMES[v] for v in variants) + " |")
    print("|---|---:|---:|" + "---:|" * (2 * len(variants)))
    ratios = collections.defaultdict(list)
    for op in ("create", "mkdirs", "fileStatus"):
        for t in (16, 64):
            noop = cells[(op, t, "noop-logger")]
            base = statistics.median(cpu(r) for r in noop.values())
            line = ["%s | %d | %.1f" % (op, t, base)]
            for v in variants:
                rows = cells[(op, t, v)]
                ratio = statistics.median(cpu(r) for r in rows.values()) / base
                per = [cpu(rows[k]) / cpu(noop[k]) for k in rows if k in noop]
                ratios[v].append(ratio)
                line.append("%.2f (%.2f–%.2f)" % (ratio, min(per), max(per)))
            for v in variants:
                line.append("%.2f" % statistics.median(writer(r) for r in cells[(op, t, v)].values()))
            print("| " + " | ".join(line) + " |")
    print()
    print("Median of the six cells: " + ", ".join(
        "%s %.2f" % (NAMES[v], statistics.median(ratios[v])) for v in variants) + ".")
    print()


def main():
    table("nn-ack-queue-vs-defaults.csv", ["nnaudit-ack-queue", "nnaudit-block"])
    table("nn-mapped-ring.csv", ["mapped-ring", "nnaudit-block"])


if __name__ == "__main__":
    main()
