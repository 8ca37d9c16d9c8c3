package io.nnaudit.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.spi.LoggingEvent;

/**
 * Times NNThroughputBenchmark's measured window (its figures are read by {@link BenchmarkLogCapture}): NameNode
 * CPU ticks when it logs "Starting N op(s).", and again (from a watcher thread) when no StatsDaemon thread is left.
 */
final class CpuWindow extends AppenderSkeleton {
  private static final long NANOS_PER_TICK = 10_000_000; // USER_HZ = 100, for the /proc/PID/task/TID/stat fallback
  private static final String STATS_DAEMON = "$StatsDaemon";
  /** {kind, thread-name prefix}: the operation's path by thread kind, in {@link #pathSplit}'s order. */
  private static final String[][] PATH_KINDS = {{"handlers", "IPC Server hand"}, {"readers", "Socket Reader"},
      {"responder", "IPC Server Resp"}, {"listener", "IPC Server list"}, {"editlog", "FSEditLogAsync"},
      {"gc", "GC Thread"}, {"gc", "VM Thread"}, {"writer", "nnaudit-writer"}};
  /** The comm of the compressor's thread ({@code nnaudit.file.compress}), cut to 15 characters. */
  static final String COMPRESSOR = "nnaudit-compres";
  /**
   * {kind, thread-name prefix}: nnaudit's own threads, in {@link #nnauditSplit}'s order. A thread's name here is
   * its comm, which Linux cuts to 15 characters: "nnaudit-compressor FILE" is "nnaudit-compres".
   */
  private static final String[][] NNAUDIT_THREADS = {{"writer", "nnaudit-writer"}, {"sealer", "nnaudit-seal"},
      {"shipper", "nnaudit-kafka"}, {"producer", "kafka-producer"}, {"compressor", COMPRESSOR}};
  private final String taskDir;
  /**
   * Per thread, keyed "TID COMM", at the window's start and end: {CPU nanoseconds, times run on a CPU,
   * nanoseconds waiting on a run queue} ({@link #threads}).
   */
  private volatile Map<String, long[]> start;
  private volatile Map<String, long[]> end;

  CpuWindow(int pid) {
    this.taskDir = "/proc/" + pid + "/task";
  }

  void reset() {
    start = null;
    end = null;
  }

