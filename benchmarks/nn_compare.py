#!/usr/bin/env python3
"""NameNode throughput and NameNode CPU per operation, audit variant by audit variant, side by side.

Runs Hadoop's unmodified NNThroughputBenchmark (hadoop-hdfs tests jar) in remote mode, over RPC, against one
NameNode JVM per (variant, thread count, repeat). Repeats are interleaved (A B C ... A B C ...). The NameNode
is pinned to CPU 0 and the benchmark client to CPU 1 (taskset), which steadies the figures on 2 cores. For
each measured run it records ops/s from the benchmark, the NameNode's CPU time (utime+stime from
/proc/PID/stat) before and after, and the audit records on disk against the operations performed.

    python3 benchmarks/nn_compare.py --quick     # a few minutes
    python3 benchmarks/nn_compare.py --full      # about an hour

Raw rows go to benchmarks/results/nn-compare-<mode>.csv; benchmarks/report.py makes the tables and plots.
Run `mvn -B -DskipTests package` first, or let this script do it (it does unless --no-build).
"""
import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "target", "nn-compare")
CLK_TCK = os.sysconf("SC_CLK_TCK")
AUDIT_LOGGER = "org.apache.hadoop.hdfs.server.namenode.FSNamesystem.audit"
STOCK_LAYOUT = "%d{ISO8601} %p %c{2}: %m%n"
NNAUDIT = "io.nnaudit.QueuedAuditLogger"

# variant -> (hdfs-site entries, audit log4j lines, audit file name or None)
VARIANTS = {
    "off": ({}, ["log4j.logger.%s=WARN" % AUDIT_LOGGER], None),
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
    "nnaudit-drop": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.queue.full.policy": "DROP"},
                     ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    "nnaudit-sync": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.durability": "sync"},
                     ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
    "nnaudit-sync-per-record": ({"dfs.namenode.audit.loggers": NNAUDIT, "nnaudit.durability": "sync",
                                 "nnaudit.writer.batch.max.events": "1"},
                                ["log4j.logger.%s=WARN" % AUDIT_LOGGER], "nnaudit-audit.log"),
}



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


# measured op -> (audit cmd, setup runs before it)
OPS = {
    "create": ("create", []),
    "mkdirs": ("mkdirs", []),
    "open": ("open", ["create"]),
    "fileStatus": ("getfileinfo", ["create"]),
    "rename": ("rename", ["create"]),
    "delete": ("delete", ["create"]),
}

