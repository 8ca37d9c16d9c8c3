package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;

/**
 * A shipper that keeps up with a writer reads the file in bursts, one a poll interval, rather than chasing each
 * write: on a NameNode every read and every producer batch of a few records costs CPU beside the handlers. A real
 * broker and a file written 50,000 lines a second, each line its own write(2), so that a shipper that chased the
 * writer would find a new line at almost every pass. The shipper thread's read calls, as Linux counts them, show
 * how it read; the time each record was sent (its {@code CreateTime}) against the time its line was written shows
 * what the bursts cost in delay.
 */
class ShipPacingTest {
  private static final long POLL_MS = 200;
  /** Lines written, one every {@link #EVERY_NANOS}: 2 s of a busy NameNode's audit records. */
  private static final int LINES = 100_000;
  private static final long EVERY_NANOS = 20_000;

  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @Test
  void aShipperThatKeepsUpReadsInBurstsOnePollIntervalApart() throws Exception {
    assumeTrue(java.nio.file.Files.isDirectory(java.nio.file.Paths.get("/proc/self/task")),
        "the read calls are counted in Linux's /proc");
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("paced", 1);
    File f = dir.resolve("audit").resolve("audit.log").toFile();
    f.getParentFile().mkdirs();
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, broker.bootstrapServers());
    c.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, "paced");
    c.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "ns1");
    c.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn1");
    c.setLong(NnauditConfigKeys.KAFKA_POLL_INTERVAL_MS_KEY, POLL_MS);
    List<Long> writtenAt = new ArrayList<>();
    long reads;
    KafkaShipper s;
    try (FileOutputStream out = new FileOutputStream(f)) {
      out.write(line(-1, System.currentTimeMillis()));
      s = new KafkaShipper(new ShipperContext(c, f, 10, "hdfs", new SpoolGuard(100)));
      s.start();
      ShippingCluster.await("the first line shipped", 60_000, () -> s.stats().lagRecords == 0);
      long readsBefore = shipperReads();
      long start = System.nanoTime();
      for (int i = 0; i < LINES; i++) { // each line its own write(2), as a NameNode's handlers write
        long due = start + i * EVERY_NANOS;
        while (System.nanoTime() < due) {
          // spin: a sleep is longer than the interval
        }
        long now = System.currentTimeMillis();
        writtenAt.add(now);
        out.write(line(i, now));
      }
      reads = shipperReads() - readsBefore;
    }
    ShippingCluster.await("caught up", 60_000, () -> s.stats().lagRecords == 0);
    s.stop(5000);
    List<ConsumerRecord<byte[], byte[]>> all = broker.readAll("paced", LINES + 1, Duration.ofSeconds(30));
    TrailCheck.of(ShippedRecord.of(all), "ns1/nn1").assertLines(TrailCheck.localLines(f), "every line, in order");

    List<Long> delays = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : all) {
      String[] v = new String(r.value(), StandardCharsets.UTF_8).split("@");
      if (v.length != 2) {
        continue; // not a line of this test (no other record is expected: one file, no seals)
      }
      int i = Integer.parseInt(v[0].substring(v[0].lastIndexOf('/') + 2));
      if (i >= 0) {
        delays.add(r.timestamp() - writtenAt.get(i));
      }
    }
    Collections.sort(delays);
    long median = delays.get(delays.size() / 2);
    long max = delays.get(delays.size() - 1);
    long spanMs = writtenAt.get(LINES - 1) - writtenAt.get(0);
    long bound = f.length() / (256 * 1024) + 2 * (spanMs / POLL_MS + 1);
    System.out.println("paced: " + LINES + " lines (" + f.length() + " bytes) written over " + spanMs + " ms, read "
        + "by the shipper in " + reads + " read calls (at most " + bound + " allowed); delay from write to send: "
        + "median " + median + " ms, max " + max + " ms (poll interval " + POLL_MS + " ms)");
    // In bursts: a read a poll interval that ends at the end of the file, and one before it for each full buffer
    // (256 KiB) of lines written meanwhile; here about 27. A shipper that chased the writer read again as soon as
    // it had sent what it read, every few milliseconds: about 145 reads here.
    assertTrue(reads <= bound, reads + " reads of the file while it was written for " + spanMs + " ms (at most "
        + bound + ")");
    // The price: a line waits for the next burst, about half a poll interval on average, and never much more
    // than one (a shipper that waited while behind would fall further behind at every burst).
    assertTrue(median >= POLL_MS / 5, "the median line waited " + median + " ms before it was sent");
    assertTrue(max <= 5 * POLL_MS, "a line waited " + max + " ms before it was sent");
  }

  private static byte[] line(int i, long millis) {
    return ("allowed=true\tugi=u\tcmd=mkdirs\tsrc=/d" + i + "@" + millis + "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The read calls the shipper's thread has made (its {@code syscr} in {@code /proc/self/task/<tid>/io}): the
   * thread found by its name as Linux keeps it, the first 15 characters.
   */
  private static long shipperReads() throws java.io.IOException {
    String comm = KafkaShipper.THREAD_NAME_PREFIX.substring(0, 15);
    try (java.nio.file.DirectoryStream<Path> tasks = java.nio.file.Files.newDirectoryStream(
        java.nio.file.Paths.get("/proc/self/task"))) {
      for (Path t : tasks) {
        if (comm.equals(new String(java.nio.file.Files.readAllBytes(t.resolve("comm")), StandardCharsets.UTF_8)
            .trim())) {
          for (String l : java.nio.file.Files.readAllLines(t.resolve("io"))) {
            if (l.startsWith("syscr:")) {
              return Long.parseLong(l.substring(6).trim());
            }
          }
        }
      }
    }
    throw new AssertionError("no thread named " + comm + " in /proc/self/task");
  }
}
