package io.nnaudit.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.server.namenode.NNThroughputBenchmark;
import org.apache.log4j.Logger;

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
 * operation's own path (IPC threads, edit log, GC, writer: see {@link CpuWindow#cpuMillis}), the three other
 * threads that took most, and the audit records of that op found in the audit file. JIT compiles that land
 * in a window are the largest noise in a single run's CPU figure, and they are no cost of auditing in steady
 * state.
 *
 * <p>The ops of a pass run as {@link OpSequence} runs them: files are made once per pass and reused.
 * Warm-up passes use other base directories.
 *
 * <p>After each op of every pass, for every variant, the client reads the NameNode's /jmx
 * ({@link BenchNameNodeMain#SHIP_NOW}, at HTTP_PORT) until nothing is left to ship, so that the first requests'
 * class loading and compiles fall in the warm-up for every variant alike. When the NameNode ships its audit file to
 * Kafka ({@code -Dnnbench.ships=true}), each RESULT line also has the shipper's figures from there: the records not yet shipped when the
 * timed window ended and their age, how long after the window's end nothing was left to ship (the wait is bounded
 * at 120 s; -1 if it ran out), then the records shipped since start-up against the lines in the audit file and
 * its backups, the send errors, and the NameNode's CPU in the window on the shipper's thread and the Kafka
 * producer's I/O thread.
 *
 * <p>When the audit file rotates ({@code -Dnnbench.audit.trail=rotating}, or {@code gzip} when its rotated files
 * are compressed too), records are counted across the live file and every rotated file, plain or {@code .gz}
 * ({@link AuditRecords#countTrailOnceSettled}), after the trail's position before the op. With {@code gzip} the
 * client also waits, before each op, until the compressor has compressed every rotated file (so that a window
 * does not inherit the set-up's backlog), and after it, until it has compressed what the op rotated, then adds
 * to the RESULT line the compressor thread's CPU from the window's start to then, the bytes it compressed in
 * that time and how long after the window that took: the compressor's whole cost for the op's files, which may
 * run past the window. Other variants are counted as before, in the live file after its size before the op.
 *
 * <pre>NnCompareClient PORT NN_PID THREADS FILES PASSES OPS AUDIT_FILE|- HTTP_PORT</pre>
 */
public final class NnCompareClient {
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
    String jmxNow = "http://127.0.0.1:" + args[7] + "/jmx?qry=" + BenchNameNodeMain.SHIP_NOW;
    String shipNow = Boolean.getBoolean("nnbench.ships") ? jmxNow : null;
    String trail = System.getProperty("nnbench.audit.trail", "");
    boolean rotates = audit != null && (trail.equals("rotating") || trail.equals("gzip"));
    boolean gzip = rotates && trail.equals("gzip");

    BenchmarkLogCapture capture = BenchmarkLogCapture.attach();
    CpuWindow window = new CpuWindow(nnPid);
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
          if (gzip && measured) {
            compressionCaughtUp(audit);
          }
          long offset = audit == null ? 0 : rotates ? AuditRecords.trailPosition(audit) : AuditRecords.size(audit);
          long compressedBefore = gzip && measured ? AuditRecords.compressedBytes(audit) : 0;
          window.reset();
          sequence.run(op);
          long windowEnd = System.nanoTime();
          // Every variant, in every pass, asks /jmx the same way after each op (a variant without a shipper has
          // nothing left to ship), so that what the first requests load and compile (Jetty, the JMX servlet), and
          // the compiled code that loading invalidates, is done in the warm-up for all alike, not in the measured
          // windows of the shipping variants alone.
          Map<String, Long> lagAtEnd = jmx(jmxNow);
          long drainedMs = -1;
          // Before the records are counted, whose wait for the file to stop growing would hide how soon the
          // shipper caught up. With the default ack policy every record is in the file by the window's end.
          // Timed to when the request that saw nothing left was sent: 0 when nothing was left at the window's end.
          Map<String, Long> now = lagAtEnd;
          long asked = windowEnd;
          while (now.get("ShipLagRecords") != 0 && asked - windowEnd < 120_000_000_000L) {
            Thread.sleep(5); // the poll interval of this bounded wait for the shipper to catch up
            asked = System.nanoTime();
            now = jmx(jmxNow);
          }
          if (now.get("ShipLagRecords") == 0) {
            drainedMs = (asked - windowEnd) / 1_000_000;
          }
          if (!measured) {
            continue;
          }
          long[] records = audit == null ? new long[3] : rotates
              ? AuditRecords.countTrailOnceSettled(audit, offset, AuditRecords.auditCmd(op), base + "/" + op + "/")
              : AuditRecords.countOnceSettled(audit, offset, AuditRecords.auditCmd(op), base + "/" + op + "/");
          double[] cpu = window.cpuMillis();
          String compression = "";
          if (rotates) {
            long written = AuditRecords.trailPosition(audit) - offset;
            compression = String.format(Locale.ROOT, " audit_bytes=%d", written);
            if (gzip) {
              long caughtUp = compressionCaughtUp(audit);
              compression += String.format(Locale.ROOT, " compressor_ms_to_caught_up=%.3f compressed_bytes=%d"
                  + " compress_caught_up_ms=%d", window.millisSinceStart(CpuWindow.COMPRESSOR),
                  AuditRecords.compressedBytes(audit) - compressedBefore, (caughtUp - windowEnd) / 1_000_000);
            }
          }
          String ship = "";
          if (shipNow != null) {
            Map<String, Long> shipped = jmx(shipNow);
            ship = String.format(Locale.ROOT, " ship_lag_window_end=%d ship_lag_ms_window_end=%d ship_drain_ms=%d"
                + " shipped_records=%d records_on_disk=%d ship_send_errors=%d nn_ship_ms=%.3f",
                lagAtEnd.get("ShipLagRecords"), lagAtEnd.get("ShipLagMillis"), drainedMs, shipped.get("ShippedRecords"),
                AuditRecords.linesOnDisk(audit), shipped.get("ShipSendErrors"), cpu[5]);
          }
          System.out.printf(Locale.ROOT, "RESULT op=%s ops=%d elapsed_ms=%d ops_per_sec=%.1f nn_cpu_ms=%.3f"
              + " nn_jit_ms=%.3f nn_gc_ms=%.3f nn_writer_ms=%.3f nn_path_ms=%.3f records=%d discarded=%d"
              + " drops_reported=%d busiest_others=%s path_split=%s nnaudit_threads=%s sched=%s%s%s%n", op,
              (long) capture.last("# operations"), (long) capture.last("Elapsed Time"), capture.last("Ops per sec"),
              cpu[0], cpu[1], cpu[2], cpu[3], cpu[4], records[0], records[1], records[2], window.busiestOthers(),
              window.pathSplit(), window.nnauditSplit(), window.sched(), ship, compression);
        }
      }
    }
  }

  /**
   * Waits until every rotated file of the trail is compressed, at most 600 s (the compressor also looks every
   * 30 s by itself); returns when (nanoTime).
   */
  private static long compressionCaughtUp(String audit) throws Exception {
    long start = System.nanoTime();
    while (!AuditRecords.compressedAll(audit)) {
      if (System.nanoTime() - start > 600_000_000_000L) {
        throw new IllegalStateException("the rotated files of " + audit + " were not all compressed in 600 s");
      }
      Thread.sleep(10); // the poll interval of this bounded wait for the compressor
    }
    return System.nanoTime();
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
}
