#!/usr/bin/env python3
"""What the NameNode's handler threads do inside nnaudit, from folded profiles (fold.py): the share of the
handlers' samples inside nnaudit, and of those, the write(2) of a batch (and within it the kernel's new
page-cache pages and the JDK's per-thread native copy), formatting, and the rest.

    python3 breakdown.py nnaudit-block.collapsed.gz [...]
"""
import collections
import gzip
import sys


def main():
    print("| profile | handler samples | inside nnaudit | of which write(2) | new page-cache pages | JDK's per-thread "
          "native copy | formatting | the rest |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in sys.argv[1:]:
        c = collections.Counter()
        with gzip.open(path, "rt") as f:
            for line in f:
                stack, _, n = line.rstrip("\n").rpartition(" ")
                n = int(n)
                frames = stack.split(";")
                if not frames[0].startswith("[IPC Server handler"):
                    continue
                c["handlers"] += n
                if not any("io/nnaudit" in fr for fr in frames):
                    continue
                c["nnaudit"] += n
                if "sun/nio/ch/IOUtil.write" in frames:
                    c["write"] += n
                    if "ext4_da_write_begin_[k]" in frames:
                        c["pages"] += n
                    if not any(fr.endswith("_[k]") or fr == "__GI_write" for fr in frames) and not any(
                            "FileDispatcherImpl.write0" in fr for fr in frames):
                        c["copy"] += n
                elif any("Formatter" in fr for fr in frames):
                    c["format"] += n
        nn = c["nnaudit"] or 1
        print("| %s | %d | %.1f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% |" % (
            path.split("/")[-1].replace(".collapsed.gz", ""), c["handlers"], 100.0 * c["nnaudit"] / c["handlers"],
            100.0 * c["write"] / nn, 100.0 * c["pages"] / nn, 100.0 * c["copy"] / nn, 100.0 * c["format"] / nn,
            100.0 * (nn - c["write"] - c["format"]) / nn))


if __name__ == "__main__":
    main()
