#!/usr/bin/env python3
"""The table of NOTES.md from ship-rate.csv (ShipRate steady rows, with the round each came from).

    python3 benchmarks/experiments/ship-poll-interval/table.py
"""
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def spread(xs, fmt):
    return (fmt + " (" + fmt + "–" + fmt + ")") % (statistics.median(xs), min(xs), max(xs))


def main():
    rows = [r for r in csv.DictReader(open(os.path.join(HERE, "ship-rate.csv"))) if r["measure"] == "steady"]
    keys = sorted({(int(r["record_lines"]), int(r["poll_ms"])) for r in rows})
    print("| record.lines | poll.interval.ms | repeats | CPU µs per line: shipper's thread | producer's I/O thread "
          "| both | lag, ms: median | 99th percentile |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for lines, poll in keys:
        sel = [r for r in rows if int(r["record_lines"]) == lines and int(r["poll_ms"]) == poll]
        send = [float(r["send_thread_cpu_us_per_record"]) for r in sel]
        io = [float(r["io_thread_cpu_us_per_record"]) for r in sel]
        both = [a + b for a, b in zip(send, io)]
        lag50 = statistics.median(float(r["lag_millis_median"]) for r in sel)
        lag99 = statistics.median(float(r["lag_millis_p99"]) for r in sel)
        print("| %d | %d | %d | %s | %s | %s | %.0f | %.0f |" % (lines, poll, len(sel), spread(send, "%.2f"),
                                                               spread(io, "%.2f"), spread(both, "%.2f"), lag50, lag99))


if __name__ == "__main__":
    main()
