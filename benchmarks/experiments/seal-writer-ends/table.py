#!/usr/bin/env python3
"""The tables of NOTES.md: drains (DrainCapacity, base-*.csv and new-*.csv, via drains.py) and the sealing
thread at a NameNode's pace (SealRate, seal-rate.csv).

    python3 benchmarks/experiments/seal-writer-ends/table.py
"""
import csv
import glob
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = {"base": "searched by the sealing thread (before)", "new": "told by the writer (kept)"}


def spread(xs):
    return "%.2f (%.2f–%.2f)" % (statistics.median(xs), min(xs), max(xs))


def main():
    runs = ["%s=%s" % (LABELS[v], ",".join(sorted(glob.glob(os.path.join(HERE, v + "-*.csv")))))
            for v in ("base", "new")]
    subprocess.run([sys.executable, os.path.join(HERE, "drains.py"), "--skip", "2"] + runs, check=True)
    print()
    rows = list(csv.DictReader(open(os.path.join(HERE, "seal-rate.csv"))))
    rates = sorted({int(r["rate"]) for r in rows})
    print("| record ends | repeats | " + " | ".join("%d records/s" % r for r in rates) + " |")
    print("|---|---:|" + "---:|" * len(rates))
    for core in ("base", "new"):
        cells = []
        for rate in rates:
            xs = [float(r["sealer_cpu_us_per_record"]) for r in rows if r["core"] == core and int(r["rate"]) == rate]
            cells.append(spread(xs))
        print("| %s | %d | %s |" % (LABELS[core], len([r for r in rows if r["core"] == core]) // len(rates),
                                    " | ".join(cells)))


if __name__ == "__main__":
    main()
