package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;

/**
 * A shipper on its own (no NameNode), against a topic that is missing for a while: the trail still reaches
 * Kafka from its first line and in order, a gap noted meanwhile still reaches the stream, and a stop is
 * bounded.
 */
class ShipperFaultsTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  private Configuration conf(KafkaTestBroker broker, String topic) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, broker.bootstrapServers());
    c.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, topic);
    c.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "ns1");
    c.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn1");
    c.setLong(NnauditConfigKeys.KAFKA_POLL_INTERVAL_MS_KEY, 20);
    c.setLong(NnauditConfigKeys.KAFKA_CHECKPOINT_INTERVAL_MS_KEY, 100);
    c.setLong(NnauditConfigKeys.KAFKA_RETRY_BACKOFF_MS_KEY, 200);
    c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "max.block.ms", "500");
    return c;
  }

  private File auditFile(int lines) throws Exception {
    File f = dir.resolve("audit").resolve("audit.log").toFile();
    f.getParentFile().mkdirs();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      sb.append("allowed=true\tugi=u\tcmd=mkdirs\tsrc=/d").append(i).append('\n');
    }
    Files.write(f.toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
    return f;
  }

  private static KafkaShipper shipper(Configuration c, File f, SpoolGuard guard) {
    return new KafkaShipper(new ShipperContext(c, f, 10, "hdfs", guard));
  }

  private static boolean shipperThreadAlive() {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("nnaudit-kafka-shipper[") && t.isAlive()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Interrupts of the shipper's thread from outside, while it ships and while it waits: it goes on, every line
   * written before and after reaches the topic in order, and, caught up, it sleeps between its looks rather than
   * spinning on a flag left set (the bound: a tenth of a second of CPU in a second).
   */
  @Test
  void interruptsFromOutsideNeitherEndNorSpinTheShipper() throws Exception {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled(),
        "this JVM measures no thread's CPU time");
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("interrupted", 1);
    File f = auditFile(20_000);
    KafkaShipper s = shipper(conf(broker, "interrupted"), f, new SpoolGuard(100));
    s.start();
    Thread shipper = s.thread();
    for (int i = 0; i < 50; i++) { // while it catches up on 20,000 lines, and once caught up
      shipper.interrupt();
      Thread.sleep(20);
    }
    appendLines(f, 20_000, 20_100);
    ShippingCluster.await("caught up", 120_000, () -> s.stats().lagBytes == 0);
    long cpu0 = threads.getThreadCpuTime(shipper.getId());
    Thread.sleep(1000);
    long cpuMs = (threads.getThreadCpuTime(shipper.getId()) - cpu0) / 1_000_000;
    s.stop(5000);
    List<ShippedRecord> shipped = ShippedRecord.of(broker.readAll("interrupted", 20_100, Duration.ofSeconds(30)));
    System.out.println("interrupted 50 times: " + shipped.size() + " records; CPU of an idle second " + cpuMs
        + " ms; " + s.stats());
    // in order; a line sent again after a rewind counts once; every line, compared with the file's
    TrailCheck.of(shipped, "ns1/nn1").assertLines(TrailCheck.localLines(f), "interrupted 50 times");
    assertTrue(cpuMs < 100, "the caught-up shipper spent " + cpuMs + " ms of CPU in a second");
    assertFalse(shipper.isAlive(), "the stop still ends the thread");
    assertTrue(s.strayInterrupts() >= 1, "the shipper saw the interrupts: " + s.strayInterrupts());
  }

  /**
   * A storm of interrupts from outside (one every 200 µs) through a start from a checkpoint, a catch-up of 20,000
   * lines and a stop. The audit file, the checkpoint and the files' heads are read and written through streams and
   * RandomAccessFile, which an interrupt does not close (a channel it would close under the read). The start
   * begins at the checkpoint (no line sent twice), no send error is counted, the stop ships the file to its end and
   * writes the checkpoint there, and every line reaches the topic in order.
   */
  @Test
  void aStormOfInterruptsNeitherFailsTheStartNorCutsTheStopShort() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("storm", 1);
    File f = auditFile(5_000);
    File checkpoint = new File(f.getPath() + ".kafka-checkpoint");
    SpoolGuard guard = new SpoolGuard(100);
    KafkaShipper first = shipper(conf(broker, "storm"), f, guard);
    first.start();
    ShippingCluster.await("the first start caught up", 60_000, () -> first.stats().lagBytes == 0);
    first.stop(5000);
    assertTrue(checkpoint.isFile(), "the first start left a checkpoint for the second to read");
    appendLines(f, 5_000, 25_000);
    KafkaShipper second = shipper(conf(broker, "storm"), f, guard);
    Thread shipper = second.thread();
    AtomicBoolean storming = new AtomicBoolean(true);
    Thread storm = new Thread(() -> {
      while (storming.get()) {
        shipper.interrupt();
        LockSupport.parkNanos(200_000);
      }
    }, "interrupt-storm");
    storm.setDaemon(true);
    storm.start(); // before the start: its look at the checkpoint's file is made under the storm too
    second.start();
    ShippingCluster.await("caught up under the storm", 120_000, () -> second.stats().lagBytes == 0);
    appendLines(f, 25_000, 25_100);
    long t0 = System.nanoTime();
    second.stop(10_000);
    long stopMs = (System.nanoTime() - t0) / 1_000_000;
    storming.set(false);
    storm.join();
    ShipCheckpoint cp = ShipCheckpoint.load(checkpoint);
    System.out.println("storm: stop took " + stopMs + " ms; " + second.strayInterrupts() + " interrupts cleared; "
        + second.stats() + "; checkpoint at " + cp.position);
    assertFalse(shipper.isAlive(), "the stop ended the thread");
    assertEquals(f.length(), cp.position.offset, "the stop shipped the file to its end and saved it");
    assertTrue(second.strayInterrupts() >= 100, "the storm reached the shipper: " + second.strayInterrupts());
    assertEquals(0, second.stats().sendErrors, "an interrupt is no send error");
    List<ShippedRecord> shipped = ShippedRecord.of(broker.readAll("storm", 25_100, Duration.ofSeconds(30)));
    TrailCheck trail = TrailCheck.of(shipped, "ns1/nn1");
    trail.assertLines(TrailCheck.localLines(f), "under a storm of interrupts");
    assertEquals(0, trail.duplicates, "the second start began at the first's checkpoint, and resent nothing");
  }

  private static void appendLines(File f, int from, int to) throws Exception {
    StringBuilder more = new StringBuilder();
    for (int i = from; i < to; i++) {
      more.append("allowed=true\tugi=u\tcmd=mkdirs\tsrc=/d").append(i).append('\n');
    }
    Files.write(f.toPath(), more.toString().getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
  }

  /**
   * A missing topic: the producer refuses each send by calling its callback inside send(), which must leave the
   * position where it was, so that when the topic appears the trail starts at its first line, in order.
   */
  @Test
  void aTopicThatAppearsLateKeepsTheTrailInOrder() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    File f = auditFile(3000);
    Configuration c = conf(broker, "late");
    c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "linger.ms", "0");
    c.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "batch.size", "4096");
    KafkaShipper s = shipper(c, f, new SpoolGuard(100));
    s.start();
    Thread.sleep(3000); // the topic is missing for a while: sends are refused meanwhile
    broker.createTopic("late", 1);
    ShippingCluster.await("caught up", 120_000, () -> s.stats().lagBytes == 0);
    s.stop(5000);
    List<ShippedRecord> shipped = ShippedRecord.of(broker.readAll("late", 3000, Duration.ofSeconds(30)));
    List<String> firstOffsets = new ArrayList<>();
    for (int i = 0; i < Math.min(8, shipped.size()); i++) {
      firstOffsets.add(shipped.get(i).seq + "@" + shipped.get(i).offset);
    }
    System.out.println("late topic: " + shipped.size() + " records; first (seq@offset): " + firstOffsets);
    assertEquals(0, shipped.get(0).offset, "the first record in Kafka is the first line: " + firstOffsets);
    TrailCheck.of(shipped, "ns1/nn1");
  }

  /** A loss announced while the topic cannot take it: the gap record is sent again until it is acknowledged. */
  @Test
  void aGapAnnouncedDuringAnOutageReachesTheStream() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    File f = auditFile(4);
    SpoolGuard guard = new SpoolGuard(100);
    KafkaShipper s = shipper(conf(broker, "gaps"), f, guard);
    // Rotation deleted an unshipped file, as during an outage at the spool bound.
    guard.countLoss("(dev=0,ino=0)", 1234, 7);
    s.start();
    Thread.sleep(4000); // the gap and the lines are tried against the missing topic
    broker.createTopic("gaps", 1);
    ShippingCluster.await("caught up", 120_000, () -> s.stats().lagBytes == 0);
    s.stop(5000);
    List<ShippedRecord> shipped = ShippedRecord.of(broker.readAll("gaps", 4, Duration.ofSeconds(30)));
    long gaps = shipped.stream().filter(r -> r.type.equals(ShipHeaders.GAP)).count();
    System.out.println("gap in an outage: " + shipped.size() + " records, " + gaps + " gap records; " + s.stats());
    assertTrue(gaps >= 1, "the loss is announced in the stream: " + shipped);
  }

  /** stop() is bounded by its timeout plus max.block.ms: not when every line of a buffer waits max.block.ms. */
  @Test
  void stopIsBoundedWhileTheTopicIsMissing() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    File f = auditFile(200);
    KafkaShipper s = shipper(conf(broker, "never"), f, new SpoolGuard(100));
    s.start();
    Thread.sleep(1500); // the shipper is busy failing against the missing topic
    long t0 = System.nanoTime();
    s.stop(1000);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    boolean alive = shipperThreadAlive();
    System.out.println("stop: returned after " + ms + " ms; thread alive after stop: " + alive);
    assertFalse(alive, "the shipper's thread ended within stop()");
  }

  /**
   * A loss announced while the topic cannot take it, and a stop before it could: the gap record is kept in the
   * checkpoint, and the next start sends it, with the same identity.
   */
  @Test
  void aGapNotYetAcknowledgedSurvivesARestart() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    File f = auditFile(4);
    File checkpoint = new File(f.getPath() + ".kafka-checkpoint");
    SpoolGuard guard = new SpoolGuard(100);
    KafkaShipper first = shipper(conf(broker, "later"), f, guard);
    guard.countLoss("(dev=0,ino=0)", 1234, 7);
    first.start();
    ShippingCluster.await("the gap kept in the checkpoint", 30_000, () -> checkpoint.exists()
        && new String(readQuietly(checkpoint), StandardCharsets.UTF_8).contains("gap.count=1"));
    first.stop(1000);
    broker.createTopic("later", 1);
    KafkaShipper second = shipper(conf(broker, "later"), f, new SpoolGuard(100));
    second.start();
    ShippingCluster.await("caught up", 60_000, () -> second.stats().lagRecords == 0);
    second.stop(5000);
    List<ShippedRecord> shipped = ShippedRecord.of(broker.readAll("later", 5, Duration.ofSeconds(30)));
    List<ShippedRecord> gaps = new ArrayList<>();
    shipped.stream().filter(r -> r.type.equals(ShipHeaders.GAP)).forEach(gaps::add);
    assertEquals(1, gaps.size(), "the loss is announced once, by the next start: " + shipped);
    assertTrue(gaps.get(0).text().contains("1234 bytes lost"), gaps.get(0).text());
    TrailCheck.of(shipped, "ns1/nn1").assertLines(TrailCheck.localLines(f), "the lines after it");
  }

  /**
   * With sealing on, a FIFO at the live file's digest name is not a digest the shipper reads (nor is another
   * user's file), so it is no seal still to come: a stop of a shipper that has sent everything ends at once, not
   * at its timeout, with everything shipped.
   */
  @Test
  void aDigestNameTheShipperWillNotReadDoesNotHoldAStop() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("planted", 1);
    File f = auditFile(50);
    Path digest = f.toPath().resolveSibling(f.getName() + ".seals");
    assumeTrue(new ProcessBuilder("mkfifo", digest.toString()).start().waitFor() == 0, "mkfifo works here");
    Configuration c = conf(broker, "planted");
    c.setBoolean(NnauditConfigKeys.SEAL_ENABLED_KEY, true);
    KafkaShipper s = shipper(c, f, new SpoolGuard(100));
    s.start();
    ShippingCluster.await("caught up", 60_000, () -> s.stats().lagRecords == 0);
    long t0 = System.nanoTime();
    s.stop(10_000);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    System.out.println("stop with a FIFO at the digest's name: " + ms + " ms; " + s.stats());
    assertTrue(ms < 5_000, "the stop waited " + ms + " ms of its 10000 for a seal from a FIFO");
    TrailCheck.of(ShippedRecord.of(broker.readAll("planted", 50, Duration.ofSeconds(30))), "ns1/nn1")
        .assertLines(TrailCheck.localLines(f), "every line");
  }

  private static byte[] readQuietly(File f) {
    try {
      return Files.readAllBytes(f.toPath());
    } catch (java.io.IOException e) {
      return new byte[0];
    }
  }
}
