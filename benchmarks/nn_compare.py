#!/usr/bin/env python3
"""NameNode throughput and NameNode CPU per operation, audit variant by audit variant, side by side.

Runs Hadoop's unmodified NNThroughputBenchmark (hadoop-hdfs tests jar) in remote mode, over RPC, against one
NameNode JVM per (variant, thread count, repeat). Repeats are interleaved, each starting one variant later
(A B C, B C A, ...). The NameNode is pinned to CPU 0 and the benchmark client to CPU 1 (taskset), which
steadies the figures on 2 cores. One client JVM per NameNode (io.nnaudit.bench.NnCompareClient) runs the ops
one after another: a warm-up pass, then the measured pass. For each measured op it records ops/s from the benchmark, the NameNode's CPU time
(nanoseconds on the CPU from /proc/PID/task/*/schedstat) over the benchmark's timed window only, and the audit records on disk
against the operations performed. The nn_sched column has the scheduler's view of that window, from the same files
(the JIT compiler threads left out): the times a NameNode thread was put on a CPU (switches; handler_switches, the
handlers' part) and the time threads were ready but waited for the CPU (runq_wait_ms): whether a variant costs CPU
through wake-ups rather than through its own work.

    python3 benchmarks/nn_compare.py --quick     # about 5 minutes
    python3 benchmarks/nn_compare.py --full      # about 40 minutes
    python3 benchmarks/nn_compare.py --no-pin --variants off,nnaudit-sync,nnaudit-sync-per-record \
        --ops create,fileStatus --threads 64 --files 20000 --out benchmarks/results/group-commit-t64-unpinned.csv

Raw rows go to benchmarks/results/nn-compare-<mode>.csv; benchmarks/report.py makes the tables and plots.
NN_JAVA_OPTS adds JVM options to every NameNode, e.g. for a profiler:
    NN_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit" perf record -a -g -- python3 ...
NN_COMPARE_BASELINE_JAR names an older nnaudit jar for the nnaudit-block-baseline variant (an A/B of a change).
The NameNode JVM (io.nnaudit.bench.BenchNameNodeMain) and the client are the module benchmarks/nnbench; the
script builds it with the core (`mvn -DskipTests -pl benchmarks/nnbench -am package`) unless --no-build, and the
NameNodes load nnaudit from the core's packaged jar (core/target).

nnaudit-kafka is nnaudit with its defaults, shipping its audit file to Kafka (kafka/, the nnaudit-kafka jar on the
NameNode's classpath). The script then starts one test broker (kafka/test-broker, a child JVM on a free port, data
under target/nn-compare/kafka-broker, pinned with the client to CPU 1: like the client, it stands in for another
machine) with a topic per NameNode run, and stops it at the end. Its rows also hold the shipper's figures, read from
the NameNode's /jmx after each op: the records not yet shipped when the timed window ended, how long until none was
left, the records shipped against the lines on disk, and the NameNode's CPU on shipping; and, from a consumer once
the NameNode has stopped, whether the topic holds every line of the audit files, in order (io.nnaudit.kafka.TopicCheck).
The client asks every variant's /jmx the same way after each op of every pass, warm-up passes included (a variant
that does not ship answers that nothing is left), so that the first requests' class loading and compiles, and the
compiled code that loading invalidates, land in the warm-up for every variant alike.
nnaudit-kafka-compact is nnaudit-kafka with the records' identity in one header (nnaudit.kafka.headers=compact).
nnaudit-kafka-together is nnaudit-kafka with the lines of each pass together in one record
(nnaudit.kafka.record.lines=1024), and nnaudit-all-together nnaudit-all with the same. producer-floor is shipping's
floor in the NameNode: a logger that only counts the calls, and a thread that hands the Kafka producer a stock line
for each, every poll interval, with the shipper's settings, key and headers (io.nnaudit.kafka.ProducerFloorLogger,
on kafka/'s test classpath); against noop-logger it is what the Kafka client alone costs the NameNode.
mapped-ring is an instrument, not a logger (io.nnaudit.bench.MappedRingLogger): each handler formats its stock line
and copies it into a ring in a file mapped shared, where a kill -9 cannot lose it, and returns; a thread writes the
ring to the audit file every 20 ms. Against noop-logger it is what acknowledging once the record is safe from the
process's death costs without a write(2) per record (benchmarks/experiments/mapped-ring).

    python3 benchmarks/nn_compare.py --variants noop-logger,producer-floor,nnaudit-block,nnaudit-kafka \
        --ops create,mkdirs,fileStatus --threads 16,64 --repeats 5 --files 15000 \
        --out benchmarks/results/shipping-floor.csv

    python3 benchmarks/nn_compare.py --variants off,nnaudit-block,nnaudit-kafka --threads 16,64 --repeats 5 \
        --files 30000 --out benchmarks/results/nn-compare-kafka.csv

nnaudit-sealed is nnaudit-block with its audit file sealed (nnaudit.seal.enabled, the default intervals). Before
each of its NameNodes starts, keytool (beside the java on the PATH) makes an EC P-256 key pair in the run's
directory (seal-key/seal.p12, alias nnaudit-seal) and exports its certificate (seal-key/seal.crt), and Hadoop's
CredentialShell puts the keystore's password in a JCEKS credential provider there (hadoop credential create). Once
the NameNode has stopped (SIGTERM: nnaudit seals what it wrote before it closes), `nnaudit verify --cert` checks
the audit files with the nnaudit jar alone; the script fails unless it exits 0 (every record sealed and unchanged)
or 2 (records after the last seal, as when a NameNode is killed). Its rows hold verify's exit code and the seals
in the digest files.

    python3 benchmarks/nn_compare.py --variants off,nnaudit-block,nnaudit-sealed --threads 16,64 --repeats 5 \
        --files 30000 --out benchmarks/results/nn-compare-seal.csv

nnaudit-rotating is nnaudit's defaults with a 1m audit file kept in every rotated file (10000 backups), so that it
rotates many times in a run; nnaudit-gzip is the same with nnaudit.file.compress=gzip. For both the client counts
records in the live file and every rotated file, plain or .gz, each once; for nnaudit-gzip it also waits for the
compressor to catch up before and after each op and reports its CPU for the op's files (see NnCompareClient).

    python3 benchmarks/nn_compare.py --variants off,noop-logger,nnaudit-rotating,nnaudit-gzip \
        --ops create,mkdirs,fileStatus --threads 16,64 --repeats 5 --files 15000 \
        --out benchmarks/results/compression-nn.csv
"""
import argparse
import csv
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "target", "nn-compare")
# The NameNode's own metadata (fsimage, edit log) goes to memory when /dev/shm exists: the edit log's fsyncs
# and the fsimage of -keepResults' saveNamespace then add no disk noise to the NameNode's CPU time, alike for
# every variant. Audit files stay on the disk, in WORK.
META = "/dev/shm/nnaudit-nn-compare" if os.path.isdir("/dev/shm") else os.path.join(WORK, "meta")
AUDIT_LOGGER = "org.apache.hadoop.hdfs.server.namenode.FSNamesystem.audit"
STOCK_LAYOUT = "%d{ISO8601} %p %c{2}: %m%n"
NNAUDIT = "io.nnaudit.QueuedAuditLogger"

