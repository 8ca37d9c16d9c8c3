package io.nnaudit.jmh;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** The CPU time (user and system) of one of nnaudit's threads, found by the start of its name. */
final class ThreadCpuTime {
  private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  private ThreadCpuTime() {
  }

  /**
   * The live thread whose name starts with {@code prefix}: the newest, should the last run's still be ending
   * (thread ids grow).
   */
  static Thread thread(String prefix) {
    Thread newest = null;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith(prefix) && (newest == null || t.getId() > newest.getId())) {
        newest = t;
      }
    }
    if (newest == null) {
      throw new IllegalStateException("no thread named " + prefix + "...");
    }
    return newest;
  }

  /** Its CPU time so far, ns; 0 for null (no such thread in this run). */
  static long of(Thread t) {
    return t == null ? 0 : Math.max(0, MX.getThreadCpuTime(t.getId()));
  }

  /**
   * The thread's CPU time once it has gone idle: read every {@code stepMs} until it grows by less than
   * {@code idleNs} between two reads (a thread that naps when idle still spends a little), for at most 60 s.
   */
  static long whenIdle(Thread t, long stepMs, long idleNs) throws InterruptedException {
    long last = of(t);
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      Thread.sleep(stepMs);
      long now = of(t);
      if (now - last < idleNs) {
        return now;
      }
      last = now;
    }
    throw new IllegalStateException(t.getName() + " did not go idle within 60 s");
  }
}
