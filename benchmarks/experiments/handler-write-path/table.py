#!/usr/bin/env python3
"""The tables of NOTES.md from the CSVs beside it (rows of benchmarks/nn_compare.py).

    python3 benchmarks/experiments/handler-write-path/table.py
"""
import collections
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    d = collections.defaultdict(dict)
    for r in csv.DictReader(open(os.path.join(HERE, name))):
        n = float(r["ops"])
        handlers = float(dict(kv.split(":") for kv in r["path_split"].split(","))["handlers"]) * 1000 / n
        sched = dict(kv.split(":") for kv in r["nn_sched"].split(",")) if r.get("nn_sched") else {}
        d[(r["op"], int(r["threads"]), r["variant"])][r["repeat"]] = {
            "cpu": float(r["nn_cpu_no_jit_us_per_op"]), "handlers": handlers,
            "switches": float(sched["switches"]) / n if sched else None}
    return d


def ratio(d, op, t, v, base, field="cpu"):
    a, b = d[(op, t, v)], d[(op, t, base)]
    med = statistics.median(x[field] for x in a.values()) / statistics.median(x[field] for x in b.values())
    per = [a[k][field] / b[k][field] for k in a if k in b]
    return med, min(per), max(per)


def staging_ab():
    d = load("staging-ab-40000-files.csv")
    variants = ["nnaudit-ack-queue", "nnaudit-block-baseline", "nnaudit-block"]
    print("| op | threads | do-nothing logger µs/op | ack=queue × do-nothing | defaults, JDK's copy × do-nothing | "
          "defaults, own buffer × do-nothing | own buffer × JDK's copy | handlers µs/op: do-nothing, JDK's copy, "
          "own buffer |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    cells = collections.defaultdict(list)
    for op in ("create", "mkdirs", "fileStatus"):
        for t in (16, 64):
            noop = statistics.median(x["cpu"] for x in d[(op, t, "noop-logger")].values())
            cols = []
            for v in variants:
                r = ratio(d, op, t, v, "noop-logger")
                cells[v].append(r[0])
                cols.append("%.2f (%.2f–%.2f)" % r)
            ab = ratio(d, op, t, "nnaudit-block", "nnaudit-block-baseline")
            cells["ab"].append(ab[0])
            h = [statistics.median(x["handlers"] for x in d[(op, t, v)].values())
                 for v in ("noop-logger", "nnaudit-block-baseline", "nnaudit-block")]
            print("| %s | %d | %.1f | %s | %.2f (%.2f–%.2f) | %.1f, %.1f, %.1f |" % (
                op, t, noop, " | ".join(cols), ab[0], ab[1], ab[2], h[0], h[1], h[2]))
    print()
    print("Median of the six cells: ack=queue %.2f, defaults with the JDK's copy %.2f, with the sink's own buffer "
          "%.2f (× do-nothing logger); own buffer × JDK's copy %.2f." % tuple(
              statistics.median(cells[k]) for k in variants + ["ab"]))


def switches():
    d = load("sched-15000-files.csv")
    print("| op | threads | variant | NN CPU µs/op w/o JIT, median | context switches per op, median (min–max) |")
    print("|---|---:|---|---:|---|")
    for op in ("create", "fileStatus"):
        for t in (16, 64):
            for v in ("noop-logger", "nnaudit-ack-queue", "nnaudit-block"):
                s = [x["switches"] for x in d[(op, t, v)].values()]
                print("| %s | %d | %s | %.1f | %.2f (%.2f–%.2f) |" % (
                    op, t, v, statistics.median(x["cpu"] for x in d[(op, t, v)].values()),
                    statistics.median(s), min(s), max(s)))


if __name__ == "__main__":
    staging_ab()
    print()
    switches()
