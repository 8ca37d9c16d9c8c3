package io.nnaudit.jmh;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.pipeline.AuditStats;
import io.nnaudit.sink.SinkFactory;

/**
 * The writer's drain capacity against the disk's raw sequential write bandwidth, measured side by side in one
 * run, alternating, with repeats.
 * <ul>
 * <li>nnaudit: a pipeline whose sink holds its first write while one thread fills a queue of
 * {@code events} create events; then the sink is released and the writer drains the full queue (format,
 * encode, one write per batch). Timed from release to the last record written, and again after one fsync of
 * the file.</li>
 * <li>nnaudit-sealed (with {@code seal}): the same drain with the file sealed (nnaudit.seal.enabled, an EC P-256
 * key from {@link SealingKey}, the default intervals: a seal every 10000 records): the writer also copies what
 * it writes for the sealing thread, which hashes every byte and signs a seal every 10000 records. The seal of
 * the last partial interval is written at close, outside the timing; the file is then checked with
 * {@code nnaudit verify}.</li>
 * <li>raw: the same number of bytes written with a FileChannel from a 1 MiB buffer, timed the same two ways.</li>
 * </ul>
 * "After fsync" is the figure that counts: it is what the disk can take. "Written" is the page cache's speed.
 * Each drain also reports the CPU time of the writer thread until the last record was written and of the
 * sealing thread until it has hashed everything and naps: on a machine with a core for each, the drain goes
 * as fast as the slower of the two per MB allows, which a 2-core machine, where they share the cores with the
 * kernel's writeback and the collector, cannot show.
 *
 * <pre>java -cp ... io.nnaudit.jmh.DrainCapacity DIR EVENTS REPEATS CSV [seal]</pre>
 */
