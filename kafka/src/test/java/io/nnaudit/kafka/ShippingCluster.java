package io.nnaudit.kafka;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.ShipStats;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.AuditLogger;
import org.apache.hadoop.hdfs.server.namenode.FSNamesystem;

/** A MiniDFSCluster whose NameNodes audit with nnaudit and ship to a test broker, and what tests ask of it. */
final class ShippingCluster {
  private ShippingCluster() {
  }

  /**
   * NameNodes auditing to {@code auditDir}/{@code <namenode id>}/audit.log ({@code ha}) or
   * {@code auditDir}/audit.log, rotating every 16 KiB and keeping every file, shipping to {@code topic} of
   * {@code broker}.
   */
  static Configuration conf(File baseDir, File auditDir, boolean ha, KafkaTestBroker broker, String topic) {
    return conf(baseDir, auditDir, ha, broker.bootstrapServers(), topic);
  }

  /** As above, for a broker known by its address only (a NameNode in a child JVM). */
  static Configuration conf(File baseDir, File auditDir, boolean ha, String bootstrapServers, String topic) {
    Configuration c = new HdfsConfiguration();
    c.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(baseDir, "dfs").getPath());
    c.set(DFSConfigKeys.DFS_NAMENODE_AUDIT_LOGGERS_KEY, QueuedAuditLogger.class.getName());
    c.set(DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
    c.set(NnauditConfigKeys.FILE_PATH_KEY, auditDir.getPath()
        + (ha ? "/${" + DFSConfigKeys.DFS_HA_NAMENODE_ID_KEY + "}" : "") + "/audit.log");
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "16k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 10_000);
    c.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, bootstrapServers);
    c.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, topic);
    c.setLong(NnauditConfigKeys.KAFKA_POLL_INTERVAL_MS_KEY, 20);
    c.setLong(NnauditConfigKeys.KAFKA_CHECKPOINT_INTERVAL_MS_KEY, 100);
    return c;
  }

  static QueuedAuditLogger logger(FSNamesystem ns) {
    for (AuditLogger l : ns.getAuditLoggers()) {
      if (l instanceof QueuedAuditLogger) {
        return (QueuedAuditLogger) l;
      }
    }
    throw new AssertionError("nnaudit is not among the NameNode's audit loggers");
  }

  /** Waits until the logger's shipper has nothing left to ship. */
  static void awaitShipped(QueuedAuditLogger logger, long timeoutMs) throws InterruptedException {
    await("the shipper to catch up", timeoutMs, () -> {
      ShipStats s = logger.pipeline().shipStats();
      return s != null && s.lagBytes == 0 && s.filesWaiting == 0 && s.lagRecords == 0;
    });
  }

  static void await(String what, long timeoutMs, BooleanSupplier cond) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20); // polls a condition
    }
  }

  /** {@code n} mkdirs under {@code dir}, over RPC. */
  static void mkdirs(FileSystem fs, String dir, int from, int n) throws IOException {
    for (int i = from; i < from + n; i++) {
      fs.mkdirs(new Path(dir + "/d" + i));
    }
  }
}
