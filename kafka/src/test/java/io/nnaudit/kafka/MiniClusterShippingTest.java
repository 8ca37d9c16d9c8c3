package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;

/**
 * One NameNode ships its trail, rotated files included, to a real broker; a restart resumes from the
 * checkpoint. What a consumer reads back is every line of the local files, in order, with duplicates only as
 * identical records.
 *
 * <p>Run twice: records sent uncompressed, and compressed with lz4 ({@code compression.type=lz4}; here the
 * lz4-java of the test classpath, which may load its native library; {@code Lz4ShadedJarIT} ships from the
 * packaged jar, whose lz4 is pure Java).
 */
class MiniClusterShippingTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @ParameterizedTest(name = "compression.type={0}")
  @ValueSource(strings = {"none", "lz4"})
  void everyLocalRecordReachesTheTopicInOrderAcrossRotationsAndARestart(String compression) throws Exception {
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("audit", 3);
    Configuration conf = kafka.conf("audit");
    conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "compression.type", compression);
    MiniDFSCluster cluster = kafka.start(conf);
    FileSystem fs = cluster.getFileSystem();
    ShippingCluster.mkdirs(fs, "/a", 0, 1500);
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    ShippingCluster.awaitShipped(logger, 60_000);
    ShipStats s = logger.pipeline().shipStats();
    assertTrue(s.shippedRecords >= 1500, s.toString());
    assertEquals(0, s.lagRecords, s.toString());
    assertEquals(0, s.sendErrors, s.toString());
    assertTrue(s.millisSinceLastAck >= 0, s.toString());

    cluster.shutdownNameNode(0);
    QueuedAuditLogger.closeAll(10_000); // as the JVM's exit would: the shipper writes its checkpoint
    cluster.restartNameNode(0); // a new pipeline and shipper resume from the checkpoint
    cluster.waitActive();
    fs = cluster.getFileSystem();
    ShippingCluster.mkdirs(fs, "/b", 0, 500);
    ShippingCluster.awaitShipped(ShippingCluster.logger(cluster.getNamesystem()), 60_000);
    kafka.stopCluster();

    File live = new File(kafka.audits(), "audit.log");
    List<String> local = TrailCheck.localLines(live);
    assertTrue(new File(live.getPath() + ".5").exists(), "the test rotated several times");
    List<ShippedRecord> shipped = ShippedRecord.of(broker.readAll("audit", local.size(), Duration.ofSeconds(30)));
    TrailCheck c = TrailCheck.of(shipped, "ns1/nn1");
    c.assertLines(local, "every local line, in order, nothing else");
    assertEquals(2, c.epochs.size(), "two starts");
    assertTrue(c.fileEnds >= 5, "file ends: " + c.fileEnds);
    assertEquals(0, c.gaps);
  }
}
