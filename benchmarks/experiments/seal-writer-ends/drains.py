#!/usr/bin/env python3
"""Summarises DrainCapacity CSVs of two core versions run alternately: CPU ms per MB of the writer (unsealed,
sealed) and of the sealing thread, and the sealed drain's pace against the unsealed one, on two cores (wall
clock, to the page cache) and with a core for each thread (the slower thread's CPU per MB). The first
`--skip` repeats of each run are the JIT's warm-up and are left out.

Usage: drains.py --skip 2 LABEL=run1.csv,run2.csv LABEL=...
"""
import argparse
import csv
import statistics


def rows(paths):
    out = []
    for p in paths:
        with open(p) as f:
            out.extend(dict(r, run=p) for r in csv.DictReader(f))
    return out


def summary(label, paths, skip):
    by = {}
    for r in rows(paths):
        if int(r["repeat"]) <= skip:
            continue
        by.setdefault((r["run"], r["repeat"]), {})[r["kind"]] = r
    w_un, w_se, s_se, wall, cores = [], [], [], [], []
    for pair in by.values():
        u, s = pair.get("nnaudit"), pair.get("nnaudit-sealed")
        if not u or not s:
            continue
        mb_u, mb_s = float(u["bytes"]) / 1e6, float(s["bytes"]) / 1e6
        wu = float(u["writer_cpu_s"]) * 1000 / mb_u
        ws = float(s["writer_cpu_s"]) * 1000 / mb_s
        ss = float(s["sealer_cpu_s"]) * 1000 / mb_s
        w_un.append(wu)
        w_se.append(ws)
        s_se.append(ss)
        wall.append(float(s["written_mb_per_s"]) / float(u["written_mb_per_s"]))
        cores.append(wu / max(ws, ss))

    def m(xs):
        return "%.2f (%.2f–%.2f)" % (statistics.median(xs), min(xs), max(xs))

    print("| %s | %d | %s | %s | %s | %s | %s |" % (label, len(wall), m(w_un), m(w_se), m(s_se), m(wall),
                                                  m(cores)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", type=int, default=2)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    print("| record ends | pairs | writer unsealed, CPU ms/MB | writer sealed | sealing thread | sealed / unsealed, two "
          "cores (MB/s written) | sealed / unsealed, a core each (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec in a.runs:
        label, paths = spec.split("=", 1)
        summary(label, paths.split(","), a.skip)


if __name__ == "__main__":
    main()
