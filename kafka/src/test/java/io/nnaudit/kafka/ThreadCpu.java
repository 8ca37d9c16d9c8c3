package io.nnaudit.kafka;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of this JVM's threads over a window, summed by thread-name prefix: a thread alive at the end counts
 * from the start (or from its birth within the window). A thread that ends within the window is not counted, so
 * the threads measured must outlive it.
 */
final class ThreadCpu {
  private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
  private String[] prefixes;
  private final Map<Long, Long> startNanos = new HashMap<>();
  private final Map<String, Long> nanosByPrefix = new HashMap<>();

  void start(String... names) {
    prefixes = names;
    startNanos.clear();
    nanosByPrefix.clear();
    forEach((id, prefix, nanos) -> startNanos.put(id, nanos));
  }

  void end() {
    forEach((id, prefix, nanos) -> nanosByPrefix.merge(prefix, nanos - startNanos.getOrDefault(id, 0L), Long::sum));
  }

  /** The CPU microseconds of the threads named {@code prefix}... in the window. */
  double micros(String prefix) {
    return nanosByPrefix.getOrDefault(prefix, 0L) / 1e3;
  }

  private interface Visitor {
    void visit(long id, String prefix, long nanos);
  }

  private void forEach(Visitor v) {
    for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (t == null) {
        continue;
      }
      for (String p : prefixes) {
        if (t.getThreadName().startsWith(p)) {
          long nanos = mx.getThreadCpuTime(t.getThreadId());
          if (nanos >= 0) {
            v.visit(t.getThreadId(), p, nanos);
          }
        }
      }
    }
  }
}
