#!/usr/bin/env python3
"""The table of NOTES.md from chasing.csv and bursts.csv: per op and thread count, NameNode CPU per op without JIT
(median of the repeats) of nnaudit-kafka against nnaudit-block, and the CPU per operation of the shipper's thread
and of the producer's I/O thread (medians of the repeats).

    python3 benchmarks/experiments/shipper-pacing/table.py
"""
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    rows = {}
    for r in csv.DictReader(open(os.path.join(HERE, name))):
        threads = dict(x.split(":") for x in r["nnaudit_threads"].split(","))
        ops = int(r["ops"])
        rows.setdefault((r["op"], int(r["threads"]), r["variant"]), []).append(
            (float(r["nn_cpu_no_jit_us_per_op"]), float(threads["shipper"]) * 1000 / ops,
             float(threads["producer"]) * 1000 / ops))
    return rows


print("| op | threads | shipper reads | NN CPU µs/op: defaults | with shipping | × | shipper thread µs/op | "
      "producer I/O thread µs/op |")
print("|---|---:|---|---:|---:|---:|---:|---:|")
for name, label in (("chasing.csv", "chasing each write"), ("bursts.csv", "in bursts")):
    rows = load(name)
    for op, threads in sorted({(k[0], k[1]) for k in rows}, key=lambda k: (k[0] != "mkdirs", k[1])):
        block = statistics.median(x[0] for x in rows[(op, threads, "nnaudit-block")])
        kafka = rows[(op, threads, "nnaudit-kafka")]
        nn = statistics.median(x[0] for x in kafka)
        print(f"| {op} | {threads} | {label} | {block:.1f} | {nn:.1f} | {nn / block:.2f} | "
              f"{statistics.median(x[1] for x in kafka):.2f} | {statistics.median(x[2] for x in kafka):.2f} |")
