package io.nnaudit.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.server.namenode.NNThroughputBenchmark;
import org.apache.log4j.AppenderSkeleton;
import org.apache.log4j.Logger;
import org.apache.log4j.spi.LoggingEvent;

/**
 * The client side of {@code benchmarks/nn_compare.py}: one JVM that runs Hadoop's unmodified
 * NNThroughputBenchmark (remote mode, {@code -fs hdfs://...}) op after op against one NameNode in another
 * process, so that a run pays one client JVM start instead of one per op.
 *
 * <p>For each measured op it prints one {@code RESULT} line with the benchmark's own figures, the NameNode's
 * CPU time over the benchmark's timed window (summed over {@code /proc/PID/task/*}/schedstat, which counts
 * nanoseconds on the CPU; taken when the benchmark logs "Starting N op(s)", just before its threads start,
 * and again when its last StatsDaemon thread has ended, so set-up and clean-up are left out), the part of it
 * spent by the JIT compiler threads, by the GC threads and by nnaudit's writer thread, the part spent on the
 * operation's own path (IPC threads, edit log, GC, writer: see {@link Window#cpuMillis}), the three other
 * threads that took most, and the audit records of that op found in the audit file. JIT compiles that land
 * in a window are the largest noise in a single run's CPU figure, and they are no cost of auditing in steady
 * state.
 *
 * <p>The ops of a pass run as {@link OpSequence} runs them: files are made once per pass and reused.
 * Warm-up passes use other base directories.
 *
 * <p>When the NameNode ships its audit file to Kafka (HTTP_PORT given), each RESULT line also has the shipper's
 * figures from the NameNode's /jmx ({@link BenchNameNodeMain#SHIP_NOW}): the records not yet shipped when the
 * timed window ended and their age, how long after the window's end nothing was left to ship (the wait is bounded
 * at 120 s; -1 if it ran out), then the records shipped since start-up against the lines in the audit file and
 * its backups, the send errors, and the NameNode's CPU in the window on the shipper's thread and the Kafka
 * producer's I/O thread.
 *
 * <pre>NnCompareClient PORT NN_PID THREADS FILES PASSES OPS AUDIT_FILE|- [HTTP_PORT]</pre>
 */
public final class NnCompareClient {
  private static final long NANOS_PER_TICK = 10_000_000; // USER_HZ = 100, for the /proc/PID/task/TID/stat fallback
  private static final String STATS_DAEMON = "$StatsDaemon";

  private NnCompareClient() {
  }

  public static void main(String[] args) throws Exception {
    String uri = "hdfs://127.0.0.1:" + args[0];
    int nnPid = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    int files = Integer.parseInt(args[3]);
    int passes = Integer.parseInt(args[4]);
    List<String> ops = Arrays.asList(args[5].split(","));
    String audit = args[6].equals("-") ? null : args[6];
    String shipNow = args.length > 7 ? "http://127.0.0.1:" + args[7] + "/jmx?qry=" + BenchNameNodeMain.SHIP_NOW : null;

    BenchmarkLogCapture capture = BenchmarkLogCapture.attach();
    Window window = new Window(nnPid);
    Logger.getLogger(NNThroughputBenchmark.class).addAppender(window);

    Configuration conf = new HdfsConfiguration();
    FileSystem.setDefaultUri(conf, uri);
    try (FileSystem fs = FileSystem.newInstance(conf)) {
      for (int p = 0; p < passes; p++) {
        boolean measured = p == passes - 1;
        String base = measured ? "/nnThroughputBenchmark" : "/warmup-" + p;
        OpSequence sequence = new OpSequence(fs, capture, conf, uri, threads, files, base);
        for (String op : ops) {
          sequence.prepare(op);
          long offset = audit == null ? 0 : size(audit);
          window.reset();
          sequence.run(op);
          if (!measured) {
            continue;
          }
          long windowEnd = System.nanoTime();
          Map<String, Long> lagAtEnd = shipNow == null ? null : jmx(shipNow);
          long drainedMs = -1;
          if (shipNow != null) {
            // Before the records are counted, whose wait for the file to stop growing would hide how soon the
            // shipper caught up. With the default ack policy every record is in the file by the window's end.
            // Timed to when the request that saw nothing left was sent: 0 when nothing was left at the window's end.
            Map<String, Long> now = lagAtEnd;
            long asked = windowEnd;
            while (now.get("ShipLagRecords") != 0 && asked - windowEnd < 120_000_000_000L) {
              Thread.sleep(5); // the poll interval of this bounded wait for the shipper to catch up
              asked = System.nanoTime();
              now = jmx(shipNow);
            }
            if (now.get("ShipLagRecords") == 0) {
              drainedMs = (asked - windowEnd) / 1_000_000;
            }
          }
          long[] records = audit == null ? new long[3] : count(audit, offset, AuditRecords.auditCmd(op),
              base + "/" + op + "/");
          double[] cpu = window.cpuMillis();
          String ship = "";
          if (shipNow != null) {
            Map<String, Long> now = jmx(shipNow);
            ship = String.format(Locale.ROOT, " ship_lag_window_end=%d ship_lag_ms_window_end=%d ship_drain_ms=%d"
                + " shipped_records=%d records_on_disk=%d ship_send_errors=%d nn_ship_ms=%.3f",
                lagAtEnd.get("ShipLagRecords"), lagAtEnd.get("ShipLagMillis"), drainedMs, now.get("ShippedRecords"),
                linesOnDisk(audit), now.get("ShipSendErrors"), cpu[5]);
          }
          System.out.printf(Locale.ROOT, "RESULT op=%s ops=%d elapsed_ms=%d ops_per_sec=%.1f nn_cpu_ms=%.3f"
              + " nn_jit_ms=%.3f nn_gc_ms=%.3f nn_writer_ms=%.3f nn_path_ms=%.3f records=%d discarded=%d"
              + " drops_reported=%d busiest_others=%s path_split=%s%s%n", op,
              (long) capture.last("# operations"), (long) capture.last("Elapsed Time"), capture.last("Ops per sec"),
              cpu[0], cpu[1], cpu[2], cpu[3], cpu[4], records[0], records[1], records[2], window.busiestOthers(),
              window.pathSplit(), ship);
        }
      }
    }
  }