public final class DrainCapacity {
  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args.length > 0 ? args[0] : "target/jmh-files");
    int events = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    Path csv = args.length > 3 ? Paths.get(args[3]) : null;
    boolean sealed = args.length > 4 && args[4].equals("seal");
    Files.createDirectories(dir);
    SealingKey key = sealed ? SealingKey.create(dir.resolve("seal-key")) : null;
    RealisticCreateEvent event = new RealisticCreateEvent();
    PrintWriter out = csv == null ? null : new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8));
    String header = "repeat,kind,events,bytes,written_s,fsynced_s,written_mb_per_s,fsynced_mb_per_s,events_per_s,"
        + "writer_cpu_s,sealer_cpu_s";
    System.out.println(header);
    if (out != null) {
      out.println(header);
    }
    drain(dir, event, 50_000, null); // warm the JIT on a small queue first; not reported
    if (key != null) {
      drain(dir, event, 50_000, key);
    }
    for (int r = 1; r <= repeats; r++) {
      long[] d = drain(dir, event, events, null);
      row(out, r, "nnaudit", events, d);
      if (key != null) {
        long[] s = drain(dir, event, events, key);
        row(out, r, "nnaudit-sealed", events, s);
      }
      long[] raw = raw(dir, d[0]);
      row(out, r, "raw", 0, raw);
    }
    if (out != null) {
      out.close();
    }
  }

  /** {@code d}: as {@link #drain} returns. */
  private static void row(PrintWriter out, int r, String kind, int events, long[] d) {
    double mb = d[0] / 1e6;
    String line = String.format(Locale.ROOT, "%d,%s,%d,%d,%.3f,%.3f,%.1f,%.1f,%.0f,%.3f,%.3f", r, kind, events, d[0],
        d[1] / 1e9, d[2] / 1e9, mb / (d[1] / 1e9), mb / (d[2] / 1e9), events == 0 ? 0.0 : events / (d[2] / 1e9),
        d[3] / 1e9, d[4] / 1e9);
    System.out.println(line);
    if (out != null) {
      out.println(line);
    }
  }

  /**
   * Returns {bytes, ns to written, ns to fsynced, the writer thread's CPU ns to written, the sealing thread's CPU
   * ns to idle (0 unsealed)}. {@code key}: the key to seal with, or null not to seal.
   */
  private static long[] drain(Path dir, RealisticCreateEvent event, int events, SealingKey key) throws Exception {
    Path file = dir.resolve("drain.log");
    Files.deleteIfExists(file);
    SealingKey.deleteDigest(file);
    Configuration conf = new Configuration(false);
    conf.setBoolean("hadoop.caller.context.enabled", true);
    conf.set("nnaudit.file.path", file.toString());
    conf.set("nnaudit.file.max.size", "1t");
    conf.setInt("nnaudit.queue.capacity", events);
    conf.setLong("nnaudit.queue.capacity.bytes", Long.MAX_VALUE / 4); // the whole queue, whatever its bytes
    // The filling thread is no RPC handler: under the default ack policy (write) it would lead the first write
    // itself and wait on the held sink for ever. The writer thread drains, as for handlers once they queue.
    conf.set("nnaudit.ack.policy", "queue");
    if (key != null) {
      key.enable(conf);
    }
    HeldFileSink.hold();
    // The held sink given as a factory (nnaudit.sink would have to be "file" for sealing to be allowed).
    QueuedAuditLogger logger = new QueuedAuditLogger(SinkFactory.of("held-file", HeldFileSink::new));
    logger.initialize(conf);
    for (int i = 0; i < events; i++) {
      event.logTo(logger);
    }
    Thread writer = ThreadCpuTime.thread("nnaudit-writer");
    Thread sealer = key != null ? ThreadCpuTime.thread("nnaudit-sealer") : null;
    long writer0 = ThreadCpuTime.of(writer);
    long sealer0 = ThreadCpuTime.of(sealer);
    long start = System.nanoTime();
    HeldFileSink.release();
    DrainCapacity.awaitWritten(logger, events);
    long written = System.nanoTime() - start;
    long writerCpu = ThreadCpuTime.of(writer) - writer0;
    HeldFileSink.forceCurrent();
    long fsynced = System.nanoTime() - start;
    // The sealing thread hashes up to 16 MiB behind the writer: its CPU is taken once it naps (naps of 100 ms,
    // so each look of 250 ms spans a wake-up).
    long sealerCpu = sealer == null ? 0 : ThreadCpuTime.whenIdle(sealer, 250, 1_000_000) - sealer0;
    logger.pipeline().close(60_000);
    long bytes = Files.size(file);
    if (key != null) {
      StringBuilder report = new StringBuilder();
      int exit = key.verify(file, report);
      if (exit != 0) {
        throw new IllegalStateException("the sealed drain did not verify (nnaudit verify exit " + exit + "): "
            + report);
      }
      SealingKey.deleteDigest(file);
    }
    Files.delete(file);
    return new long[] {bytes, written, fsynced, writerCpu, sealerCpu};
  }

  /** The same number of bytes, written sequentially in 1 MiB writes by one FileChannel. */
  private static long[] raw(Path dir, long bytes) throws IOException {
    Path file = dir.resolve("raw.bin");
    Files.deleteIfExists(file);
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    while (buf.hasRemaining()) {
      buf.put((byte) 'x');
    }
    long start = System.nanoTime();
    long written;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      long left = bytes;
      while (left > 0) {
        buf.clear();
        buf.limit((int) Math.min(buf.capacity(), left));
        while (buf.hasRemaining()) {
          left -= ch.write(buf);
        }
      }
      written = System.nanoTime() - start;
      ch.force(false);
    }
    long fsynced = System.nanoTime() - start;
    Files.delete(file);
    return new long[] {bytes, written, fsynced, 0, 0};
  }

  /** Returns once {@code events} events are written (looked at every millisecond); throws if any failed. */
  static void awaitWritten(QueuedAuditLogger logger, int events) throws InterruptedException {
    while (true) {
      AuditStats s = logger.stats();
      if (s.written + s.writeFailed >= events) {
        if (s.writeFailed > 0) {
          throw new IllegalStateException("the writer failed " + s.writeFailed + " events");
        }
        return;
      }
      Thread.sleep(1);
    }
  }
}
