#!/usr/bin/env bash
# Runs DrainCapacity alternately with two core jars, ROUNDS times each, EVENTS events and REPEATS repeats a run:
#   run.sh BASE_JAR NEW_JAR JMH_CLASSES JMH_CLASSPATH_FILE OUT_DIR [ROUNDS] [EVENTS] [REPEATS]
# JMH_CLASSPATH_FILE: the jmh module's classpath (mvn dependency:build-classpath) without the core jar.
set -euo pipefail
base=$1 new=$2 classes=$3 rest=$(cat "$4") out=$5 rounds=${6:-3} events=${7:-500000} repeats=${8:-8}
files=${DRAIN_DIR:-/tmp/drainfiles}
mkdir -p "$out" "$files"
for i in $(seq 1 "$rounds"); do
  for v in base new; do
    jar=$base; [ "$v" = new ] && jar=$new
    java -Xms6g -Xmx6g -cp "$classes:$jar:$rest" io.nnaudit.jmh.DrainCapacity "$files" "$events" "$repeats" \
      "$out/$v-$i.csv" seal 2>&1 | grep -v '^log4j:' | tail -n 1
  done
done
