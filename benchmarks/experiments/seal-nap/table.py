#!/usr/bin/env python3
"""The table of NOTES.md from seal-rate.csv (SealRate rows, with the core build each came from).

    python3 benchmarks/experiments/seal-nap/table.py
"""
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = [("nap-20ms", "20 ms naps (before)"), ("nap-100ms", "100 ms naps (kept)"),
          ("nap-20ms-b", "20 ms naps (before, second run)"), ("gather-nap-20ms", "gathered writes, 20 ms naps"),
          ("gather-nap-50ms", "gathered writes, 50 ms naps"), ("gather-nap-100ms", "gathered writes, 100 ms naps")]


def spread(xs):
    return "%.2f (%.2f–%.2f)" % (statistics.median(xs), min(xs), max(xs))


def main():
    rows = list(csv.DictReader(open(os.path.join(HERE, "seal-rate.csv"))))
    rates = sorted({int(r["rate"]) for r in rows})
    print("| sealing thread | repeats | " + " | ".join("%d records/s" % r for r in rates) + " |")
    print("|---|---:|" + "---:|" * len(rates))
    for core, label in LABELS:
        cells = []
        repeats = 0
        for rate in rates:
            xs = [float(r["sealer_cpu_us_per_record"]) for r in rows if r["core"] == core and int(r["rate"]) == rate]
            repeats = max(repeats, len(xs))
            cells.append(spread(xs) if xs else "–")
        print("| %s | %d | %s |" % (label, repeats, " | ".join(cells)))


if __name__ == "__main__":
    main()
