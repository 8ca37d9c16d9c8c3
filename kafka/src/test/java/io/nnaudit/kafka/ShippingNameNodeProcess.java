package io.nnaudit.kafka;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.nnaudit.ChildJvm;

/**
 * A NameNode that ships its audit file, in a child JVM ({@link ShippingNameNodeMain}), which a test can kill
 * with SIGKILL. It prints {@code READY port=N} once it serves RPC, then a {@code STATS} line of the shipper's
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
    List<String> options = new ArrayList<>();
    options.add("-Xmx1g");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens=") || arg.startsWith("--add-exports=")) {
        options.add(arg); // as the test JVM runs MiniDFSCluster
      }
    }
    ChildJvm child = new ChildJvm(options, ChildJvm.testClassPath(entry -> true),
        ShippingNameNodeMain.class.getName(), baseDir.getPath(), auditDir.getPath(), bootstrapServers, topic,
        String.valueOf(format), compress);
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