  /**
   * CPU milliseconds in the last window: {all, JIT compiler threads, GC threads, nnaudit writer, the
   * operation's path, the Kafka shipper's thread and its producer's I/O thread}. The path is the threads an RPC
   * and its audit record pass through: the IPC server's listener, readers, handlers and responder, the edit
   * log's thread, GC and nnaudit's writer. It leaves out the JIT and the NameNode's periodic monitors, whose
   * bursts land in some windows and not others and are no cost of auditing.
   */
  double[] cpuMillis() throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (end == null && System.nanoTime() < deadline) {
      Thread.sleep(1); // the poll interval of this bounded wait for the watcher
    }
    if (start == null || end == null) {
      throw new IllegalStateException("the benchmark's timed window was not seen");
    }
    double[] ms = new double[6];
    for (Map.Entry<String, Double> e : deltaMillis()) {
      String comm = e.getKey();
      double d = e.getValue();
      ms[0] += d;
      if (isJit(comm)) {
        ms[1] += d;
        continue;
      }
      String kind = pathKind(comm);
      if ("gc".equals(kind)) {
        ms[2] += d;
      }
      if ("writer".equals(kind)) {
        ms[3] += d;
      }
      if (onPath(comm)) {
        ms[4] += d;
      }
      if (comm.startsWith("nnaudit-kafka") || comm.startsWith("kafka-producer")) {
        ms[5] += d;
      }
    }
    return ms;
  }

  /** The operation's path split by thread kind: "handlers:MS,readers:MS,...", CPU ms in the last window. */
  String pathSplit() {
    return split(PATH_KINDS);
  }

  /**
   * nnaudit's own threads' CPU in the last window, "writer:MS,sealer:MS,shipper:MS,producer:MS,compressor:MS":
   * the writer thread, the sealing thread, the Kafka shipper's thread and its producer's I/O thread, and the
   * thread that compresses rotated files. A handler's time
   * inside the logger is in the handlers' figure, not here.
   */
  String nnauditSplit() {
    return split(NNAUDIT_THREADS);
  }

  /**
   * How the scheduler ran the NameNode's threads (the JIT compilers left out) in the last window:
   * "switches:N,handler_switches:N,runq_wait_ms:MS", where switches counts the times a thread was put on a CPU
   * (each one a context switch on the NameNode's core) and runq_wait_ms the time threads were ready to run but
   * waited for the CPU. Empty without schedstat.
   */
  String sched() {
    Map<String, long[]> a = start;
    Map<String, long[]> b = end;
    if (a == null || b == null || b.values().stream().anyMatch(v -> v[1] < 0)) {
      return "";
    }
    long switches = 0;
    long handlerSwitches = 0;
    long waitNanos = 0;
    for (Map.Entry<String, long[]> e : b.entrySet()) {
      String comm = e.getKey().substring(e.getKey().indexOf(' ') + 1);
      if (isJit(comm)) {
        continue;
      }
      long[] before = a.getOrDefault(e.getKey(), new long[3]);
      long n = e.getValue()[1] - before[1];
      switches += n;
      if ("handlers".equals(pathKind(comm))) {
        handlerSwitches += n;
      }
      waitNanos += e.getValue()[2] - before[2];
    }
    return String.format(Locale.ROOT, "switches:%d,handler_switches:%d,runq_wait_ms:%.1f", switches,
        handlerSwitches, waitNanos / 1e6);
  }

  /** CPU ms in the last window by kind, "kind:MS,...", each thread counted in the first kind its name matches. */
  private String split(String[][] kinds) {
    Map<String, Double> ms = new LinkedHashMap<>();
    for (String[] k : kinds) {
      ms.put(k[0], 0.0);
    }
    for (Map.Entry<String, Double> e : deltaMillis()) {
      String kind = kindOf(kinds, e.getKey());
      if (kind != null) {
        ms.put(kind, ms.get(kind) + e.getValue());
      }
    }
    return join(new ArrayList<>(ms.entrySet()), ms.size());
  }

  /**
   * CPU milliseconds of the threads whose name starts with {@code prefix}, from the last window's start until
   * now: for a thread that goes on working after the window, such as the compressor with a backlog.
   */
  double millisSinceStart(String prefix) {
    Map<String, long[]> now = threads();
    double ms = 0;
    for (Map.Entry<String, long[]> e : now.entrySet()) {
      if (e.getKey().substring(e.getKey().indexOf(' ') + 1).startsWith(prefix)) {
        long[] before = start.get(e.getKey());
        ms += (e.getValue()[0] - (before == null ? 0 : before[0])) / 1e6;
      }
    }
    return ms;
  }

  /** The threads outside the operation's path (JIT left out) that took most CPU in the last window. */
  String busiestOthers() {
    List<Map.Entry<String, Double>> others = new ArrayList<>();
    for (Map.Entry<String, Double> e : deltaMillis()) {
      if (!isJit(e.getKey()) && !onPath(e.getKey())) {
        others.add(new AbstractMap.SimpleEntry<>(e.getKey().replace(' ', '_').replace(',', '_'),
            e.getValue()));
      }
    }
    others.sort((x, y) -> Double.compare(y.getValue(), x.getValue()));
    return join(others, 3);
  }

  /** Each thread's CPU milliseconds in the last window, keyed by its name (comm); names repeat. */
  private List<Map.Entry<String, Double>> deltaMillis() {
    List<Map.Entry<String, Double>> d = new ArrayList<>();
    for (Map.Entry<String, long[]> e : end.entrySet()) {
      long[] before = start.get(e.getKey());
      d.add(new AbstractMap.SimpleEntry<>(e.getKey().substring(e.getKey().indexOf(' ') + 1),
          (e.getValue()[0] - (before == null ? 0 : before[0])) / 1e6));
    }
    return d;
  }

  private static boolean isJit(String comm) {
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }

  /**
   * The threads an RPC and its audit record pass through: IPC server, edit log, GC, nnaudit's writer. The IPC
   * server's other threads (e.g. its idle-connection scanner) count towards the path but have no kind.
   */
  private static boolean onPath(String comm) {
    return pathKind(comm) != null || comm.startsWith("IPC Server");
  }

  /** The kind in {@link #PATH_KINDS} of a thread, by its name (comm), or null. */
  private static String pathKind(String comm) {
    return kindOf(PATH_KINDS, comm);
  }

  /** The kind of the first {kind, prefix} in {@code kinds} that a thread's name (comm) starts with, or null. */
  private static String kindOf(String[][] kinds, String comm) {
    for (String[] k : kinds) {
      if (comm.startsWith(k[1])) {
        return k[0];
      }
    }
    return null;
  }

  /** "name:ms,name:ms" for the first {@code n} entries. */
  private static String join(List<Map.Entry<String, Double>> entries, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(n, entries.size()); i++) {
      sb.append(i == 0 ? "" : ",").append(entries.get(i).getKey()).append(':')
          .append(String.format(Locale.ROOT, "%.1f", entries.get(i).getValue()));
    }
    return sb.toString();
  }

  @Override
  protected void append(LoggingEvent event) {
    String msg = String.valueOf(event.getRenderedMessage());
    if (msg.startsWith("Starting ") && msg.endsWith("(s).")) {
      start = threads();
      Thread watcher = new Thread(() -> {
        try {
          // The benchmark starts its daemons right after this line: wait until one runs, not a guessed
          // time, then until none is left. A window whose daemons are never seen keeps no end, which
          // cpuMillis reports.
          long deadline = System.nanoTime() + 10_000_000_000L;
          while (!daemonsAlive()) {
            if (System.nanoTime() - deadline > 0) {
              return;
            }
            Thread.sleep(1); // the poll interval of this bounded wait
          }
          while (daemonsAlive()) {
            Thread.sleep(2); // the poll interval: the window ends within 2 ms of the last daemon
          }
        } catch (InterruptedException e) {
          return;
        }
        end = threads();
      }, "nn-cpu-window");
      watcher.setDaemon(true);
      watcher.start();
    }
  }

  private static boolean daemonsAlive() {
    Thread[] all = new Thread[Thread.activeCount() + 64];
    int n = Thread.enumerate(all);
    for (int i = 0; i < n; i++) {
      if (all[i].getClass().getName().endsWith(STATS_DAEMON) && all[i].isAlive()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Each of the NameNode's threads, read once: {CPU nanoseconds, times run on a CPU, nanoseconds waiting on a run
   * queue}. All three come from {@code schedstat} (the scheduler's own counts); without it (an older kernel) the
   * CPU time is {@code stat}'s utime+stime and the other two are -1. That fallback is cut to whole 10 ms ticks per
   * thread, and a window's sum over 64 handler threads then carries up to 64 × 10 ms of rounding: 30 µs per op
   * over 20000 ops. A thread that ended between two readings takes its time with it; the NameNode starts and
   * ends no threads of its own during a benchmark window.
   */
  private Map<String, long[]> threads() {
    Map<String, long[]> t = new HashMap<>();
    String[] tids = new java.io.File(taskDir).list();
    if (tids == null) {
      throw new IllegalStateException("cannot list " + taskDir);
    }
    for (String tid : tids) {
      String stat;
      long[] counts;
      try {
        stat = read(Paths.get(taskDir, tid, "stat"));
        counts = threadCounts(Paths.get(taskDir, tid), stat);
      } catch (IOException gone) {
        continue;
      }
      t.put(tid + " " + stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')), counts);
    }
    return t;
  }

  private static long[] threadCounts(java.nio.file.Path task, String stat) throws IOException {
    java.nio.file.Path schedstat = task.resolve("schedstat");
    if (Files.exists(schedstat)) {
      String[] f = read(schedstat).trim().split(" ");
      return new long[] {Long.parseLong(f[0]), Long.parseLong(f[2]), Long.parseLong(f[1])};
    }
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new long[] {(Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK, -1, -1}; // utime, stime
  }

  private static String read(java.nio.file.Path p) throws IOException {
    return new String(Files.readAllBytes(p), StandardCharsets.US_ASCII);
  }

  @Override
  public void close() {
  }

  @Override
  public boolean requiresLayout() {
    return false;
  }
}
