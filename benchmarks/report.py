#!/usr/bin/env python3
"""Tables and plots from the raw results of benchmarks/nn_compare.py, benchmarks/ship_rate.py and
dev-support/bin/jmh, for benchmarks/RESULTS.md.

    pip install matplotlib            # once (or: apt-get install python3-matplotlib)
    python3 benchmarks/report.py      # reads benchmarks/results/*.csv and benchmarks/results/jmh-*/, writes
                                      # each one's plot beside it (results/NAME.png), prints each table, and
                                      # rewrites the table between <!-- BEGIN NAME --> and <!-- END NAME -->
                                      # in benchmarks/RESULTS.md
    python3 benchmarks/report.py benchmarks/experiments/mpsc-queue/jmh.csv
                                      # one file or JMH directory: its table printed, its plot written beside
                                      # it; RESULTS.md is rewritten only for results under benchmarks/results/

Experiments (benchmarks/experiments/<name>/) are not read unless named: their NOTES.md hold their tables.

For each (op, threads, variant) it takes the median over repeats, with min-max, of ops/s and of NameNode CPU
per op, and each variant's ratio of medians to the "off" variant measured in the same run. Audit records lost
(records on disk fewer than operations, or reload4j's "Discarded N") are summed. For a variant that ships to Kafka
(nnaudit-kafka), the records it had not shipped when the timed window ended (median) and whether every run's
topic held every line of its audit files. For a sealed variant (nnaudit-sealed), its ops/s and NameNode CPU per op
against the same logger unsealed (nnaudit-block, ratio of medians), the seals per run and whether nnaudit verify
found every trail unchanged.

For a JMH directory of dev-support/bin/jmh --seal (results/jmh-seal-<mode>/), nnaudit BLOCK unsealed and sealed
side by side (wall-clock calls/s, sealed / unsealed), and the writer's drain capacity unsealed and sealed.

For a run with nnaudit-gzip and nnaudit-rotating (nn_compare.py), NameNode CPU per op and ops/s of gzip against
rotating (ratio of medians, min–max of the per-repeat ratios) and the compressor thread's CPU per op. For
benchmarks/compression-cost.sh's CSVs (compression-cost.csv, drain-compression.csv), the compression's ratio,
speed and CPU per MB, and the writer's drain capacity with compression on against off.

For ship_rate.py's CSV (a "measure" column), per measure and write rate: records/s, median (min–max) over
repeats, against the producer alone; for steady, the lag's median and p99 (the medians over repeats). When it holds
more than one compression type (ship_rate.py --compressions), per measure, write rate and compression: the bytes
on the wire per record against none, and the CPU per record of the shipper's thread and its producer's I/O thread.
"""
import csv
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")


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


def cpu_field(groups):
    """NameNode CPU per op is without the JIT compiler threads when the CSV has that column (nn_compare.py since
    it splits CPU by thread), which is the steadier figure."""
    any_rows = next(iter(groups.values()))
    return "nn_cpu_no_jit_us_per_op" if "nn_cpu_no_jit_us_per_op" in any_rows[0] else "nn_cpu_us_per_op"


