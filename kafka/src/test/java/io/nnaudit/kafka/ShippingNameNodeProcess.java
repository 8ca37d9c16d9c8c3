package io.nnaudit.kafka;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@link ShippingNameNodeMain} in a JVM of its own, on the test classpath, with its output read line by line:
 * started, watched through its STATS reports, and killed with SIGKILL. Not thread-safe: one test thread drives it.
 */
final class ShippingNameNodeProcess implements AutoCloseable {
  private static final long KILL_TIMEOUT_MS = 60_000;

  private final Process process;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final StringBuffer all = new StringBuffer();
  private final URI uri;

  private ShippingNameNodeProcess(List<String> cmd, long startTimeoutMs) throws Exception {
    process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        String l;
        while ((l = r.readLine()) != null) {
          all.append(l).append('\n');
          lines.add(l);
        }
      } catch (Exception ignored) {
        // the child died; its output so far is kept
      }
    }, "namenode-output");
    reader.setDaemon(true);
    reader.start();
    String ready = awaitLine("READY port=", startTimeoutMs);
    uri = URI.create("hdfs://127.0.0.1:" + ready.substring("READY port=".length()).trim());
  }

  /**
   * Starts a NameNode auditing to {@code auditDir/audit.log} and shipping to {@code topic} at {@code broker}, its
   * name directory under {@code baseDir} ({@code format}: a new one; else the one left there), and returns once it
   * serves RPC.
   */
  static ShippingNameNodeProcess start(File baseDir, File auditDir, String bootstrapServers, String topic,
      boolean format, long startTimeoutMs) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    cmd.add("-Xmx1g");
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens=") || arg.startsWith("--add-exports=")) {
        cmd.add(arg); // as the test JVM runs MiniDFSCluster
      }
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    cmd.add(ShippingNameNodeMain.class.getName());
    cmd.add(baseDir.getPath());
    cmd.add(auditDir.getPath());
    cmd.add(bootstrapServers);
    cmd.add(topic);
    cmd.add(String.valueOf(format));
    return new ShippingNameNodeProcess(cmd, startTimeoutMs);
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
    lines.clear(); // reports made before this call are not what the caller waits for
    long deadline = System.currentTimeMillis() + timeoutMs;
    String last = null;
    while (System.currentTimeMillis() < deadline) {
      String l = lines.poll(100, TimeUnit.MILLISECONDS);
      if (l != null && l.startsWith("STATS ")) {
        last = l;
        if (wanted.test(stats(l))) {
          return l;
        }
      }
      if (l == null && !process.isAlive()) {
        throw new AssertionError("the NameNode exited with " + process.exitValue() + "; its output:\n" + all);
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
    return all.toString();
  }

  /** SIGKILL, as {@code kill -9}: no shutdown hook runs. Returns once the JVM is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(KILL_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the NameNode JVM " + process.pid() + " outlived SIGKILL by " + KILL_TIMEOUT_MS
          + " ms");
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }

  private String awaitLine(String prefix, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      String l = lines.poll(100, TimeUnit.MILLISECONDS);
      if (l != null && l.startsWith(prefix)) {
        return l;
      }
      if (l == null && !process.isAlive()) {
        break;
      }
    }
    process.destroyForcibly();
    throw new AssertionError("no '" + prefix + "' line from the NameNode within " + timeoutMs + " ms; its output:\n"
        + all);
  }
}
