package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.ha.HATestUtil;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.nnaudit.config.NnauditConfigKeys;

/**
 * An HA pair, each NameNode with nnaudit shipping to the same topic: load, a failover, more load. A consumer
 * finds every record of both local files (rotated ones included) in the topic, each NameNode's in order in one
 * partition, under identities resolved from the HA configuration, and no duplicate but identical records. Run
 * twice: with the rotated files kept plain, and compressed ({@code nnaudit.file.compress=gzip}) as the shipper
 * finishes them, while it ships; the compressed files are read back gunzipped.
 */
class HaPairShippingTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @ParameterizedTest(name = "compressed rotated files: {0}")
  @ValueSource(booleans = {false, true})
  void bothNameNodesTrailsReachOneTopicCompleteAndInOrderAcrossAFailover(boolean compress) throws Exception {
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("audit", 4);
    Configuration conf = kafka.haConf("audit");
    if (compress) {
      conf.set(NnauditConfigKeys.FILE_COMPRESS_KEY, "gzip");
    }
    MiniDFSCluster cluster = kafka.startHa(conf);
    String ns = "minidfs-ns"; // the nameservice of MiniDFSNNTopology.simpleHATopology
    cluster.transitionToActive(0);
    FileSystem fs = HATestUtil.configureFailoverFs(cluster, conf);
    ShippingCluster.mkdirs(fs, "/before", 0, 800);
    cluster.transitionToStandby(0);
    cluster.transitionToActive(1);
    ShippingCluster.mkdirs(fs, "/after", 0, 800);
    for (int i = 0; i < 2; i++) {
      ShippingCluster.awaitShipped(ShippingCluster.logger(cluster.getNamesystem(i)), 60_000);
    }
    File audits = kafka.audits();
    long nn1Compressed = TrailCheck.compressedFiles(new File(audits, "nn1/audit.log"));
    long nn2Compressed = TrailCheck.compressedFiles(new File(audits, "nn2/audit.log"));
    if (compress) {
      assertTrue(nn1Compressed > 0 && nn2Compressed > 0, "files compressed while the NameNodes shipped: nn1 "
          + nn1Compressed + ", nn2 " + nn2Compressed);
    } else {
      assertEquals(0, nn1Compressed + nn2Compressed, "nothing compressed");
    }
    kafka.stopCluster();
    List<String> nn1 = TrailCheck.localLines(new File(audits, "nn1/audit.log"));
    List<String> nn2 = TrailCheck.localLines(new File(audits, "nn2/audit.log"));
    assertTrue(TrailCheck.localFiles(new File(audits, "nn1/audit.log")).size() > 3, "nn1 rotated");
    assertTrue(TrailCheck.localFiles(new File(audits, "nn2/audit.log")).size() > 3, "nn2 rotated");
    List<ShippedRecord> shipped = ShippedRecord.of(broker.readAll("audit", nn1.size() + nn2.size(),
        Duration.ofSeconds(30)));
    TreeSet<String> sources = new TreeSet<>();
    shipped.forEach(r -> sources.add(r.source));
    String first = ns + "/nn1";
    String second = ns + "/nn2";
    assertEquals(new TreeSet<>(List.of(first, second)), sources, "identities from dfs.nameservice.id and "
        + "dfs.ha.namenode.id");
    TrailCheck c1 = TrailCheck.of(shipped, first);
    TrailCheck c2 = TrailCheck.of(shipped, second);
    c1.assertLines(nn1, "nn1: every local line, in order");
    c2.assertLines(nn2, "nn2: every local line, in order");
    assertTrue(nn1.stream().anyMatch(l -> l.contains("src=/before/d799")), "nn1 audited the load before");
    assertTrue(nn2.stream().anyMatch(l -> l.contains("src=/after/d799")), "nn2 audited the load after");
    assertEquals(0, c1.gaps + c2.gaps);
    System.out.println("HA pair: nn1 " + nn1.size() + " records, " + c1.fileEnds + " files (" + nn1Compressed
        + " compressed while shipping); nn2 " + nn2.size() + " records, " + c2.fileEnds + " files (" + nn2Compressed
        + " compressed while shipping); duplicates " + (c1.duplicates + c2.duplicates));
  }
}
