package io.nnaudit.jmh;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.sink.SinkFactory;

/**
 * The writer's drain capacity with rotated files compressed ({@code nnaudit.file.compress=gzip}) against the
 * same without, side by side in one run, alternating, with repeats. As {@link DrainCapacity}: nnaudit's own file
 * sink holds its first write while one thread fills a queue of {@code EVENTS} events, then the writer drains the
 * full queue; timed from release to the last record written, and again after an fsync of the live file. Here
 * the events are {@link AuditMix}'s realistic mix (200 000 built ahead and cycled), and the file rotates at
 * {@code MAX_SIZE} (4m by default) with retention off (10000 backups), so that dozens of files rotate during a
 * drain and, with gzip, the compressor's thread compresses them while the writer drains: on a 2-core machine
 * the two compete for the CPU, with the JVM's other threads. Kinds per repeat: {@code rotating} (compression
 * off) and {@code gzip}, in the order off, gzip in odd repeats and gzip, off in even ones; one unreported
 * drain of each, 50 000 events, first.
 *
 * <p>Per drain: events/s to fsynced, the writer thread's and the compressor thread's CPU over the drain
 * (ThreadMXBean, by thread name), and, with gzip, how long after the fsync the compressor took to compress every
 * rotated file (the backlog the drain left) and its CPU until then. The queue's bytes are unbounded, as in
 * {@link DrainCapacity}; run with a large heap ({@code -Xms6g -Xmx6g} for 1 000 000 events).
 *
 * <pre>java -cp ... io.nnaudit.jmh.DrainCompression DIR EVENTS REPEATS CSV [MAX_SIZE]</pre>
 */
public final class DrainCompression {
  private static final int POOL = 200_000;
  private static final long CATCH_UP_LIMIT_NS = 600_000_000_000L;

