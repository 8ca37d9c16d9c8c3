#!/usr/bin/env python3
"""Flame graphs (SVG) from async-profiler's collapsed stacks, with nnaudit's own frames in blue.

    python3 benchmarks/flamegraph.py PROFILE.collapsed.gz [...]     # writes PROFILE.svg beside each

A collapsed file has one line per distinct stack, "frame;frame;...;frame COUNT", the root first; with
async-profiler's `threads` option the root is the thread's name in brackets. Frames narrower than 0.1% of all
samples are left out, and so are the JIT compiler threads, whose work is not the NameNode's.
"""
import gzip
import html
import os
import sys

WIDTH = 1600
ROW = 16
MIN_SHARE = 0.001
SKIP_THREADS = ("[C1 CompilerThre", "[C2 CompilerThre")


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    root = {"n": 0, "kids": {}}
    with opener(path, "rt") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or stack.startswith(SKIP_THREADS):
                continue
            n = int(count)
            node = root
            node["n"] += n
            for frame in stack.split(";"):
                node = node["kids"].setdefault(frame, {"n": 0, "kids": {}})
                node["n"] += n
    return root


def color(frame):
    if frame.startswith("io/nnaudit/") or frame.startswith("[nnaudit"):
        return "#4a90d9"
    if frame.endswith("_[k]"):
        return "#e8a33d"
    if frame.startswith("["):
        return "#999999"
    if "/" in frame or "." in frame:
        return "#6cbf5a"
    return "#d9534f"


def layout(node, name, x, depth, total, out):
    w = node["n"] * WIDTH / total
    if node["n"] < total * MIN_SHARE:
        return 0
    out.append((x, depth, w, name, node["n"]))
    child_x = x
    deepest = depth
    for frame, kid in sorted(node["kids"].items()):
        deepest = max(deepest, layout(kid, frame, child_x, depth + 1, total, out))
        child_x += kid["n"] * WIDTH / total
    return deepest


def write_svg(root, title, path):
    total = root["n"]
    rects = []
    depth = layout(root, "all", 0.0, 0, total, rects)
    height = (depth + 3) * ROW
    with open(path, "w") as f:
        f.write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" '
                'font-size="11">\n' % (WIDTH, height))
        f.write('<text x="4" y="14" font-size="13">%s (%d samples; nnaudit in blue, kernel in orange)</text>\n'
                % (html.escape(title), total))
        for x, d, w, name, n in rects:
            y = height - (d + 1) * ROW
            label = "%s (%d samples, %.2f%%)" % (name, n, 100.0 * n / total)
            f.write('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" stroke="white" '
                    'stroke-width="0.3"/>' % (html.escape(label), x, y, w, ROW - 1, color(name)))
            chars = int(w / 7)
            if chars >= 3:
                text = name if len(name) <= chars else name[:chars - 2] + ".."
                f.write('<text x="%.1f" y="%d">%s</text>' % (x + 2, y + ROW - 4, html.escape(text)))
            f.write("</g>\n")
        f.write("</svg>\n")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        base = path[:-3] if path.endswith(".gz") else path
        base = base[:-len(".collapsed")] if base.endswith(".collapsed") else base
        write_svg(read(path), os.path.basename(base), base + ".svg")
        print(base + ".svg")


if __name__ == "__main__":
    main()
