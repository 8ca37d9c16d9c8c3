#!/usr/bin/env python3
"""Where the NameNode's CPU goes in each profile of this folder: a table of shares by thread, and inside the
handlers, the share spent in nnaudit and its largest parts.

    python3 benchmarks/experiments/cpu-profiles/shares.py
"""
import collections
import glob
import gzip
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS = [("IPC Server handler", "handlers"), ("Socket Reader", "readers"),
          ("FSEditLogAsync", "edit log"), ("nnaudit-writer", "nnaudit writer"), ("nnaudit-seal", "nnaudit sealer"),
          ("nnaudit-kafka", "nnaudit shipper"), ("kafka-producer", "producer I/O"), ("GC Thread", "GC"),
          ("VM Thread", "GC")]
# A handler's time in nnaudit, split by the first of these frames found from the leaf up.
PARTS = [("io/nnaudit/sink/file/LiveFile.append", "write(2)"), ("io/nnaudit/ack/PostponedResponse.complete",
         "sending responses"), ("io/nnaudit/format/", "formatting"), ("io/nnaudit/seal/", "sealing hand-over"),
         ("io/nnaudit/event/AuditEvent.<init>", "capturing the event"), ("io/nnaudit/pipeline/AuditQueue", "queue"),
         ("io/nnaudit/", "other nnaudit")]


def group(thread):
    name = re.sub(r" tid=\d+\]$", "", thread.lstrip("["))
    for prefix, g in GROUPS:
        if name.startswith(prefix):
            return g
    return "other"


def shares(path):
    by_group = collections.Counter()
    parts = collections.Counter()
    in_nnaudit = 0
    total = 0
    with gzip.open(path, "rt") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            n = int(count)
            frames = stack.split(";")
            g = group(frames[0])
            by_group[g] += n
            total += n
            if g == "handlers" and any(fr.startswith("io/nnaudit/") for fr in frames):
                in_nnaudit += n
                for prefix, part in PARTS:
                    if any(fr.startswith(prefix) for fr in frames):
                        parts[part] += n
                        break
    return total, by_group, in_nnaudit, parts


def main():
    names = [g for _, g in GROUPS if g != "GC"] + ["GC", "other"]
    names = list(dict.fromkeys(names))
    print("| profile | samples | " + " | ".join(names) + " | handlers in nnaudit | of which |")
    print("|---|---:|" + "---:|" * len(names) + "---:|---|")
    for path in sorted(glob.glob(os.path.join(HERE, "*.collapsed.gz"))):
        total, by_group, in_nnaudit, parts = shares(path)
        cells = ["%.1f%%" % (100.0 * by_group[g] / total) for g in names]
        split = ", ".join("%s %.0f%%" % (p, 100.0 * c / in_nnaudit) for p, c in parts.most_common(4)) \
            if in_nnaudit else "–"
        print("| %s | %d | %s | %.1f%% | %s |" % (os.path.basename(path).replace(".collapsed.gz", ""), total,
                                                 " | ".join(cells), 100.0 * in_nnaudit / total, split))


if __name__ == "__main__":
    main()