def table(groups, title):
    """One row per (op, threads, variant); NameNode CPU per op as cpu_field() says."""
    any_rows = next(iter(groups.values()))
    field = cpu_field(groups)
    cpu_title = "NN CPU µs/op without JIT" if field == "nn_cpu_no_jit_us_per_op" else "NN CPU µs/op"
    # With a noop-logger run, CPU is also shown against it: the NameNode's own price of having any logger.
    noop = any(k[2] == "noop-logger" for k in groups)
    # The CSV also has the CPU of the operation's own path (IPC threads, edit log, GC, writer).
    path = "nn_path_us_per_op" in any_rows[0]
    path_head = ("path µs/op median (min–max) | × off | %s" % ("× noop | " if noop else "")) if path else ""
    path_cols = ("---:|---:|%s" % ("---:|" if noop else "")) if path else ""
    # With a variant that ships to Kafka: its lag when the timed window ended, and the topic check.
    ship = any(r.get("ship_topic_match") for rows in groups.values() for r in rows)
    # With a sealed variant: against the same logger unsealed, its seals, and nnaudit verify's verdict.
    seal = any(r.get("seal_verify_exit") for rows in groups.values() for r in rows)
    out = ["### " + title, "",
           "| op | threads | variant | ops/s median (min–max) | × off | %s median (min–max) | × off | %s%s"
           "writer µs/op | records lost |%s" % (cpu_title, "× noop | " if noop else "", path_head,
                                              " ship lag at window end, records (median) | topic holds every record |"
                                              if ship else "") + (
               " ops/s sealed / unsealed | NN CPU sealed / unsealed | seals per run (median) | trail verifies |"
               if seal else ""),
           "|---|---:|---|---:|---:|---:|---:|%s%s---:|---:|%s%s" % ("---:|" if noop else "", path_cols,
                                                                   "---:|---|" if ship else "",
                                                                   "---:|---:|---:|---|" if seal else "")]
    sealed_of = SEALED_OF_DEFERRAL if deferral_run(groups) else SEALED_OF
    for (op, t, v) in sorted(groups, key=lambda k: (k[0], k[1], order(k[2]))):
        rows = groups[(op, t, v)]
        ops, ops_lo, ops_hi = med(rows, "ops_per_sec")
        cpu, cpu_lo, cpu_hi = med(rows, field)
        off = groups.get((op, t, "off"))
        r_ops = "%.2f" % (ops / med(off, "ops_per_sec")[0]) if off else "–"
        r_cpu = "%.2f" % (cpu / med(off, field)[0]) if off else "–"
        floor = groups.get((op, t, "noop-logger"))
        r_noop = ("%.2f | " % (cpu / med(floor, field)[0]) if floor else "– | ") if noop else ""
        path_text = ""
        if path:
            p, p_lo, p_hi = med(rows, "nn_path_us_per_op")
            path_text = "%.1f (%.1f–%.1f) | %s | " % (
                p, p_lo, p_hi, "%.2f" % (p / med(off, "nn_path_us_per_op")[0]) if off else "–")
            if noop:
                path_text += ("%.2f | " % (p / med(floor, "nn_path_us_per_op")[0])) if floor else "– | "
        writer = "%.1f" % statistics.median(float(r["nn_writer_ms"]) * 1000.0 / float(r["ops"]) for r in rows) \
            if "nn_writer_ms" in rows[0] and v.startswith("nnaudit") else "–"
        lost = sum(int(r["audit_lost"]) + int(r["audit_discarded"]) for r in rows) \
            if v not in ("off", "noop-logger") else 0
        if lost and "audit_drops_reported" in rows[0]:
            lost = "%d (%d reported)" % (lost, sum(int(r["audit_drops_reported"]) for r in rows))
        ship_text = ""
        if ship:
            shipped = [r for r in rows if r.get("ship_topic_match")]
            ship_text = " %s | %s |" % (
                "%.0f" % statistics.median(float(r["ship_lag_window_end"]) for r in shipped) if shipped else "–",
                ("yes" if all(r["ship_topic_match"] == "yes" for r in shipped) else "NO") if shipped else "–")
        seal_text = ""
        if seal:
            seal_text = " – | – | – | – |"
            unsealed = groups.get((op, t, sealed_of.get(v)))
            sealed_runs = [r for r in rows if r.get("seal_verify_exit")]
            if sealed_runs:
                exits = [r["seal_verify_exit"] for r in sealed_runs]
                verdict = "NO" if any(e not in ("0", "2") for e in exits) else "yes" if all(
                    e == "0" for e in exits) else "yes, %d of %d runs with records after the last seal" % (
                    sum(e == "2" for e in exits), len(exits))
                seal_text = " %s | %s | %.0f | %s |" % (
                    "%.2f" % (ops / med(unsealed, "ops_per_sec")[0]) if unsealed else "–",
                    "%.2f" % (cpu / med(unsealed, field)[0]) if unsealed else "–",
                    statistics.median(float(r["seals"]) for r in sealed_runs), verdict)
        out.append("| %s | %d | %s | %.0f (%.0f–%.0f) | %s | %.1f (%.1f–%.1f) | %s | %s%s%s | %s |%s%s" % (
            op, t, v, ops, ops_lo, ops_hi, r_ops, cpu, cpu_lo, cpu_hi, r_cpu, r_noop, path_text, writer, lost,
            ship_text, seal_text))
    return "\n".join(out)


ORDER = ["off", "noop-logger", "stock-sync", "stock-async", "stock-async-drop", "nnaudit-block-baseline", "nnaudit-block",
         "nnaudit-block-deferral",
         "nnaudit-sealed", "nnaudit-block-linger1", "nnaudit-block-linger20",
         "nnaudit-kafka", "nnaudit-all", "nnaudit-drop", "nnaudit-sync", "nnaudit-sync-tmpfs",
         "nnaudit-sync-per-record"]


# A sealed variant -> the same logger unsealed, which its ratios are taken against.
SEALED_OF = {"nnaudit-sealed": "nnaudit-block", "nnaudit-all": "nnaudit-kafka",
             "nnaudit-all-together": "nnaudit-kafka-together"}
# A run whose feature variants ran on a build with lead deferral compares seals against that build's defaults.
SEALED_OF_DEFERRAL = {"nnaudit-sealed": "nnaudit-block-deferral", "nnaudit-all": "nnaudit-kafka",
                      "nnaudit-all-together": "nnaudit-kafka-together"}


# Each feature's cost: (label, variant with it, variant without it). "{base}" is the defaults the feature variants
# ran on: nnaudit-block, or nnaudit-block-deferral where the run's features ran on a build with lead deferral.
FEATURES = [("defaults × do-nothing logger", "nnaudit-block", "noop-logger"),
            ("seals on × off", "nnaudit-sealed", "{base}"),
            ("shipping on × off", "nnaudit-kafka", "{base}"),
            ("everything on × do-nothing logger", "nnaudit-all", "noop-logger"),
            ("shipping, lines together, on × off", "nnaudit-kafka-together", "{base}"),
            ("everything on, lines together, × do-nothing logger", "nnaudit-all-together", "noop-logger"),
            ("the Kafka producer alone × do-nothing logger", "producer-floor", "noop-logger")]
NNAUDIT_THREADS = ["writer", "sealer", "shipper", "producer"]


def deferral_run(groups):
    """Whether the run's feature variants ran on a build with lead deferral (its defaults: nnaudit-block-deferral)."""
    return any(k[2] == "nnaudit-block-deferral" for k in groups)


def ratios(groups, op, t, with_v, without_v, field):
    """(ratio of medians, [ratios of runs of the same repeat, interleaved side by side]), or None."""
    a, b = groups.get((op, t, with_v)), groups.get((op, t, without_v))
    if not a or not b:
        return None
    by_repeat = {r["repeat"]: float(r[field]) for r in b}
    pairs = [float(r[field]) / by_repeat[r["repeat"]] for r in a if r["repeat"] in by_repeat]
    return med(a, field)[0] / med(b, field)[0], pairs


def ratio_text(groups, op, t, with_v, without_v, field):
    """Ratio of medians, and the min–max of the ratios of runs of the same repeat (interleaved side by side)."""
    r = ratios(groups, op, t, with_v, without_v, field)
    if r is None or not r[1]:
        return "–"
    return "%.2f (%.2f–%.2f)" % (r[0], min(r[1]), max(r[1]))


