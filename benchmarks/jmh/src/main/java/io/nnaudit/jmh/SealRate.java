package io.nnaudit.jmh;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * The sealing thread's CPU per record at a NameNode's pace, where {@link DrainCapacity} measures it per MB at
 * full drain. One thread calls {@code logAuditEvent} of nnaudit's defaults (ack after write) with the file
 * sealed, at a fixed rate: like a NameNode handler that finds no other record queued, each call writes its own
 * record, and so hands the sealing thread one record at a time, the case where the sealing thread's costs per
 * write and per second (its queue, its naps and wake-ups, a signature per interval) weigh most against the
 * hashing itself.
 *
 * <p>Each repeat opens a new sealed file, calls at the rate for a 3 s warm-up, then for {@code SECONDS} timed,
 * and reports the sealing thread's CPU time over the timed part, per record.
 * The file is then closed and must verify ({@code nnaudit verify} exit 0) with every call a record.
 *
 * <pre>java -cp ... io.nnaudit.jmh.SealRate DIR RATES SECONDS REPEATS CSV</pre>
 * RATES: records per second, comma-separated (each repeat runs every rate, in turn).
 */
public final class SealRate {
  private SealRate() {
  }

  public static void main(String[] args) throws Exception {
    Path dir = Paths.get(args[0]);
    String[] rates = args[1].split(",");
    int seconds = Integer.parseInt(args[2]);
    int repeats = Integer.parseInt(args[3]);
    Path csv = Paths.get(args[4]);
    Files.createDirectories(dir);
    SealingKey key = SealingKey.create(dir.resolve("seal-key"));
    RealisticCreateEvent event = new RealisticCreateEvent();
    boolean header = !Files.exists(csv);
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND), true)) {
      if (header) {
        out.println("repeat,rate,records,seconds,sealer_cpu_us_per_record,seals");
      }
      for (int r = 1; r <= repeats; r++) {
        for (String rate : rates) {
          String row = String.format(Locale.ROOT, "%d,%s", r, run(dir, key, event, Integer.parseInt(rate), seconds));
          System.out.println(row);
          out.println(row);
        }
      }
    }
  }

  /** One sealed file at {@code rate}: "rate,records,seconds,sealer µs/record,seals". */
  private static String run(Path dir, SealingKey key, RealisticCreateEvent event, int rate, int seconds)
      throws Exception {
    AuditBackend backend = AuditBackend.open("nnaudit-block", dir, 64, key);
    Thread sealer = ThreadCpuTime.thread("nnaudit-sealer");
    long calls = call(backend, event, rate, 3);
    long sealer0 = ThreadCpuTime.of(sealer);
    long t0 = System.nanoTime();
    long timed = call(backend, event, rate, seconds);
    long elapsed = System.nanoTime() - t0;
    long sealerCpu = ThreadCpuTime.of(sealer) - sealer0;
    calls += timed;
    backend.close();
    long records;
    try (java.util.stream.Stream<String> lines = Files.lines(backend.file, StandardCharsets.UTF_8)) {
      records = lines.filter(l -> l.contains(RealisticCreateEvent.RECORD_MARK)).count();
    }
    StringBuilder verifyOut = new StringBuilder();
    int exit = key.verify(backend.file, verifyOut);
    long seals = SealingKey.sealsIn(backend.file);
    Files.deleteIfExists(backend.file);
    SealingKey.deleteDigest(backend.file);
    if (exit != 0 || records != calls) {
      throw new IllegalStateException("calls " + calls + ", records " + records + ", nnaudit verify exit " + exit
          + ": " + verifyOut);
    }
    return String.format(Locale.ROOT, "%d,%d,%.2f,%.3f,%d", rate, timed, elapsed / 1e9,
        sealerCpu / 1e3 / timed, seals);
  }

  /** Calls at {@code rate} a second for {@code seconds}, a millisecond's share at a time; returns the calls. */
  private static long call(AuditBackend backend, RealisticCreateEvent event, int rate, int seconds) {
    long start = System.nanoTime();
    long total = (long) rate * seconds;
    long made = 0;
    while (made < total) {
      long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L + 1);
      while (made < due) {
        event.logTo(backend.logger);
        made++;
      }
      LockSupport.parkNanos(200_000);
    }
    return made;
  }
}
