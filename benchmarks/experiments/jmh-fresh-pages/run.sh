#!/usr/bin/env bash
# How much of the JMH figure is this VM's price for page-cache pages it has not
# touched lately? The same trials twice: with one ever-growing file per trial, as dev-support/bin/jmh runs
# them (every write lands in new page-cache pages), and with the file rotated at 256 MB keeping one backup,
# so that deleted backups hand their pages straight back to the writer. nnaudit BLOCK and Hadoop's
# synchronous path alike; wall-clock calls/s from the benchmark's [check] line. (With rotation the check's
# record count covers only the live file, so its "lost" column means nothing there.)
# Usage: bash benchmarks/experiments/jmh-fresh-pages/run.sh OUT.csv   (after dev-support/bin/jmh has built the
# module; OUT.csv relative to the repository root)
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?usage: $0 OUT.csv}
cp="benchmarks/jmh/target/classes:$(cat benchmarks/jmh/target/jmh.classpath)"
files="$(pwd)/target/jmh-files"
echo "files,variant,threads,wall_calls_per_s" > "$out"
for rep in 1 2; do
  for files_mode in one-file rotate-256m-keep-1; do
    for t in 16 64; do
      for v in nnaudit-block hadoop-sync; do
        rm -rf "$files" && mkdir -p "$files"
        extra=()
        if [ "$files_mode" != one-file ]; then
          extra=("-Dnnaudit.jmh.conf=nnaudit.file.max.size=256m,nnaudit.file.max.backups=1"
                 "-Dnnaudit.jmh.stock.rotate=256MB,1")
        fi
        rate=$(java -cp "$cp" org.openjdk.jmh.Main LoggerThroughputBenchmark -p variant="$v" -t "$t" \
            -wi 1 -w 1 -i 5 -r 2 -f 1 -jvmArgsAppend "-Dnnaudit.jmh.dir=$files ${extra[*]:-}" 2>&1 \
          | sed -n 's/.*wall_calls_per_s=\([0-9]*\).*/\1/p' | tail -1)
        echo "$files_mode,$v,$t,$rate" | tee -a "$out"
      done
    done
  done
done
rm -rf "$files"
