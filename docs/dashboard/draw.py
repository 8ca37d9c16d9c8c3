#!/usr/bin/env python3
"""Draws the panels of conf/grafana/nnaudit-dashboard.json from series a real Prometheus scraped, for the
picture in docs/alerts.md. Grafana is not used: this script computes what each panel's query computes
(rate over 5 s, increase over 1 m, the gauges as they are) from the raw series and plots them with matplotlib.

    pip install matplotlib                 # once (or: apt-get install python3-matplotlib)
    python3 docs/dashboard/draw.py         # reads docs/dashboard/series.csv and phases.csv, writes dashboard.png
    python3 docs/dashboard/draw.py DIR     # the same from DIR/series.csv and DIR/phases.csv (a test run's
                                           # kafka/target/prometheus-alerts), written to DIR/dashboard.png

series.csv (seconds,metric,value: one value per second of one audit file's series, as Prometheus stored them)
and phases.csv (phase,start_s,end_s) are what PrometheusAlertsTest (kafka module) leaves in
kafka/target/prometheus-alerts: a NameNode auditing with sealing and shipping under a steady load, healthy, then
with its audit disk full, then with its Kafka broker stopped.
"""
import csv
import os
import sys
from collections import defaultdict

RATE_S = 5  # Grafana's $__rate_interval at a 1 s scrape is about this
INCREASE_S = 60  # the dashboard's increase(...[1m])


def load(d):
    series = defaultdict(dict)
    with open(os.path.join(d, "series.csv")) as f:
        for row in csv.DictReader(f):
            series[row["metric"]][int(row["seconds"])] = float(row["value"])
    with open(os.path.join(d, "phases.csv")) as f:
        phases = [(r["phase"], int(r["start_s"]), int(r["end_s"])) for r in csv.DictReader(f)]
    return series, phases


def gauge(series, name, scale=1.0):
    s = series.get("nnaudit_logger_" + name, {})
    t = sorted(s)
    return t, [s[i] * scale for i in t]


def delta(series, name, window, per_second):
    """rate() (per_second) or increase() over window seconds, from the counter's values (no resets in a run)."""
    s = series.get("nnaudit_logger_" + name, {})
    t = sorted(s)
    out = []
    for i in t:
        before = max([j for j in t if j <= i - window] or [t[0]])
        d = s[i] - s[before]
        span = max(i - before, 1)
        out.append(d / span if per_second else d * window / span)
    return t, out


PANELS = [
    ("Records written (per s)", "ops/s", lambda s: [
        ("written", delta(s, "events_written", RATE_S, True)),
        ("accepted", delta(s, "events_accepted", RATE_S, True))]),
    ("Queue depth (events)", "events", lambda s: [
        ("depth", gauge(s, "queue_depth")), ("capacity", gauge(s, "queue_capacity"))]),
    ("Queue depth (bytes)", "KiB", lambda s: [
        ("depth", gauge(s, "queue_depth_bytes", 1 / 1024))]),
    ("Batch size", "records", lambda s: [
        ("records per write", gauge(s, "batch_size_avg_records")), ("peak batch", gauge(s, "peak_batch_size"))]),
    ("Handlers waiting and operations held", "", lambda s: [
        ("waits begun/s", delta(s, "handler_waits", RATE_S, True)),
        ("handlers waiting", gauge(s, "handlers_waiting")),
        ("operations held", gauge(s, "events_unwritten"))]),
    ("Drops, refusals and failures (per min)", "", lambda s: [
        ("dropped", delta(s, "events_dropped", INCREASE_S, False)),
        ("aborted", delta(s, "events_aborted", INCREASE_S, False)),
        ("failed", delta(s, "events_failed", INCREASE_S, False)),
        ("sink errors", delta(s, "sink_errors", INCREASE_S, False))]),
    ("Seal age", "s", lambda s: [
        ("since seal", gauge(s, "millis_since_last_seal", 1 / 1000)),
        ("since write", gauge(s, "millis_since_last_write", 1 / 1000))]),
    ("Shipping lag", "s", lambda s: [
        ("lag", gauge(s, "ship_lag_millis", 1 / 1000)),
        ("send errors/min", delta(s, "ship_send_errors", INCREASE_S, False))]),
]


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    series, phases = load(d)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(4, 2, figsize=(12, 11), sharex=True)
    shades = {"disk full": "#f4c7c3", "broker stopped": "#fce8b2"}
    for ax, (title, unit, lines) in zip(axes.flat, PANELS):
        for label, (t, v) in lines(series):
            ax.plot(t, v, label=label, linewidth=1.2)
        for name, start, end in phases:
            if name in shades:
                ax.axvspan(start, end, color=shades[name], alpha=0.6, linewidth=0)
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(unit, fontsize=8)
        ax.tick_params(labelsize=8)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    for ax in axes[-1]:
        ax.set_xlabel("seconds into the run", fontsize=8)
    spans = ", ".join("%s %d-%d s" % p for p in phases)
    fig.suptitle("nnaudit dashboard panels, drawn by docs/dashboard/draw.py (not Grafana) from a real scrape\n"
                 "(%s; red: disk full, yellow: broker stopped)" % spans, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    out = os.path.join(d, "dashboard.png")
    fig.savefig(out, dpi=80)
    print(out)


if __name__ == "__main__":
    main()
