#!/usr/bin/env bash
# Does this machine copy into page-cache pages more slowly when the pages are new to it?
#
# dd writes 1.5 GiB into a file in memory (tmpfs, so no writeback or disk joins in), three ways:
#   cold:   after dropping caches and 30 s idle, so the kernel hands out pages that have sat free
#           (a VM that reports free pages to its host gets them back unbacked, and pays to touch them again);
#   reused: at once after deleting the previous file, so the kernel hands out the pages it just freed;
#   reused: the same again.
# Run as root on an idle machine:  bash benchmarks/page-cache-probe.sh [DIR]   (DIR defaults to /dev/shm)
set -euo pipefail
dir=${1:-/dev/shm}
f="$dir/nnaudit-page-cache-probe"
write() {
  dd if=/dev/zero of="$f" bs=1M count=1536 2>&1 | tail -1 | sed "s/^/$1: /"
}
for round in 1 2 3; do
  rm -f "$f"
  sync
  echo 3 > /proc/sys/vm/drop_caches
  sleep 30
  write "round $round cold  "
  rm -f "$f"
  write "round $round reused"
  rm -f "$f"
  write "round $round reused"
done
rm -f "$f"
