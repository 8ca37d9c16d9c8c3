#!/usr/bin/env bash
# verify's memory on a large sealed trail: writes GIB GiB (default 10) through the real file sink, then runs
# `nnaudit verify` on it in a JVM limited to a small heap, and records its peak RSS and time (GNU time).
# Usage: benchmarks/experiments/verify-memory/run.sh [GIB] [WORKDIR]   (after `mvn -o test-compile`)
set -euo pipefail
cd "$(dirname "$0")/../../.."
gib=${1:-10}; work=${2:-$(mktemp -d)}; out=benchmarks/experiments/verify-memory; mkdir -p "$work"
mvn -B -ntp -q -pl core dependency:build-classpath -Dmdep.outputFile="$work/cp.txt" -Dmdep.includeScope=test
cp=$(cat "$work/cp.txt")
java -cp "core/target/test-classes:core/target/classes:$cp" io.nnaudit.seal.LargeTrailWriter "$work" "$gib" | tee "$work/wrote.txt"
du -sb "$work/trail" | tee "$work/size.txt"
for heap in 32m 256m; do
  /usr/bin/time -v java -Xmx$heap -cp core/target/classes io.nnaudit.verify.VerifyCommand verify \
      --cert "$(ls "$work/keys/"*.crt | head -1)" "$work/trail" > "$work/verify-$heap.out" 2> "$work/verify-$heap.time" || true
  # the work directory is named <dir>, so that the result names no path of the machine it ran on
  echo "heap $heap: $(head -1 "$work/verify-$heap.out" | sed "s#$work/#<dir>/#g" | cut -c1-120)"
  grep -E "Maximum resident|Elapsed|Exit status" "$work/verify-$heap.time"
done | tee "$out/result.txt"