# variant -> (hdfs-site entries, audit log4j lines, audit file name or None)
VARIANTS = {
    "off": ({}, ["log4j.logger.%s=WARN" % AUDIT_LOGGER], None),
    # Any logger at all makes the NameNode build the audit call's arguments, which off skips: this one does
    # nothing with them, so it measures that floor (see io.nnaudit.bench.NoopAuditLogger).
    "noop-logger": ({"dfs.namenode.audit.loggers": "io.nnaudit.bench.NoopAuditLogger"},
                    ["log4j.logger.%s=WARN" % AUDIT_LOGGER], None),
    "stock-sync": ({}, [
        "log4j.logger.%s=INFO,RFAAUDIT" % AUDIT_LOGGER,
        "log4j.additivity.%s=false" % AUDIT_LOGGER,
        "log4j.appender.RFAAUDIT=org.apache.log4j.RollingFileAppender",
        "log4j.appender.RFAAUDIT.File={dir}/hdfs-audit.log",
        "log4j.appender.RFAAUDIT.layout=org.apache.log4j.PatternLayout",
        "log4j.appender.RFAAUDIT.layout.ConversionPattern=" + STOCK_LAYOUT,
        "log4j.appender.RFAAUDIT.MaxFileSize=256MB",
        "log4j.appender.RFAAUDIT.MaxBackupIndex=20"], "hdfs-audit.log"),
    "stock-async": ({}, None, "hdfs-audit.log"),       # audit log4j lines: async_audit_log4j(True)
    "stock-async-drop": ({}, None, "hdfs-audit.log"),  # audit log4j lines: async_audit_log4j(False)
    "nnaudit-block": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.queue.full.policy": "BLOCK"},
                      ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    # The opt-out of the default ack policy: responses sent once queued, not once written.
    "nnaudit-ack-queue": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.ack.policy": "queue"},
                          ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    # Acknowledged once its handler has copied the record into the crash journal (a ring mapped shared).
    "nnaudit-journal": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.ack.policy": "journal"},
                        ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    "nnaudit-journal-linger20": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.ack.policy": "journal",
                                  "nnaudit.writer.linger.ms": "20"},
                                 ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    "nnaudit-drop": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.queue.full.policy": "DROP"},
                     ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    "nnaudit-sync": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.durability": "sync"},
                     ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    "nnaudit-block-linger1": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.writer.linger.ms": "1"},
                              ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    "nnaudit-block-linger20": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.writer.linger.ms": "20"},
                               ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    # Diagnostic, not a compared variant: the same group commit with the audit file in memory (/dev/shm),
    # where an fsync costs almost nothing, separates the logger's share of sync's cost from the disk's.
    "nnaudit-sync-tmpfs": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.durability": "sync",
                            "nnaudit.file.path": "{meta}/nnaudit-audit.log"},
                           ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "{meta}/nnaudit-audit.log"),
    "nnaudit-sync-per-record": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.durability": "sync",
                                 "nnaudit.writer.batch.max.events": "1"},
                                ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
}

