#!/usr/bin/env python3
"""How fast nnaudit-kafka ships on this machine, against the limit a producer alone reaches on the same broker.

Starts one test broker (kafka/test-broker: Kafka 4.1, KRaft, one node, on 127.0.0.1) and runs
io.nnaudit.kafka.ShipRate (kafka/src/test/java), which measures, repeat after repeat, side by side:

  producer   a 3.9 producer with the shipper's own settings (idempotent, acks=all, linger 20 ms, batch 256 KiB),
             the shipper's key and headers, sending N stock audit lines (~180 bytes) in a loop: records/s, the limit
  catch-up   a KafkaShipper with its defaults started on a spool of the same N lines already written (rotated
             files of --file-mb): records/s from start until ShipLagRecords is 0
  steady     a writer appending at each --rates rate while the shipper runs: after --warmup-seconds,
             ShipLagRecords and ShipLagMillis sampled every 100 ms for --steady-seconds; median and p99

    python3 benchmarks/ship_rate.py --quick    # N = 200000, one repeat, 10 s per rate: about 2 minutes
    python3 benchmarks/ship_rate.py            # N = 2000000, 3 repeats, 30 s per rate: about 8 minutes

What compression costs and saves (bytes on the wire and CPU per record, per compression.type), the shipper run
from the packaged jar (--jar: relocated kafka-clients and pure-Java lz4, as in a NameNode; the producer alone
cannot run beside it, so --measures leaves it out):

    python3 benchmarks/ship_rate.py --jar --measures catch-up,steady --compressions none,gzip,lz4 \
        --repeats 5 --records 500000 --rates 10000 --steady-seconds 10 --warmup-seconds 3 \
        --out benchmarks/results/ship-compression.csv
    (and with --lines varied, a trail harder to compress: results/ship-compression-varied.csv)

Everything runs unpinned on one machine, so the broker takes CPU that a broker elsewhere would not. Raw rows go to
benchmarks/results/ship-rate.csv (--quick: ship-rate-quick.csv, not kept); benchmarks/report.py makes the table.
The core jar must be in the local Maven repository (dev-support/bin/test installs it); this script builds
the test broker and kafka/'s test classes unless --no-build. SHIP_RATE_JAVA_OPTS adds JVM options to the
measuring JVM (not the broker's), e.g. a profiler's agent.
"""
import argparse
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KAFKA = os.path.join(ROOT, "kafka")
WORK = os.path.join(KAFKA, "target", "ship-rate")
MVN = ["mvn", "-q", "-B", "-Dstyle.color=never"]

LOG4J = """log4j.rootLogger=WARN,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n
"""


