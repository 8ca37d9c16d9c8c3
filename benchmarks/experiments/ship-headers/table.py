#!/usr/bin/env python3
"""The tables of NOTES.md from ship-rate.csv (ShipRate rows, a variant column added) and, if there, nn-ab.csv
(nn_compare.py rows).

    python3 benchmarks/experiments/ship-headers/table.py
"""
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ["named", "compact", "three", "none"]
LABELS = {"named": "seven named (the shipper's default)", "compact": "one compact header",
          "three": "three named (type, file, offset)", "none": "none"}


def spread(xs, fmt):
    return (fmt + " (" + fmt + "–" + fmt + ")") % (statistics.median(xs), min(xs), max(xs))


def ship_rate():
    rows = list(csv.DictReader(open(os.path.join(HERE, "ship-rate.csv"))))
    print("| measure | rate, records/s | headers | repeats | CPU µs per record: sending thread + I/O thread, "
          "median (min–max) | bytes on the wire per record | records/s (producer alone, as fast as it goes) |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for measure in ("producer", "producer-steady", "steady"):
        for rate in sorted({int(r["target_rate"]) for r in rows if r["measure"] == measure}):
            for v in VARIANTS:
                sel = [r for r in rows if r["measure"] == measure and int(r["target_rate"]) == rate
                       and r["variant"] == v]
                if not sel:
                    continue
                wire = statistics.median(float(r["wire_bytes_per_record"]) for r in sel)
                if measure == "producer":
                    cpu = "–"
                    rps = spread([float(r["records_per_sec"]) for r in sel], "%.0f")
                else:
                    cpu = spread([float(r["send_thread_cpu_us_per_record"]) + float(r["io_thread_cpu_us_per_record"])
                                  for r in sel], "%.2f")
                    rps = "–"
                name = {"producer": "producer alone, flat out", "producer-steady": "producer alone, steady",
                        "steady": "shipper, steady"}[measure]
                print(f"| {name} | {rate or '–'} | {LABELS[v]} | {len(sel)} | {cpu} | {wire:.0f} | {rps} |")


def nn_ab():
    path = os.path.join(HERE, "nn-ab.csv")
    if not os.path.exists(path):
        return
    rows = {}
    for r in csv.DictReader(open(path)):
        threads = dict(x.split(":") for x in r["nnaudit_threads"].split(",")) if r["nnaudit_threads"] else {}
        ops = int(r["ops"])
        rows.setdefault((r["op"], int(r["threads"]), r["variant"]), []).append(
            (float(r["nn_cpu_no_jit_us_per_op"]), float(threads.get("shipper", 0)) * 1000 / ops,
             float(threads.get("producer", 0)) * 1000 / ops))
    print()
    print("| op | threads | NN CPU µs/op: defaults, not shipping | shipping, named | × | compact | × | "
          "shipper + producer I/O µs/op: named | compact |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for op, threads in sorted({(k[0], k[1]) for k in rows}, key=lambda k: (k[0] != "mkdirs", k[1])):
        block = statistics.median(x[0] for x in rows[(op, threads, "nnaudit-block")])
        named = rows[(op, threads, "nnaudit-kafka")]
        compact = rows[(op, threads, "nnaudit-kafka-compact")]
        n = statistics.median(x[0] for x in named)
        c = statistics.median(x[0] for x in compact)
        tn = statistics.median(x[1] + x[2] for x in named)
        tc = statistics.median(x[1] + x[2] for x in compact)
        print(f"| {op} | {threads} | {block:.1f} | {n:.1f} | {n / block:.2f} | {c:.1f} | {c / block:.2f} | "
              f"{tn:.2f} | {tc:.2f} |")


ship_rate()
nn_ab()