# Not a logger but an instrument (benchmarks/experiments/mapped-ring): each handler formats its stock record and
# copies it into a ring in a file mapped shared, and returns; one thread writes the ring to the audit file every
# 20 ms (io.nnaudit.bench.MappedRingLogger). What acknowledging once a record is where a kill -9 cannot lose it
# costs without a write(2) per record; it replays nothing after a crash.
VARIANTS["mapped-ring"] = ({"dfs.namenode.audit.loggers": "io.nnaudit.bench.MappedRingLogger"},
                           ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
# nnaudit's defaults, shipping to the test broker this script starts ("{kafka}"), to a topic per NameNode run.
VARIANTS["nnaudit-kafka"] = ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.kafka.bootstrap.servers": "{kafka}",
                              "nnaudit.kafka.topic": "{topic}"},
                             ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
# The floor of shipping in the NameNode: a logger that only counts the calls, and a thread that hands the Kafka
# producer a stock line for each, every poll interval of the shipper, with its settings, key and headers
# (io.nnaudit.kafka.ProducerFloorLogger, a test class of kafka/). Against noop-logger: what the Kafka client alone
# costs the NameNode at its own pace, before any work of the shipper's.
VARIANTS["producer-floor"] = ({"dfs.namenode.audit.loggers": "io.nnaudit.kafka.ProducerFloorLogger",
                               "nnaudit.kafka.bootstrap.servers": "{kafka}", "nnaudit.kafka.topic": "{topic}"},
                              ["log4j.logger.%s=WARN" % AUDIT_LOGGER], None)
