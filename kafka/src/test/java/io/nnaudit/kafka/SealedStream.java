package io.nnaudit.kafka;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.kafka.common.utils.Utils;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;

/**
 * A topic as sealing NameNodes leave it: two sources, each its own NameNode (a MiniDFSCluster) with its own key,
 * shipping with seals every 25 records into a topic of 3 partitions, in different partitions; the first restarted
 * once (two epochs, its seals of the resumed file sent again). Made once for a test class; the broker stays up
 * for the copies the tests make of the topic.
 */
final class SealedStream implements AutoCloseable {
  static final String TOPIC = "audit";
  static final int PARTITIONS = 3;
  static final String SOURCE1 = "ns1/nn1";

  final KafkaTestBroker broker;
  final SealKeys.KeyFiles key1;
  final SealKeys.KeyFiles key2;
  final String source2;
  final File audits1;
  final File audits2;
  /** The records in the topic. */
  final int size;

  private SealedStream(Path dir) throws Exception {
    broker = new KafkaTestBroker(dir.resolve("broker")).start();
    broker.createTopic(TOPIC, PARTITIONS);
    key1 = SealKeys.ec(dir.resolve("keys1"));
    key2 = SealKeys.ec(dir.resolve("keys2"));
    String other = null;
    for (int i = 2; other == null; i++) { // a second source in another partition than the first's
      if (partition("ns" + i + "/nn1") != partition(SOURCE1)) {
        other = "ns" + i + "/nn1";
      }
    }
    source2 = other;
    audits1 = dir.resolve("audit1").toFile();
    audits2 = dir.resolve("audit2").toFile();
    ship(dir.resolve("nn1"), SOURCE1, key1, audits1, 400, true);
    ship(dir.resolve("nn2"), source2, key2, audits2, 300, false);
    size = broker.readAll(TOPIC, 0, Duration.ofSeconds(10)).size();
  }

  static SealedStream make(Path dir) throws Exception {
    return new SealedStream(dir);
  }

  /** The partition the default partitioner gives a key. */
  static int partition(String key) {
    return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
  }

  private void ship(Path dir, String source, SealKeys.KeyFiles key, File audits, int n, boolean restart)
      throws Exception {
    Configuration c = ShippingCluster.conf(dir.toFile(), audits, false, broker, TOPIC);
    c.set(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, source.substring(0, source.indexOf('/')));
    c.set(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, source.substring(source.indexOf('/') + 1));
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 25);
    SealKeys.enable(c, key, dir);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(c).numDataNodes(0).build();
    try {
      cluster.waitActive();
      ShippingCluster.mkdirs(cluster.getFileSystem(), "/a", 0, n);
      ShippingCluster.awaitShipped(ShippingCluster.logger(cluster.getNamesystem()), 60_000);
      if (restart) {
        cluster.shutdownNameNode(0);
        QueuedAuditLogger.closeAll(10_000);
        cluster.restartNameNode(0);
        cluster.waitActive();
        ShippingCluster.mkdirs(cluster.getFileSystem(), "/b", 0, n / 2);
        ShippingCluster.awaitShipped(ShippingCluster.logger(cluster.getNamesystem()), 60_000);
      }
    } finally {
      cluster.shutdown();
      QueuedAuditLogger.closeAll(10_000);
    }
  }

  @Override
  public void close() throws InterruptedException {
    broker.close();
  }
}
