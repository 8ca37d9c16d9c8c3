package io.nnaudit.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import io.nnaudit.AuditStats;
import io.nnaudit.NnauditConfigKeys;
import io.nnaudit.QueuedAuditLogger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.AuditLogger;
import org.apache.hadoop.hdfs.server.namenode.NNThroughputBenchmark;

/**
 * The main job: starts a NameNode in this JVM (MiniDFSCluster, RPC on 127.0.0.1) with nnaudit as its audit
 * logger, runs Hadoop's unmodified NNThroughputBenchmark against it over RPC ({@code -fs hdfs://127.0.0.1:PORT},
 * so every call is audited), and checks the audit file: one record per operation.
 *
 * <p>Run by {@code dev-support/bin/nnbench}; options: {@code --ops create,fileStatus --threads 16 --files 20000
 * --policy BLOCK --dir target/nnbench}.
 */
public final class NnBench {
  private NnBench() {
  }

  /** The audit cmd each benchmark op produces once per operation. */
  static String auditCmd(String op) {
    switch (op) {
      case "create":
      case "mkdirs":
      case "open":
      case "delete":
      case "rename":
        return op;
      case "fileStatus":
        return "getfileinfo";
      default:
        throw new IllegalArgumentException("unsupported op '" + op + "'; use create, mkdirs, open, delete, "
            + "rename or fileStatus");
    }
  }

  public static void main(String[] args) throws Exception {
    List<String> ops = Arrays.asList("create", "fileStatus");
    int threads = 16;
    int files = 20_000;
    String policy = "BLOCK";
    File dir = new File("target/nnbench");
    for (int i = 0; i < args.length; i += 2) {
      String v = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--ops":
          ops = Arrays.asList(v.split(","));
          break;
        case "--threads":
          threads = Integer.parseInt(v);
          break;
        case "--files":
          files = Integer.parseInt(v);
          break;
        case "--policy":
          policy = v;
          break;
        case "--dir":
          dir = new File(v);
          break;
        default:
          throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    ops.forEach(NnBench::auditCmd);
    deleteRecursively(dir);
    File auditFile = new File(dir, "nnaudit-audit.log").getAbsoluteFile();

    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(dir, "dfs").getAbsolutePath());
    conf.set(DFSConfigKeys.DFS_NAMENODE_AUDIT_LOGGERS_KEY, QueuedAuditLogger.class.getName());
    conf.set(NnauditConfigKeys.FILE_PATH_KEY, auditFile.getPath());
    conf.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, policy);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, threads);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 16); // NNThroughputBenchmark uses 16-byte blocks
    conf.set(DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
    conf.set(DFSConfigKeys.DFS_NAMENODE_RPC_ADDRESS_KEY, "127.0.0.1:0");

    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(0).build();
    boolean allMatch = true;
    List<String> rows = new ArrayList<>();
    QueuedAuditLogger logger = null;
    try {
      cluster.waitActive();
      for (AuditLogger l : cluster.getNamesystem().getAuditLoggers()) {
        if (l instanceof QueuedAuditLogger) {
          logger = (QueuedAuditLogger) l;
        }
      }
      if (logger == null) {
        throw new IllegalStateException("nnaudit is not the NameNode's audit logger");
      }
      String nnUri = "hdfs://127.0.0.1:" + cluster.getNameNodePort();
      System.out.println("NameNode with nnaudit (" + policy + ", queue " + logger.stats().queueCapacity
          + ") at " + nnUri + "; audit file " + auditFile);
      BenchmarkLogCapture capture = BenchmarkLogCapture.attach();
      for (String op : ops) {
        capture.clear();
        Configuration benchConf = new HdfsConfiguration();
        benchConf.setInt(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, 16);
        FileSystem.setDefaultUri(benchConf, nnUri);
        NNThroughputBenchmark.runBenchmark(benchConf, new String[] {
            "-fs", nnUri, "-op", op, "-threads", String.valueOf(threads), "-files", String.valueOf(files),
            "-filesPerDir", "1000", "-close"});
        long benchOps = (long) capture.last("# operations");
        long elapsed = (long) capture.last("Elapsed Time");
        double opsPerSec = capture.last("Ops per sec");
        if (!logger.pipeline().awaitWritten(60_000)) {
          throw new IllegalStateException("the audit writer did not catch up within 60 s");
        }
        long records = countRecords(auditFile, auditCmd(op), "/nnThroughputBenchmark/" + op + "/");
        boolean match = records == benchOps;
        allMatch &= match;
        rows.add(String.format(Locale.ROOT, "%-11s %7d %9d %11d %12.0f %14d  %s", op, threads, benchOps, elapsed,
            opsPerSec, records, match ? "yes" : "NO"));
      }
    } finally {
      cluster.shutdown();
    }
    AuditStats stats = logger.stats();
    logger.pipeline().close(30_000);
    System.out.println();
    System.out.println("op          threads       ops  elapsed_ms        ops/s  audit_records  records==ops");
    rows.forEach(System.out::println);
    System.out.println();
    System.out.println("nnaudit: " + stats);
    System.out.println("audit records written == operations: " + allMatch);
    System.exit(allMatch && stats.dropped == 0 ? 0 : 1);
  }

  /** Records of {@code cmd} on paths under {@code baseDir} (the benchmark's own set-up calls are elsewhere). */
  static long countRecords(File auditFile, String cmd, String baseDir) throws IOException {
    String needle = "\tcmd=" + cmd + "\tsrc=" + baseDir;
    try (Stream<String> lines = Files.lines(auditFile.toPath(), StandardCharsets.UTF_8)) {
      return lines.filter(l -> l.contains(needle)).count();
    }
  }

  private static void deleteRecursively(File f) throws IOException {
    if (!f.exists()) {
      return;
    }
    try (Stream<java.nio.file.Path> walk = Files.walk(f.toPath())) {
      walk.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
    }
  }
}