  private DrainCompression() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args.length > 0 ? args[0] : "target/jmh-files").toAbsolutePath();
    int events = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    Path csv = Paths.get(args.length > 3 ? args[3] : "benchmarks/results/drain-compression.csv");
    String maxSize = args.length > 4 ? args[4] : "4m";
    Files.createDirectories(dir);
    if (csv.getParent() != null) {
      Files.createDirectories(csv.getParent());
    }
    AuditMix mix = new AuditMix(20261122L);
    List<AuditMix.Event> pool = new ArrayList<>(POOL);
    for (int i = 0; i < POOL; i++) {
      pool.add(mix.next());
    }
    String header = "repeat,kind,events,max_size,bytes,rotated_files,written_s,fsynced_s,events_per_s,"
        + "fsynced_mb_per_s,writer_cpu_s,compressor_cpu_s,catch_up_s,compressor_cpu_total_s,gz_files,gz_bytes";
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
      out.println(header);
      System.out.println(header);
      drain(dir, pool, 50_000, maxSize, false); // warm the JIT; not reported
      drain(dir, pool, 50_000, maxSize, true);
      for (int r = 1; r <= repeats; r++) {
        boolean[] order = r % 2 == 1 ? new boolean[] {false, true} : new boolean[] {true, false};
        for (boolean gzip : order) {
          String line = r + "," + (gzip ? "gzip" : "rotating") + "," + events + "," + maxSize + ","
              + drain(dir, pool, events, maxSize, gzip);
          System.out.println(line);
          out.println(line);
          out.flush();
        }
      }
    }
    clean(dir);
  }

  /** One drain; the CSV columns from bytes on. */
  private static String drain(Path dir, List<AuditMix.Event> pool, int events, String maxSize, boolean gzip)
      throws Exception {
    clean(dir);
    Path file = dir.resolve("drain.log");
    Configuration conf = new Configuration(false);
    conf.setBoolean("hadoop.caller.context.enabled", true);
    conf.set("nnaudit.file.path", file.toString());
    conf.set("nnaudit.file.max.size", maxSize);
    conf.setInt("nnaudit.file.max.backups", 10_000); // no rotated file deleted: every byte is counted
    conf.set("nnaudit.file.compress", gzip ? "gzip" : "none");
    conf.setInt("nnaudit.queue.capacity", events);
    conf.setLong("nnaudit.queue.capacity.bytes", Long.MAX_VALUE / 4);
    conf.set("nnaudit.ack.policy", "queue"); // as in DrainCapacity: the filling thread is no RPC handler
    HeldFileSink.hold();
    QueuedAuditLogger logger = new QueuedAuditLogger(SinkFactory.of("held-file", HeldFileSink::new));
    logger.initialize(conf);
    for (int i = 0; i < events; i++) {
      pool.get(i % pool.size()).logTo(logger);
    }
    Thread writer = ThreadCpuTime.thread("nnaudit-writer");
    Thread compressor = gzip ? ThreadCpuTime.thread("nnaudit-compressor") : null;
    long writer0 = ThreadCpuTime.of(writer);
    long comp0 = ThreadCpuTime.of(compressor);
    long start = System.nanoTime();
    HeldFileSink.release();
    DrainCapacity.awaitWritten(logger, events);
    long written = System.nanoTime() - start;
    HeldFileSink.forceCurrent();
    long fsynced = System.nanoTime() - start;
    long writerCpu = ThreadCpuTime.of(writer) - writer0;
    long compCpu = ThreadCpuTime.of(compressor) - comp0;
    long caughtUp = 0;
    if (gzip) { // how long the compressor needs for the backlog the drain left, before close stops it
      long t = System.nanoTime();
      while (!compressedAll(dir)) {
        if (System.nanoTime() - t > CATCH_UP_LIMIT_NS) {
          throw new IllegalStateException("the compressor did not catch up within 600 s");
        }
        Thread.sleep(20);
      }
      caughtUp = System.nanoTime() - t;
    }
    long compTotal = ThreadCpuTime.of(compressor) - comp0;
    logger.pipeline().close(60_000);
    long[] t = trail(dir);
    double s = fsynced / 1e9;
    return String.format(Locale.ROOT, "%d,%d,%.3f,%.3f,%.0f,%.1f,%.3f,%.3f,%.3f,%.3f,%d,%d", t[0], t[1],
        written / 1e9, s, events / s, t[0] / 1e6 / s, writerCpu / 1e9, compCpu / 1e9, caughtUp / 1e9,
        compTotal / 1e9, t[2], t[3]);
  }

  /** No plain rotated file left ({@code drain.log.N}) and no compression under way. */
  private static boolean compressedAll(Path dir) throws IOException {
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "drain.log.*")) {
      for (Path p : ds) {
        String n = p.getFileName().toString();
        if (n.matches("drain\\.log\\.\\d+") || n.startsWith("drain.log.compressing-")) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * {bytes of records in the live file and its rotated files (a .gz's from its trailer), rotated files, .gz
   * files, their compressed bytes}.
   */
  static long[] trail(Path dir) throws IOException {
    long[] t = new long[4];
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "drain.log*")) {
      for (Path p : ds) {
        String n = p.getFileName().toString();
        if (n.equals("drain.log")) {
          t[0] += Files.size(p);
        } else if (n.matches("drain\\.log\\.\\d+")) {
          t[0] += Files.size(p);
          t[1]++;
        } else if (n.matches("drain\\.log\\.\\d+\\.gz")) {
          t[0] += gzipSize(p);
          t[1]++;
          t[2]++;
          t[3] += Files.size(p);
        }
      }
    }
    return t;
  }

  /** A one-member gzip's uncompressed size, from its trailer (ISIZE: the size modulo 2^32). */
  static long gzipSize(Path gz) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(gz.toFile(), "r")) {
      f.seek(f.length() - 4);
      return (f.read() | f.read() << 8 | f.read() << 16 | (long) f.read() << 24);
    }
  }

  private static void clean(Path dir) throws IOException {
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "drain.log*")) {
      for (Path p : ds) {
        Files.delete(p);
      }
    }
  }
}