  /** The numeric attributes of the one MBean that {@code url} (a /jmx query) returns. */
  static Map<String, Long> jmx(String url) throws IOException {
    java.net.HttpURLConnection c = (java.net.HttpURLConnection) new java.net.URL(url).openConnection();
    c.setConnectTimeout(10_000);
    c.setReadTimeout(10_000);
    String body;
    try (java.io.InputStream in = c.getInputStream()) {
      body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Map<String, Long> out = new HashMap<>();
    Matcher m = Pattern.compile("\"(\\w+)\"\\s*:\\s*(-?\\d+)\\s*[,}\\n]").matcher(body);
    while (m.find()) {
      out.put(m.group(1), Long.parseLong(m.group(2)));
    }
    if (!out.containsKey("ShipLagRecords")) {
      throw new IOException("no shipper figures at " + url + ": " + body);
    }
    return out;
  }

  /** Lines in the audit file and its backups ({@code FILE.1}, {@code FILE.2}, ...). */
  static long linesOnDisk(String audit) throws IOException {
    long lines = 0;
    for (int i = 0; ; i++) {
      java.nio.file.Path p = Paths.get(i == 0 ? audit : audit + "." + i);
      if (!Files.exists(p)) {
        if (i > 0) {
          return lines;
        }
        continue;
      }
      try (java.io.InputStream in = new java.io.BufferedInputStream(Files.newInputStream(p), 1 << 16)) {
        int b;
        while ((b = in.read()) >= 0) {
          if (b == '\n') {
            lines++;
          }
        }
      }
    }
  }

  private static long size(String path) throws IOException {
    java.nio.file.Path p = Paths.get(path);
    return Files.exists(p) ? Files.size(p) : 0;
  }

  /**
   * {records of cmd under dir, reload4j's "Discarded N" losses, nnaudit's reported drops ({@code nnaudit=dropped
   * count=N} records)} after offset, once the file stops growing. A drop record covers every command, so
   * during a measured op it counts that op's drops plus any of the set-up just before it.
   */
  private static long[] count(String path, long offset, String cmd, String dir) throws Exception {
    long last = -1;
    long stableSince = System.nanoTime();
    while (System.nanoTime() - stableSince < 500_000_000L) {
      long s = size(path);
      if (s != last) {
        last = s;
        stableSince = System.nanoTime();
      }
      Thread.sleep(50); // the poll interval of this wait for 500 ms without growth
    }
    String needle = "\tcmd=" + cmd + "\tsrc=" + dir;
    Pattern discarded = Pattern.compile("Discarded (\\d+) messages");
    Pattern reported = Pattern.compile("nnaudit=dropped\tcount=(\\d+)");
    long records = 0;
    long lost = 0;
    long dropReported = 0;
    try (RandomAccessFile f = new RandomAccessFile(path, "r")) {
      byte[] buf = new byte[(int) (f.length() - offset)];
      f.seek(offset);
      f.readFully(buf);
      for (String line : new String(buf, StandardCharsets.UTF_8).split("\n")) {
        if (line.contains(needle)) {
          records++;
        }
        Matcher m = discarded.matcher(line);
        if (m.find()) {
          lost += Long.parseLong(m.group(1));
        }
        Matcher d = reported.matcher(line);
        if (d.find()) {
          dropReported += Long.parseLong(d.group(1));
        }
      }
    }
    return new long[] {records, lost, dropReported};
  }

  /**
   * Times NNThroughputBenchmark's measured window (its figures are read by {@link BenchmarkLogCapture}): NameNode CPU ticks when it logs
   * "Starting N op(s).", and again (from a watcher thread) when no StatsDaemon thread is left.
   */
  private static final class Window extends AppenderSkeleton {
    /** {kind, thread-name prefix}: the operation's path by thread kind, in {@link #pathSplit}'s order. */
    private static final String[][] PATH_KINDS = {{"handlers", "IPC Server hand"}, {"readers", "Socket Reader"},
        {"responder", "IPC Server Resp"}, {"listener", "IPC Server list"}, {"editlog", "FSEditLogAsync"},
        {"gc", "GC Thread"}, {"gc", "VM Thread"}, {"writer", "nnaudit-writer"}};
    private final String taskDir;
    /** CPU nanoseconds per thread, keyed "TID COMM", at the window's start and end. */
    private volatile Map<String, Long> start;
    private volatile Map<String, Long> end;

    Window(int pid) {
      this.taskDir = "/proc/" + pid + "/task";
    }

    void reset() {
      start = null;
      end = null;
    }

    /**
     * CPU milliseconds in the last window: {all, JIT compiler threads, GC threads, nnaudit writer, the
     * operation's path, the Kafka shipper's thread and its producer's I/O thread}. The path is the threads an RPC and its audit record pass through: the IPC server's
     * listener, readers, handlers and responder, the edit log's thread, GC and nnaudit's writer. It leaves out
     * the JIT and the NameNode's periodic monitors, whose bursts land in some windows and not others and are
     * no cost of auditing.
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
      Map<String, Double> ms = new LinkedHashMap<>();
      for (String[] k : PATH_KINDS) {
        ms.put(k[0], 0.0);
      }
      for (Map.Entry<String, Double> e : deltaMillis()) {
        String kind = pathKind(e.getKey());
        if (kind != null) {
          ms.put(kind, ms.get(kind) + e.getValue());
        }
      }
      return join(new ArrayList<>(ms.entrySet()), ms.size());
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
      for (Map.Entry<String, Long> e : end.entrySet()) {
        Long before = start.get(e.getKey());
        d.add(new AbstractMap.SimpleEntry<>(e.getKey().substring(e.getKey().indexOf(' ') + 1),
            (e.getValue() - (before == null ? 0 : before)) / 1e6));
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
      for (String[] k : PATH_KINDS) {
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
        start = nanos();
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
          end = nanos();
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
     * CPU nanoseconds of each of the NameNode's threads. Each thread's time comes from
     * {@code schedstat} (the scheduler's own count, in nanoseconds); {@code stat}'s utime+stime is kept only as
     * a fallback for kernels without it, because it is cut to whole 10 ms ticks per thread, and a window's sum
     * over 64 handler threads then carries up to 64 × 10 ms of rounding: 30 µs per op over 20000 ops. A
     * thread that ended between two readings takes its time with it; the NameNode starts and ends no threads
     * of its own during a benchmark window.
     */
    private Map<String, Long> nanos() {
      Map<String, Long> t = new HashMap<>();
      String[] tids = new java.io.File(taskDir).list();
      if (tids == null) {
        throw new IllegalStateException("cannot list " + taskDir);
      }
      for (String tid : tids) {
        String stat;
        long ns;
        try {
          stat = read(Paths.get(taskDir, tid, "stat"));
          ns = threadNanos(Paths.get(taskDir, tid), stat);
        } catch (IOException gone) {
          continue;
        }
        t.put(tid + " " + stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ns);
      }
      return t;
    }

    private static long threadNanos(java.nio.file.Path task, String stat) throws IOException {
      java.nio.file.Path schedstat = task.resolve("schedstat");
      if (Files.exists(schedstat)) {
        String s = read(schedstat).trim();
        return Long.parseLong(s.substring(0, s.indexOf(' ')));
      }
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK; // utime, stime
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
}
