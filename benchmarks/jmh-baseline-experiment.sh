#!/usr/bin/env bash
# A change to the logger, A/B under JMH (as in benchmarks/experiments/mpsc-queue). The same trials with the
# nnaudit jar just installed and with BASELINE_JAR (e.g. one built from the previous commit) in its place on
# the benchmark's classpath, interleaved, three repeats. nnaudit BLOCK and DROP at 16 and 64 producer threads;
# the figures are the benchmark's wall-clock calls/s, the calls dropped and the accepted calls missing from
# the file, from its [check] line.
# Usage: bash benchmarks/jmh-baseline-experiment.sh BASELINE_JAR OUT.csv   (after dev-support/bin/jmh has built
# the module)
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=$(readlink -f "${1:?usage: $0 BASELINE_JAR OUT.csv}")
out=${2:?usage: $0 BASELINE_JAR OUT.csv}
current_cp="benchmarks/jmh/target/classes:$(cat benchmarks/jmh/target/jmh.classpath)"
# The installed nnaudit jar is the classpath entry named nnaudit-<version>.jar.
baseline_cp=$(echo "$current_cp" | tr ':' '\n' | sed "s#.*/nnaudit-[0-9][^/]*\.jar\$#$baseline#" | paste -sd:)
[ "$baseline_cp" != "$current_cp" ] || { echo "no nnaudit jar on the JMH classpath" >&2; exit 1; }
files="$(pwd)/target/jmh-files"
echo "jar,variant,threads,repeat,wall_calls_per_s,dropped,lost" > "$out"
for rep in 1 2 3; do
  for t in 16 64; do
    for v in nnaudit-block nnaudit-drop; do
      for jar in baseline current; do
        cp=$current_cp
        [ "$jar" = current ] || cp=$baseline_cp
        rm -rf "$files" && mkdir -p "$files"
        check=$(java -cp "$cp" org.openjdk.jmh.Main LoggerThroughputBenchmark -p variant="$v" -t "$t" \
            -wi 1 -w 1 -i 5 -r 2 -f 1 -jvmArgsAppend "-Dnnaudit.jmh.dir=$files" 2>&1 | grep 'wall_calls_per_s=' | tail -1)
        rate=$(echo "$check" | sed -n 's/.*wall_calls_per_s=\([0-9]*\).*/\1/p')
        dropped=$(echo "$check" | sed -n 's/.* dropped=\([0-9]*\).*/\1/p')
        lost=$(echo "$check" | sed -n 's/.* lost=\([0-9]*\).*/\1/p')
        echo "$jar,$v,$t,$rep,$rate,$dropped,$lost" | tee -a "$out"
      done
    done
  done
done
rm -rf "$files"
