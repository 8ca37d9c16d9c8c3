#!/usr/bin/env python3
"""Tables and plots from the raw results of benchmarks/nn_compare.py, for benchmarks/RESULTS.md.

    pip install matplotlib            # once
    python3 benchmarks/report.py      # reads benchmarks/results/*.csv, writes benchmarks/*.png, the tables in
                                      # benchmarks/RESULTS.md, and prints the tables

For each (op, threads, variant) it takes the median over repeats, with min-max, of ops/s and of NameNode CPU
per op, and each variant's ratio of medians to the "off" variant measured in the same run. Audit records lost
(records on disk fewer than operations, or reload4j's "Discarded N") are summed.
"""
import csv
import glob
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    groups = defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["op"], int(row["threads"]), row["variant"])
            groups[key].append(row)
    return groups


def med(rows, field):
    vals = [float(r[field]) for r in rows]
    return statistics.median(vals), min(vals), max(vals)


def table(groups, title):
    out = ["### " + title, "",
           "| op | threads | variant | ops/s median (min–max) | × off | NN CPU µs/op median (min–max) | × off | "
           "records lost |", "|---|---:|---|---:|---:|---:|---:|---:|"]
    for (op, t, v) in sorted(groups, key=lambda k: (k[0], k[1], order(k[2]))):
        rows = groups[(op, t, v)]
        ops, ops_lo, ops_hi = med(rows, "ops_per_sec")
        cpu, cpu_lo, cpu_hi = med(rows, "nn_cpu_us_per_op")
        off = groups.get((op, t, "off"))
        r_ops = "%.2f" % (ops / med(off, "ops_per_sec")[0]) if off else "–"
        r_cpu = "%.2f" % (cpu / med(off, "nn_cpu_us_per_op")[0]) if off else "–"
        lost = sum(int(r["audit_lost"]) + int(r["audit_discarded"]) for r in rows) if v != "off" else 0
        out.append("| %s | %d | %s | %.0f (%.0f–%.0f) | %s | %.1f (%.1f–%.1f) | %s | %d |" % (
            op, t, v, ops, ops_lo, ops_hi, r_ops, cpu, cpu_lo, cpu_hi, r_cpu, lost))
    return "\n".join(out)


ORDER = ["off", "stock-sync", "stock-async", "stock-async-drop", "nnaudit-block", "nnaudit-drop", "nnaudit-sync",
         "nnaudit-sync-per-record"]


def order(v):
    return ORDER.index(v) if v in ORDER else len(ORDER)


def plot(groups, name):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ops = sorted({k[0] for k in groups})
    threads = sorted({k[1] for k in groups})
    variants = sorted({k[2] for k in groups}, key=order)
    fig, axes = plt.subplots(2, len(ops), figsize=(6 * len(ops), 8), squeeze=False)
    for i, op in enumerate(ops):
        for v in variants:
            xs, ys, lo, hi, ratio = [], [], [], [], []
            for t in threads:
                rows = groups.get((op, t, v))
                if not rows:
                    continue
                m, a, b = med(rows, "ops_per_sec")
                xs.append(t)
                ys.append(m)
                lo.append(m - a)
                hi.append(b - m)
                off = groups.get((op, t, "off"))
                ratio.append(m / med(off, "ops_per_sec")[0] if off else float("nan"))
            if not xs:
                continue
            axes[0][i].errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=v)
            axes[1][i].plot(xs, ratio, marker="o", label=v)
        axes[0][i].set_title("%s: ops/s (median, min–max)" % op)
        axes[1][i].set_title("%s: throughput / off" % op)
        axes[1][i].axhline(1.0, color="grey", linewidth=0.8)
        for ax in (axes[0][i], axes[1][i]):
            ax.set_xlabel("client threads (= handler count)")
            if len(threads) > 1:
                ax.set_xscale("log", base=2)
            ax.set_xticks(threads)
            ax.set_xticklabels([str(t) for t in threads])
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(HERE, name + ".png")
    fig.savefig(out, dpi=90)
    return out


def update_results_md(name, text):
    """Replaces the table between <!-- BEGIN name --> and <!-- END name --> in RESULTS.md, if present."""
    path = os.path.join(HERE, "RESULTS.md")
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    begin, end = "<!-- BEGIN %s -->" % name, "<!-- END %s -->" % name
    if begin not in doc or end not in doc:
        return
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    body = "\n".join(text.split("\n")[2:])  # without the "### name" heading
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + begin + "\n" + body + "\n" + end + tail)


def main():
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "results", "*.csv")))
    for p in paths:
        name = os.path.splitext(os.path.basename(p))[0]
        groups = load(p)
        text = table(groups, name)
        print(text)
        print()
        update_results_md(name, text)
        try:
            print("plot: " + plot(groups, name))
        except ImportError:
            print("(matplotlib is not installed: pip install matplotlib, for the plots)")
        print()


if __name__ == "__main__":
    main()
