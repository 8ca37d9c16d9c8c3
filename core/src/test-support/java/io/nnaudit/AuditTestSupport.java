package io.nnaudit;

import java.io.File;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.sink.SinkFactory;

/** Building loggers and events for tests that call the logger directly, as FSNamesystem would. */
public final class AuditTestSupport {
  private AuditTestSupport() {
  }

  /**
   * Settings for a test logger of {@code auditFile}, writing to the file sink unless the logger is given sinks
   * of its own ({@link #logger(Configuration, SinkFactory)}, as {@link LoggerFixture} gives it).
   */
  public static Configuration conf(File auditFile) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, auditFile.getPath());
    c.setLong(NnauditConfigKeys.DROP_WARN_INTERVAL_MS_KEY, 1000);
    // These tests call logAuditEvent from a test thread, outside an RPC, to drive the queue and the writer
    // (stalled writers, full queues). Under the default ack policy each such call would wait for its record;
    // the tests of that wait (AckPolicyTest, the sync tests) set their policy themselves.
    c.set(NnauditConfigKeys.ACK_POLICY_KEY, "queue");
    return c;
  }

  /** A logger as FSNamesystem creates it: writing to the sink {@code nnaudit.sink} names (the file). */
  public static QueuedAuditLogger logger(Configuration c) {
    QueuedAuditLogger l = new QueuedAuditLogger();
    l.initialize(c);
    return l;
  }

  /** A logger writing to the sinks {@code sinks} opens, as an embedder creates it. */
  public static QueuedAuditLogger logger(Configuration c, SinkFactory sinks) {
    QueuedAuditLogger l = new QueuedAuditLogger(sinks);
    l.initialize(c);
    return l;
  }

  public static FileStatus stat() {
    return new FileStatus(0, false, 3, 128L << 20, 1L, 1L, new FsPermission((short) 0644), "alice", "staff",
        new Path("/f"));
  }

  public static InetAddress localhost() {
    try {
      return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** One create, as FSNamesystem reports it. */
  public static void logCreate(QueuedAuditLogger l, String src) {
    l.logAuditEvent(true, "alice (auth:SIMPLE)", localhost(), "create", src, null, stat(), null, null, null);
  }

  /**
   * Starts {@code threads} threads that each log {@code each} creates, of {@code <prefix>t<thread>/<i>}, in
   * order; the caller joins them.
   */
  public static List<Thread> startLogging(QueuedAuditLogger l, String prefix, int threads, int each) {
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int id = t;
      Thread th = new Thread(() -> {
        for (int i = 0; i < each; i++) {
          logCreate(l, prefix + "t" + id + "/" + i);
        }
      });
      ts.add(th);
      th.start();
    }
    return ts;
  }

  public static void awaitTrue(String what, long timeoutMs, BooleanSupplier cond) throws InterruptedException {
    awaitTrue(what, timeoutMs, 2, cond);
  }

  /** As {@link #awaitTrue(String, long, BooleanSupplier)}, asking every {@code pollMs}: for a costly condition. */
  public static void awaitTrue(String what, long timeoutMs, long pollMs, BooleanSupplier cond)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeoutMs + " ms waiting for " + what);
      }
      Thread.sleep(pollMs); // the poll interval: the condition is asked again, until the deadline
    }
  }
}
