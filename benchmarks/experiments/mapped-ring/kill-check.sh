#!/usr/bin/env bash
# Records copied into a file mapped shared survive a SIGKILL of the process that copied them: KilledWriter copies
# RECORDS numbered records, says so, and is killed with kill -9 before it unmaps or forces anything; the file is
# then read back and every record checked, in order.  Usage: bash kill-check.sh [DIR] [RECORDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/tmp/mapped-ring-kill-check}
records=${2:-40000}
mkdir -p "$dir"
f="$dir/ring"
rm -f "$f"
java "$here/KilledWriter.java" "$f" "$records" > "$dir/out" &
pid=$!
for _ in $(seq 1 600); do
  grep -q copied "$dir/out" 2>/dev/null && break
  sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
echo "writer: $(cat "$dir/out"); killed with SIGKILL"
python3 - "$f" "$records" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
lines = open(path, "rb").read().split(b"\n")[:-1]
bad = [i for i, l in enumerate(lines) if not l.startswith(b"record %09d " % i) or len(l) != 249]
print("read back: %d records, %d out of place or damaged" % (len(lines), len(bad)))
sys.exit(0 if len(lines) == n and not bad else 1)
PY