FEATURE_TARGETS = {"defaults × do-nothing logger": "≤ 1.05", "seals on × off": "≤ 1.02",
                   "shipping on × off": "≤ 1.05", "everything on × do-nothing logger": "≤ 1.10",
                   "shipping, lines together, on × off": "≤ 1.05",
                   "everything on, lines together, × do-nothing logger": "≤ 1.10"}


def feature_summary(groups, field, base):
    """Each feature over every (op, threads) cell: the median of the cells' ratios of medians, their range, and
    the range of the per-repeat ratios, beside its target."""
    cells = sorted({(op, t) for (op, t, v) in groups})
    out = ["", "Each feature over the %d cells (op and thread count): the median of the cells' ratios, their "
           "range, and the range of every per-repeat ratio:" % len(cells), "",
           "| feature | target | median of the cells | the cells | per-repeat ratios |", "|---|---:|---:|---|---|"]
    for name, w, wo in FEATURES:
        got = [ratios(groups, op, t, w, wo.format(base=base), field) for op, t in cells]
        got = [g for g in got if g is not None and g[1]]
        if not got:
            continue
        meds = [g[0] for g in got]
        pairs = [p for g in got for p in g[1]]
        out.append("| %s | %s | **%.2f** | %.2f–%.2f | %.2f–%.2f |" % (
            name, FEATURE_TARGETS.get(name, "–"), statistics.median(meds), min(meds), max(meds), min(pairs),
            max(pairs)))
    return out


def feature_table(groups, title):
    """NameNode CPU per operation of each feature against the same configuration without it, and the CPU of
    nnaudit's own threads per record."""
    field = cpu_field(groups)
    base = "nnaudit-block-deferral" if deferral_run(groups) else "nnaudit-block"
    ran = {k[2] for k in groups}
    features = [f for f in FEATURES if f[1] in ran and f[2].format(base=base) in ran]  # the run's own columns
    out = ["### " + title + ": what each feature costs", "",
           "NameNode CPU per operation without JIT, ratio of medians (min–max of the per-repeat ratios):", "",
           "| op | threads | do-nothing logger µs/op | " + " | ".join(f[0] for f in features) + " |",
           "|---|---:|---:|" + "---:|" * len(features)]
    keys = sorted({(op, t) for (op, t, v) in groups})
    for op, t in keys:
        floor = groups.get((op, t, "noop-logger"))
        cells = [ratio_text(groups, op, t, w, wo.format(base=base), field) for _, w, wo in features]
        out.append("| %s | %d | %s | %s |" % (op, t, "%.1f" % med(floor, field)[0] if floor else "–",
                                              " | ".join(cells)))
    out += feature_summary(groups, field, base)
    if field == "nn_cpu_no_jit_us_per_op" and all("nn_gc_ms" in rows[0] for rows in groups.values()):
        # A young collection lands in a timed window or outside it by where the heap stood when the window began,
        # which a variant that allocates more moves: the same figures without the GC's CPU in each window.
        for rows in groups.values():
            for r in rows:
                r["nn_cpu_no_jit_no_gc_us_per_op"] = str(float(r[field]) - float(r["nn_gc_ms"]) * 1000.0
                                                         / float(r["ops"]))
        no_gc = feature_summary(groups, "nn_cpu_no_jit_no_gc_us_per_op", base)
        no_gc[1] = ("The same without the garbage collector's CPU in each timed window (a young collection falls "
                    "in a window or outside it by where the heap stood when it began):")
        gc_us = {k: statistics.median(float(r["nn_gc_ms"]) * 1000.0 / float(r["ops"]) for r in rows)
                 for k, rows in groups.items()}
        gc_cells = ["%s %d %s %.1f" % (op, t, v, us) for (op, t, v), us in sorted(gc_us.items()) if us >= 0.5]
        out += no_gc
        out += ["", "Cells whose median window held a collection (op, threads, variant, GC CPU µs/op, median): "
                + ("; ".join(gc_cells) if gc_cells else "none") + "."]
    variants = [v for v in ("nnaudit-ack-queue", "nnaudit-block", "nnaudit-block-deferral", "nnaudit-sealed",
                            "nnaudit-kafka", "nnaudit-all", "nnaudit-kafka-together", "nnaudit-all-together",
                            "producer-floor")
                if any(k[2] == v for k in groups)]
    if any("nnaudit_threads" in rows[0] for rows in groups.values()):
        out += ["", "CPU of nnaudit's own threads per record, µs, median over every op, thread count and repeat "
                "(min–max); a handler's time inside the logger is in the NameNode's figure above:", "",
                "| variant | " + " | ".join(NNAUDIT_THREADS) + " | sum |", "|---|" + "---:|" * (len(NNAUDIT_THREADS) + 1)]
        for v in variants:
            per = defaultdict(list)
            for (op, t, vv), rows in groups.items():
                if vv != v:
                    continue
                for r in rows:
                    split = dict(kv.split(":") for kv in r["nnaudit_threads"].split(",") if kv)
                    # producer-floor writes no record: it sends one line a call
                    records = float(r["audit_records"]) or float(r["ops"])
                    total = 0.0
                    for k in NNAUDIT_THREADS:
                        us = float(split.get(k, 0)) * 1000.0 / records
                        per[k].append(us)
                        total += us
                    per["sum"].append(total)
            cells = ["%.2f (%.2f–%.2f)" % (statistics.median(per[k]), min(per[k]), max(per[k])) if per[k] else "–"
                     for k in NNAUDIT_THREADS + ["sum"]]
            out.append("| %s | %s |" % (v, " | ".join(cells)))
    return "\n".join(out)


