package io.nnaudit.jmh;

import java.io.BufferedReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Producer threads (JMH {@code -t}: 1, 4, 16, 64) calling {@code logAuditEvent} with the same create event,
 * flat out, every variant writing the same line to a real file. Throughput is calls completed per second,
 * which for a saturated logger is what its writer (or its lock) can sustain.
 *
 * <p>Two throughputs are kept. JMH's score sums each thread's calls over that thread's own measured time; when
 * producers block for long and unevenly (a saturated BLOCK queue, a contended appender lock) a thread that
 * measured a few calls over a sliver of time inflates it (we saw 8.6M calls/s reported from a trial that made
 * 5.5M calls in all). So each iteration also takes the wall-clock rate, all threads' calls over the
 * iteration's elapsed time, and the check row carries the median of the measured iterations: that is the
 * figure to compare. The {@code dropped} counter
 * ({@code @AuxCounters}) is the events refused per iteration. After each trial the logger is closed, the
 * records of this event in the file are counted against the calls made (warm-up included) minus the drops,
 * and one row is appended to the file named by {@code -Dnnaudit.jmh.verify}: any record lost shows there.
 * Use {@code -prof gc} for bytes allocated per call (all threads, writers included).
 *
 * <p>{@code seal}: with {@code -p variant=nnaudit-block -p seal=off,on} one run measures nnaudit's file with
 * and without sealing side by side. {@code on} seals it (nnaudit.seal.enabled) with an EC P-256 key made at the
 * trial's setup ({@link SealingKey}), at the default intervals; the check then also runs
 * {@code nnaudit verify} over the file and fails the trial unless every record is sealed and unchanged.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class LoggerThroughputBenchmark {
  @Param({"nnaudit-block", "nnaudit-drop", "hadoop-sync", "hadoop-async", "log4j2-sync", "log4j2-async"})
  public String variant;

  /** dfs.namenode.handler.count of the NameNode being imitated: the size of nnaudit BLOCK's queue. */
  @Param("64")
  public int handlers;

  /** off, or on: nnaudit's file sealed with an EC P-256 key at the default intervals (nnaudit variants only). */
  @Param("off")
  public String seal;

  AuditBackend backend;
  RealisticCreateEvent event;
  private SealingKey sealingKey;
  private int threads;
  private final List<Producer> producers = new CopyOnWriteArrayList<>();
  private final AtomicBoolean dropsClaimed = new AtomicBoolean();
  private volatile long dropsReported;
  private long iterationStartNanos;
  private long callsAtIterationStart;
  private int iteration;
  private int warmupIterations;
  private final List<Double> measuredWallRates = new ArrayList<>();

  @Setup(Level.Trial)
  public void open(BenchmarkParams params) throws Exception {
    threads = params.getThreads();
    warmupIterations = params.getWarmup().getCount();
    Path dir = Paths.get(System.getProperty("nnaudit.jmh.dir", "target/jmh-files"));
    Files.createDirectories(dir);
    Files.deleteIfExists(dir.resolve(variant + ".log"));
    SealingKey.deleteDigest(dir.resolve(variant + ".log")); // a new file starts a new chain of seals
    if (!seal.equals("off") && !seal.equals("on")) {
      throw new IllegalArgumentException("seal must be off or on, not " + seal);
    }
    sealingKey = seal.equals("on") ? SealingKey.create(dir.resolve("seal-key")) : null;
    event = new RealisticCreateEvent();
    backend = AuditBackend.open(variant, dir, handlers, sealingKey);
  }

  @Setup(Level.Iteration)
  public void iterationStart() {
    dropsClaimed.set(false);
    callsAtIterationStart = calls();
    iterationStartNanos = System.nanoTime();
  }

  /** Runs once all threads have left the iteration: the wall-clock rate of the whole iteration. */
  @TearDown(Level.Iteration)
  public void iterationEnd() {
    double seconds = (System.nanoTime() - iterationStartNanos) / 1e9;
    if (++iteration > warmupIterations) {
      measuredWallRates.add((calls() - callsAtIterationStart) / seconds);
    }
  }

  private long calls() {
    long calls = 0;
    for (Producer p : producers) {
      calls += p.calls;
    }
    return calls;
  }

  @Benchmark
  public void logAuditEvent(Producer p) {
    event.logTo(backend.logger);
    p.calls++;
  }

  /** Closes the logger and checks that every accepted call is a record in the file. */
  @TearDown(Level.Trial)
  public void closeAndCheck() throws Exception {
    long calls = calls();
    backend.close();
    long dropped = backend.dropped();
    long records = 0;
    String firstRecord = null;
    try (BufferedReader r = Files.newBufferedReader(backend.file, StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.contains(RealisticCreateEvent.RECORD_MARK)) {
          records++;
          if (firstRecord == null) {
            firstRecord = line;
          }
        }
      }
    }
    long bytes = Files.size(backend.file);
    long lost = calls - dropped - records;
    long seals = 0;
    int verified = -1; // not sealed
    StringBuilder verifyOut = new StringBuilder();
    if (sealingKey != null) {
      seals = SealingKey.sealsIn(backend.file);
      verified = sealingKey.verify(backend.file, verifyOut);
    }
    List<Double> rates = new ArrayList<>(measuredWallRates);
    Collections.sort(rates);
    double wallRate = rates.isEmpty() ? 0 : rates.get(rates.size() / 2);
    System.out.printf("%n[check] %s t=%d calls=%d dropped=%d records=%d lost=%d bytes=%d wall_calls_per_s=%.0f"
        + " seal=%s seals=%d verify=%d%n[check] first record: %s%n", variant, threads, calls, dropped, records, lost,
        bytes, wallRate, seal, seals, verified, firstRecord);
    if (sealingKey != null) {
      System.out.printf("[check] nnaudit verify: %s%n", verifyOut.toString().replace('\n', ' '));
    }
    String verify = System.getProperty("nnaudit.jmh.verify");
    if (verify != null) {
      Path out = Paths.get(verify);
      boolean header = !Files.exists(out);
      try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND))) {
        if (header) {
          w.println("variant,threads,calls,dropped,records,lost,bytes,wall_calls_per_s_median,wall_calls_per_s_all,"
              + "seal,seals,verify_exit");
        }
        StringBuilder all = new StringBuilder();
        for (double r : measuredWallRates) {
          all.append(all.length() == 0 ? "" : " ").append(Math.round(r));
        }
        w.printf("%s,%d,%d,%d,%d,%d,%d,%.0f,%s,%s,%d,%d%n", variant, threads, calls, dropped, records, lost, bytes,
            wallRate, all, seal, seals, verified);
      }
    }
    Files.deleteIfExists(backend.file); // gigabytes per trial: keep the disk for the next one
    SealingKey.deleteDigest(backend.file);
    if (sealingKey != null && verified != 0) {
      throw new IllegalStateException("the sealed file did not verify (nnaudit verify exit " + verified + "): "
          + verifyOut);
    }
  }

  /** Per producer thread: its calls (for the check) and, for one thread per iteration, the drops. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Producer {
    /** Events refused in this iteration (reported by one thread, so that the sum is the total). */
    public long dropped;
    long calls;

    @Setup(Level.Trial)
    public void register(LoggerThroughputBenchmark b) {
      b.producers.add(this);
    }

    @Setup(Level.Iteration)
    public void reset() {
      dropped = 0;
    }

    /** One thread per iteration reports the drops since the last report, so none is counted twice or lost. */
    @TearDown(Level.Iteration)
    public void claimDrops(LoggerThroughputBenchmark b) {
      if (b.dropsClaimed.compareAndSet(false, true)) {
        long now = b.backend.dropped();
        dropped = now - b.dropsReported;
        b.dropsReported = now;
      }
    }
  }
}
