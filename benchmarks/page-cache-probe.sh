#!/usr/bin/env bash
# What does it cost this machine to write into page-cache pages it has not touched lately?
#
# Part 1, on the disk's filesystem (DIR, default target/page-cache-probe): dd writes ten 1.5 GiB files one
# after another, keeping them, so every write lands in page-cache pages taken from free memory; then deletes
# them and at once writes ten more, which the kernel serves from the pages just freed. dd's system time per
# file is the kernel's cost of the copy. On a VM that hands free memory back to its host (free page
# reporting), the first pass pays for the host to back each new page again.
# Part 2, in memory (/dev/shm): 1.5 GiB into tmpfs, after dropping caches and 30 s idle, then at once again.
# Run as root on an idle machine:  bash benchmarks/page-cache-probe.sh [DIR]
set -euo pipefail
dir=${1:-$(cd "$(dirname "$0")/.." && pwd)/target/page-cache-probe}
mkdir -p "$dir"
rm -f "$dir"/probe-*
sync
echo 3 > /proc/sys/vm/drop_caches
sleep 30
for pass in new-pages recycled-pages; do
  for i in 1 2 3 4 5 6 7 8 9 10; do
    /usr/bin/time -f "disk $pass file $i: %e s wall, %S s system (1.5 GiB)" \
      dd if=/dev/zero of="$dir/probe-$pass-$i" bs=1M count=1536 status=none
  done 2>&1
  rm -f "$dir"/probe-*
done
rmdir "$dir" 2>/dev/null || true
f=/dev/shm/nnaudit-page-cache-probe
sync
echo 3 > /proc/sys/vm/drop_caches
sleep 30
for run in after-30s-idle at-once at-once; do
  /usr/bin/time -f "tmpfs $run: %e s wall, %S s system (1.5 GiB)" \
    dd if=/dev/zero of="$f" bs=1M count=1536 status=none 2>&1
  rm -f "$f"
done
