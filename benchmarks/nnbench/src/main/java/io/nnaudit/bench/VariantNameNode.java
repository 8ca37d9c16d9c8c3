package io.nnaudit.bench;

import java.io.File;
import java.io.IOException;
import java.util.List;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.AuditLogger;
import org.apache.hadoop.hdfs.server.namenode.DefaultAuditLogger;

/**
 * One NameNode of one variant (see {@link Variants}): a MiniDFSCluster with no DataNodes, RPC and HTTP on
 * 127.0.0.1, as many handlers as client threads, and a client of its own. nntop is off on every NameNode
 * ({@code dfs.namenode.top.enabled=false}), as in nn_compare.py: its logger would be a second audit logger and
 * make the off NameNode audit.
 */
final class VariantNameNode {
  final String variant;
  final MiniDFSCluster cluster;
  final Configuration clientConf;
  final String uri;
  final FileSystem fs;
  /** The audit file, or null for off. */
  final File auditFile;
  /** nnaudit's logger on the nnaudit NameNode, else null. */
  final QueuedAuditLogger nnaudit;

  private VariantNameNode(String variant, MiniDFSCluster cluster, File auditFile, QueuedAuditLogger nnaudit)
      throws IOException {
    this.variant = variant;
    this.cluster = cluster;
    this.auditFile = auditFile;
    this.nnaudit = nnaudit;
    this.uri = "hdfs://127.0.0.1:" + cluster.getNameNodePort();
    this.clientConf = new HdfsConfiguration();
    FileSystem.setDefaultUri(clientConf, uri);
    this.fs = FileSystem.newInstance(clientConf);
  }

  /**
   * Starts the NameNode of {@code variant}, its files under {@code o.dir}; the stock variant's audit file is
   * {@code stockFile} (see {@link StockAuditLog#attach}), nnaudit+kafka ships to the broker at
   * {@code brokerPort}. Fails unless the NameNode has the audit loggers its variant should.
   */
  static VariantNameNode start(String variant, NnBenchOptions o, File stockFile, int brokerPort) throws IOException {
    Configuration conf = new HdfsConfiguration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR,
        new File(o.dir, Variants.dirName(variant) + "/dfs").getAbsolutePath());
    conf.setBoolean(DFSConfigKeys.NNTOP_ENABLED_KEY, false);
    File auditFile = null;
    if (variant.equals("stock")) {
      auditFile = stockFile;
    } else if (Variants.isNnaudit(variant)) {
      auditFile = new File(o.dir, Variants.dirName(variant) + "/nnaudit-audit.log");
      conf.set(DFSConfigKeys.DFS_NAMENODE_AUDIT_LOGGERS_KEY, QueuedAuditLogger.class.getName());
      conf.set(NnauditConfigKeys.FILE_PATH_KEY, auditFile.getAbsolutePath());
      conf.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, o.policy);
      if (variant.equals(Variants.KAFKA)) {
        conf.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, "127.0.0.1:" + brokerPort);
        conf.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, Variants.TOPIC);
      }
    }
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, o.threads);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 16); // NNThroughputBenchmark uses 16-byte blocks
    conf.set(DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
    conf.set(DFSConfigKeys.DFS_NAMENODE_RPC_ADDRESS_KEY, "127.0.0.1:0");
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(0).build();
    try {
      cluster.waitActive();
      List<AuditLogger> loggers = cluster.getNamesystem().getAuditLoggers();
      QueuedAuditLogger nnaudit = null;
      if (Variants.isNnaudit(variant)) {
        nnaudit = loggers.size() == 1 && loggers.get(0) instanceof QueuedAuditLogger
            ? (QueuedAuditLogger) loggers.get(0) : null;
      }
      boolean stockOnly = loggers.size() == 1 && loggers.get(0) instanceof DefaultAuditLogger;
      if (Variants.isNnaudit(variant) ? nnaudit == null : !stockOnly) {
        throw new IllegalStateException("the " + variant + " NameNode has audit loggers " + loggers);
      }
      return new VariantNameNode(variant, cluster, auditFile, nnaudit);
    } catch (RuntimeException | IOException e) {
      cluster.shutdown();
      throw e;
    }
  }

  /** Waits until nnaudit has written every record it accepted (the stock appender writes before returning). */
  void awaitWritten() throws InterruptedException {
    if (nnaudit != null && !nnaudit.pipeline().awaitWritten(60_000)) {
      throw new IllegalStateException("the audit writer did not catch up within 60 s");
    }
  }

  /**
   * Waits (up to 60 s) until the shipper has nothing left to ship; returns {records acknowledged by Kafka,
   * lines in the audit file and its backups}.
   */
  long[] awaitShipped() throws Exception {
    awaitWritten();
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (nnaudit.pipeline().shipStats().lagRecords != 0 && System.nanoTime() < deadline) {
      Thread.sleep(20); // the poll interval of this bounded wait (the lag reads -1 until the shipper has looked)
    }
    return new long[] {nnaudit.pipeline().shipStats().shippedRecords,
        AuditRecords.linesOnDisk(auditFile.getPath())};
  }

  /** Stops the client and the NameNode, then nnaudit's pipeline; returns the events nnaudit dropped. */
  long close() throws IOException {
    fs.close();
    cluster.shutdown();
    if (nnaudit == null) {
      return 0;
    }
    long dropped = nnaudit.stats().dropped;
    nnaudit.pipeline().close(30_000);
    return dropped;
  }
}
