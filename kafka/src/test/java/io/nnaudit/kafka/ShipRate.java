package io.nnaudit.kafka;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import javax.management.JMException;
import javax.management.ObjectName;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;
import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * How fast the Kafka shipper can ship on this machine, against what a producer alone gets from the same broker.
 * Run by {@code benchmarks/ship_rate.py}, which builds the classpath; it starts one test broker
 * ({@link KafkaTestBroker}) and, for each repeat, measures side by side:
 * <ul>
 *   <li>{@code producer}: the limit. One producer with the shipper's own settings (idempotent, {@code acks=all},
 *       linger 20 ms, batch 256 KiB; {@link ShipperSettings} with nothing set but the servers and the topic)
 *       sends N stock audit lines in a loop, with the shipper's key and headers, as fast as {@code send} takes
 *       them; records/s from the first send until every record is acknowledged.</li>
 *   <li>{@code catch-up}: a spool of the same N lines written beforehand, as rotation leaves it
 *       ({@code audit.log.K} ... {@code audit.log.1}, {@code audit.log}, {@code --file-mb} each), and a
 *       {@link KafkaShipper} with its defaults started on it; records/s from {@code start()} until its
 *       ShipLagRecords is 0, the shipper's count of the backlog at its start included.</li>
 *   <li>{@code steady}: a writer thread appends the same lines at a fixed rate (every 2 ms the lines due by then,
 *       rotating as nnaudit's file sink does) while the shipper runs; after a warm-up, ShipLagRecords and
 *       ShipLagMillis are sampled every 100 ms; median and p99 of each, and the rates written and shipped; and
 *       the CPU per record, over the window, of the shipper's thread and of its producer's I/O thread.</li>
 *   <li>{@code producer-steady}: the floor of that CPU. The producer alone, with the shipper's settings, key
 *       and headers, fed at the same rate from lines made beforehand, in bursts as often as the shipper reads
 *       its file ({@code nnaudit.kafka.poll.interval.ms}, 250 ms by default); the CPU per record
 *       of the feeding thread and of the producer's I/O thread over the window.</li>
 * </ul>
 * Each measurement can run per compression type ({@code --compressions none,gzip,lz4}, interleaved within each
 * repeat), and each row has its compression type and the bytes on the wire per record: the producer's
 * {@code outgoing-byte-total} (read through JMX, so the shipper's producer too), over the window of a steady
 * measurement and over the whole run otherwise; the catch-up's row also has its CPU per record.
 * {@code --measures catch-up,steady} leaves out the producer alone: with the packaged jar on the classpath
 * instead of {@code target/classes} ({@code ship_rate.py --jar}), the shipper runs its relocated kafka-clients
 * and pure-Java lz4, as in a NameNode, which the producer alone (unrelocated) cannot share.
 * A shorter run before the first repeat, not kept, warms the JIT. Everything runs on one machine, unpinned: the broker, the producer or shipper, and the writer share its
 * cores, which a broker on a machine of its own would not take from a NameNode. Each measurement has a topic of
 * its own (one partition), deleted after it.
 *
 * <pre>ShipRate --out CSV --dir DIR [--repeats 3] [--records 2000000] [--rates 10000,50000] [--steady-seconds 30]
 *          [--warmup-seconds 5] [--file-mb 64] [--producer PROPERTY=VALUE]... [--compressions none,gzip,lz4]
 *          [--measures producer,catch-up,steady] [--lines stock|varied] [--headers named|compact]
 *          [--record-lines N] [--poll-ms MS]</pre>
 * The test broker's classpath file is the system property {@value KafkaTestBroker#CLASSPATH_PROPERTY}.
 */
public final class ShipRate {
  private static final String HEADER = "repeat,measure,target_rate,records,seconds,records_per_sec,value_bytes,"
      + "lag_records_median,lag_records_p99,lag_millis_median,lag_millis_p99,send_errors,"
      + "send_thread_cpu_us_per_record,io_thread_cpu_us_per_record,compression,wire_bytes_per_record,headers,record_lines,poll_ms";
  /** The places of the CPU columns in a row (without its repeat). */
  private static final int SEND_CPU = 11;
  private static final int IO_CPU = 12;
  private static final int WIRE = 14;
  /** The producer's I/O thread, whoever sends. */
  private static final String IO_THREAD = "kafka-producer-network-thread";
  /** The thread that feeds the producer alone at a steady rate. */
  private static final String STEADY_PRODUCER_THREAD = "ship-rate-producer";

  private final Path dir;
  private final KafkaTestBroker broker;
  private final long fileBytes;
  /** "property=value" for the producer of the shipper and of the producer alone. */
  private final List<String> producerProperties;
  /** The producer's compression.type in this instance's measurements. */
  private final String compression;
  /** {@code nnaudit.kafka.headers} of the shipper and of the producer alone: named or compact. */
  private static String headers = "named";
  /** {@code nnaudit.kafka.record.lines} of the shipper (the producer alone sends a record for each line). */
  private static int recordLines = 1;
  /** {@code nnaudit.kafka.poll.interval.ms} of the shipper. */
  private static long pollMs = NnauditConfigKeys.KAFKA_POLL_INTERVAL_MS_DEFAULT;

  private ShipRate(Path dir, KafkaTestBroker broker, long fileBytes, List<String> producerProperties,
      String compression) {
    this.dir = dir;
    this.broker = broker;
    this.fileBytes = fileBytes;
    this.producerProperties = new ArrayList<>(producerProperties);
    this.producerProperties.add("compression.type=" + compression);
    this.compression = compression;
  }

  public static void main(String[] args) throws Exception {
    String out = null;
    Path dir = Paths.get("target/ship-rate");
    int repeats = 3;
    int records = 2_000_000;
    List<Integer> rates = new ArrayList<>(List.of(10_000, 50_000));
    int steadySeconds = 30;
    int warmupSeconds = 5;
    long fileMb = 64;
    List<String> producerProperties = new ArrayList<>();
    List<String> compressions = new ArrayList<>(List.of("none"));
    List<String> measures = new ArrayList<>(List.of("producer", "catch-up", "steady"));
    for (int i = 0; i + 1 < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--out": out = v; break;
        case "--dir": dir = Paths.get(v); break;
        case "--repeats": repeats = Integer.parseInt(v); break;
        case "--records": records = Integer.parseInt(v); break;
        case "--rates":
          rates.clear();
          for (String r : v.split(",")) {
            rates.add(Integer.parseInt(r.trim()));
          }
          break;
        case "--steady-seconds": steadySeconds = Integer.parseInt(v); break;
        case "--warmup-seconds": warmupSeconds = Integer.parseInt(v); break;
        case "--file-mb": fileMb = Long.parseLong(v); break;
        case "--producer": producerProperties.add(v); break;
        case "--compressions": compressions = new ArrayList<>(Arrays.asList(v.split(","))); break;
        case "--measures": measures = new ArrayList<>(Arrays.asList(v.split(","))); break;
        case "--lines": variedLines = v.equals("varied"); break;
        case "--headers": headers = v; break;
        case "--record-lines": recordLines = Integer.parseInt(v); break;
        case "--poll-ms": pollMs = Long.parseLong(v); break;
        default: throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (out == null || args.length % 2 != 0) {
      throw new IllegalArgumentException("usage: ShipRate --out CSV [--dir DIR] [--repeats N] [--records N] "
          + "[--rates R,R] [--steady-seconds S] [--warmup-seconds S] [--file-mb MB] [--producer PROPERTY=VALUE] "
          + "[--compressions none,gzip,lz4] [--measures producer,catch-up,steady] [--lines stock|varied] "
          + "[--headers named|compact] [--record-lines N] [--poll-ms MS]");
    }
    deleteRecursively(dir);
    Files.createDirectories(dir);
    try (KafkaTestBroker broker = new KafkaTestBroker(dir.resolve("broker")).start();
         PrintWriter csv = new PrintWriter(Files.newBufferedWriter(Paths.get(out), StandardCharsets.UTF_8))) {
      csv.println(HEADER);
      System.out.printf(Locale.ROOT, "broker %s (started in %d ms); %d records of %.0f bytes on average; the shipper "
          + "from %s; %s%n", broker.bootstrapServers(), broker.lastStartTime().toMillis(), records, meanValueBytes(),
          KafkaShipper.class.getProtectionDomain().getCodeSource().getLocation(), lz4Instances());
      for (String comp : compressions) { // warms the JIT, for each compression; not kept
        ShipRate warm = new ShipRate(dir, broker, fileMb << 20, producerProperties, comp);
        if (measures.contains("producer")) {
          warm.producer(0, Math.max(10_000, records / 10));
        } else {
          warm.catchUp(0, Math.max(10_000, records / 10));
        }
      }
      System.out.println("after the warm-up: " + lz4Instances());
      for (int r = 1; r <= repeats; r++) {
        for (String comp : compressions) {
          ShipRate bench = new ShipRate(dir, broker, fileMb << 20, producerProperties, comp);
          if (measures.contains("producer")) {
            emit(csv, r, bench.producer(r, records));
          }
          if (measures.contains("catch-up")) {
            emit(csv, r, bench.catchUp(r, records));
          }
          for (int rate : rates) {
            if (measures.contains("producer")) {
              emit(csv, r, bench.producerSteady(r, rate, warmupSeconds, steadySeconds));
            }
            if (measures.contains("steady")) {
              emit(csv, r, bench.steady(r, rate, warmupSeconds, steadySeconds));
            }
          }
        }
      }
    }
  }

  private static void emit(PrintWriter csv, int repeat, String[] row) {
    String line = repeat + "," + String.join(",", row);
    csv.println(line);
    csv.flush();
    System.out.println(line);
  }

  // ---------------------------------------------------------------- (a) the producer alone

  private String[] producer(int repeat, int n) throws Exception {
    String topic = "producer-" + compression + "-r" + repeat;
    broker.createTopic(topic, 1);
    long seconds;
    long acked;
    long errors;
    double wire;
    try (AloneProducer p = new AloneProducer(settings(topic))) {
      double wire0 = outgoingBytes();
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        p.send(line(i));
      }
      p.flush();
      seconds = System.nanoTime() - t0;
      wire = outgoingBytes() - wire0;
      acked = p.acked.get();
      errors = p.errors.get();
    }
    deleteTopic(topic);
    if (acked != n) {
      throw new IllegalStateException("producer: " + acked + " of " + n + " acknowledged, " + errors + " errors");
    }
    return withWire(row("producer", 0, n, seconds, null, null, errors), wire / n);
  }

  /**
   * The floor of shipping's CPU: the producer alone, with the shipper's settings, key and headers, fed at
   * {@code rate} records/s in a burst every poll interval of the shipper; after the warm-up, the CPU per record of
   * the feeding thread and of the producer's I/O thread over the window.
   */
  private String[] producerSteady(int repeat, int rate, int warmupSeconds, int steadySeconds) throws Exception {
    String topic = "producer-steady-" + rate + "-" + compression + "-r" + repeat;
    broker.createTopic(topic, 1);
    AtomicLong sent = new AtomicLong();
    long acked;
    long errors;
    ThreadCpu cpu = new ThreadCpu();
    long[] window = new long[4];
    double[] wire = new double[2];
    byte[][] lines = new byte[10_000][]; // made before the window: the shipper reads its lines, it does not make them
    for (int i = 0; i < lines.length; i++) {
      lines[i] = line(i);
    }
    try (AloneProducer p = new AloneProducer(settings(topic))) {
      stopWriter = false;
      Thread feeder = new Thread(() -> {
        long t0 = System.nanoTime();
        long n = 0;
        try {
          while (!stopWriter) {
            long due = (System.nanoTime() - t0) * rate / 1_000_000_000L;
            for (; n < due; n++) {
              p.send(lines[(int) (n % lines.length)]);
            }
            sent.set(n);
            TimeUnit.MILLISECONDS.sleep(p.settings.pollIntervalMs); // as often as the shipper looks at its file
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, STEADY_PRODUCER_THREAD);
      feeder.start();
      Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
      window[0] = sent.get();
      window[1] = System.nanoTime();
      wire[0] = outgoingBytes();
      cpu.start(STEADY_PRODUCER_THREAD, IO_THREAD);
      Thread.sleep(TimeUnit.SECONDS.toMillis(steadySeconds));
      cpu.end();
      wire[1] = outgoingBytes();
      window[2] = sent.get();
      window[3] = System.nanoTime();
      stopWriter = true;
      feeder.join();
      p.flush();
      acked = p.acked.get();
      errors = p.errors.get();
    }
    deleteTopic(topic);
    if (acked != sent.get()) {
      throw new IllegalStateException("producer-steady: " + acked + " of " + sent.get() + " acknowledged");
    }
    long n = window[2] - window[0];
    printAllocation("producer-steady", rate, cpu, STEADY_PRODUCER_THREAD, n);
    return withWire(withCpu(row("producer-steady", rate, n, window[3] - window[1], null, null, errors),
        cpu.micros(STEADY_PRODUCER_THREAD) / n, cpu.micros(IO_THREAD) / n), (wire[1] - wire[0]) / n);
  }

  // ---------------------------------------------------------------- (b) the shipper catching up

  private String[] catchUp(int repeat, int n) throws Exception {
    String topic = "catch-up-" + compression + "-r" + repeat;
    broker.createTopic(topic, 1);
    Path spool = dir.resolve(topic);
    File live = spool.resolve("audit.log").toFile();
    Files.createDirectories(spool);
    try (Writer w = new Writer(live, fileBytes)) {
      for (int i = 0; i < n; i++) {
        w.append(line(i));
      }
      w.flush();
    }
    KafkaShipper shipper = new KafkaShipper(context(topic, live));
    ThreadCpu cpu = new ThreadCpu();
    cpu.start(KafkaShipper.THREAD_NAME_PREFIX, IO_THREAD); // both are born in the window, and outlive it
    long t0 = System.nanoTime();
    shipper.start();
    ShipStats s;
    while ((s = shipper.stats()).lagRecords != 0) { // -1 until the shipper has first looked at the files
      Thread.sleep(5); // the poll interval of this wait: 5 ms in a catch-up of seconds
    }
    long seconds = System.nanoTime() - t0;
    cpu.end();
    double wire = outgoingBytes(); // its producer's, from its start
    shipper.stop(30_000);
    if (s.shippedRecords != n) {
      throw new IllegalStateException("catch-up: " + s.shippedRecords + " of " + n + " shipped");
    }
    deleteTopic(topic);
    deleteRecursively(spool);
    return withWire(withCpu(row("catch-up", 0, n, seconds, null, null, s.sendErrors),
        cpu.micros(KafkaShipper.THREAD_NAME_PREFIX) / n, cpu.micros(IO_THREAD) / n), wire / n);
  }

  // ---------------------------------------------------------------- (c) steady state at a fixed rate

  private String[] steady(int repeat, int rate, int warmupSeconds, int steadySeconds) throws Exception {
    String topic = "steady-" + rate + "-" + compression + "-r" + repeat;
    broker.createTopic(topic, 1);
    Path spool = dir.resolve(topic);
    Files.createDirectories(spool);
    File live = spool.resolve("audit.log").toFile();
    AtomicLong written = new AtomicLong();
    Writer w = new Writer(live, fileBytes);
    KafkaShipper shipper = new KafkaShipper(context(topic, live));
    shipper.start();
    stopWriter = false;
    Thread writer = new Thread(() -> writeAtRate(w, rate, written), "ship-rate-writer");
    writer.start();
    List<Long> lagRecords = new ArrayList<>();
    List<Long> lagMillis = new ArrayList<>();
    Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
    long shipped0 = shipper.stats().shippedRecords;
    double wire0 = outgoingBytes();
    ThreadCpu cpu = new ThreadCpu();
    cpu.start(KafkaShipper.THREAD_NAME_PREFIX, IO_THREAD);
    long t0 = System.nanoTime();
    long next = t0;
    long end = t0 + TimeUnit.SECONDS.toNanos(steadySeconds);
    while (System.nanoTime() < end) {
      ShipStats s = shipper.stats();
      if (s.lagRecords >= 0) { // -1: not known yet
        lagRecords.add(s.lagRecords);
        lagMillis.add(s.lagMillis);
      }
      next += 100_000_000L;
      TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime())); // the sampling interval
    }
    cpu.end();
    double wire = outgoingBytes() - wire0;
    long seconds = System.nanoTime() - t0;
    long shipped = shipper.stats().shippedRecords - shipped0;
    stopWriter = true;
    writer.join();
    w.close();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (shipper.stats().lagRecords != 0 && System.nanoTime() < deadline) {
      Thread.sleep(20); // the poll interval of this bounded wait for the shipper to finish
    }
    ShipStats s = shipper.stats();
    shipper.stop(30_000);
    if (s.lagRecords != 0 || s.shippedRecords != written.get()) {
      throw new IllegalStateException("steady " + rate + "/s: " + s.shippedRecords + " of " + written.get()
          + " shipped 120 s after the writer stopped");
    }
    deleteTopic(topic);
    deleteRecursively(spool);
    System.out.printf(Locale.ROOT, "steady %d/s %s: shipped %.0f records/s in the window%n", rate, compression,
        shipped * 1e9 / seconds);
    printAllocation("steady", rate, cpu, KafkaShipper.THREAD_NAME_PREFIX, shipped);
    return withWire(withCpu(row("steady", rate, shipped, seconds, lagRecords, lagMillis, s.sendErrors),
        cpu.micros(KafkaShipper.THREAD_NAME_PREFIX) / shipped, cpu.micros(IO_THREAD) / shipped), wire / shipped);
  }

  /** What the sending thread and the producer's I/O thread allocated per record in the window. */
  private static void printAllocation(String measure, int rate, ThreadCpu cpu, String sender, long records) {
    System.out.printf(Locale.ROOT, "%s %d/s: allocated per record: sending thread %.0f bytes, producer I/O thread "
        + "%.0f bytes%n", measure, rate, (double) cpu.allocatedBytes(sender) / records,
        (double) cpu.allocatedBytes(IO_THREAD) / records);
  }

  private volatile boolean stopWriter;

  /** Every 2 ms, the lines due by then at {@code rate} per second; {@code written} counts them once written. */
  private void writeAtRate(Writer w, int rate, AtomicLong written) {
    long t0 = System.nanoTime();
    long n = 0;
    try {
      while (!stopWriter) {
        long due = (System.nanoTime() - t0) * rate / 1_000_000_000L;
        long from = n;
        for (; n < due; n++) {
          w.append(line((int) (n % Integer.MAX_VALUE)));
        }
        if (n > from) {
          w.flush();
          written.set(n);
        }
        TimeUnit.MILLISECONDS.sleep(2); // the writer's tick: a batch of lines every 2 ms, as a group commit does
      }
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------- helpers

  private Configuration conf(String topic) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, broker.bootstrapServers());
    c.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, topic);
    c.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "bench");
    c.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn1");
    c.set(NnauditConfigKeys.KAFKA_HEADERS_KEY, headers);
    c.setInt(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, recordLines);
    c.setLong(NnauditConfigKeys.KAFKA_POLL_INTERVAL_MS_KEY, pollMs);
    for (String p : producerProperties) {
      int eq = p.indexOf('=');
      c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + p.substring(0, eq), p.substring(eq + 1));
    }
    return c;
  }

  private ShipperSettings settings(String topic) {
    return ShipperSettings.fromConf(conf(topic), dir.resolve("unused.log").toFile());
  }

  private ShipperContext context(String topic, File live) {
    return new ShipperContext(conf(topic), live, 10_000, "hdfs", new SpoolGuard(10_000));
  }

  private void deleteTopic(String topic) throws Exception {
    Properties p = new Properties();
    p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    try (Admin admin = Admin.create(p)) {
      admin.deleteTopics(Collections.singleton(topic)).all().get(60, TimeUnit.SECONDS);
    }
  }

  private String[] row(String measure, int rate, long n, long nanos, List<Long> lagRecords,
      List<Long> lagMillis, long errors) {
    double s = nanos / 1e9;
    return new String[] {measure, String.valueOf(rate), String.valueOf(n), String.format(Locale.ROOT, "%.3f", s),
        String.format(Locale.ROOT, "%.0f", n / s), String.format(Locale.ROOT, "%.1f", meanValueBytes()),
        pct(lagRecords, 50), pct(lagRecords, 99), pct(lagMillis, 50), pct(lagMillis, 99), String.valueOf(errors),
        "", "", compression, "", headers, String.valueOf(recordLines), String.valueOf(pollMs)};
  }

  /** A row with the CPU per record of the sending thread and of the producer's I/O thread, in µs. */
  private static String[] withCpu(String[] row, double sendMicros, double ioMicros) {
    String[] r = Arrays.copyOf(row, row.length);
    r[SEND_CPU] = String.format(Locale.ROOT, "%.2f", sendMicros);
    r[IO_CPU] = String.format(Locale.ROOT, "%.2f", ioMicros);
    return r;
  }

  /** A row with the bytes the producer sent per record (requests and their framing included). */
  private static String[] withWire(String[] row, double bytesPerRecord) {
    String[] r = Arrays.copyOf(row, row.length);
    r[WIRE] = Double.isNaN(bytesPerRecord) ? "" : String.format(Locale.ROOT, "%.1f", bytesPerRecord);
    return r;
  }

  /**
   * The {@code outgoing-byte-total} of the producer of this benchmark's client id (the shipper's or the
   * producer alone, whichever is open), through JMX: the shipper's producer is its own. NaN when none is open.
   */
  private static double outgoingBytes() {
    try {
      Object v = ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(
          "kafka.producer:type=producer-metrics,client-id=nnaudit-bench-nn1"), "outgoing-byte-total");
      return ((Number) v).doubleValue();
    } catch (JMException e) {
      return Double.NaN;
    }
  }

  /**
   * Which lz4 and xxhash implementations Kafka's lz4 stream would get now: the relocated lz4-java's when the
   * shipper runs from the packaged jar, else the one on the classpath.
   */
  private static String lz4Instances() {
    StringBuilder sb = new StringBuilder();
    for (String pkg : new String[] {"io.nnaudit.shaded.net.jpountz.", "net.jpountz."}) {
      try {
        sb.append(pkg).append(": ")
            .append(Class.forName(pkg + "lz4.LZ4Factory").getMethod("fastestInstance").invoke(null)).append(", ")
            .append(Class.forName(pkg + "xxhash.XXHashFactory").getMethod("fastestInstance").invoke(null))
            .append(", native loaded ")
            .append(Class.forName(pkg + "util.Native").getMethod("isLoaded").invoke(null)).append("; ");
      } catch (ReflectiveOperationException e) {
        sb.append(pkg).append(": not on the classpath; ");
      }
    }
    return sb.toString();
  }

  private static String pct(List<Long> samples, int p) {
    if (samples == null || samples.isEmpty()) {
      return "";
    }
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return String.valueOf(sorted.get(Math.max(0, Math.min(sorted.size() - 1, i))));
  }

  private static final String[] CMDS = {"getfileinfo", "create", "open", "listStatus", "mkdirs", "rename"};
  private static final String[] AREAS = {"warehouse", "events", "tmp", "user", "staging", "logs", "models", "raw"};
  /** {@code --lines varied}: {@link #variedLine} instead of the stock lines. */
  private static volatile boolean variedLines;

  /**
   * The i-th line: a stock audit line (Hadoop's layout and fields), about 180 bytes, no line end. The path and
   * the command vary with i; the timestamp is fixed (the shipper does not read it). With {@code --lines varied},
   * {@link #variedLine} instead.
   */
  static byte[] line(int i) {
    if (variedLines) {
      return variedLine(i);
    }
    String cmd = CMDS[i % CMDS.length];
    return ("2026-11-23 17:06:12,345 INFO FSNamesystem.audit: allowed=true\tugi=etl (auth:SIMPLE)\tip=/10.1.2.3\tcmd="
        + cmd + "\tsrc=/data/events/d" + (i % 1000) + "/part-" + i + "\tdst=null\tperm=null\tproto=rpc")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The i-th line of a busier trail, harder to compress: the same layout, with the time, one of 500 users, one of
   * 65536 client addresses, the command and a path with a random 64-bit id (as a job's or a table's) all drawn
   * from i, so the same i gives the same line.
   */
  static byte[] variedLine(int i) {
    SplittableRandom r = new SplittableRandom(i * 0x9E3779B97F4A7C15L + 1);
    int user = r.nextInt(500);
    String time = String.format(Locale.ROOT, "2026-11-23 17:%02d:%02d,%03d", (i / 60_000) % 60, (i / 1000) % 60,
        r.nextInt(1000));
    return (time + " INFO FSNamesystem.audit: allowed=" + (r.nextInt(50) != 0) + "\tugi=u" + user
        + " (auth:KERBEROS)\tip=/10." + r.nextInt(4) + "." + r.nextInt(64) + "." + r.nextInt(256) + "\tcmd="
        + CMDS[r.nextInt(CMDS.length)] + "\tsrc=/" + AREAS[r.nextInt(AREAS.length)] + "/u" + user + "/"
        + Long.toHexString(r.nextLong()) + "/part-" + String.format(Locale.ROOT, "%05d", r.nextInt(100_000))
        + "\tdst=null\tperm=null\tproto=rpc").getBytes(StandardCharsets.UTF_8);
  }

  private static double meanValueBytes() {
    long sum = 0;
    for (int i = 0; i < 6000; i++) {
      sum += line(1_000_000 + i).length;
    }
    return sum / 6000.0;
  }

  /** Appends lines to an audit file, rotating as nnaudit's file sink does (file.1 is the newest backup). */
  private static final class Writer implements AutoCloseable {
    private final File live;
    private final long maxBytes;
    private OutputStream out;
    private long size;
    private int backups;

    Writer(File live, long maxBytes) throws IOException {
      this.live = live;
      this.maxBytes = maxBytes;
      this.out = new java.io.BufferedOutputStream(new FileOutputStream(live, true), 1 << 16);
    }

    void append(byte[] line) throws IOException {
      if (size + line.length + 1 > maxBytes && size > 0) {
        rotate();
      }
      out.write(line);
      out.write('\n');
      size += line.length + 1;
    }

    void flush() throws IOException {
      out.flush();
    }

    private void rotate() throws IOException {
      out.close();
      for (int i = backups; i >= 1; i--) {
        Path from = Paths.get(live.getPath() + "." + i);
        Files.move(from, Paths.get(live.getPath() + "." + (i + 1)), StandardCopyOption.ATOMIC_MOVE);
      }
      Files.move(live.toPath(), Paths.get(live.getPath() + ".1"), StandardCopyOption.ATOMIC_MOVE);
      backups++;
      out = new java.io.BufferedOutputStream(new FileOutputStream(live, true), 1 << 16);
      size = 0;
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  private static void deleteRecursively(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(p)) {
      walk.sorted(Collections.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
