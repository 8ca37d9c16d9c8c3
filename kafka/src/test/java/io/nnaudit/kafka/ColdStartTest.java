package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.ship.ShipStats;

/**
 * A cold start: the topic's metadata comes later than one {@code max.block.ms} (2 s), as on a busy host, here
 * for real: the NameNode starts while its broker is still down, and the broker comes up a few seconds later
 * with the topic created, or the broker is up and the topic is created a moment after the NameNode started. A
 * wait for metadata that ends well (within the bound the shipper allows it) is not an error: no send error is
 * counted, nothing is logged at WARN, and the stream is every local line, in order.
 */
class ColdStartTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @Test
  void aNameNodeStartedBeforeItsBrokerShipsWithoutErrors() throws Exception {
    KafkaTestBroker broker = kafka.brokerNotYetStarted();
    LogCapturer log = LogCapturer.captureLogs(LoggerFactory.getLogger(KafkaShipper.class));
    long t0 = System.nanoTime();
    MiniDFSCluster cluster = kafka.start(kafka.conf("audit"));
    FileSystem fs = cluster.getFileSystem();
    ShippingCluster.mkdirs(fs, "/before", 0, 300); // waiting in the file while no broker answers
    Thread.sleep(2000); // more than one max.block.ms with no broker
    broker.start();
    broker.createTopic("audit", 1);
    long upMs = (System.nanoTime() - t0) / 1_000_000;
    ShippingCluster.mkdirs(fs, "/after", 0, 300);
    assertShippedWithoutErrors(broker, ShippingCluster.logger(cluster.getNamesystem()), log,
        "broker and topic up " + upMs + " ms after the NameNode began to start");
  }

  @Test
  void aTopicCreatedAMomentAfterTheStartShipsWithoutErrors() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    LogCapturer log = LogCapturer.captureLogs(LoggerFactory.getLogger(KafkaShipper.class));
    MiniDFSCluster cluster = kafka.start(kafka.conf("audit"));
    FileSystem fs = cluster.getFileSystem();
    ShippingCluster.mkdirs(fs, "/before", 0, 300);
    Thread.sleep(3000); // the brokers answer, without the topic, for more than one max.block.ms
    broker.createTopic("audit", 1);
    ShippingCluster.mkdirs(fs, "/after", 0, 300);
    assertShippedWithoutErrors(broker, ShippingCluster.logger(cluster.getNamesystem()), log,
        "topic created 3 s after the NameNode started");
  }

  private void assertShippedWithoutErrors(KafkaTestBroker broker, QueuedAuditLogger logger, LogCapturer log,
      String what) throws Exception {
    ShippingCluster.awaitShipped(logger, 120_000);
    ShipStats s = logger.pipeline().shipStats();
    kafka.stopCluster();
    String warnings = log.getOutput();
    log.stopCapturing();
    List<String> local = TrailCheck.localLines(new File(kafka.audits(), "audit.log"));
    TrailCheck c = TrailCheck.of(ShippedRecord.of(broker.readAll("audit", local.size(), Duration.ofSeconds(30))),
        "ns1/nn1");
    System.out.println("cold start (" + what + "): " + local.size() + " lines, duplicates " + c.duplicates + "; " + s);
    c.assertLines(local, "every local line, in order");
    assertEquals(0, c.gaps);
    assertEquals(0, s.sendErrors, "a metadata wait that ended well is no send error: " + s);
    assertFalse(warnings.contains("refused"), "no refusal logged:\n" + warnings);
    assertFalse(warnings.contains("send errors since start-up"), "no shipping WARN:\n" + warnings);
  }
}
