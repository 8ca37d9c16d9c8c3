#!/usr/bin/env bash
# How fast `nnaudit verify-stream` reads a topic, against a plain consumer reading the same topic with no check
# (the limit on this machine). Builds kafka/'s test classes, the test broker and the test classpath, then runs
# io.nnaudit.kafka.VerifyStreamRate (kafka/src/test/java) under the machine's measurement lock: it fills a topic
# with a sealed stream (S sources over P partitions, a seal every 10,000 records of a source) and times both
# readers, alternating, REPEATS times. Output: benchmarks/results/verify-stream-rate.txt.
#
#   benchmarks/verify_stream_rate.sh [RECORDS=1000000] [REPEATS=5] [SOURCES=4] [PARTITIONS=6]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn_=(mvn -B -q -o -Dstyle.color=never)
"${mvn_[@]}" -pl kafka/test-broker package -DskipTests
"${mvn_[@]}" -pl core,kafka -am test-compile
"${mvn_[@]}" -f kafka/pom.xml dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/kafka-test.classpath
work=kafka/target/verify-stream-rate
rm -rf "$work" && mkdir -p "$work"
printf 'log4j.rootLogger=WARN,console\nlog4j.appender.console=org.apache.log4j.ConsoleAppender\nlog4j.appender.console.target=System.err\nlog4j.appender.console.layout=org.apache.log4j.PatternLayout\nlog4j.appender.console.layout.ConversionPattern=%%d{ISO8601} %%p %%c{2}: %%m%%n\n' \
  > "$work/log4j.properties"
cp="kafka/target/test-classes:kafka/target/classes:core/target/test-classes:core/target/classes:$(cat kafka/target/kafka-test.classpath)"
flock /tmp/nnaudit-measure.lock java -Dlog4j.configuration="file:$PWD/$work/log4j.properties" \
  -Dnnaudit.test.broker.classpath="$PWD/kafka/test-broker/target/broker.classpath" \
  -cp "$cp" io.nnaudit.kafka.VerifyStreamRate "$work" "$@" | tee benchmarks/results/verify-stream-rate.txt
