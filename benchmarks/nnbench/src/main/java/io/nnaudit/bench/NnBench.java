package io.nnaudit.bench;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

import io.nnaudit.QueuedAuditLogger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.AuditLogger;
import org.apache.hadoop.hdfs.server.namenode.AuditSwitch;
import org.apache.hadoop.hdfs.server.namenode.DefaultAuditLogger;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.PropertyConfigurator;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * What auditing costs a NameNode: runs Hadoop's unmodified NNThroughputBenchmark over RPC
 * ({@code -fs hdfs://127.0.0.1:PORT}, so every call is audited) against one NameNode per audit variant, all in
 * this JVM (MiniDFSCluster, no DataNodes), prints ops/s per op and variant side by side with the ratio to no
 * auditing, and checks that each audit file holds exactly one record per operation.
 *
 * <ul>
 *   <li>{@code off}: Hadoop's own audit logger alone, its log4j logger ({@code FSNamesystem.audit}) at WARN.
 *       FSNamesystem then audits nothing: with the default logger as the only one and its log below INFO,
 *       {@code isAuditEnabled()} is false and no logger is called ({@code benchmarks/nn_compare.py}'s
 *       {@code off}).</li>
 *   <li>{@code stock}: the same logger at INFO, writing {@code hdfs-audit.log} through the synchronous
 *       {@code RollingFileAppender} that Hadoop's {@code log4j.properties} ships as {@code RFAAUDIT}
 *       (nn_compare.py's {@code stock-sync}).</li>
 *   <li>{@code nnaudit}: {@code dfs.namenode.audit.loggers=io.nnaudit.QueuedAuditLogger} with nnaudit's
 *       defaults ({@code --policy} sets {@code nnaudit.queue.full.policy}).</li>
 *   <li>{@code nnaudit+kafka}, with {@code --broker-classpath}: {@code nnaudit}, shipping its audit file to the
 *       topic {@code nnbench} of a test broker (kafka/test-broker) that this class starts in a child JVM and stops
 *       at the end; the nnaudit-kafka jar must be on the classpath. Its records check also needs every record of
 *       its audit file acknowledged by the broker (ShippedRecords equal to the lines on disk, nothing left to
 *       ship) once the last pass is over.</li>
 * </ul>
 *
 * <p>{@code FSNamesystem.audit} is one logger for the whole JVM, so its level is set for each NameNode's turn:
 * INFO while the stock NameNode runs, WARN otherwise; each turn checks that its NameNode audits, or not, as
 * its variant should. nntop is off on every NameNode ({@code dfs.namenode.top.enabled=false}), as in
 * nn_compare.py: its logger would be a second audit logger and make the off NameNode audit.
 *
 * <p>Fairness: the NameNodes are all started before the first run and share this JVM's compiled code. A
 * warm-up pass, as long as a measured one, runs on each first (with a shorter one the first measured pass was
 * still the slowest for every variant), then two measured passes, the second in the reverse order of the
 * first, so that a steady drift over the run weighs alike on every variant; ops/s is the mean of the two, and
 * the output says how far apart they were. Each pass has a base directory of its own
 * ({@code /nnbench/VARIANT/PASS}); ops run as {@link OpSequence} runs them. The records check covers every
 * pass, the warm-up included.
 *
 * <p>Run by {@code dev-support/bin/nnbench}; options: {@code --ops create,fileStatus --threads 16 --files 20000
 * --policy BLOCK --variants off,stock,nnaudit --dir target/nnbench --broker-classpath
 * kafka/test-broker/target/broker.classpath}. Exit status 0 when every records check
 * passes, 1 when one fails, 2 for a bad option.
 */
public final class NnBench {
  static final String AUDIT_LOG = "org.apache.hadoop.hdfs.server.namenode.FSNamesystem.audit";
  static final List<String> VARIANTS =
      Collections.unmodifiableList(Arrays.asList("off", "stock", "nnaudit", "nnaudit+kafka"));
  /** The variant that ships to Kafka, and the topic it ships to. */
  static final String KAFKA = "nnaudit+kafka";
  static final String TOPIC = "nnbench";

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

  /** The command line. */
  static final class Options {
    List<String> ops = Arrays.asList("create", "fileStatus");
    List<String> variants = VARIANTS.subList(0, 3);
    /** The test broker's classpath file (kafka/test-broker/target/broker.classpath); null: no nnaudit+kafka. */
    File brokerClasspath;
    int threads = 16;
    int files = 20_000;
    String policy = "BLOCK";
    File dir = new File("target/nnbench");
    /** The test broker's port, once started. */
    int brokerPort;

    static Options parse(String... args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i += 2) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("option " + args[i] + " needs a value");
        }
        String v = args[i + 1];
        switch (args[i]) {
          case "--ops":
            o.ops = Arrays.asList(v.split(","));
            o.ops.forEach(NnBench::auditCmd);
            break;
          case "--variants":
            o.variants = Arrays.asList(v.split(","));
            for (String variant : o.variants) {
              if (!VARIANTS.contains(variant)) {
                throw new IllegalArgumentException("unknown variant '" + variant + "'; use " + VARIANTS);
              }
            }
            if (o.variants.stream().distinct().count() != o.variants.size()) {
              throw new IllegalArgumentException("a variant is named twice in " + v);
            }
            break;
          case "--threads":
            o.threads = positive(args[i], v);
            break;
          case "--files":
            o.files = positive(args[i], v);
            break;
          case "--policy":
            o.policy = v;
            break;
          case "--dir":
            o.dir = new File(v);
            break;
          case "--broker-classpath":
            o.brokerClasspath = new File(v);
            break;
          default:
            throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (o.brokerClasspath != null && !explicitVariants(args)) {
        o.variants = VARIANTS;
      }
      if (o.variants.contains(KAFKA) && o.brokerClasspath == null) {
        throw new IllegalArgumentException("variant " + KAFKA + " needs --broker-classpath (nnbench --kafka)");
      }
      return o;
    }

    private static boolean explicitVariants(String... args) {
      return Arrays.asList(args).contains("--variants");
    }

    private static int positive(String option, String v) {
      int n;
      try {
        n = Integer.parseInt(v);
      } catch (NumberFormatException e) {
        n = 0;
      }
      if (n < 1) {
        throw new IllegalArgumentException(option + " needs a positive number, not '" + v + "'");
      }
      return n;
    }
  }

  /** One op on one variant: ops/s of each measured pass; operations and audit records over every pass. */
  static final class Cell {
    final List<Double> opsPerSec = new ArrayList<>();
    long ops;
    long records;

    double mean() {
      return opsPerSec.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }

    /** (highest - lowest) / mean of the measured passes: how far the same measurement moved. */
    double spread() {
      double mean = mean();
      if (mean == 0) {
        return 0;
      }
      double max = opsPerSec.stream().mapToDouble(Double::doubleValue).max().orElse(0);
      double min = opsPerSec.stream().mapToDouble(Double::doubleValue).min().orElse(0);
      return (max - min) / mean;
    }

    boolean recordsMatch() {
      return records == ops;
    }
  }

  /** One NameNode of one variant. */
  private static final class Target {
    final String variant;
    final MiniDFSCluster cluster;
    final Configuration clientConf;
    final String uri;
    final FileSystem fs;
    /** The audit file, or null for off. */
    final File auditFile;
    /** nnaudit's logger on the nnaudit NameNode, else null. */
    final QueuedAuditLogger nnaudit;

    Target(String variant, MiniDFSCluster cluster, File auditFile, QueuedAuditLogger nnaudit) throws IOException {
      this.variant = variant;
      this.cluster = cluster;
      this.auditFile = auditFile;
      this.nnaudit = nnaudit;
      this.uri = "hdfs://127.0.0.1:" + cluster.getNameNodePort();
      this.clientConf = new HdfsConfiguration();
      FileSystem.setDefaultUri(clientConf, uri);
      this.fs = FileSystem.newInstance(clientConf);
    }
  }

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("nnbench: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.exit(run(o) ? 0 : 1);
  }

  /** Runs every pass and prints the table; true when every records check passed. */
  static boolean run(Options o) throws Exception {
    deleteRecursively(o.dir);
    File stockFile = new File(o.dir, "stock/hdfs-audit.log");
    if (o.variants.contains("stock")) {
      attachStockAuditLog(stockFile);
    }
    setAuditLevel(Level.WARN);
    BenchmarkLogCapture capture = BenchmarkLogCapture.attach();

    Map<String, Target> targets = new LinkedHashMap<>();
    Map<String, Cell> cells = new LinkedHashMap<>();
    for (String op : o.ops) {
      for (String v : o.variants) {
        cells.put(key(v, op), new Cell());
      }
    }
    List<String> reversed = new ArrayList<>(o.variants);
    Collections.reverse(reversed);
    long dropped = 0;
    String shipped = null;
    boolean shippedAll = true;
    Process broker = null;
    try {
      if (o.variants.contains(KAFKA)) {
        broker = startBroker(o);
      }
      for (String v : o.variants) {
        targets.put(v, start(v, o, stockFile));
      }
      printHeader(o, targets, reversed);
      turns(targets, o.variants, "warmup", false, o, capture, cells);
      turns(targets, o.variants, "1", true, o, capture, cells);
      turns(targets, reversed, "2", true, o, capture, cells);
      Target k = targets.get(KAFKA);
      if (k != null) {
        long[] s = awaitShipped(k);
        shippedAll = s[0] == s[1];
        shipped = s[0] + "/" + s[1] + (shippedAll ? " yes" : " NO");
      }
    } finally {
      for (Target t : targets.values()) {
        t.fs.close();
        t.cluster.shutdown();
        if (t.nnaudit != null) {
          dropped += t.nnaudit.stats().dropped;
          t.nnaudit.pipeline().close(30_000);
        }
      }
      if (broker != null) {
        stopBroker(broker);
      }
    }

    boolean allMatch = shippedAll;
    for (String op : o.ops) {
      for (String v : o.variants) {
        allMatch &= !hasAuditFile(v) || cells.get(key(v, op)).recordsMatch();
      }
    }
    System.out.println();
    table(shown(o.variants), o.ops, cells).forEach(System.out::println);
    System.out.println();
    System.out.println(String.format(Locale.ROOT, "One short run: the records check is exact, but the two passes of a"
        + " cell differed by up to %.0f%%, so smaller differences are noise here; benchmarks/RESULTS.md has"
        + " repeated, pinned measurements.", 100 * maxSpread(cells.values())));
    if (dropped > 0) {
      System.out.println("nnaudit dropped " + dropped + " events (nnaudit.queue.full.policy=" + o.policy + ")");
    }
    if (shipped != null) {
      System.out.println(KAFKA + ": records acknowledged by Kafka == lines in its audit file: " + shipped);
    }
    System.out.println("audit records == operations" + (shipped != null ? ", and every one shipped" : "") + ": "
        + (allMatch ? "yes" : "NO"));
    return allMatch;
  }

  /** One pass: every variant's turn, in {@code order}. */
  private static void turns(Map<String, Target> targets, List<String> order, String pass, boolean measured,
      Options o, BenchmarkLogCapture capture, Map<String, Cell> cells) throws Exception {
    for (String v : order) {
      Target t = targets.get(v);
      setAuditLevel(v.equals("stock") ? Level.INFO : Level.WARN);
      try {
        boolean audits = AuditSwitch.isAuditEnabled(t.cluster.getNamesystem());
        if (audits != hasAuditFile(v)) {
          throw new IllegalStateException("the " + v + " NameNode " + (audits ? "audits" : "does not audit"));
        }
        String base = "/nnbench/" + dirName(v) + "/" + pass;
        OpSequence sequence = new OpSequence(t.fs, capture, t.clientConf, t.uri, o.threads, o.files, base);
        for (String op : o.ops) {
          sequence.prepare(op);
          awaitWritten(t);
          long offset = t.auditFile == null ? 0 : t.auditFile.length();
          sequence.run(op);
          Cell cell = cells.get(key(v, op));
          if (measured) {
            cell.opsPerSec.add(capture.last("Ops per sec"));
          }
          if (t.auditFile != null) {
            awaitWritten(t);
            cell.ops += (long) capture.last("# operations");
            cell.records += countRecords(t.auditFile, offset, auditCmd(op), base + "/" + op + "/");
          }
        }
      } finally {
        setAuditLevel(Level.WARN);
      }
    }
  }

  /** Waits until nnaudit has written every record it accepted (the stock appender writes before returning). */
  private static void awaitWritten(Target t) throws InterruptedException {
    if (t.nnaudit != null && !t.nnaudit.pipeline().awaitWritten(60_000)) {
      throw new IllegalStateException("the audit writer did not catch up within 60 s");
    }
  }

  private static Target start(String variant, Options o, File stockFile) throws IOException {
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(o.dir, dirName(variant) + "/dfs").getAbsolutePath());
    conf.setBoolean(DFSConfigKeys.NNTOP_ENABLED_KEY, false);
    File auditFile = null;
    if (variant.equals("stock")) {
      auditFile = stockFile;
    } else if (isNnaudit(variant)) {
      auditFile = new File(o.dir, dirName(variant) + "/nnaudit-audit.log");
      conf.set(DFSConfigKeys.DFS_NAMENODE_AUDIT_LOGGERS_KEY, QueuedAuditLogger.class.getName());
      conf.set(NnauditConfigKeys.FILE_PATH_KEY, auditFile.getAbsolutePath());
      conf.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, o.policy);
      if (variant.equals(KAFKA)) {
        conf.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, "127.0.0.1:" + o.brokerPort);
        conf.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, TOPIC);
      }
    }
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, o.threads);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 16); // NNThroughputBenchmark uses 16-byte blocks
    conf.set(DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
    conf.set(DFSConfigKeys.DFS_NAMENODE_RPC_ADDRESS_KEY, "127.0.0.1:0");
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(0).build();
    try {
      cluster.waitActive();
      List<AuditLogger> loggers = cluster.getNamesystem().getAuditLoggers();
      QueuedAuditLogger nnaudit = null;
      if (isNnaudit(variant)) {
        nnaudit = loggers.size() == 1 && loggers.get(0) instanceof QueuedAuditLogger
            ? (QueuedAuditLogger) loggers.get(0) : null;
      }
      boolean stockOnly = loggers.size() == 1 && loggers.get(0) instanceof DefaultAuditLogger;
      if (isNnaudit(variant) ? nnaudit == null : !stockOnly) {
        throw new IllegalStateException("the " + variant + " NameNode has audit loggers " + loggers);
      }
      return new Target(variant, cluster, auditFile, nnaudit);
    } catch (RuntimeException | IOException e) {
      cluster.shutdown();
      throw e;
    }
  }

  /**
   * Hadoop's audit log as its {@code etc/hadoop/log4j.properties} defines it ({@code RFAAUDIT}: a synchronous
   * RollingFileAppender, the stock layout, 256 MB × 20 files), writing to {@code file}. The logger's level stays
   * as it is: {@link #setAuditLevel} turns it on and off.
   */
  static void attachStockAuditLog(File file) throws IOException {
    Files.createDirectories(file.getAbsoluteFile().getParentFile().toPath());
    Properties p = new Properties();
    p.setProperty("log4j.logger." + AUDIT_LOG, "WARN,RFAAUDIT");
    p.setProperty("log4j.additivity." + AUDIT_LOG, "false");
    p.setProperty("log4j.appender.RFAAUDIT", "org.apache.log4j.RollingFileAppender");
    p.setProperty("log4j.appender.RFAAUDIT.File", file.getAbsolutePath());
    p.setProperty("log4j.appender.RFAAUDIT.layout", "org.apache.log4j.PatternLayout");
    p.setProperty("log4j.appender.RFAAUDIT.layout.ConversionPattern", "%d{ISO8601} %p %c{2}: %m%n");
    p.setProperty("log4j.appender.RFAAUDIT.MaxFileSize", "256MB");
    p.setProperty("log4j.appender.RFAAUDIT.MaxBackupIndex", "20");
    PropertyConfigurator.configure(p);
  }

  /** FSNamesystem.audit's level, set explicitly (NNThroughputBenchmark sets FSNamesystem's, its parent). */
  private static void setAuditLevel(Level level) {
    Logger.getLogger(AUDIT_LOG).setLevel(level);
  }

  static boolean isNnaudit(String variant) {
    return variant.equals("nnaudit") || variant.equals(KAFKA);
  }

  /** The variant's name in paths, local and in HDFS. */
  static String dirName(String variant) {
    return variant.replace('+', '-');
  }

  /**
   * Starts the test broker (kafka/test-broker) in a child JVM on a free port, with the topic {@link #TOPIC};
   * it stops when its stdin closes, so it cannot outlive this JVM. Its log is {@code DIR/kafka-broker.log}.
   */
  private static Process startBroker(Options o) throws IOException, InterruptedException {
    String cp = new String(Files.readAllBytes(o.brokerClasspath.toPath()), StandardCharsets.UTF_8).trim();
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      o.brokerPort = s.getLocalPort();
    }
    Files.createDirectories(o.dir.toPath());
    File log = new File(o.dir, "kafka-broker.log");
    ProcessBuilder pb = new ProcessBuilder(new File(System.getProperty("java.home"), "bin/java").getPath(),
        "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", cp, "io.nnaudit.testbroker.TestBroker",
        String.valueOf(o.brokerPort), new File(o.dir, "kafka-broker").getAbsolutePath(), "--topic", TOPIC);
    pb.redirectError(log);
    Process p = pb.start();
    java.io.BufferedReader out = new java.io.BufferedReader(
        new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine(); // READY, or the end of the stream if the broker failed
    if (line == null || !line.startsWith("READY ")) {
      p.destroyForcibly().waitFor();
      throw new IllegalStateException("the test broker did not start; see " + log);
    }
    return p;
  }

  private static void stopBroker(Process p) throws InterruptedException {
    try {
      p.getOutputStream().close();
    } catch (IOException e) {
      // Already closed: the broker is stopping.
    }
    if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
    }
  }

  /**
   * Waits (up to 60 s) until the shipper has nothing left to ship; returns {records acknowledged by Kafka,
   * lines in the audit file and its backups}.
   */
  private static long[] awaitShipped(Target t) throws Exception {
    awaitWritten(t);
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (t.nnaudit.pipeline().shipStats().lagRecords != 0 && System.nanoTime() < deadline) {
      Thread.sleep(20); // the poll interval of this bounded wait (the lag reads -1 until the shipper has looked)
    }
    return new long[] {t.nnaudit.pipeline().shipStats().shippedRecords,
        NnCompareClient.linesOnDisk(t.auditFile.getPath())};
  }

  static boolean hasAuditFile(String variant) {
    return !variant.equals("off");
  }

  /** The key of a {@link Cell} in the map of results. */
  static String key(String variant, String op) {
    return variant + " " + op;
  }

  private static void printHeader(Options o, Map<String, Target> targets, List<String> reversed) {
    System.out.println(String.format(Locale.ROOT, "NNThroughputBenchmark over RPC, %d client threads, %d handlers,"
        + " %d files per op, against one NameNode per variant in this JVM:", o.threads, o.threads, o.files));
    for (String v : shown(o.variants)) {
      Target t = targets.get(v);
      String what;
      switch (t.variant) {
        case "off":
          what = "no auditing: Hadoop's logger alone, its log4j logger at WARN, so the NameNode audits nothing";
          break;
        case "stock":
          what = "Hadoop's logger, log4j's synchronous RollingFileAppender as Hadoop ships it: " + t.auditFile;
          break;
        case KAFKA:
          what = "nnaudit as above, shipping its audit file to Kafka topic " + TOPIC + " at 127.0.0.1:"
              + o.brokerPort + " (a test broker in a child JVM): " + t.auditFile;
          break;
        default:
          what = (o.policy.equals("BLOCK") ? "nnaudit with its defaults: "
              : "nnaudit with its defaults but nnaudit.queue.full.policy=" + o.policy + ": ") + t.auditFile;
          break;
      }
      System.out.println(String.format(Locale.ROOT, "  %-13s %s", t.variant, what));
    }
    System.out.println(String.format(Locale.ROOT, "A warm-up pass on each, then two measured passes: %s, then %s."
        + " ops/s: the mean of the two.", String.join(" ", o.variants), String.join(" ", reversed)));
  }

  /** The variants run, in the table's order (off, stock, nnaudit), whatever order they ran in. */
  static List<String> shown(List<String> run) {
    List<String> shown = new ArrayList<>(VARIANTS);
    shown.retainAll(run);
    return shown;
  }

  /** The results side by side: a row per op; ops/s per variant, its ratio to off, the records check. */
  static List<String> table(List<String> variants, List<String> ops, Map<String, Cell> cells) {
    boolean off = variants.contains("off");
    List<List<String>> rows = new ArrayList<>();
    List<String> head = new ArrayList<>();
    head.add("op");
    for (String v : variants) {
      head.add(v + " ops/s");
      if (off && !v.equals("off")) {
        head.add("x off");
      }
    }
    for (String v : variants) {
      if (hasAuditFile(v)) {
        head.add(v + " records==ops");
      }
    }
    rows.add(head);
    for (String op : ops) {
      List<String> row = new ArrayList<>();
      row.add(op);
      double offMean = off ? cells.get(key("off", op)).mean() : 0;
      for (String v : variants) {
        double mean = cells.get(key(v, op)).mean();
        row.add(String.format(Locale.ROOT, "%.0f", mean));
        if (off && !v.equals("off")) {
          row.add(offMean > 0 ? String.format(Locale.ROOT, "%.2f", mean / offMean) : "-");
        }
      }
      for (String v : variants) {
        if (hasAuditFile(v)) {
          Cell c = cells.get(key(v, op));
          row.add(c.records + "/" + c.ops + (c.recordsMatch() ? " yes" : " NO"));
        }
      }
      rows.add(row);
    }
    int[] width = new int[head.size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    List<String> lines = new ArrayList<>();
    for (List<String> row : rows) {
      StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-" + width[0] + "s", row.get(0)));
      for (int i = 1; i < row.size(); i++) {
        sb.append(String.format(Locale.ROOT, "  %" + width[i] + "s", row.get(i)));
      }
      lines.add(sb.toString());
    }
    return lines;
  }

  static double maxSpread(Iterable<Cell> cells) {
    double max = 0;
    for (Cell c : cells) {
      max = Math.max(max, c.spread());
    }
    return max;
  }

  /**
   * Records of {@code cmd} on paths under {@code dir} written after byte {@code offset} of the audit file (the
   * benchmark's own set-up calls are elsewhere, and earlier runs before the offset).
   */
  static long countRecords(File auditFile, long offset, String cmd, String dir) throws IOException {
    String needle = "\tcmd=" + cmd + "\tsrc=" + dir;
    if (!auditFile.exists()) {
      return 0;
    }
    byte[] buf;
    try (RandomAccessFile f = new RandomAccessFile(auditFile, "r")) {
      long length = f.length();
      if (offset > length) {
        throw new IOException(auditFile + " is shorter (" + length + " bytes) than before a run (" + offset + ")");
      }
      buf = new byte[Math.toIntExact(length - offset)];
      f.seek(offset);
      f.readFully(buf);
    }
    long n = 0;
    for (String line : new String(buf, StandardCharsets.UTF_8).split("\n")) {
      if (line.contains(needle)) {
        n++;
      }
    }
    return n;
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