def kafka_test_classpath(no_build, jar):
    """kafka/'s test classes, its classes (or with jar, the packaged jar instead) and its test-scope dependencies;
    builds them and the test broker first."""
    cp_file = os.path.join(KAFKA, "target", "kafka-test.classpath")
    if not no_build:
        # Run from the repository root with -f: .mvn/maven.config there names the settings by a relative path.
        subprocess.run(MVN + ["-f", "kafka/test-broker/pom.xml", "package"], cwd=ROOT, check=True)
        subprocess.run(MVN + ["-f", "kafka/pom.xml", "-DskipTests", "package" if jar else "test-compile",
                              "dependency:build-classpath", "-Dmdep.includeScope=test",
                              "-Dmdep.outputFile=" + cp_file], cwd=ROOT, check=True)
    with open(cp_file) as f:
        deps = f.read().strip()
    if jar:
        jars = glob.glob(os.path.join(KAFKA, "target", "nnaudit-kafka-*.jar"))
        if len(jars) != 1:
            sys.exit("--jar: expected one kafka/target/nnaudit-kafka-*.jar, found %s" % jars)
        classes = jars[0]
    else:
        classes = os.path.join(KAFKA, "target", "classes")
    return ":".join([os.path.join(KAFKA, "target", "test-classes"), classes, deps])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="200000 records, one repeat, 10 s per rate")
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--records", type=int, help="N: records sent by the producer and in the catch-up spool")
    ap.add_argument("--rates", default="10000,50000", help="comma list of write rates (records/s) for steady")
    ap.add_argument("--steady-seconds", type=int)
    ap.add_argument("--warmup-seconds", type=int, default=5)
    ap.add_argument("--file-mb", type=int, default=64, help="the spool's file size at rotation")
    ap.add_argument("--out", help="CSV path")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--producer", action="append", default=[], metavar="PROPERTY=VALUE",
                    help="a producer property for the shipper and the producer alone (nnaudit.kafka.producer.*), "
                         "e.g. linger.ms=100; repeatable")
    ap.add_argument("--compressions", default="none",
                    help="comma list of the producer's compression.type (none, gzip, lz4), each measured in turn")
    ap.add_argument("--measures", default="producer,catch-up,steady",
                    help="comma list of producer (the producer alone, and producer-steady), catch-up, steady")
    ap.add_argument("--lines", default="stock", choices=["stock", "varied"],
                    help="stock: the same layout, path and command varying; varied: also the time, 500 users, "
                         "65536 client addresses and a random id in each path (harder to compress)")
    ap.add_argument("--headers", default="named", choices=["named", "compact"],
                    help="nnaudit.kafka.headers of the shipper and of the producer alone")
    ap.add_argument("--record-lines", type=int, default=1,
                    help="nnaudit.kafka.record.lines of the shipper (the producer alone sends a record a line)")
    ap.add_argument("--poll-ms", type=int,
                    help="nnaudit.kafka.poll.interval.ms of the shipper (default: the shipper's own)")
    ap.add_argument("--jar", action="store_true",
                    help="the shipper from the packaged jar (kafka-clients and lz4-java relocated, lz4 in pure Java) "
                         "instead of kafka/target/classes; needs --measures without producer")
    a = ap.parse_args()
    if a.jar and "producer" in a.measures.split(","):
        sys.exit("--jar: the producer alone needs the unrelocated classes; use --measures catch-up,steady")
    repeats = a.repeats or (1 if a.quick else 3)
    records = a.records or (200000 if a.quick else 2000000)
    steady = a.steady_seconds or (10 if a.quick else 30)
    out = a.out or os.path.join(ROOT, "benchmarks", "results", "ship-rate%s.csv" % ("-quick" if a.quick else ""))
    cp = kafka_test_classpath(a.no_build, a.jar)
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    log4j = os.path.join(KAFKA, "target", "ship-rate-log4j.properties")
    with open(log4j, "w") as f:
        f.write(LOG4J)
    cmd = ["java"] + os.environ.get("SHIP_RATE_JAVA_OPTS", "").split() + ["-Xmx2g", "-Dlog4j.configuration=file:" + log4j,
           "-Dnnaudit.test.broker.classpath=" + os.path.join(KAFKA, "test-broker", "target", "broker.classpath"),
           "-cp", cp, "io.nnaudit.kafka.ShipRate", "--out", os.path.abspath(out), "--dir", WORK,
           "--repeats", str(repeats), "--records", str(records), "--rates", a.rates,
           "--steady-seconds", str(steady), "--warmup-seconds", str(a.warmup_seconds), "--file-mb", str(a.file_mb)]
    for p in a.producer:
        cmd += ["--producer", p]
    cmd += ["--compressions", a.compressions, "--measures", a.measures, "--lines", a.lines, "--headers", a.headers,
            "--record-lines", str(a.record_lines)]
    if a.poll_ms is not None:
        cmd += ["--poll-ms", str(a.poll_ms)]
    rc = subprocess.run(cmd, cwd=ROOT).returncode
    if rc != 0:
        sys.exit("ShipRate failed (exit %d); the broker's log is %s/broker/broker.log" % (rc, WORK))
    print("raw results: " + out)


if __name__ == "__main__":
    main()
