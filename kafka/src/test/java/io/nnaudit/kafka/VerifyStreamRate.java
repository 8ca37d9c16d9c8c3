package io.nnaudit.kafka;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.nnaudit.kafka.verify.VerifyStreamCommand;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;
import io.nnaudit.seal.SealKeys;

/**
 * How fast {@code nnaudit verify-stream} reads a topic, against a plain consumer reading the same topic with no
 * check (the limit on this machine). Starts one test broker ({@link KafkaTestBroker}), fills a topic with a sealed
 * stream as shippers write it (S sources round-robin over P partitions, stock audit lines of about 200 bytes, a
 * signed seal every 10,000 records of a source, a file-end and a new file every 100,000), then, repeat after
 * repeat and alternating which goes first, times both reading every partition to its end offsets in this JVM:
 * {@code plain} counts records and bytes; {@code verify-stream} is {@link VerifyStreamCommand#run}, which must
 * exit 0. One untimed run of each first (the JIT, the broker's page cache). Prints one CSV row per run and the
 * medians.
 *
 * <pre>
 * java -cp KAFKA_TEST_CLASSPATH io.nnaudit.kafka.VerifyStreamRate WORK_DIR [RECORDS] [REPEATS] [SOURCES] [PARTITIONS]
 * </pre>
 * (benchmarks/verify_stream_rate.sh builds the classpath and runs it under the measurement lock.)
 */
public final class VerifyStreamRate {
  private static final String TOPIC = "rate";
  private static final int SEAL_EVERY = 10_000;
  private static final int FILE_RECORDS = 100_000;

  private VerifyStreamRate() {
  }

  public static void main(String[] args) throws Exception {
    Path work = Paths.get(args[0]);
    long records = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int sources = args.length > 3 ? Integer.parseInt(args[3]) : 4;
    int partitions = args.length > 4 ? Integer.parseInt(args[4]) : 6;
    Files.createDirectories(work);
    SealKeys.KeyFiles key = SealKeys.ec(work.resolve("keys"));
    try (KafkaTestBroker broker = new KafkaTestBroker(work.resolve("broker")).start()) {
      broker.createTopic(TOPIC, partitions);
      long t0 = System.nanoTime();
      long sent = fill(broker.bootstrapServers(), key.signingKey(), records, sources);
      System.out.printf(Locale.ROOT, "filled %s: %d records (%d audit records, %d sources, %d partitions) in %.1f s%n",
          TOPIC, sent, records, sources, partitions, (System.nanoTime() - t0) / 1e9);
      plainRead(broker.bootstrapServers()); // a warm-up of each, not counted: the JIT, the broker's page cache
      verifyRead(broker.bootstrapServers(), key);
      System.out.println("measure,repeat,records,seconds,records_per_s");
      List<Double> plain = new ArrayList<>();
      List<Double> verify = new ArrayList<>();
      for (int r = 1; r <= repeats; r++) {
        boolean plainFirst = r % 2 == 1;
        for (int k = 0; k < 2; k++) {
          if (plainFirst == (k == 0)) {
            plain.add(row("plain", r, plainRead(broker.bootstrapServers())));
          } else {
            verify.add(row("verify-stream", r, verifyRead(broker.bootstrapServers(), key)));
          }
        }
      }
      double p = median(plain);
      double v = median(verify);
      System.out.printf(Locale.ROOT, "median records/s: plain %.0f, verify-stream %.0f (%.2f of plain)%n", p, v,
          v / p);
    }
  }

