package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * Rotation keeps unshipped files while shipping is stuck, up to nnaudit.kafka.spool.max.backups; past it the
 * oldest go, and the loss is never silent: counted in the metrics, logged at WARN, and announced in the stream
 * by a gap record once shipping recovers. Everything still on disk is then shipped.
 */
class SpoolBoundTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @Test
  void filesPastTheSpoolBoundAreCountedLoggedAndAnnouncedByAGap() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    File audits = kafka.audits();
    Configuration c = kafka.conf("late"); // not created yet
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 1);
    c.setInt(NnauditConfigKeys.KAFKA_SPOOL_MAX_BACKUPS_KEY, 3);
    LogCapturer sinkLog = LogCapturer.captureLogs(LoggerFactory.getLogger(RollingFileSink.class));
    MiniDFSCluster cluster = kafka.start(c);
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    ShippingCluster.mkdirs(cluster.getFileSystem(), "/a", 0, 600); // ~100 KB: six rotations or more
    ShipStats stuck = logger.pipeline().shipStats();
    assertTrue(new File(audits, "audit.log.3").exists(), "unshipped files kept beyond file.max.backups=1");
    assertFalse(new File(audits, "audit.log.4").exists(), "but not beyond spool.max.backups=3");
    assertTrue(stuck.lostFiles >= 1, stuck.toString());
    assertTrue(stuck.lostBytes > 0, stuck.toString());
    assertTrue(sinkLog.getOutput().contains("the shipper has not finished"), "a WARN for each loss");
    broker.createTopic("late", 1);
    ShippingCluster.awaitShipped(logger, 60_000);
    ShipStats done = logger.pipeline().shipStats();
    kafka.stopCluster();
    List<String> local = TrailCheck.localLines(new File(audits, "audit.log"));
    List<ShippedRecord> shipped = ShippedRecord.of(broker.readAll("late", local.size(), Duration.ofSeconds(30)));
    TrailCheck check = TrailCheck.of(shipped, "ns1/nn1");
    assertTrue(check.gaps >= 1, "the loss is announced in the stream");
    long rotationGaps = shipped.stream().filter(r -> r.type.equals(ShipHeaders.GAP)
        && r.text().contains("was deleted by rotation before it was shipped")).map(ShippedRecord::text).distinct()
        .count();
    assertEquals(done.lostFiles, rotationGaps, "one gap record, saying why, for each file counted as lost: " + done);
    List<String> tail = check.lines.subList(check.lines.size() - local.size(), check.lines.size());
    assertEquals(local, tail, "everything still on disk is shipped, in order, after the gap");
    System.out.println("spool bound: " + stuck.lostFiles + " files (" + stuck.lostBytes + " bytes) lost, "
        + check.gaps + " gap records, " + local.size() + " records on disk shipped");
  }
}
