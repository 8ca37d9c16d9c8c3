package io.nnaudit.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.hadoop.hdfs.server.namenode.AuditSwitch;
import org.apache.log4j.Level;

/**
 * What auditing costs a NameNode: runs Hadoop's unmodified NNThroughputBenchmark over RPC
 * ({@code -fs hdfs://127.0.0.1:PORT}, so every call is audited) against one NameNode per audit variant
 * ({@link Variants}), all in this JVM (MiniDFSCluster, no DataNodes; {@link VariantNameNode}), prints ops/s per
 * op and variant side by side with the ratio to no auditing ({@link NnBenchReport}), and checks that each audit
 * file holds exactly one record per operation ({@link AuditRecords}).
 *
 * <p>{@code FSNamesystem.audit} is one logger for the whole JVM, so its level is set for each NameNode's turn
 * ({@link StockAuditLog}); each turn checks that its NameNode audits, or not, as its variant should.
 *
 * <p>Fairness: the NameNodes are all started before the first run and share this JVM's compiled code. A
 * warm-up pass, as long as a measured one, runs on each first (with a shorter one the first measured pass was
 * still the slowest for every variant), then two measured passes, the second in the reverse order of the
 * first, so that a steady drift over the run weighs alike on every variant; ops/s is the mean of the two, and
 * the output says how far apart they were. Each pass has a base directory of its own
 * ({@code /nnbench/VARIANT/PASS}); ops run as {@link OpSequence} runs them. The records check covers every
 * pass, the warm-up included.
 *
 * <p>Run by {@code dev-support/bin/nnbench}; options in {@link NnBenchOptions}. Exit status 0 when every
 * records check passes, 1 when one fails, 2 for a bad option.
 */
public final class NnBench {
  private NnBench() {
  }

  public static void main(String[] args) throws Exception {
    NnBenchOptions o;
    try {
      o = NnBenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("nnbench: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.exit(run(o) ? 0 : 1);
  }

  /** Runs every pass and prints the table; true when every records check passed. */
  static boolean run(NnBenchOptions o) throws Exception {
    deleteRecursively(o.dir);
    File stockFile = new File(o.dir, "stock/hdfs-audit.log");
    if (o.variants.contains("stock")) {
      StockAuditLog.attach(stockFile);
    }
    StockAuditLog.setLevel(Level.WARN);
    BenchmarkLogCapture capture = BenchmarkLogCapture.attach();

    Map<String, VariantNameNode> targets = new LinkedHashMap<>();
    Map<String, ResultCell> cells = new LinkedHashMap<>();
    for (String op : o.ops) {
      for (String v : o.variants) {
        cells.put(ResultCell.key(v, op), new ResultCell());
      }
    }
    List<String> reversed = new ArrayList<>(o.variants);
    Collections.reverse(reversed);
    long dropped = 0;
    String shipped = null;
    boolean shippedAll = true;
    TestBrokerProcess broker = null;
    try {
      if (o.variants.contains(Variants.KAFKA)) {
        broker = TestBrokerProcess.start(o.brokerClasspath, o.dir);
      }
      int brokerPort = broker == null ? 0 : broker.port;
      for (String v : o.variants) {
        targets.put(v, VariantNameNode.start(v, o, stockFile, brokerPort));
      }
      NnBenchReport.printHeader(o, targets, reversed, brokerPort);
      turns(targets, o.variants, "warmup", false, o, capture, cells);
      turns(targets, o.variants, "1", true, o, capture, cells);
      turns(targets, reversed, "2", true, o, capture, cells);
      VariantNameNode k = targets.get(Variants.KAFKA);
      if (k != null) {
        long[] s = k.awaitShipped();
        shippedAll = s[0] == s[1];
        shipped = s[0] + "/" + s[1] + (shippedAll ? " yes" : " NO");
      }
    } finally {
      for (VariantNameNode t : targets.values()) {
        dropped += t.close();
      }
      if (broker != null) {
        broker.stop();
      }
    }

    boolean allMatch = shippedAll;
    for (String op : o.ops) {
      for (String v : o.variants) {
        allMatch &= !Variants.hasAuditFile(v) || cells.get(ResultCell.key(v, op)).recordsMatch();
      }
    }
    NnBenchReport.printSummary(o, cells, dropped, shipped, allMatch);
    return allMatch;
  }

  /** One pass: every variant's turn, in {@code order}. */
  private static void turns(Map<String, VariantNameNode> targets, List<String> order, String pass,
      boolean measured, NnBenchOptions o, BenchmarkLogCapture capture, Map<String, ResultCell> cells)
      throws Exception {
    for (String v : order) {
      VariantNameNode t = targets.get(v);
      StockAuditLog.setLevel(v.equals("stock") ? Level.INFO : Level.WARN);
      try {
        boolean audits = AuditSwitch.isAuditEnabled(t.cluster.getNamesystem());
        if (audits != Variants.hasAuditFile(v)) {
          throw new IllegalStateException("the " + v + " NameNode " + (audits ? "audits" : "does not audit"));
        }
        String base = "/nnbench/" + Variants.dirName(v) + "/" + pass;
        OpSequence sequence = new OpSequence(t.fs, capture, t.clientConf, t.uri, o.threads, o.files, base);
        for (String op : o.ops) {
          sequence.prepare(op);
          t.awaitWritten();
          long offset = t.auditFile == null ? 0 : t.auditFile.length();
          sequence.run(op);
          ResultCell cell = cells.get(ResultCell.key(v, op));
          if (measured) {
            cell.opsPerSec.add(capture.last("Ops per sec"));
          }
          if (t.auditFile != null) {
            t.awaitWritten();
            cell.ops += (long) capture.last("# operations");
            cell.records += AuditRecords.countRecords(t.auditFile, offset, AuditRecords.auditCmd(op),
                base + "/" + op + "/");
          }
        }
      } finally {
        StockAuditLog.setLevel(Level.WARN);
      }
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