# nnaudit-kafka with the record's identity in one header (nnaudit.kafka.headers=compact), not seven.
VARIANTS["nnaudit-kafka-compact"] = (dict(VARIANTS["nnaudit-kafka"][0], **{"nnaudit.kafka.headers": "compact"}),
                                     ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
# nnaudit-kafka with the whole lines of each pass together in one record (nnaudit.kafka.record.lines=1024).
VARIANTS["nnaudit-kafka-together"] = (dict(VARIANTS["nnaudit-kafka"][0], **{"nnaudit.kafka.record.lines": "1024"}),
                                      ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
KAFKA = os.path.join(ROOT, "kafka")
NNBENCH = os.path.join(ROOT, "benchmarks", "nnbench")
CORE_JAR = re.compile(r"nnaudit-[^-]+(-SNAPSHOT)?\.jar$")  # the core's jar, not its -tests or -sources companion
MVN = ["mvn", "-q", "-B", "-Dstyle.color=never"]

# nnaudit-block with its audit file sealed by a key made for each run under "{seal}" (see make_seal_key).
VARIANTS["nnaudit-sealed"] = (dict(VARIANTS["nnaudit-block"][0], **{
    "nnaudit.seal.enabled": "true",
    "nnaudit.seal.keystore.path": "{seal}/seal.p12",
    "nnaudit.seal.keystore.type": "PKCS12",
    "hadoop.security.credential.provider.path": "jceks://file{seal}/seal-creds.jceks"}),
    ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
# Everything on: nnaudit's defaults, sealed, shipping to the test broker.
VARIANTS["nnaudit-all"] = (dict(VARIANTS["nnaudit-sealed"][0], **{k: v for k, v in VARIANTS["nnaudit-kafka"][0].items()
                                                                 if k.startswith("nnaudit.kafka.")}),
                           ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
# Rotated files compressed against the same rotation without: nnaudit's defaults with files small enough (1m) that
# they rotate many times in a run, and every rotated file kept (10000 backups, the most allowed), so that the
# records check, which then reads the live file and every rotated file, plain or .gz, misses none. nnaudit-gzip
# adds nnaudit.file.compress=gzip: a thread of its own compresses each rotated file while the NameNode works.
VARIANTS["nnaudit-rotating"] = ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.file.max.size": "1m",
                                 "nnaudit.file.max.backups": "10000"},
                                ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
VARIANTS["nnaudit-gzip"] = (dict(VARIANTS["nnaudit-rotating"][0], **{"nnaudit.file.compress": "gzip"}),
                            ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
# Everything on, with the lines of each pass together in one record.
VARIANTS["nnaudit-all-together"] = (dict(VARIANTS["nnaudit-all"][0], **{"nnaudit.kafka.record.lines": "1024"}),
                                    ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log")
SEAL_ALIAS = "nnaudit-seal"
SEAL_PASSWORD = "nn-compare-seal"

# A/B for a change to the logger itself: nnaudit-block's settings, with the nnaudit jar named by
# NN_COMPARE_BASELINE_JAR (e.g. one built from the previous commit) in place of the one just built.
VARIANTS["nnaudit-block-baseline"] = VARIANTS["nnaudit-block"]

# taskset prefixes: NameNode on CPU 0, client on CPU 1, unless --no-pin.
PIN_NN = ["taskset", "-c", "0"]
PIN_CLIENT = ["taskset", "-c", "1"]

# The variants compared by default; the two sync variants are for group commit (durability=sync).
DEFAULT_VARIANTS = ["off", "stock-sync", "stock-async", "stock-async-drop", "nnaudit-block", "nnaudit-drop"]


def async_audit_log4j(blocking):
    """Hadoop 3.4's AsyncRFAAppender as shipped (blocking, or not), with the stock layout and file size."""
    return ["log4j.logger.%s=INFO,ASYNCAUDIT" % AUDIT_LOGGER,
            "log4j.additivity.%s=false" % AUDIT_LOGGER,
            "log4j.appender.ASYNCAUDIT=org.apache.hadoop.hdfs.util.AsyncRFAAppender",
            "log4j.appender.ASYNCAUDIT.fileName={dir}/hdfs-audit.log",
            "log4j.appender.ASYNCAUDIT.conversionPattern=" + STOCK_LAYOUT,
            "log4j.appender.ASYNCAUDIT.maxFileSize=256MB",
            "log4j.appender.ASYNCAUDIT.maxBackupIndex=20",
            "log4j.appender.ASYNCAUDIT.blocking=%s" % ("true" if blocking else "false")]


CLIENT_LOG4J = """log4j.rootLogger=WARN,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%m%n
log4j.logger.org.apache.hadoop.hdfs.server.namenode.NNThroughputBenchmark=INFO
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build(no_build):
    """The NameNodes' and the client's classpath: the core's jar first (nnaudit-block-baseline swaps it, verify
    runs it alone), then the harness's classes and the runtime classpath its build wrote."""
    if not no_build:
        sh(MVN + ["-DskipTests", "-pl", "benchmarks/nnbench", "-am", "package"], cwd=ROOT)
    cp_file = os.path.join(NNBENCH, "target", "nnbench.classpath")
    if not os.path.isfile(cp_file):
        sys.exit("no %s: run once without --no-build" % cp_file)
    core = os.path.join(ROOT, "core", "target")
    jar = [f for f in os.listdir(core) if CORE_JAR.match(f)][0]
    with open(cp_file) as f:
        # That classpath names the core's jar too: left out, so that the first entry is the only nnaudit.
        deps = [e for e in f.read().strip().split(":") if not CORE_JAR.match(os.path.basename(e))]
    return ":".join([os.path.join(core, jar), os.path.join(NNBENCH, "target", "classes")] + deps)


def uses_kafka(variant):
    """Whether a NameNode of the variant sends to the test broker: nnaudit's shipper, or producer-floor."""
    return "nnaudit.kafka.topic" in VARIANTS[variant][0]


def ships(variant):
    """Whether nnaudit's shipper runs in the variant (its metrics read, its topic checked against the files)."""
    return uses_kafka(variant) and variant != "producer-floor"


def build_kafka(no_build):
    """The nnaudit-kafka jar (for the NameNode) and kafka/'s test classpath (for TopicCheck); builds the test broker."""
    cp_file = os.path.join(KAFKA, "target", "kafka-test.classpath")
    if not no_build:
        # From the repository root with -f: .mvn/maven.config there names the settings by a relative path.
        sh(MVN + ["-f", "kafka/test-broker/pom.xml", "package"], cwd=ROOT)
        # With the core (-am) from this checkout, not whatever the local Maven repository holds. Every module of
        # that reactor writes the same absolute path; kafka/, built last, writes it last.
        sh(MVN + ["-pl", "kafka", "-am", "-DskipTests", "package", "dependency:build-classpath",
                  "-Dmdep.includeScope=test", "-Dmdep.outputFile=" + cp_file], cwd=ROOT)
    jar = [f for f in os.listdir(os.path.join(KAFKA, "target")) if re.match(r"nnaudit-kafka-[^-]*(-SNAPSHOT)?\.jar$", f)][0]
    with open(cp_file) as f:
        deps = f.read().strip()
    return os.path.join(KAFKA, "target", jar), ":".join(
        [os.path.join(KAFKA, "target", "test-classes"), os.path.join(KAFKA, "target", "classes"), deps])


def trail_kind(variant):
    """How the client counts records: "gzip" or "rotating" for a variant whose audit file rotates in the run (every
    file of the trail, plain or .gz), "" for the others (the live file after its size before each op, as always)."""
    site = VARIANTS[variant][0]
    if site.get("nnaudit.file.compress") == "gzip":
        return "gzip"
    return "rotating" if "nnaudit.file.max.size" in site else ""


def seals(variant):
    return VARIANTS[variant][0].get("nnaudit.seal.enabled") == "true"


def seal_dir(run_dir):
    return os.path.join(run_dir, "seal-key")


def make_seal_key(cp, run_dir):
    """The sealing key of one run, made as an operator makes it: an EC P-256 key pair in a PKCS12 keystore and its
    certificate (keytool), the keystore's password in a JCEKS credential provider (hadoop credential create)."""
    d = seal_dir(run_dir)
    os.makedirs(d)
    keytool = os.path.join(os.path.dirname(os.path.realpath(shutil.which("java"))), "keytool")
    ks = os.path.join(d, "seal.p12")
    with open(os.path.join(d, "make-key.out"), "w") as out:
        sh([keytool, "-genkeypair", "-alias", SEAL_ALIAS, "-keyalg", "EC", "-groupname", "secp256r1",
            "-dname", "CN=nn-compare seal", "-validity", "30", "-keystore", ks, "-storetype", "PKCS12",
            "-storepass", SEAL_PASSWORD], stdout=out, stderr=subprocess.STDOUT)
        sh([keytool, "-exportcert", "-rfc", "-alias", SEAL_ALIAS, "-keystore", ks, "-storetype", "PKCS12",
            "-storepass", SEAL_PASSWORD, "-file", os.path.join(d, "seal.crt")], stdout=out, stderr=subprocess.STDOUT)
        sh(["java", "-cp", cp, "org.apache.hadoop.security.alias.CredentialShell", "create",
            "nnaudit.seal.keystore.password", "-value", SEAL_PASSWORD,
            "-provider", "jceks://file" + os.path.join(d, "seal-creds.jceks")], stdout=out, stderr=subprocess.STDOUT)


def verify_seals(cp, run_dir, audit):
    """nnaudit verify over a sealed run's audit files, with the nnaudit jar alone (the first entry of cp): (exit
    code, seals in the digest files). Raises unless the trail verified (0) or only its last records are unsealed
    (2)."""
    res = subprocess.run(PIN_CLIENT + ["java", "-cp", cp.split(":")[0], "io.nnaudit.verify.VerifyCommand", "verify",
                                       "--cert", os.path.join(seal_dir(run_dir), "seal.crt"), audit],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    with open(os.path.join(run_dir, "seal-verify.out"), "w") as f:
        f.write(res.stdout)
    if res.returncode not in (0, 2):
        raise RuntimeError("nnaudit verify exited %d; see %s/seal-verify.out" % (res.returncode, run_dir))
    count = 0
    d = os.path.dirname(audit)
    for name in os.listdir(d):
        if name.startswith(os.path.basename(audit)) and name.endswith(".seals"):
            with open(os.path.join(d, name), "rb") as f:
                count += sum(1 for _ in f)
    return str(res.returncode), str(count)


def topic_of(run_dir):
    return "nn-compare-" + os.path.basename(run_dir)


def start_broker(topics):
    """The test broker, a child JVM on a free port with the topics made; it stops when its stdin closes."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = os.path.join(WORK, "kafka-broker")
    os.makedirs(data)
    with open(os.path.join(KAFKA, "test-broker", "target", "broker.classpath")) as f:
        cp = f.read().strip()
    log = open(os.path.join(data, "broker.log"), "w")
    proc = subprocess.Popen(PIN_CLIENT + ["java", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", cp,
                             "io.nnaudit.testbroker.TestBroker", str(port), data]
                            + [arg for t in topics for arg in ("--topic", t)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
    line = proc.stdout.readline()
    if not line.startswith("READY "):
        proc.kill()
        raise RuntimeError("the test broker did not start; see %s/broker.log" % data)
    print("test broker at %s, %d topics" % (line.split()[1], len(topics)), flush=True)
    return proc, line.split()[1]


def stop_broker(proc):
    proc.stdin.close()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()


def topic_check(kafka_cp, bootstrap, run_dir, audit):
    """TopicCheck's verdict on a run's topic: (distinct records in it, "yes" or "no")."""
    res = subprocess.run(PIN_CLIENT + ["java", "-Xmx8g", "-cp", kafka_cp, "io.nnaudit.kafka.TopicCheck", bootstrap,
                                       topic_of(run_dir), audit], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=600)
    with open(os.path.join(run_dir, "topic-check.out"), "w") as f:
        f.write(res.stdout)
    m = re.search(r"^TOPIC records=(-?\d+) duplicates=(-?\d+) local=(\d+) match=(\w+)", res.stdout, re.M)
    if res.returncode != 0 or not m:
        raise RuntimeError("TopicCheck failed; see %s/topic-check.out" % run_dir)
    return m.group(1), m.group(4)


def write_site(path, entries):
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<configuration>\n')
        for k, v in entries.items():
            f.write("<property><name>%s</name><value>%s</value></property>\n" % (k, v))
        f.write("</configuration>\n")


def audit_meta_dir(run_dir):
    """Where a variant whose audit file is in memory keeps it ("{meta}" in VARIANTS)."""
    return os.path.join(META, os.path.basename(run_dir) + "-audit")


def audit_file(variant, run_dir):
    name = VARIANTS[variant][2]
    return None if name is None else os.path.join(run_dir, name.replace("{meta}", audit_meta_dir(run_dir)))


def baseline_classpath(cp):
    """The classpath with NN_COMPARE_BASELINE_JAR in place of the nnaudit jar just built (the first entry)."""
    jar = os.environ.get("NN_COMPARE_BASELINE_JAR")
    if not jar or not os.path.isfile(jar):
        sys.exit("variant nnaudit-block-baseline needs NN_COMPARE_BASELINE_JAR=<an nnaudit jar>")
    return ":".join([os.path.abspath(jar)] + cp.split(":")[1:])


def start_namenode(cp, variant, threads, run_dir, kafka=None):
    """The NameNode JVM of one run: (process, RPC port, HTTP port). kafka: (nnaudit-kafka jar, bootstrap, kafka/'s
    test classpath)."""
    if variant.endswith("-baseline"):
        cp = baseline_classpath(cp)
    site, audit_log4j, _ = VARIANTS[variant]
    site = {k: v.replace("{meta}", audit_meta_dir(run_dir)) for k, v in site.items()}
    if seals(variant):
        make_seal_key(cp, run_dir)
        site = {k: v.replace("{seal}", seal_dir(run_dir)) for k, v in site.items()}
    if uses_kafka(variant):
        # producer-floor's logger is a test class of kafka/, on the Kafka client as it is (not relocated)
        cp = cp + ":" + (kafka[0] if ships(variant) else ":".join(
            e for e in kafka[2].split(":") if e not in cp.split(":")))
        site = {k: v.replace("{kafka}", kafka[1]).replace("{topic}", topic_of(run_dir)) for k, v in site.items()}
    if audit_log4j is None:
        audit_log4j = async_audit_log4j(variant == "stock-async")
    entries = {"dfs.namenode.handler.count": str(threads), "dfs.namenode.top.enabled": "false",
               "nnaudit.file.path": os.path.join(run_dir, "nnaudit-audit.log")}
    entries.update(site)
    write_site(os.path.join(run_dir, "site.xml"), entries)
    with open(os.path.join(run_dir, "log4j.properties"), "w") as f:
        f.write("log4j.rootLogger=WARN,nnlog\nlog4j.appender.nnlog=org.apache.log4j.FileAppender\n")
        f.write("log4j.appender.nnlog.File=%s/namenode.log\n" % run_dir)
        f.write("log4j.appender.nnlog.layout=org.apache.log4j.PatternLayout\n")
        f.write("log4j.appender.nnlog.layout.ConversionPattern=%d{ISO8601} %p %c{2}: %m%n\n")
        f.write("log4j.logger.io.nnaudit=INFO\n")
        f.write("log4j.logger.io.nnaudit.shaded=WARN\n")  # the Kafka client inside nnaudit-kafka
        for line in audit_log4j:
            f.write(line.replace("{dir}", run_dir) + "\n")
    cmd = PIN_NN + ["java"] + os.environ.get("NN_JAVA_OPTS", "").split() + ["-Xmx4g", "-Xms4g", "-XX:+UseParallelGC",
                    "-Xlog:gc:file=" + os.path.join(run_dir, "gc.log"),
           "-Dlog4j.configuration=file:" + os.path.join(run_dir, "log4j.properties"),
           "--add-opens=java.base/java.lang=ALL-UNNAMED", "-cp", cp, "io.nnaudit.bench.BenchNameNodeMain",
           os.path.join(META, os.path.basename(run_dir)), os.path.join(run_dir, "site.xml")]
    out = open(os.path.join(run_dir, "namenode.out"), "w")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=out, text=True)
    deadline = time.time() + 180
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.match(r"READY port=(\d+) http=(\d+)", line)
        if m:
            return proc, int(m.group(1)), int(m.group(2))
    proc.kill()
    raise RuntimeError("NameNode for %s did not start; see %s" % (variant, run_dir))


def run_client(cp, nn, port, http, v, t, r, ops, files, passes, run_dir):
    """One client JVM (io.nnaudit.bench.NnCompareClient) runs every op, warm-up passes first; rows for the last,
    without the topic check's two columns."""
    log4j = os.path.join(run_dir, "client-log4j.properties")
    with open(log4j, "w") as f:
        f.write(CLIENT_LOG4J)
    audit = audit_file(v, run_dir)
    cmd = PIN_CLIENT + ["java", "-Xmx2g", "-Dlog4j.configuration=file:" + log4j,
                        "-Dnnbench.audit.trail=" + trail_kind(v), "-Dnnbench.ships=" + str(ships(v)).lower(), "-cp", cp,
           "io.nnaudit.bench.NnCompareClient", str(port), str(nn.pid), str(t), str(files), str(passes),
           ",".join(ops), audit or "-", str(http)]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=3600)
    with open(os.path.join(run_dir, "client.out"), "w") as f:
        f.write(res.stdout)
    if res.returncode != 0:
        raise RuntimeError("NnCompareClient failed (%s t=%d); see %s/client.out" % (v, t, run_dir))
    if audit is None:
        # off (and noop-logger): nothing may be written anywhere.
        for name in ("hdfs-audit.log", "nnaudit-audit.log"):
            p = os.path.join(run_dir, name)
            if os.path.exists(p) and os.path.getsize(p) > 0:
                raise RuntimeError("variant " + v + " wrote audit records to " + p)
    rows = []
    for line in res.stdout.splitlines():
        if not line.startswith("RESULT "):
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        n, cpu_ms, jit_ms, gc_ms = int(f["ops"]), float(f["nn_cpu_ms"]), float(f["nn_jit_ms"]), float(f["nn_gc_ms"])
        writer_ms = float(f["nn_writer_ms"])
        records, discarded = int(f["records"]), int(f["discarded"])
        expected = 0 if audit is None else n
        lost = expected - records
        ship = [f.get(k, "") for k in SHIP_FIELDS + COMPRESSION_FIELDS]
        rows.append([r, t, v, f["op"], n, f["elapsed_ms"], f["ops_per_sec"], cpu_ms,
                     "%.2f" % (cpu_ms * 1000.0 / n), jit_ms, gc_ms, "%.2f" % ((cpu_ms - jit_ms) * 1000.0 / n),
                     writer_ms, records, discarded, lost, f["drops_reported"], f["nn_path_ms"],
                     "%.2f" % (float(f["nn_path_ms"]) * 1000.0 / n), f["busiest_others"], f["path_split"],
                     f["nnaudit_threads"], f.get("sched", "")] + ship)
        shipped = ""
        if "shipped_records" in f:
            shipped = "  shipped %s/%s on disk, lag %s at window end, none after %s ms" % (
                f["shipped_records"], f["records_on_disk"], f["ship_lag_window_end"], f["ship_drain_ms"])
        if "compressor_ms_to_caught_up" in f:
            shipped += "  compressor %.1f us/op to caught up (%s ms after the window), %s of %s bytes" % (
                float(f["compressor_ms_to_caught_up"]) * 1000.0 / n, f["compress_caught_up_ms"],
                f["compressed_bytes"], f["audit_bytes"])
        print("t=%-3d r=%d %-22s %-10s %6.0f ops/s  NN %6.1f us/op (%5.1f w/o JIT; path %5.1f; writer %4.1f)"
              "  records %d/%d%s%s" % (
            t, r, v, f["op"], float(f["ops_per_sec"]), cpu_ms * 1000.0 / n, (cpu_ms - jit_ms) * 1000.0 / n,
            float(f["nn_path_ms"]) * 1000.0 / n, writer_ms * 1000.0 / n, records, expected,
            "  LOST %d" % lost if lost else "", shipped), flush=True)
    return rows


# The shipper's figures in a RESULT line (NnCompareClient), empty for a variant that does not ship.
SHIP_FIELDS = ["ship_lag_window_end", "ship_lag_ms_window_end", "ship_drain_ms", "shipped_records", "records_on_disk",
               "ship_send_errors", "nn_ship_ms"]
# A rotating variant's (nnaudit-rotating, nnaudit-gzip): the bytes of records the op added to the trail; with gzip,
# the compressor thread's CPU from the window's start until every file rotated so far was compressed, the bytes it
# compressed in that time, and how long after the window's end it got there. Empty for the other variants.
COMPRESSION_FIELDS = ["audit_bytes", "compressor_ms_to_caught_up", "compressed_bytes", "compress_caught_up_ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="create and fileStatus, 16 threads, 3 repeats")
    mode.add_argument("--full", action="store_true", help="all six ops, 1/16/64 threads, 3 repeats")
    ap.add_argument("--variants", help="comma list (default: all)")
    ap.add_argument("--ops", help="comma list of ops")
    ap.add_argument("--threads", help="comma list of client thread counts")
    ap.add_argument("--repeats", type=int)
    ap.add_argument("--files", type=int)
    ap.add_argument("--warm-passes", type=int, default=1, help="unmeasured passes before the measured one")
    ap.add_argument("--out", help="CSV path")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-pin", action="store_true", help="let the NameNode and the client share both CPUs")
    a = ap.parse_args()
    if a.no_pin:
        del PIN_NN[:]
        del PIN_CLIENT[:]
    name = "full" if a.full else "quick"
    # rename last: it is the only op that needs fresh files after delete (see NnCompareClient)
    ops = (a.ops or ("create,mkdirs,open,fileStatus,delete,rename" if a.full else "create,fileStatus")).split(",")
    threads = [int(t) for t in (a.threads or ("1,16,64" if a.full else "16")).split(",")]
    repeats = a.repeats or 3
    # Enough operations that the NameNode's CPU over a window is not dominated by a stray GC or JIT compile
    # (5000 gave twice the CPU per op of 20000, so --quick's CPU figures are rough); one client thread does
    # about a tenth of what 16 do, so fewer.
    def files_for(t):
        return a.files or ((20000 if a.full else 5000) if t > 1 else 2000)
    variants = (a.variants or ",".join(DEFAULT_VARIANTS)).split(",")
    warm_passes = a.warm_passes
    out = a.out or os.path.join(ROOT, "benchmarks", "results", "nn-compare-%s.csv" % name)
    for v in variants:
        if v not in VARIANTS:
            sys.exit("unknown variant " + v)
    cp = build(a.no_build)
    kafka_jar, kafka_cp = build_kafka(a.no_build) if any(uses_kafka(v) for v in variants) else (None, None)
    if any(v.endswith("-baseline") for v in variants):
        print("baseline jar: " + baseline_classpath(cp).split(":")[0])
    shutil.rmtree(WORK, ignore_errors=True)
    shutil.rmtree(META, ignore_errors=True)
    os.makedirs(WORK)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    broker, bootstrap = None, None
    if kafka_jar:
        broker, bootstrap = start_broker([topic_of(os.path.join(WORK, "%s-t%d-r%d" % (v, t, r)))
                                          for t in threads for r in range(1, repeats + 1) for v in variants
                                          if uses_kafka(v)])
    try:
        run_all(cp, variants, threads, repeats, ops, files_for, warm_passes, out, (kafka_jar, bootstrap, kafka_cp),
                kafka_cp)
    finally:
        if broker:
            stop_broker(broker)
    print("raw results: " + out)


def run_all(cp, variants, threads, repeats, ops, files_for, warm_passes, out, kafka, kafka_cp):
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["repeat", "threads", "variant", "op", "ops", "elapsed_ms", "ops_per_sec", "nn_cpu_ms",
                    "nn_cpu_us_per_op", "nn_jit_ms", "nn_gc_ms", "nn_cpu_no_jit_us_per_op", "nn_writer_ms", "audit_records",
                    "audit_discarded", "audit_lost", "audit_drops_reported", "nn_path_ms", "nn_path_us_per_op",
                    "busiest_others", "path_split", "nnaudit_threads", "nn_sched"] + SHIP_FIELDS + COMPRESSION_FIELDS
                   + ["ship_topic_records", "ship_topic_match", "seal_verify_exit", "seals"])
        for t in threads:
            for r in range(1, repeats + 1):
                # Interleaved, each repeat starting one variant later (A B C, B C A, C A B, ...), so that no
                # variant always runs right after the same other one (a stopped NameNode's writeback, say).
                for v in variants[(r - 1) % len(variants):] + variants[:(r - 1) % len(variants)]:
                    run_dir = os.path.join(WORK, "%s-t%d-r%d" % (v, t, r))
                    os.makedirs(run_dir)
                    nn, port, http = start_namenode(cp, v, t, run_dir, kafka)
                    try:
                        # Warm-up passes over the same ops (under /warmup-N) warm the NameNode's JIT and heap,
                        # so that the last pass, the measured one, sees the steady-state cost.
                        rows = run_client(cp, nn, port, http, v, t, r, ops, files_for(t), warm_passes + 1, run_dir)
                    finally:
                        nn.send_signal(signal.SIGTERM)
                        try:
                            nn.wait(timeout=60)
                        except subprocess.TimeoutExpired:
                            nn.kill()
                    # Once the NameNode has stopped (its shipper ships what is left at the stop), the topic
                    # against the audit files.
                    check = topic_check(kafka_cp, kafka[1], run_dir, audit_file(v, run_dir)) if ships(v) else ("", "")
                    if ships(v):
                        print("t=%-3d r=%d %-22s topic holds %s distinct records; every line of the audit files, "
                              "in order: %s" % (t, r, v, check[0], check[1]), flush=True)
                    # A sealed run's trail, once the NameNode has sealed and closed its file.
                    sealed = verify_seals(cp, run_dir, audit_file(v, run_dir)) if seals(v) else ("", "")
                    if seals(v):
                        print("t=%-3d r=%d %-22s %d seals; nnaudit verify: %s" % (
                            t, r, v, int(sealed[1]), "every record sealed and unchanged" if sealed[0] == "0"
                            else "unchanged, records after the last seal (exit 2)"), flush=True)
                    for row in rows:
                        w.writerow(row + list(check) + list(sealed))
                    f.flush()
                    shutil.rmtree(os.path.join(META, os.path.basename(run_dir)), ignore_errors=True)
                    shutil.rmtree(audit_meta_dir(run_dir), ignore_errors=True)


if __name__ == "__main__":
    main()
