package io.nnaudit.jmh;

import java.io.BufferedReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.sink.file.GzipCopyProbe;

/**
 * What {@code nnaudit.file.compress=gzip} costs and saves on one rotated file of a realistic mix of records.
 * <ol>
 * <li>Writes a file of about {@code MB} megabytes of audit records of {@link AuditMix} (a fixed seed) through
 * nnaudit's own logger and file sink, so that the lines are the product's stock-format records; then renames it
 * to {@code mix.log.1}, as a rotation does.</li>
 * <li>Compresses it with the compressor's own copy, {@code GzipCopy} (through {@link GzipCopyProbe}): read in
 * 64 KiB buffers, deflate at the JDK's default level, fsync of the {@code .gz}; once unreported to warm up, then
 * {@code REPEATS} times, each into a new temporary file deleted after it. The file was just written, so it is
 * read from the page cache, as a just-rotated file is.</li>
 * </ol>
 * Per repeat: the compression ratio (bytes in over bytes out), MB of input per second of wall-clock time, and
 * the compressing thread's CPU (ThreadMXBean: user and system) per MB of input. Raw repeats go to
 * {@code CSV}; medians and min–max over the repeats to the same name with {@code -summary} before {@code .csv};
 * the lines per command of the file to {@code -mix}.
 *
 * <pre>java -cp ... io.nnaudit.jmh.CompressionCost DIR MB REPEATS CSV</pre>
 */
public final class CompressionCost {
  private CompressionCost() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args.length > 0 ? args[0] : "target/jmh-files");
    long mb = args.length > 1 ? Long.parseLong(args[1]) : 256;
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 7;
    Path csv = Paths.get(args.length > 3 ? args[3] : "benchmarks/results/compression-cost.csv");
    Files.createDirectories(dir);
    if (csv.getParent() != null) {
      Files.createDirectories(csv.getParent());
    }
    Path live = dir.resolve("mix.log").toAbsolutePath();
    Path rotated = Paths.get(live + ".1");
    Files.deleteIfExists(live);
    Files.deleteIfExists(rotated);

    long t0 = System.nanoTime();
    long events = write(live, mb * 1_000_000L);
    Files.move(live, rotated);
    long bytes = Files.size(rotated);
    System.out.printf(Locale.ROOT, "wrote %d records, %d bytes (%.0f bytes a line) in %.1f s%n", events, bytes,
        (double) bytes / events, (System.nanoTime() - t0) / 1e9);
    writeMix(rotated, sibling(csv, "-mix"));

    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    mx.setThreadCpuTimeEnabled(true);
    String header = "repeat,bytes_in,bytes_out,ratio,wall_s,cpu_s,mb_per_s,cpu_ms_per_mb";
    List<double[]> rows = new ArrayList<>();
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
      out.println(header);
      System.out.println(header);
      for (int r = 0; r <= repeats; r++) { // repeat 0 warms up and is not reported
        Path temp = dir.resolve("mix.log.compressing-" + r);
        Files.deleteIfExists(temp);
        long cpu0 = mx.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        long[] inOut = GzipCopyProbe.compressFirstBackup(live, temp);
        long wall = System.nanoTime() - wall0;
        long cpu = mx.getCurrentThreadCpuTime() - cpu0;
        Files.delete(temp);
        double mbIn = inOut[0] / 1e6;
        double[] row = {inOut[0], inOut[1], (double) inOut[0] / inOut[1], wall / 1e9, cpu / 1e9,
            mbIn / (wall / 1e9), cpu / 1e6 / mbIn};
        String line = String.format(Locale.ROOT, "%d,%d,%d,%.3f,%.3f,%.3f,%.1f,%.2f", r, inOut[0], inOut[1],
            row[2], row[3], row[4], row[5], row[6]);
        System.out.println(r == 0 ? line + "  (warm-up, not reported)" : line);
        if (r > 0) {
          out.println(line);
          rows.add(row);
        }
      }
    }
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(sibling(csv, "-summary"),
        StandardCharsets.UTF_8))) {
      out.println("metric,repeats,median,min,max");
      String[] names = {"ratio", "mb_per_s", "cpu_ms_per_mb"};
      int[] cols = {2, 5, 6};
      for (int i = 0; i < names.length; i++) {
        double[] v = new double[rows.size()];
        for (int k = 0; k < v.length; k++) {
          v[k] = rows.get(k)[cols[i]];
        }
        Arrays.sort(v);
        String line = String.format(Locale.ROOT, "%s,%d,%.3f,%.3f,%.3f", names[i], v.length, median(v), v[0],
            v[v.length - 1]);
        out.println(line);
        System.out.println(line);
      }
    }
    Files.delete(rotated);
  }

  /** Logs events of the mix until the file holds {@code target} bytes; returns how many. */
  private static long write(Path file, long target) throws Exception {
    Configuration conf = new Configuration(false);
    conf.setBoolean("hadoop.caller.context.enabled", true);
    conf.set("nnaudit.file.path", file.toString());
    conf.set("nnaudit.file.max.size", "1t");
    // One logging thread that is no RPC handler: the writer thread writes, as it does for handlers' records.
    conf.set("nnaudit.ack.policy", "queue");
    QueuedAuditLogger logger = new QueuedAuditLogger();
    logger.initialize(conf);
    AuditMix mix = new AuditMix(20261122L);
    long n = 0;
    long estimate = target / 250; // checked against the file as it grows
    while (true) {
      for (long i = 0; i < Math.max(10_000, estimate - n); i++, n++) {
        mix.next().logTo(logger);
      }
      while (logger.stats().written < n) {
        Thread.sleep(5);
      }
      long size = Files.size(file);
      if (size >= target) {
        break;
      }
      estimate = (long) (n * ((double) target / size)) + 1;
    }
    logger.pipeline().close(60_000);
    if (logger.stats().written != n) {
      throw new IllegalStateException("wrote " + logger.stats().written + " of " + n + " records");
    }
    return n;
  }

  /** Lines of each command in the file, and their mean length, to {@code csv}. */
  private static void writeMix(Path file, Path csv) throws Exception {
    Map<String, long[]> byCmd = new TreeMap<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null;) {
        int c = line.indexOf("\tcmd=");
        int e = c < 0 ? -1 : line.indexOf('\t', c + 5);
        String cmd = c < 0 ? "(other)" : line.substring(c + 5, e < 0 ? line.length() : e);
        long[] v = byCmd.computeIfAbsent(cmd, k -> new long[2]);
        v[0]++;
        v[1] += line.getBytes(StandardCharsets.UTF_8).length + 1;
      }
    }
    long total = 0;
    for (long[] v : byCmd.values()) {
      total += v[0];
    }
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
      out.println("cmd,lines,share,mean_bytes");
      for (Map.Entry<String, long[]> e : byCmd.entrySet()) {
        out.printf(Locale.ROOT, "%s,%d,%.4f,%.1f%n", e.getKey(), e.getValue()[0], (double) e.getValue()[0] / total,
            (double) e.getValue()[1] / e.getValue()[0]);
      }
    }
  }

  static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** {@code a/b/name.csv} with {@code suffix} before {@code .csv}. */
  static Path sibling(Path csv, String suffix) {
    String name = csv.getFileName().toString();
    String base = name.endsWith(".csv") ? name.substring(0, name.length() - 4) : name;
    return csv.resolveSibling(base + suffix + ".csv");
  }
}