CLIENT_LOG4J = """log4j.rootLogger=WARN,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%m%n
log4j.logger.org.apache.hadoop.hdfs.server.namenode.NNThroughputBenchmark=INFO
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def build(no_build):
    if not no_build:
        sh(["mvn", "-q", "-B", "-Dstyle.color=never", "-DskipTests", "package"], cwd=ROOT)
    cp_file = os.path.join(ROOT, "target", "nn-compare.classpath")
    sh(["mvn", "-q", "-B", "-Dstyle.color=never", "dependency:build-classpath", "-Dmdep.includeScope=test",
        "-Dmdep.outputFile=" + cp_file], cwd=ROOT)
    jar = [f for f in os.listdir(os.path.join(ROOT, "target")) if re.match(r"nnaudit-.*\.jar$", f)][0]
    with open(cp_file) as f:
        deps = f.read().strip()
    return ":".join([os.path.join(ROOT, "target", jar), os.path.join(ROOT, "target", "test-classes"), deps])


def write_site(path, entries):
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<configuration>\n')
        for k, v in entries.items():
            f.write("<property><name>%s</name><value>%s</value></property>\n" % (k, v))
        f.write("</configuration>\n")


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of the whole line)


def start_namenode(cp, variant, threads, run_dir):
    site, audit_log4j, _ = VARIANTS[variant]
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
        for line in audit_log4j:
            f.write(line.replace("{dir}", run_dir) + "\n")
    cmd = ["taskset", "-c", "0", "java", "-Xmx4g", "-Xms4g", "-XX:+UseParallelGC",
           "-Dlog4j.configuration=file:" + os.path.join(run_dir, "log4j.properties"),
           "--add-opens=java.base/java.lang=ALL-UNNAMED", "-cp", cp, "io.nnaudit.bench.BenchNameNodeMain",
           os.path.join(run_dir, "dfs"), os.path.join(run_dir, "site.xml")]
    out = open(os.path.join(run_dir, "namenode.out"), "w")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=out, text=True)
    deadline = time.time() + 180
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("READY port="):
            return proc, int(line.split("=")[1])
    proc.kill()
    raise RuntimeError("NameNode for %s did not start; see %s" % (variant, run_dir))


def run_client(cp, port, args, run_dir):
    log4j = os.path.join(run_dir, "client-log4j.properties")
    with open(log4j, "w") as f:
        f.write(CLIENT_LOG4J)
    cmd = ["taskset", "-c", "1", "java", "-XX:TieredStopAtLevel=1", "-Xmx2g",
           "-Dlog4j.configuration=file:" + log4j, "-cp", cp,
           "org.apache.hadoop.hdfs.server.namenode.NNThroughputBenchmark",
           "-fs", "hdfs://127.0.0.1:%d" % port] + args
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    if res.returncode != 0:
        raise RuntimeError("NNThroughputBenchmark failed: %s\n%s" % (" ".join(args), res.stdout[-3000:]))

    def last(label):
        found = re.findall(r"%s:\s*([0-9.]+)" % re.escape(label), res.stdout)
        if not found:
            raise RuntimeError("no '%s' in benchmark output:\n%s" % (label, res.stdout[-3000:]))
        return float(found[-1])
    return int(last("# operations")), int(last("Elapsed Time")), last("Ops per sec")


def audit_path(run_dir, variant):
    return os.path.join(run_dir, VARIANTS[variant][2] or "hdfs-audit.log")


def audit_size(run_dir, variant):
    p = audit_path(run_dir, variant)
    return os.path.getsize(p) if os.path.exists(p) else 0


def count_audit(run_dir, variant, cmd, base, offset):
    """Records of cmd under base written after offset, and 'Discarded N' losses, once the file stops growing."""
    audit = VARIANTS[variant][2]
    path = os.path.join(run_dir, audit or "hdfs-audit.log")
    if audit is None:
        # off: nothing may be written anywhere.
        for name in ("hdfs-audit.log", "nnaudit-audit.log"):
            p = os.path.join(run_dir, name)
            if os.path.exists(p) and os.path.getsize(p) > 0:
                raise RuntimeError("variant off wrote audit records to " + p)
        return 0, 0
    needle = "\tcmd=%s\tsrc=%s/" % (cmd, base)
    last_size, stable_since = -1, time.time()
    while time.time() - stable_since < 0.5:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        if size != last_size:
            last_size, stable_since = size, time.time()
        time.sleep(0.1)
    records, discarded = 0, 0
    with open(path, "rb") as raw:
        raw.seek(offset)
        text = raw.read().decode("utf-8", errors="replace")
        for line in text.split("\n"):
            if needle in line:
                records += 1
            m = re.search(r"Discarded (\d+) messages", line)
            if m:
                discarded += int(m.group(1))
    return records, discarded


def run_op(cp, nn, port, v, t, r, op, files, run_dir, writer, base_dir):
    """One op (with its set-up runs); measured and recorded when writer is given."""
    cmd, setup = OPS[op]
    common = ["-threads", str(t), "-files", str(files), "-filesPerDir", "1000", "-baseDirName", base_dir]
    for s in setup:
        run_client(cp, port, ["-op", s, "-close", "-keepResults"] + common, run_dir)
    args = ["-op", op] + common + (["-useExisting", "-keepResults"] if setup else
                                   ["-close", "-keepResults"] if op == "create" else ["-keepResults"])
    offset = audit_size(run_dir, v)
    before = cpu_ticks(nn.pid)
    n, elapsed, ops_s = run_client(cp, port, args, run_dir)
    cpu_ms = (cpu_ticks(nn.pid) - before) * 1000.0 / CLK_TCK
    if writer is None:
        return
    records, discarded = count_audit(run_dir, v, cmd, base_dir + "/" + op, offset)
    expected = 0 if v == "off" else n
    lost = expected - records
    writer.writerow([r, t, v, op, n, elapsed, "%.1f" % ops_s, "%.0f" % cpu_ms, "%.2f" % (cpu_ms * 1000.0 / n),
                     records, discarded, lost])
    print("t=%-3d r=%d %-24s %-10s %8.0f ops/s  NN %6.1f us/op  records %d/%d%s" % (
        t, r, v, op, ops_s, cpu_ms * 1000.0 / n, records, expected, "  LOST %d" % lost if lost else ""),
        flush=True)


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
    ap.add_argument("--warm-passes", type=int, default=2, help="unmeasured passes before the measured one")
    ap.add_argument("--out", help="CSV path")
    ap.add_argument("--no-build", action="store_true")
    a = ap.parse_args()
    name = "full" if a.full else "quick"
    ops = (a.ops or ("create,mkdirs,open,fileStatus,rename,delete" if a.full else "create,fileStatus")).split(",")
    threads = [int(t) for t in (a.threads or ("1,16,64" if a.full else "16")).split(",")]
    repeats = a.repeats or 3
    files = a.files or (20000 if a.full else 5000)
    variants = (a.variants or ",".join(VARIANTS)).split(",")
    warm_passes = a.warm_passes
    out = a.out or os.path.join(ROOT, "benchmarks", "results", "nn-compare-%s.csv" % name)
    for v in variants:
        if v not in VARIANTS:
            sys.exit("unknown variant " + v)
    cp = build(a.no_build)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["repeat", "threads", "variant", "op", "ops", "elapsed_ms", "ops_per_sec", "nn_cpu_ms",
                    "nn_cpu_us_per_op", "audit_records", "audit_discarded", "audit_lost"])
        for t in threads:
            for r in range(1, repeats + 1):
                for v in variants:  # interleaved: A B C ... then A B C ... again
                    run_dir = os.path.join(WORK, "%s-t%d-r%d" % (v, t, r))
                    os.makedirs(run_dir)
                    nn, port = start_namenode(cp, v, t, run_dir)
                    try:
                        # Warm-up passes over the same ops (under /warmup-N) warm the NameNode's JIT and heap,
                        # so that the last pass, the measured one, sees the steady-state cost.
                        for p in range(warm_passes + 1):
                            measured = p == warm_passes
                            for op in ops:
                                run_op(cp, nn, port, v, t, r, op, files, run_dir, w if measured else None,
                                       "/nnThroughputBenchmark" if measured else "/warmup-%d" % p)
                                f.flush()
                    finally:
                        nn.send_signal(signal.SIGTERM)
                        try:
                            nn.wait(timeout=60)
                        except subprocess.TimeoutExpired:
                            nn.kill()
                    shutil.rmtree(os.path.join(run_dir, "dfs"), ignore_errors=True)
    print("raw results: " + out)


if __name__ == "__main__":
    main()