def compression_table(groups, title):
    """nnaudit-gzip against nnaudit-rotating (the same rotation, compression off), run side by side: NameNode CPU
    per operation, ratio of medians with the min–max of the per-repeat ratios, as feature_table's; ops/s likewise;
    and the compressor's own CPU per operation: inside the timed window (from nnaudit_threads), and for the op's
    files until the compressor caught up after the window (compressor_ms_to_caught_up), with its CPU per MB."""
    field = cpu_field(groups)
    out = ["### " + title + ": what compressing rotated files costs", "",
           "NameNode CPU per operation without JIT and ops/s, nnaudit-gzip against nnaudit-rotating: ratio of "
           "medians (min–max of the per-repeat ratios). Compressor µs/op: its thread's CPU per operation inside the "
           "timed window, and from the window's start until it had compressed every file rotated so far "
           "(median, min–max):", "",
           "| op | threads | rotating µs/op | rotating × do-nothing logger | gzip × rotating, CPU | gzip × rotating, "
           "ops/s | compressor µs/op in window | compressor µs/op to caught up | compressor CPU ms/MB | caught up "
           "after the window, ms | records lost |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def spread(vals, fmt="%.2f"):
        return (fmt + " (" + fmt + "–" + fmt + ")") % (statistics.median(vals), min(vals), max(vals)) if vals else "–"

    for op, t in sorted({(op, t) for (op, t, v) in groups}):
        rot, gz = groups.get((op, t, "nnaudit-rotating")), groups.get((op, t, "nnaudit-gzip"))
        if not rot or not gz:
            continue
        in_window, caught_up, per_mb, after = [], [], [], []
        for r in gz:
            ops = float(r["ops"])
            split = dict(kv.split(":") for kv in r["nnaudit_threads"].split(",") if kv)
            in_window.append(float(split.get("compressor", 0)) * 1000.0 / ops)
            if r.get("compressor_ms_to_caught_up"):
                caught_up.append(float(r["compressor_ms_to_caught_up"]) * 1000.0 / ops)
                if float(r["compressed_bytes"]) > 0:
                    per_mb.append(float(r["compressor_ms_to_caught_up"]) / (float(r["compressed_bytes"]) / 1e6))
                after.append(float(r["compress_caught_up_ms"]))
        lost = sum(int(r["audit_lost"]) for r in rot + gz)
        out.append("| %s | %d | %.1f | %s | %s | %s | %s | %s | %s | %s | %d |" % (
            op, t, med(rot, field)[0], ratio_text(groups, op, t, "nnaudit-rotating", "noop-logger", field),
            ratio_text(groups, op, t, "nnaudit-gzip", "nnaudit-rotating", field),
            ratio_text(groups, op, t, "nnaudit-gzip", "nnaudit-rotating", "ops_per_sec"), spread(in_window),
            spread(caught_up), spread(per_mb, "%.1f"), spread(after, "%.0f"), lost))
    return "\n".join(out)


def load_plain(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def compression_cost_table(path, title):
    """CompressionCost's repeats (benchmarks/compression-cost.sh): ratio, MB/s, CPU ms per MB, median (min–max);
    the mix's lines per command from the -mix CSV beside it."""
    rows = load_plain(path)
    out = ["### " + title, "",
           "| repeats | MB in | MB out | ratio | MB/s of input, wall clock | CPU ms per MB of input |",
           "|---:|---:|---:|---:|---:|---:|"]

    def spread(field, fmt):
        vals = [float(r[field]) for r in rows]
        return (fmt + " (" + fmt + "–" + fmt + ")") % (statistics.median(vals), min(vals), max(vals))
    out.append("| %d | %.1f | %.1f | %s | %s | %s |" % (
        len(rows), float(rows[0]["bytes_in"]) / 1e6, float(rows[0]["bytes_out"]) / 1e6, spread("ratio", "%.2f"),
        spread("mb_per_s", "%.1f"), spread("cpu_ms_per_mb", "%.2f")))
    mix = os.path.splitext(path)[0] + "-mix.csv"
    if os.path.isfile(mix):
        m = load_plain(mix)
        out += ["", "The file's records by command: " + ", ".join(
            "%s %.1f%% (%.0f bytes)" % (r["cmd"], 100 * float(r["share"]), float(r["mean_bytes"]))
            for r in sorted(m, key=lambda r: -float(r["share"]))) + "."]
    return "\n".join(out)


def drain_compression_table(path, title):
    """DrainCompression's drains: events/s fsynced per kind, median (min–max), and gzip / rotating (ratio of
    medians, min–max of the ratios of the same repeat); the compressor's CPU during the drain and its catch-up."""
    rows = load_plain(path)
    by = defaultdict(list)
    for r in rows:
        by[r["kind"]].append(r)
    out = ["### " + title, "",
           "| files rotate at | kind | repeats | events/s fsynced, median (min–max) | × rotating | writer CPU s | "
           "compressor CPU s in the drain | compressor caught up after, s | compressor CPU s in all | bytes | "
           "rotated files |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    rot = {r["repeat"]: float(r["events_per_s"]) for r in by.get("rotating", [])}
    for kind in ("rotating", "gzip"):
        rs = by.get(kind)
        if not rs:
            continue

        def m(field, fmt="%.3f"):
            vals = [float(r[field]) for r in rs]
            return fmt % statistics.median(vals)
        ev = [float(r["events_per_s"]) for r in rs]
        pairs = [float(r["events_per_s"]) / rot[r["repeat"]] for r in rs if r["repeat"] in rot]
        ratio = "%.2f (%.2f–%.2f)" % (statistics.median(ev) / statistics.median(rot.values()), min(pairs), max(pairs)) \
            if rot and pairs else "–"
        out.append("| %s | %s | %d | %.0f (%.0f–%.0f) | %s | %s | %s | %s | %s | %s | %s |" % (
            rs[0]["max_size"], kind, len(rs), statistics.median(ev), min(ev), max(ev), ratio, m("writer_cpu_s"),
            m("compressor_cpu_s"), m("catch_up_s", "%.1f"), m("compressor_cpu_total_s"), m("bytes", "%.0f"),
            m("rotated_files", "%.0f")))
    return "\n".join(out)


def order(v):
    return ORDER.index(v) if v in ORDER else len(ORDER)


def plot(groups, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ops = sorted({k[0] for k in groups})
    threads = sorted({k[1] for k in groups})
    variants = sorted({k[2] for k in groups}, key=order)
    field = cpu_field(groups)
    fig, axes = plt.subplots(3, len(ops), figsize=(6 * len(ops), 12), squeeze=False)
    for i, op in enumerate(ops):
        for v in variants:
            xs, ys, lo, hi, ratio, cpu_ratio = [], [], [], [], [], []
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
                cpu_ratio.append(med(rows, field)[0] / med(off, field)[0] if off else float("nan"))
            if not xs:
                continue
            axes[0][i].errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=v)
            axes[1][i].plot(xs, ratio, marker="o", label=v)
            axes[2][i].plot(xs, cpu_ratio, marker="o", label=v)
        axes[0][i].set_title("%s: ops/s (median, min–max)" % op)
        axes[1][i].set_title("%s: throughput / off" % op)
        axes[1][i].axhline(1.0, color="grey", linewidth=0.8)
        axes[2][i].set_title("%s: NameNode CPU per op / off (medians)" % op)
        axes[2][i].axhline(1.0, color="grey", linewidth=0.8)
        axes[2][i].axhline(1.05, color="red", linewidth=0.8, linestyle="--")
        for ax in [row[i] for row in axes]:
            ax.set_xlabel("client threads (= handler count)")
            if len(threads) > 1:
                ax.set_xscale("log", base=2)
            ax.set_xticks(threads)
            ax.set_xticklabels([str(t) for t in threads])
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


SHIP_ORDER = ["producer", "catch-up", "producer-steady", "steady"]


def load_ship_rate(path):
    """(measure, target rate) -> rows of benchmarks/ship_rate.py's CSV."""
    groups = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            groups[(r["measure"], int(r["target_rate"]))].append(r)
    return groups


def ship_rate_table(groups, title):
    """Records/s of the producer alone (the limit), the shipper catching up and the shipper keeping up with a
    writer, and the steady lag."""
    out = ["### " + title, "",
           "| measure | write rate, records/s | repeats | records/s median (min–max) | × producer | "
           "lag records: median / p99 | lag ms: median / p99 | send errors | CPU µs per record: sending thread + "
           "producer I/O thread, median (min–max of the sums) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    producer = groups.get(("producer", 0))
    for (m, rate) in sorted(groups, key=lambda k: (SHIP_ORDER.index(k[0]) if k[0] in SHIP_ORDER else 9, k[1])):
        rows = groups[(m, rate)]
        v, lo, hi = med(rows, "records_per_sec")
        flat_out = m in ("producer", "catch-up")
        ratio = "%.2f" % (v / med(producer, "records_per_sec")[0]) if producer and flat_out else "–"

        def lag(field):
            vals = [float(r[field]) for r in rows if r[field] != ""]
            return "%.0f" % statistics.median(vals) if vals else "–"
        lags = "%s / %s" % (lag("lag_records_median"), lag("lag_records_p99")) if m == "steady" else "–"
        ms = "%s / %s" % (lag("lag_millis_median"), lag("lag_millis_p99")) if m == "steady" else "–"
        cpu = "–"
        timed = [r for r in rows if r.get("send_thread_cpu_us_per_record")]
        if timed:
            send = statistics.median(float(r["send_thread_cpu_us_per_record"]) for r in timed)
            io = statistics.median(float(r["io_thread_cpu_us_per_record"]) for r in timed)
            sums = [float(r["send_thread_cpu_us_per_record"]) + float(r["io_thread_cpu_us_per_record"]) for r in timed]
            cpu = "%.2f + %.2f (%.2f–%.2f)" % (send, io, min(sums), max(sums))
        out.append("| %s | %s | %d | %.0f (%.0f–%.0f) | %s | %s | %s | %d | %s |" % (
            m, rate if rate else "–", len(rows), v, lo, hi, ratio, lags, ms,
            sum(int(r["send_errors"]) for r in rows), cpu))
    return "\n".join(out)


def ship_compression_table(path, title):
    """Per measure, write rate and compression type: records/s, bytes on the wire per record (and against none),
    CPU per record of the sending thread + the producer's I/O thread; medians (min–max) over repeats."""
    groups = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            groups[(r["measure"], int(r["target_rate"]), r["compression"])].append(r)
    order = ["none", "gzip", "lz4"]
    out = ["### " + title, "",
           "| measure | write rate, records/s | compression | repeats | records/s median (min–max) | "
           "bytes on the wire per record, median (min–max) | × none | CPU µs per record: sending thread + producer "
           "I/O thread, median (min–max of the sums) | send errors |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for key in sorted(groups, key=lambda k: (SHIP_ORDER.index(k[0]) if k[0] in SHIP_ORDER else 9, k[1],
                                             order.index(k[2]) if k[2] in order else 9)):
        m, rate, comp = key
        rows = groups[key]
        v, lo, hi = med(rows, "records_per_sec")
        w, wlo, whi = med(rows, "wire_bytes_per_record")
        none = groups.get((m, rate, "none"))
        ratio = "%.3f" % (w / med(none, "wire_bytes_per_record")[0]) if none else "–"
        send = statistics.median(float(r["send_thread_cpu_us_per_record"]) for r in rows)
        io = statistics.median(float(r["io_thread_cpu_us_per_record"]) for r in rows)
        sums = [float(r["send_thread_cpu_us_per_record"]) + float(r["io_thread_cpu_us_per_record"]) for r in rows]
        out.append("| %s | %s | %s | %d | %.0f (%.0f–%.0f) | %.1f (%.1f–%.1f) | %s | %.2f + %.2f = %.2f (%.2f–%.2f) | %d |"
                   % (m, rate if rate else "–", comp, len(rows), v, lo, hi, w, wlo, whi, ratio, send, io,
                      statistics.median(sums), min(sums), max(sums), sum(int(r["send_errors"]) for r in rows)))
    return "\n".join(out)


def ship_rate_plot(groups, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted(groups, key=lambda k: (SHIP_ORDER.index(k[0]) if k[0] in SHIP_ORDER else 9, k[1]))
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    labels = ["%s %d/s" % k if k[1] else k[0] for k in keys]
    ys = [med(groups[k], "records_per_sec") for k in keys]
    axes[0].bar(range(len(keys)), [y[0] for y in ys], yerr=[[y[0] - y[1] for y in ys], [y[2] - y[0] for y in ys]],
                capsize=3)
    axes[0].set_xticks(range(len(keys)))
    axes[0].set_xticklabels(labels, fontsize=8)
    axes[0].set_title("records/s (median, min–max)")
    steady = [k for k in keys if k[0] == "steady"]
    for field, label in (("lag_records_median", "median"), ("lag_records_p99", "p99")):
        axes[1].plot([k[1] for k in steady], [statistics.median(float(r[field]) for r in groups[k]) for k in steady],
                     marker="o", label=label)
    axes[1].set_title("steady: ShipLagRecords (medians over repeats)")
    axes[1].set_xlabel("write rate, records/s")
    axes[1].legend(fontsize=8)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
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


JMH_ORDER = ["nnaudit-block", "nnaudit-block-sealed", "nnaudit-drop", "hadoop-sync", "hadoop-async", "log4j2-sync", "log4j2-async"]


def jmh_variant(variant, seal):
    """A JMH trial's variant, named apart when its file was sealed (-p seal=on): nnaudit-block-sealed."""
    return variant + "-sealed" if seal == "on" else variant


def load_jmh(d):
    """(threads, variant) -> dict of the figures of one JMH results directory (dev-support/bin/jmh)."""
    rows = {}
    for path in sorted(glob.glob(os.path.join(d, "throughput-t*.json"))):
        with open(path) as f:
            for b in json.load(f):
                key = (int(b["threads"]), jmh_variant(b["params"]["variant"], b["params"].get("seal", "off")))
                sec = b.get("secondaryMetrics", {})
                rows[key] = {"jmh_score": b["primaryMetric"]["score"],
                             "alloc": sec.get("gc.alloc.rate.norm", {}).get("score", float("nan")),
                             "wall": [], "calls": 0, "dropped": 0, "lost": 0, "seals": 0, "verify": []}
    with open(os.path.join(d, "check.csv")) as f:
        for c in csv.DictReader(f):
            r = rows.setdefault((int(c["threads"]), jmh_variant(c["variant"], c.get("seal", "off"))),
                                {"jmh_score": float("nan"), "alloc": float("nan"), "wall": [], "calls": 0,
                                 "dropped": 0, "lost": 0, "seals": 0, "verify": []})
            r["wall"] += [float(x) for x in c["wall_calls_per_s_all"].split()]
            r["calls"] += int(c["calls"])
            r["dropped"] += int(c["dropped"])
            r["lost"] += int(c["lost"])
            if c.get("seal") == "on":
                r["seals"] += int(c["seals"])
                r["verify"].append(c["verify_exit"])
    return rows


def written_rate(r):
    """Calls/s (wall clock, median) times the share of calls that were not dropped: records reaching the file."""
    return statistics.median(r["wall"]) * (1.0 - float(r["dropped"]) / r["calls"]) if r["calls"] else 0.0


def jmh_table(rows, title):
    out = ["### " + title, "",
           "| threads | variant | calls/s, wall clock: median (min–max) | × hadoop-sync | × log4j2-async | "
           "dropped | records/s | bytes allocated per call | records lost |",
           "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for (t, v) in sorted(rows, key=lambda k: (k[0], JMH_ORDER.index(k[1]) if k[1] in JMH_ORDER else 99)):
        r = rows[(t, v)]
        if not r["wall"]:
            continue
        m = statistics.median(r["wall"])

        def ratio(other):
            o = rows.get((t, other))
            return "%.2f" % (m / statistics.median(o["wall"])) if o and o["wall"] else "–"
        dropped = "%.1f%%" % (100.0 * r["dropped"] / r["calls"]) if r["calls"] else "–"
        out.append("| %d | %s | %.0f (%.0f–%.0f) | %s | %s | %s | %.0f | %.0f | %d |" % (
            t, v, m, min(r["wall"]), max(r["wall"]), ratio("hadoop-sync"), ratio("log4j2-async"), dropped,
            written_rate(r), r["alloc"], r["lost"]))
    return "\n".join(out)


def jmh_seal_table(rows, title):
    """dev-support/bin/jmh --seal: nnaudit BLOCK with its file unsealed and sealed, by producer threads."""
    out = ["### " + title, "",
           "| threads | sealing | calls/s, wall clock: median (min–max) | sealed / unsealed | records/s | "
           "bytes allocated per call | seals | records lost | trail verifies |",
           "|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for (t, v) in sorted(rows, key=lambda k: (k[0], JMH_ORDER.index(k[1]) if k[1] in JMH_ORDER else 99)):
        r = rows[(t, v)]
        if not r["wall"]:
            continue
        m = statistics.median(r["wall"])
        sealed = v.endswith("-sealed")
        base = rows.get((t, v[:-len("-sealed")])) if sealed else None
        ratio = "%.2f" % (m / statistics.median(base["wall"])) if base and base["wall"] else "–" if sealed else "1.00"
        verdict = ("yes" if r["verify"] and all(e == "0" for e in r["verify"]) else "NO") if sealed else "–"
        out.append("| %d | %s | %.0f (%.0f–%.0f) | %s | %.0f | %.0f | %s | %d | %s |" % (
            t, "on" if sealed else "off", m, min(r["wall"]), max(r["wall"]), ratio, written_rate(r), r["alloc"],
            r["seals"] if sealed else "–", r["lost"], verdict))
    return "\n".join(out)


def drain_table(d, title):
    path = os.path.join(d, "drain.csv")
    if not os.path.exists(path):
        return None
    by = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(f):
            by[r["kind"]].append(r)
    n, sealed, raw = by["nnaudit"], by.get("nnaudit-sealed"), by["raw"]
    threads = "writer_cpu_s" in n[0]  # the threads' CPU, in runs since it was recorded

    def per_mb(r, field):  # CPU ms per MB written
        return float(r[field]) * 1000.0 / (float(r["bytes"]) / 1e6)

    def spread(vals):
        return "%.2f (%.2f–%.2f)" % (statistics.median(vals), min(vals), max(vals)) if vals else "–"
    out = ["### " + title, "",
           "| | repeats | MB/s to the page cache (median) | MB/s fsynced (median, min–max) | events/s fsynced |"
           + (" writer CPU ms/MB | sealing thread CPU ms/MB |" if threads else ""),
           "|---|---:|---:|---:|---:|" + ("---:|---:|" if threads else "")]
    kinds = [("nnaudit writer, full queue", n)] + ([("nnaudit writer, full queue, sealed", sealed)] if sealed else [])
    for name, rs in kinds + [("raw FileChannel, 1 MiB writes", raw)]:
        w = statistics.median(float(r["written_mb_per_s"]) for r in rs)
        fs = [float(r["fsynced_mb_per_s"]) for r in rs]
        ev = statistics.median(float(r["events_per_s"]) for r in rs)
        cpu = ""
        if threads:
            cpu = " %s | %s |" % tuple(spread([per_mb(r, f) for r in rs if float(r[f]) > 0])
                                       for f in ("writer_cpu_s", "sealer_cpu_s"))
        out.append("| %s | %d | %.0f | %.0f (%.0f–%.0f) | %s |%s" % (
            name, len(rs), w, statistics.median(fs), min(fs), max(fs), "%.0f" % ev if ev else "–", cpu))
    ratio = statistics.median(float(r["fsynced_mb_per_s"]) for r in n) / \
        statistics.median(float(r["fsynced_mb_per_s"]) for r in raw)
    out += ["", "Drain capacity / raw bandwidth (fsynced, medians): **%.2f**." % ratio]
    if sealed:
        def median_of(rs, field):
            return statistics.median(float(r[field]) for r in rs)
        out += ["", "Sealed / unsealed drain capacity (medians): **%.2f** fsynced, %.2f to the page cache." % (
            median_of(sealed, "fsynced_mb_per_s") / median_of(n, "fsynced_mb_per_s"),
            median_of(sealed, "written_mb_per_s") / median_of(n, "written_mb_per_s"))]
        if threads:
            unsealed_writer = statistics.median(per_mb(r, "writer_cpu_s") for r in n)
            sealed_writer = statistics.median(per_mb(r, "writer_cpu_s") for r in sealed)
            sealer = statistics.median(per_mb(r, "sealer_cpu_s") for r in sealed)
            out += ["", "With a core for each thread, a drain goes as fast as its slower thread's CPU per MB allows: "
                    "sealed / unsealed **%.2f** (the unsealed writer's %.2f ms/MB against the slower of the sealed "
                    "writer's %.2f and the sealing thread's %.2f; medians)." % (
                        unsealed_writer / max(sealed_writer, sealer), unsealed_writer, sealed_writer, sealer)]
    return "\n".join(out)


def jmh_plot(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    threads = sorted({k[0] for k in rows})
    variants = [v for v in JMH_ORDER if any(k[1] == v for k in rows)]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for v in variants:
        xs = [t for t in threads if (t, v) in rows and rows[(t, v)]["wall"]]
        if v == "nnaudit-drop":  # most of its calls are refused: plot the records it writes
            ys = [written_rate(rows[(t, v)]) for t in xs]
            axes[0].plot(xs, ys, marker="o", linestyle="--", label=v + " (records written)")
        else:
            ys = [statistics.median(rows[(t, v)]["wall"]) for t in xs]
            lo = [y - min(rows[(t, v)]["wall"]) for t, y in zip(xs, ys)]
            hi = [max(rows[(t, v)]["wall"]) - y for t, y in zip(xs, ys)]
            axes[0].errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=v)
        axes[1].plot(xs, [rows[(t, v)]["alloc"] for t in xs], marker="o", label=v)
    axes[0].set_title("calls/s completed, every record written (wall clock, median, min–max)")
    axes[0].set_yscale("log")
    axes[1].set_title("bytes allocated per call (-prof gc, all threads)")
    for ax in axes:
        ax.set_xlabel("producer threads")
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def in_results(path):
    """Whether a CSV or JMH directory is one of the current results (benchmarks/results/), whose tables
    RESULTS.md holds."""
    return os.path.dirname(os.path.abspath(os.path.normpath(path))) == RESULTS


def report_jmh(d):
    name = os.path.basename(os.path.normpath(d))
    rows = load_jmh(d)
    text = (jmh_seal_table if any(v.endswith("-sealed") for _, v in rows) else jmh_table)(rows, name)
    print(text)
    print()
    if in_results(d):
        update_results_md(name, text)
    drain = drain_table(d, name + "-drain")
    if drain:
        print(drain)
        print()
        if in_results(d):
            update_results_md(name + "-drain", drain)
    try:
        print("plot: " + jmh_plot(rows, os.path.normpath(d) + ".png"))
    except ImportError:
        print("(matplotlib is not installed: pip install matplotlib, for the plots)")
    print()


JMH_EXPERIMENT_MEASURES = ("repeat", "wall_calls_per_s", "dropped", "lost")


def jmh_experiment_table(path, title):
    """A JMH experiment's CSV (benchmarks/jmh-baseline-experiment.sh, benchmarks/experiments/jmh-fresh-pages/
    run.sh): one row per setting, the median wall-clock calls/s with min–max over its repeats, and the calls
    the check found missing from the file."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    keys = [c for c in rows[0] if c not in JMH_EXPERIMENT_MEASURES]
    groups = defaultdict(list)
    for r in rows:
        groups[tuple(r[k] for k in keys)].append(r)
    has_lost = "lost" in rows[0]
    out = ["### " + title, "",
           "| %s | runs | calls/s median (min–max) |%s" % (" | ".join(keys), " lost |" if has_lost else ""),
           "|%s---:|---:|%s" % ("---|" * len(keys), "---:|" if has_lost else "")]
    ordered = sorted(groups, key=lambda k: (k[keys.index("variant")], int(k[keys.index("threads")]), k))
    for k in ordered:
        m, lo, hi = med(groups[k], "wall_calls_per_s")
        lost = " %d |" % sum(int(r["lost"]) for r in groups[k]) if has_lost else ""
        out.append("| %s | %d | %.0f (%.0f–%.0f) |%s" % (" | ".join(k), len(groups[k]), m, lo, hi, lost))
    return "\n".join(out), groups, keys, ordered


def jmh_experiment_plot(groups, keys, ordered, out):
    """Bars of the median calls/s (min–max whiskers), one cluster per variant and thread count, one bar per
    value of the CSV's first column (the thing the experiment varies)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    clusters = []
    for k in ordered:
        c = (k[keys.index("variant")], k[keys.index("threads")])
        if c not in clusters:
            clusters.append(c)
    arms = sorted({k[0] for k in ordered})
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(clusters)), 4.5))
    width = 0.8 / len(arms)
    for j, arm in enumerate(arms):
        xs, ys, lo, hi = [], [], [], []
        for i, (v, t) in enumerate(clusters):
            match = [k for k in ordered if k[0] == arm and k[keys.index("variant")] == v
                     and k[keys.index("threads")] == t]
            if not match:
                continue
            m, a, b = med(groups[match[0]], "wall_calls_per_s")
            xs.append(i + j * width)
            ys.append(m)
            lo.append(m - a)
            hi.append(b - m)
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=3, label="%s=%s" % (keys[0], arm))
    ax.set_xticks([i + width * (len(arms) - 1) / 2 for i in range(len(clusters))])
    ax.set_xticklabels(["%s\nt=%s" % c for c in clusters], fontsize=8)
    ax.set_ylabel("calls/s (median, min–max)")
    ax.set_yscale("log")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def main():
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(RESULTS, "*.csv")) +
                                   glob.glob(os.path.join(RESULTS, "jmh-*", "")))
    for p in paths:
        if os.path.isdir(p):
            report_jmh(p)
            continue
        name = os.path.splitext(os.path.basename(p))[0]
        png = os.path.splitext(p)[0] + ".png"  # beside its CSV
        with open(p) as f:
            header = next(csv.reader(f))
        if name.endswith("-summary") or name.endswith("-mix"):  # read with their compression-cost CSV
            continue
        if "bytes_in" in header or "catch_up_s" in header:  # benchmarks/compression-cost.sh
            text = (compression_cost_table if "bytes_in" in header else drain_compression_table)(p, name)
            print(text)
            print()
            if in_results(p):
                update_results_md(name, text)
            continue
        if "measure" in header and "compression" in header and len(
                {r["compression"] for r in csv.DictReader(open(p))}) > 1:  # ship_rate.py --compressions
            text = ship_compression_table(p, name)
            print(text)
            print()
            if in_results(p):
                update_results_md(name, text)
            continue
        if "measure" in header:  # ship_rate.py
            groups = load_ship_rate(p)
            text = ship_rate_table(groups, name)
            make_plot = lambda: ship_rate_plot(groups, png)
        elif "op" not in header:  # a JMH experiment's CSV
            text, groups, keys, ordered = jmh_experiment_table(p, name)
            make_plot = lambda: jmh_experiment_plot(groups, keys, ordered, png)
        else:  # nn_compare.py
            groups = load(p)
            text = table(groups, name)
            if any(k[2] == "noop-logger" for k in groups) and any(k[2] in ("nnaudit-all", "producer-floor")
                                                                  for k in groups):
                features = feature_table(groups, name)
                print(features)
                print()
                if in_results(p):
                    update_results_md(name + "-features", features)
            if any(k[2] == "nnaudit-gzip" for k in groups) and any(k[2] == "nnaudit-rotating" for k in groups):
                compression = compression_table(groups, name)
                print(compression)
                print()
                if in_results(p):
                    update_results_md(name + "-compression", compression)
            make_plot = lambda: plot(groups, png)
        print(text)
        print()
        if in_results(p):
            update_results_md(name, text)
        try:
            print("plot: " + make_plot())
        except ImportError:
            print("(matplotlib is not installed: pip install matplotlib, for the plots)")
        except ValueError as e:  # a table whose figures a plot cannot show (a log scale over none above 0)
            print("(no plot of %s: %s)" % (p, e))
        print()


if __name__ == "__main__":
    main()
