#!/usr/bin/env python3
"""Where nnaudit's CPU goes on the NameNode's handlers and on its writer thread, from folded profiles
(../handler-write-path/fold.py): each thread kind's samples in nnaudit, split into the write(2) of a batch,
formatting, the queue, sleeping and waking (park), sending postponed responses, and the rest.

    python3 threads.py nnaudit-ack-queue.collapsed.gz nnaudit-block.collapsed.gz
"""
import collections
import gzip
import sys

PARTS = ["write(2)", "formatting", "queue", "sleep and wake-up", "responses", "the rest"]


def part(frames):
    s = ";".join(frames)
    if "LiveFile.append" in s:
        return "write(2)"
    if "io/nnaudit/format/" in s:
        return "formatting"
    if "LockSupport.park" in s or "Unsafe.park" in s:
        return "sleep and wake-up"
    if "AuditQueue" in s or "ArrayBlockingQueue" in s:
        return "queue"
    if "PostponedResponse" in s:
        return "responses"
    return "the rest"


def main():
    print("| profile | thread | samples | in nnaudit | " + " | ".join(PARTS) + " |")
    print("|---|---|---:|---:|" + "---:|" * len(PARTS))
    for path in sys.argv[1:]:
        counts = {"handlers": collections.Counter(), "writer": collections.Counter()}
        with gzip.open(path, "rt") as f:
            for line in f:
                stack, _, n = line.rstrip("\n").rpartition(" ")
                n = int(n)
                frames = stack.split(";")
                kind = ("handlers" if frames[0].startswith("[IPC Server handler")
                        else "writer" if frames[0].startswith("[nnaudit-writer") else None)
                if kind is None:
                    continue
                c = counts[kind]
                c["all"] += n
                if any("io/nnaudit" in fr and "io/nnaudit/bench" not in fr for fr in frames):
                    c["nnaudit"] += n
                    c[part(frames)] += n
        name = path.split("/")[-1].replace(".collapsed.gz", "")
        for kind, c in counts.items():
            inside = c["nnaudit"] or 1
            print("| %s | %s | %d | %.1f%% | %s |" % (name, kind, c["all"], 100.0 * c["nnaudit"] / max(1, c["all"]),
                                                    " | ".join("%.0f%%" % (100.0 * c[p] / inside) for p in PARTS)))


if __name__ == "__main__":
    main()
