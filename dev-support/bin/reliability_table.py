"""Writes the measured table of docs/reliability.md (between its BEGIN/END markers) from the fault tests' rows."""
import glob
import os
import sys

rows_dir, doc = sys.argv[1], sys.argv[2]
rows = []
for path in sorted(glob.glob(os.path.join(rows_dir, "*.tsv"))):
    with open(path, encoding="utf-8") as f:
        for line in f:
            fault, mode, acked, on_disk, lost, test, note = line.rstrip("\n").split("\t")
            rows.append((fault, mode, acked, on_disk, lost, test, note))
if not rows:
    sys.exit("no rows in " + rows_dir)
table = ["| fault | mode | operations acknowledged | records on disk | records lost | test | notes |",
         "|---|---|---:|---:|---:|---|---|"]
table += ["| %s | %s | %s | %s | %s | `%s` | %s |" % r for r in rows]
with open(doc, encoding="utf-8") as f:
    text = f.read()
begin, end = "<!-- BEGIN MEASURED -->", "<!-- END MEASURED -->"
head, rest = text.split(begin)
_, tail = rest.split(end)
with open(doc, "w", encoding="utf-8") as f:
    f.write(head + begin + "\n" + "\n".join(table) + "\n" + end + tail)
