#!/usr/bin/env python3
"""The profile breakdown of NOTES.md from profiled-run.collapsed.gz (async-profiler, cpu, 200 µs, one NameNode
under ack.policy=journal with a 20 ms linger, fileStatus at 64 threads, the whole run: its creates, the warm-up
and the measured pass). The file keeps the stacks of the writer thread and the handlers' stacks inside nnaudit
whole, and the other samples as totals.

    python3 benchmarks/experiments/journal/profile.py
"""
import collections
import gzip
import os

HERE = os.path.dirname(os.path.abspath(__file__))
WRITER = [("write(2)", ("FileChannelImpl.write", "IOUtil.write", "ksys_write")), ("marks", ("writeMark",)),
          ("park and wake", ("park", "schedule")), ("draining the queue", ("drainTo",)),
          ("copying records into the chunk", ("RecordBuffer.append",)), ("copying into the native buffer", ("appendStaged",))]
HANDLER = [("formatting the record", ("HandlerFormatting.format",)), ("the journal's lock and copy", ("RecordJournal.append",))]


def classify(stack, kinds):
    for name, marks in kinds:
        if any(m in stack for m in marks):
            return name
    return "the rest"


def main():
    totals = collections.Counter()
    writer = collections.Counter()
    handler = collections.Counter()
    with gzip.open(os.path.join(HERE, "profiled-run.collapsed.gz"), "rt") as f:
        for line in f:
            stack, _, n = line.rstrip().rpartition(" ")
            n = int(n)
            thread = stack.split(";", 1)[0]
            totals[thread] += n
            if thread == "writer":
                writer[classify(stack, WRITER)] += n
            elif thread == "handler":
                handler[classify(stack, HANDLER)] += n
    everything = sum(v for k, v in totals.items() if k != "jit")
    print("Samples without the JIT compiler's: %d; nnaudit's: %d on handlers and %d on the writer (%.1f%%)."
          % (everything, totals["handler"], totals["writer"],
             100.0 * (totals["handler"] + totals["writer"]) / everything))
    for title, c in (("writer thread", writer), ("handlers inside nnaudit", handler)):
        s = sum(c.values())
        print()
        print("| %s | share |" % title)
        print("|---|---:|")
        for k, v in c.most_common():
            print("| %s | %.0f%% |" % (k, 100.0 * v / s))


if __name__ == "__main__":
    main()
