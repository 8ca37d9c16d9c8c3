#!/usr/bin/env python3
"""The table of NOTES.md: one warm-up pass (results/feature-cost-long.csv) against five (five-warm-passes.csv),
at 64 threads, from the rows of benchmarks/nn_compare.py.

    python3 benchmarks/experiments/warm-passes/table.py
"""
import collections
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = [("1", os.path.join(HERE, "..", "..", "results", "feature-cost-long.csv")),
        ("5", os.path.join(HERE, "five-warm-passes.csv"))]
VARIANTS = ["noop-logger", "nnaudit-kafka", "nnaudit-all"]


def load(path):
    d = collections.defaultdict(list)
    for r in csv.DictReader(open(path)):
        if r["threads"] != "64" or r["variant"] not in VARIANTS:
            continue
        n = float(r["ops"])
        own = dict(kv.split(":") for kv in r["nnaudit_threads"].split(","))
        handlers = float(dict(kv.split(":") for kv in r["path_split"].split(","))["handlers"])
        d[(r["op"], r["variant"])].append({
            "cpu": float(r["nn_cpu_no_jit_us_per_op"]), "jit": float(r["nn_jit_ms"]),
            "handlers": handlers * 1000 / n,
            "ship": (float(own["shipper"]) + float(own["producer"])) * 1000 / n})
    return d


def med(rows, field):
    return statistics.median(x[field] for x in rows)


def main():
    print("| op | warm-up passes | repeats | variant | NN CPU µs/op without JIT | × do-nothing logger | JIT CPU in the "
          "window, ms | handlers µs/op | shipper + producer µs/record |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for op in ("create", "mkdirs", "fileStatus"):
        for passes, path in RUNS:
            d = load(path)
            base = med(d[(op, "noop-logger")], "cpu")
            for v in VARIANTS:
                rows = d[(op, v)]
                print("| %s | %s | %d | %s | %.1f | %.2f | %.0f | %.1f | %s |" % (
                    op, passes, len(rows), v, med(rows, "cpu"), med(rows, "cpu") / base, med(rows, "jit"),
                    med(rows, "handlers"), "%.2f" % med(rows, "ship") if v != "noop-logger" else "–"))


if __name__ == "__main__":
    main()
