package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;

/**
 * The broker stops for 25 s in the middle of a load. No operation waits for it (latencies are measured during
 * the outage), the lag grows and is reported, and once the broker is back the lag drains with nothing missing.
 * The producer's delivery timeout is shorter than the outage, so sends fail and the shipper goes back to the
 * last acknowledged record: the path that may send records twice.
 */
class BrokerOutageTest {
  private static final long OUTAGE_MS = 25_000;

  @TempDir
  java.nio.file.Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @Test
  void anOutageOnlyDelaysShippingAndLosesNothing() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("audit", 1);
    Configuration conf = kafka.conf("audit");
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
    during.run(fs, "/during", OUTAGE_MS);
    long waiting = during.ops.get();
    ShippingCluster.await("the lag to show what waits (as of the shipper's last look)", 30_000,
        () -> logger.pipeline().shipStats().lagRecords >= waiting * 9 / 10);
    ShipStats inOutage = logger.pipeline().shipStats();
    assertTrue(inOutage.lagMillis >= OUTAGE_MS / 2, "the oldest waits since the outage began: " + inOutage);
    assertTrue(inOutage.millisSinceLastAck >= OUTAGE_MS / 2, inOutage.toString());
    assertTrue(inOutage.sendErrors > 0, "failed sends are counted: " + inOutage);
    long backlog = inOutage.lagRecords;
    broker.start();
    long t0 = System.nanoTime();
    after.run(fs, "/after", 3_000);
    ShippingCluster.awaitShipped(logger, 120_000);
    long drainMillis = (System.nanoTime() - t0) / 1_000_000;
    ShipStats atTheEnd = logger.pipeline().shipStats();
    kafka.stopCluster();

    List<String> local = TrailCheck.localLines(new File(kafka.audits(), "audit.log"));
    TrailCheck c = TrailCheck.of(ShippedRecord.of(broker.readAll("audit", local.size(), Duration.ofSeconds(30))),
        "ns1/nn1");
    c.assertLines(local, "every local line, in order, after the outage");
    assertEquals(0, c.gaps);
    assertEquals(0, atTheEnd.lagRecords, atTheEnd.toString());
    System.out.printf("outage: ops/s before %.0f during %.0f after %.0f; max latency ms before %d during %d "
        + "after %d; backlog %d records drained in %d ms; duplicates %d; %s%n", before.rate(), during.rate(),
        after.rate(), before.maxMillis(), during.maxMillis(), after.maxMillis(), backlog, drainMillis, c.duplicates,
        atTheEnd);
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
