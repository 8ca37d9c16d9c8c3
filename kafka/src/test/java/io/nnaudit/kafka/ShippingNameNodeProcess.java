package io.nnaudit.kafka;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import io.nnaudit.ChildJvm;
import io.nnaudit.MkdirsLoad;

/**
 * A NameNode that ships its audit file, in a child JVM ({@link ShippingNameNodeMain}), which a test can stop with
 * SIGTERM (its shutdown hooks run) or kill with SIGKILL. It prints {@code READY port=N} once it serves RPC, then a {@code STATS} line of the shipper's
 * figures every 100 ms.
 */
final class ShippingNameNodeProcess implements AutoCloseable {
  private final ChildJvm child;
  private final URI uri;

  private ShippingNameNodeProcess(ChildJvm child, long startTimeoutMs) throws Exception {
    this.child = child;
    String ready = child.awaitLine("READY port=", startTimeoutMs);
    uri = URI.create("hdfs://127.0.0.1:" + ready.substring("READY port=".length()).trim());
  }

  /**
   * Starts a NameNode auditing to {@code auditDir/audit.log} and shipping to {@code topic} at {@code broker}, its
   * name directory under {@code baseDir} ({@code format}: a new one; else the one left there), and returns once it
   * serves RPC.
   */
  static ShippingNameNodeProcess start(File baseDir, File auditDir, String bootstrapServers, String topic,
      boolean format, long startTimeoutMs) throws Exception {
    return start(baseDir, auditDir, bootstrapServers, topic, format, "none", startTimeoutMs);
  }

  /** As above, its rotated files compressed as {@code compress} says ({@code none} or {@code gzip}). */
  static ShippingNameNodeProcess start(File baseDir, File auditDir, String bootstrapServers, String topic,
      boolean format, String compress, long startTimeoutMs) throws Exception {
    return start(startTimeoutMs, baseDir.getPath(), auditDir.getPath(), bootstrapServers, topic,
        String.valueOf(format), compress);
  }

  /**
   * As above, as the NameNode {@code source} ({@code NS/NN}), its file sealed with the key in {@code keystore}
   * (made by SealKeys.ec) every {@code sealInterval} records.
   */
  static ShippingNameNodeProcess startSealed(File baseDir, File auditDir, String bootstrapServers, String topic,
      boolean format, String source, File keystore, int sealInterval, long startTimeoutMs) throws Exception {
    return startSealed(baseDir, auditDir, bootstrapServers, topic, format, source, keystore, sealInterval, "named",
        startTimeoutMs);
  }

  /** As above, its records' headers in the form {@code headers} ({@code nnaudit.kafka.headers}). */
  static ShippingNameNodeProcess startSealed(File baseDir, File auditDir, String bootstrapServers, String topic,
      boolean format, String source, File keystore, int sealInterval, String headers, long startTimeoutMs)
      throws Exception {
    return startSealed(baseDir, auditDir, bootstrapServers, topic, format, source, keystore, sealInterval, headers, 1,
        startTimeoutMs);
  }

  /** As above, up to {@code recordLines} lines in one record ({@code nnaudit.kafka.record.lines}). */
  static ShippingNameNodeProcess startSealed(File baseDir, File auditDir, String bootstrapServers, String topic,
      boolean format, String source, File keystore, int sealInterval, String headers, int recordLines,
      long startTimeoutMs) throws Exception {
    return start(startTimeoutMs, baseDir.getPath(), auditDir.getPath(), bootstrapServers, topic,
        String.valueOf(format), "none", source, keystore.getPath(), String.valueOf(sealInterval), headers,
        String.valueOf(recordLines));
  }

  private static ShippingNameNodeProcess start(long startTimeoutMs, String... args) throws Exception {
    List<String> options = new ArrayList<>();
    options.add("-Xmx1g");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens=") || arg.startsWith("--add-exports=")) {
        options.add(arg); // as the test JVM runs MiniDFSCluster
      }
    }
    ChildJvm child = new ChildJvm(options, ChildJvm.testClassPath(entry -> true),
        ShippingNameNodeMain.class.getName(), args);
    try {
      return new ShippingNameNodeProcess(child, startTimeoutMs);
    } catch (Throwable t) {
      child.close();
      throw t;
    }
  }

  /** hdfs://127.0.0.1:PORT of its RPC server. */
  URI uri() {
    return uri;
  }

  /**
   * Waits for a STATS report (the fields of the shipper's {@code ShipStats}, by name) that {@code wanted} accepts,
   * reported after this call began, and returns its line.
   */
  String awaitStats(Predicate<Map<String, Long>> wanted, long timeoutMs) throws InterruptedException {
    child.skipPrinted(); // reports made before this call are not what the caller waits for
    long deadline = System.currentTimeMillis() + timeoutMs;
    String last = null;
    while (System.currentTimeMillis() < deadline) {
      String l = child.awaitLine("STATS ", Math.max(1, deadline - System.currentTimeMillis()));
      last = l;
      if (wanted.test(stats(l))) {
        return l;
      }
    }
    throw new AssertionError("no STATS report as wanted within " + timeoutMs + " ms; the last: " + last);
  }

  private static Map<String, Long> stats(String line) {
    Map<String, Long> m = new HashMap<>();
    for (String field : line.substring("STATS ".length()).trim().split(" ")) {
      int eq = field.indexOf('=');
      m.put(field.substring(0, eq), Long.parseLong(field.substring(eq + 1)));
    }
    return m;
  }

  /** Everything it printed so far (stdout and stderr). */
  String output() {
    return child.output();
  }

  /** {@code n} mkdirs under {@code dir}, each acknowledged before the next. */
  void mkdirs(String dir, int n) throws Exception {
    Configuration c = MkdirsLoad.failFastClientConf();
    try (FileSystem fs = FileSystem.newInstance(uri, c)) {
      for (int i = 0; i < n; i++) {
        if (!fs.mkdirs(new Path(dir + "/d" + i))) {
          throw new AssertionError("mkdirs " + dir + "/d" + i);
        }
      }
    }
  }

  /**
   * Waits until the shipper has nothing left to ship, twice over a second apart, so that the interval seal the
   * sealing thread writes a moment after the last records (at most 300 ms) is shipped too.
   */
  void awaitShipped(long timeoutMs) throws Exception {
    for (int k = 0; k < 2; k++) {
      awaitStats(s -> s.get("lagBytes") == 0 && s.get("filesWaiting") == 0 && s.get("lagRecords") == 0, timeoutMs);
      Thread.sleep(1200);
    }
  }

  /** SIGTERM, as a service stop: the JVM's shutdown hooks run. Returns once the JVM has exited. */
  void stop() throws InterruptedException {
    // Process.destroy would close the pipe of its output as well, and lose what the shutdown hooks print
    child.process.toHandle().destroy();
    child.awaitExit(60_000); // and what it printed to the end, the shutdown hooks' lines included
  }

  /** SIGKILL, as {@code kill -9}: no shutdown hook runs. Returns once the JVM is gone. */
  void kill() throws InterruptedException {
    child.kill();
    if (child.isAlive()) {
      throw new AssertionError("the NameNode JVM outlived SIGKILL");
    }
  }

  @Override
  public void close() throws InterruptedException {
    child.close();
  }
}