  private static double row(String measure, int repeat, long[] countAndNanos) {
    double s = countAndNanos[1] / 1e9;
    double rate = countAndNanos[0] / s;
    System.out.printf(Locale.ROOT, "%s,%d,%d,%.3f,%.0f%n", measure, repeat, countAndNanos[0], s, rate);
    return rate;
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  /** Writes {@code records} audit records of {@code sources} sources, with their seals and file ends. */
  private static long fill(String bootstrap, SealKey signer, long records, int sources) throws Exception {
    Properties p = new Properties();
    p.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.setProperty(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.setProperty(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    List<Source> all = new ArrayList<>();
    for (int i = 0; i < sources; i++) {
      all.add(new Source("ns" + i + "/nn1", signer));
    }
    long sent = 0;
    try (KafkaProducer<byte[], byte[]> producer =
             new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (long i = 0; i < records; i++) {
        sent += all.get((int) (i % sources)).next(producer, i);
      }
      for (Source s : all) {
        sent += s.close(producer);
      }
      producer.flush();
    }
    return sent;
  }

  /** One source's stream as its shipper writes it. */
  private static final class Source {
    private final String name;
    private final byte[] key;
    private final SealKey signer;
    private final ShipHeaders.Fixed fixed;
    private final String trail = java.util.UUID.randomUUID().toString();
    private final MessageDigest range = sha256();
    private long seq;
    private long file;
    private long offset;
    private long from;
    private long inRange;
    private long inFile;
    private long sealNumber;
    private String prev = Seal.GENESIS;
    private long lastSealMillis = System.currentTimeMillis();

    Source(String name, SealKey signer) {
      this.name = name;
      this.key = name.getBytes(StandardCharsets.UTF_8);
      this.signer = signer;
      this.fixed = new ShipHeaders.Fixed(name, System.currentTimeMillis(), "hdfs", false);
    }

    int next(KafkaProducer<byte[], byte[]> producer, long i) throws Exception {
      byte[] line = String.format(Locale.ROOT, "2026-11-26 10:00:00,000 INFO FSNamesystem.audit: allowed=true\t"
          + "ugi=alice (auth:KERBEROS)\tip=/10.0.0.7\tcmd=mkdirs\tsrc=/user/alice/data/d%010d\tdst=null\t"
          + "perm=alice:hadoop:rwxr-xr-x\tproto=rpc", i).getBytes(StandardCharsets.UTF_8);
      send(producer, ShipHeaders.RECORD, offset, line);
      range.update(line);
      range.update((byte) '\n');
      offset += line.length + 1;
      inRange++;
      inFile++;
      int n = 1;
      if (inRange == SEAL_EVERY) {
        n += seal(producer, Seal.Kind.INTERVAL);
      }
      if (inFile == FILE_RECORDS) {
        n += seal(producer, Seal.Kind.ROTATE);
        send(producer, ShipHeaders.FILE_END, offset, new byte[0]);
        n++;
        file++;
        offset = 0;
        from = 0;
        inFile = 0;
      }
      return n;
    }

    int close(KafkaProducer<byte[], byte[]> producer) throws Exception {
      return seal(producer, Seal.Kind.CLOSE);
    }

    private int seal(KafkaProducer<byte[], byte[]> producer, Seal.Kind kind) throws Exception {
      long now = System.currentTimeMillis();
      Seal s = Seal.unsigned(trail, file + 1, 1, ++sealNumber, kind, from, offset, inRange, 0, 0, range.digest(),
          lastSealMillis, now, SEAL_EVERY, 25L << 20, prev).signedWith(signer);
      send(producer, ShipHeaders.SEAL, offset, s.line().getBytes(StandardCharsets.UTF_8));
      prev = s.hash();
      lastSealMillis = now;
      from = offset;
      inRange = 0;
      return 1;
    }

    private void send(KafkaProducer<byte[], byte[]> producer, String type, long at, byte[] value) {
      producer.send(new ProducerRecord<>(TOPIC, null, null, key, value,
          ShipHeaders.of(type, fixed, seq++, file, at, -1)));
    }
  }

  /**
   * A consumer reading every partition to its end offsets, counting records and touching their values; a partition
   * read to its end is paused, as verify-stream pauses it (else each fetch of it waits fetch.max.wait.ms).
   */
  private static long[] plainRead(String bootstrap) {
    Properties p = new Properties();
    p.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.setProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.setProperty(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(4 << 20));
    long t0 = System.nanoTime();
    long count = 0;
    long bytes = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
             new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo i : consumer.partitionsFor(TOPIC)) {
        parts.add(new TopicPartition(TOPIC, i.partition()));
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> ends = consumer.endOffsets(parts);
      while (!parts.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          count++;
          bytes += r.value().length;
        }
        for (TopicPartition tp : parts) { // as verify-stream does: a fetch of a partition at its end waits
          if (consumer.position(tp) >= ends.get(tp)) {
            consumer.pause(Collections.singleton(tp));
          }
        }
      }
    }
    if (bytes < 0) {
      throw new AssertionError();
    }
    return new long[] {count, System.nanoTime() - t0};
  }

  private static long[] verifyRead(String bootstrap, SealKeys.KeyFiles key) {
    long t0 = System.nanoTime();
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    PrintStream ps = new PrintStream(out, true);
    PrintStream none = new PrintStream(OutputStream.nullOutputStream());
    int code = VerifyStreamCommand.run(new String[] {"--bootstrap", bootstrap, "--topic", TOPIC, "--cert",
        key.certificate.toString()}, ps, none);
    long nanos = System.nanoTime() - t0;
    String text = out.toString(StandardCharsets.UTF_8);
    if (code != 0) {
      throw new AssertionError("verify-stream exited " + code + ":\n" + text);
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(": (\\d+) records read").matcher(text);
    if (!m.find()) {
      throw new AssertionError(text);
    }
    return new long[] {Long.parseLong(m.group(1)), nanos};
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
