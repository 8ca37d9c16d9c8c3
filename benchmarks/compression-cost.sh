#!/usr/bin/env bash
# What nnaudit.file.compress=gzip costs and saves, outside a NameNode, on a realistic mix of audit records
# (io.nnaudit.jmh.AuditMix):
#   1. io.nnaudit.jmh.CompressionCost: one rotated file of the mix (256 MB on --full), compressed by the
#      compressor's own copy (GzipCopy) repeatedly: ratio, MB/s of input, CPU ms per MB. Raw repeats in
#      benchmarks/results/compression-cost.csv, medians and min–max in compression-cost-summary.csv, the
#      mix's lines per command in compression-cost-mix.csv.
#   2. io.nnaudit.jmh.DrainCompression: the writer's drain capacity with files rotating at 4m, compression off
#      against gzip, alternating, in one run: benchmarks/results/drain-compression.csv.
# benchmarks/report.py makes the tables of RESULTS.md from them.
#
# Usage: benchmarks/compression-cost.sh [--quick|--full]
#   --full (about 6 minutes on 2 cores): 256 MB, 9 repeats; drains of 1 000 000 events, 7 pairs.
#   --quick (about 1 minute): 32 MB, 3 repeats; drains of 200 000 events, 2 pairs; output under
#   target/compression-quick/, not benchmarks/results/.
# Builds the core and the JMH module with `mvn package` (nothing is installed in the local repository) and
# runs them with the core's jar from core/target. Files are written under target/compression-files
# (COMPRESSION_DIR to change it) and deleted after each measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=quick
for arg in "$@"; do
  case "$arg" in
    --full) mode=full ;;
    --quick) mode=quick ;;
    *) echo "usage: $0 [--quick|--full]" >&2; exit 2 ;;
  esac
done
if [ "$mode" = full ]; then
  mb=256; cost_repeats=9; drain_events=1000000; drain_repeats=7; heap=6g; out=benchmarks/results
else
  mb=32; cost_repeats=3; drain_events=200000; drain_repeats=2; heap=2g; out=target/compression-quick
fi
# With the core from this checkout (-am): every module of the reactor writes the same absolute path, and the
# JMH module, built last, writes it last; it names core/target's jar.
mvn -q -B -Dstyle.color=never -DskipTests package dependency:build-classpath -pl benchmarks/jmh -am \
  -Dmdep.outputFile="$(pwd)/benchmarks/jmh/target/jmh.classpath"
cp="benchmarks/jmh/target/classes:$(cat benchmarks/jmh/target/jmh.classpath)"
files="${COMPRESSION_DIR:-$(pwd)/target/compression-files}"
rm -rf "$files"
mkdir -p "$out" "$files"
{
  echo "date: $(date -u +%FT%TZ)"
  echo "java: $(java -version 2>&1 | head -n 1)"
  echo "cpus: $(nproc); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "files: ${files#"$(pwd)/"} ($(df -hT "$files" | awk 'NR==2 {print $2}'))"
  echo "compression-cost: $mb MB, $cost_repeats repeats; drain: $drain_events events, $drain_repeats pairs, 4m files"
} > "$out/compression-environment.txt"
# nnaudit's INFO lines (the logger closing) and log4j's warnings go to stderr; the figures to stdout.
java -Xmx2g -cp "$cp" io.nnaudit.jmh.CompressionCost "$files" "$mb" "$cost_repeats" "$out/compression-cost.csv" \
  2> >(grep -v -e '^log4j:' -e ' INFO nnaudit: ' >&2)
java -Xms$heap -Xmx$heap -cp "$cp" io.nnaudit.jmh.DrainCompression "$files" "$drain_events" "$drain_repeats" \
  "$out/drain-compression.csv" 4m 2> >(grep -v -e '^log4j:' -e ' INFO nnaudit: ' >&2)
rm -rf "$files"
echo "raw results: $out"
