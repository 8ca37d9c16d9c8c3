package io.nnaudit.kafka;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time, and bytes allocated, of this JVM's threads over a window, summed by thread-name prefix: a thread alive
 * at the end counts from the start (or from its birth within the window). A thread that ends within the window is not counted, so
 * the threads measured must outlive it.
 */
final class ThreadCpu {
  private final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
  private String[] prefixes;
  private final Map<Long, Long> startNanos = new HashMap<>();
  private final Map<String, Long> nanosByPrefix = new HashMap<>();
  private final Map<Long, Long> startBytes = new HashMap<>();
  private final Map<String, Long> bytesByPrefix = new HashMap<>();

  void start(String... names) {
    prefixes = names;
    startNanos.clear();
    nanosByPrefix.clear();
    startBytes.clear();
    bytesByPrefix.clear();
    forEach((id, prefix, nanos) -> {
      startNanos.put(id, nanos);
      startBytes.put(id, allocated(id));
    });
  }

  void end() {
    forEach((id, prefix, nanos) -> {
      nanosByPrefix.merge(prefix, nanos - startNanos.getOrDefault(id, 0L), Long::sum);
      bytesByPrefix.merge(prefix, allocated(id) - startBytes.getOrDefault(id, 0L), Long::sum);
    });
  }

  /** The bytes the threads named {@code prefix}... allocated in the window (HotSpot's per-thread count). */
  long allocatedBytes(String prefix) {
    return bytesByPrefix.getOrDefault(prefix, 0L);
  }

  private long allocated(long id) {
    return ((com.sun.management.ThreadMXBean) mx).getThreadAllocatedBytes(id);
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
