#!/usr/bin/env python3
"""The tables of NOTES.md from ship-rate.csv (ShipRate rows, variant and warm-up columns added) and nn-ab.csv
(nn_compare.py rows).

    python3 benchmarks/experiments/ship-lines-together/table.py
"""
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ["named-1", "named-1024", "compact-1", "compact-1024"]
LABELS = {"named-1": "named, a record a line (the defaults)", "named-1024": "named, lines together (1024)",
          "compact-1": "compact, a record a line", "compact-1024": "compact, lines together (1024)"}


def spread(xs, fmt):
    return (fmt + " (" + fmt + "–" + fmt + ")") % (statistics.median(xs), min(xs), max(xs))


def ship_rate():
    rows = list(csv.DictReader(open(os.path.join(HERE, "ship-rate.csv"))))
    print("| rate, lines/s | headers, record.lines | JIT warm-up, s | repeats | CPU µs per line: shipper's thread "
          "| producer's I/O thread | both | bytes on the wire per line |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for rate in sorted({int(r["target_rate"]) for r in rows}):
        for warm in sorted({int(r["warmup_seconds"]) for r in rows}):
            for v in VARIANTS:
                sel = [r for r in rows if int(r["target_rate"]) == rate and r["variant"] == v
                       and int(r["warmup_seconds"]) == warm]
                if not sel:
                    continue
                send = [float(r["send_thread_cpu_us_per_record"]) for r in sel]
                io = [float(r["io_thread_cpu_us_per_record"]) for r in sel]
                both = [a + b for a, b in zip(send, io)]
                wire = statistics.median(float(r["wire_bytes_per_record"]) for r in sel)
                print(f"| {rate} | {LABELS[v]} | {warm} | {len(sel)} | {spread(send, '%.2f')} | "
                      f"{spread(io, '%.2f')} | {spread(both, '%.2f')} | {wire:.0f} |")


def nn_ab():
    path = os.path.join(HERE, "nn-ab.csv")
    if not os.path.exists(path):
        return
    rows = {}
    for r in csv.DictReader(open(path)):
        threads = dict(x.split(":") for x in r["nnaudit_threads"].split(",")) if r.get("nnaudit_threads") else {}
        ops = int(r["ops"])
        rows.setdefault((r["op"], int(r["threads"]), r["variant"]), []).append(
            (float(r["nn_cpu_no_jit_us_per_op"]),
             (float(threads.get("shipper", 0)) + float(threads.get("producer", 0))) * 1000 / ops))
    print()
    print("| op | threads | NN CPU µs/op: do-nothing logger | defaults | shipping, a record a line | × defaults | "
          "lines together | × defaults | everything, lines together | × do-nothing | shipper + producer I/O µs/op: "
          "a record a line | lines together | everything, lines together |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    cells = sorted({(k[0], k[1]) for k in rows}, key=lambda k: (k[0], k[1]))
    ratios = {"kafka": [], "together": [], "all": []}
    for op, threads in cells:
        def med(v, i=0):
            return statistics.median(x[i] for x in rows[(op, threads, v)])
        noop, block = med("noop-logger"), med("nnaudit-block")
        kafka, together, every = med("nnaudit-kafka"), med("nnaudit-kafka-together"), med("nnaudit-all-together")
        ratios["kafka"].append(kafka / block)
        ratios["together"].append(together / block)
        ratios["all"].append(every / noop)
        print(f"| {op} | {threads} | {noop:.1f} | {block:.1f} | {kafka:.1f} | {kafka / block:.2f} | "
              f"{together:.1f} | {together / block:.2f} | {every:.1f} | {every / noop:.2f} | "
              f"{med('nnaudit-kafka', 1):.2f} | {med('nnaudit-kafka-together', 1):.2f} | "
              f"{med('nnaudit-all-together', 1):.2f} |")
    print()
    print("Median of the cells' ratios (min–max of the cells): shipping a record a line × defaults "
          f"{spread(ratios['kafka'], '%.2f')}; lines together × defaults {spread(ratios['together'], '%.2f')}; "
          f"everything with lines together × do-nothing logger {spread(ratios['all'], '%.2f')}.")


ship_rate()
nn_ab()
