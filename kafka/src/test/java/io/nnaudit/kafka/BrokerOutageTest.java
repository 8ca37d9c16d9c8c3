package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;

/**
 * The broker stops for 25 s in the middle of a load. No operation waits for it (latencies are measured during
 * the outage), the lag grows and is reported, and once the broker is back the lag drains with nothing missing.
 * The producer's delivery timeout is shorter than the outage, so sends fail and the shipper goes back to the
 * last acknowledged record: the path that may send records twice.
 *
 * <p>Run twice: with the rotated files kept plain, and compressed ({@code nnaudit.file.compress=gzip}), where the
 * files the shipper has not finished when the broker stops must stay plain through the outage, and are
 * compressed only once it has shipped them; that run's outage is shorter (still longer than the delivery timeout,
 * so sends fail the same way), to keep its cost down.
 */
class BrokerOutageTest {
  private static final long OUTAGE_MS = 25_000;
  private static final long COMPRESSED_OUTAGE_MS = 12_000;

  @TempDir
  java.nio.file.Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @ParameterizedTest(name = "nnaudit.file.compress={0}")
  @ValueSource(strings = {"none", "gzip"})
  void anOutageOnlyDelaysShippingAndLosesNothing(String compress) throws Exception {
    boolean compressed = compress.equals("gzip");
    long outageMs = compressed ? COMPRESSED_OUTAGE_MS : OUTAGE_MS;
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("audit", 1);
    Configuration conf = kafka.conf("audit");
    conf.set(NnauditConfigKeys.FILE_COMPRESS_KEY, compress);
    conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "delivery.timeout.ms", "8000");
    conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "request.timeout.ms", "3000");
    conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "linger.ms", "5");
    MiniDFSCluster cluster = kafka.start(conf);
    Load before = new Load();
    Load during = new Load();
    Load after = new Load();
    FileSystem fs = cluster.getFileSystem();
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    before.run(fs, "/before", 3_000);
    broker.stop();
    during.run(fs, "/during", outageMs);
    long waiting = during.ops.get();
    ShippingCluster.await("the lag to show what waits (as of the shipper's last look)", 30_000,
        () -> logger.pipeline().shipStats().lagRecords >= waiting * 9 / 10);
    ShipStats inOutage = logger.pipeline().shipStats();
    assertTrue(inOutage.lagMillis >= outageMs / 2, "the oldest waits since the outage began: " + inOutage);
    assertTrue(inOutage.millisSinceLastAck >= outageMs / 2, inOutage.toString());
    assertTrue(inOutage.sendErrors > 0, "failed sends are counted: " + inOutage);
    long backlog = inOutage.lagRecords;
    File live = new File(kafka.audits(), "audit.log");
    List<String> shippedNotFinished = new ArrayList<>();
    int rotatedInOutage = 0;
    for (File f : TrailCheck.localFiles(live)) {
      if (!f.equals(live) && new String(TrailCheck.localBytes(f), StandardCharsets.UTF_8).contains("src=/during/")) {
        rotatedInOutage++;
        if (f.getName().endsWith(".gz")) {
          shippedNotFinished.add(f.getName());
        }
      }
    }
    assertEquals(new ArrayList<String>(), shippedNotFinished, "no file the shipper could not finish in the outage "
        + "is compressed, of the " + rotatedInOutage + " rotated in it");
    assertTrue(rotatedInOutage > 1, "the file rotated in the outage: " + rotatedInOutage);
    broker.start();
    long t0 = System.nanoTime();
    after.run(fs, "/after", 3_000);
    ShippingCluster.awaitShipped(logger, 120_000);
    long drainMillis = (System.nanoTime() - t0) / 1_000_000;
    ShipStats atTheEnd = logger.pipeline().shipStats();
    long compressedFiles = TrailCheck.compressedFiles(live);
    kafka.stopCluster();
    if (compressed) {
      assertTrue(compressedFiles > 0, "rotated files were compressed while shipping");
    } else {
      assertEquals(0, compressedFiles, "nothing compressed");
    }

    List<String> local = TrailCheck.localLines(live);
    TrailCheck c = TrailCheck.of(ShippedRecord.of(broker.readAll("audit", local.size(), Duration.ofSeconds(30))),
        "ns1/nn1");
    c.assertLines(local, "every local line, in order, after the outage");
    assertEquals(0, c.gaps);
    assertEquals(0, atTheEnd.lagRecords, atTheEnd.toString());
    System.out.printf("outage: ops/s before %.0f during %.0f after %.0f; max latency ms before %d during %d "
        + "after %d; backlog %d records drained in %d ms; duplicates %d; compress %s: %d of %d files compressed "
        + "at the end; %s%n", before.rate(), during.rate(), after.rate(), before.maxMillis(), during.maxMillis(),
        after.maxMillis(), backlog, drainMillis, c.duplicates, compress, compressedFiles,
        TrailCheck.localFiles(live).size(), atTheEnd);
    // No handler waited for Kafka: a send may block for max.block.ms (2 s) and a record for the delivery
    // timeout (8 s); an operation during the outage took far less than either.
    assertTrue(during.maxMillis() < 1500, "an operation waited " + during.maxMillis() + " ms");
    assertTrue(during.ops.get() > 100, "the load went on: " + during.ops.get());
  }

  /** One client doing mkdirs for a while, timing each. */
  private static final class Load {
    final AtomicInteger ops = new AtomicInteger();
    final List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
    long elapsedNanos;

    void run(FileSystem fs, String dir, long millis) throws Exception {
      AtomicBoolean stop = new AtomicBoolean();
      long start = System.nanoTime();
      long end = start + millis * 1_000_000;
      int i = 0;
      while (System.nanoTime() < end && !stop.get()) {
        long t = System.nanoTime();
        fs.mkdirs(new Path(dir + "/d" + i++));
        nanos.add(System.nanoTime() - t);
        ops.incrementAndGet();
      }
      elapsedNanos = System.nanoTime() - start;
    }

    double rate() {
      return ops.get() * 1e9 / elapsedNanos;
    }

    long maxMillis() {
      return nanos.stream().mapToLong(Long::longValue).max().orElse(0) / 1_000_000;
    }
  }
}
