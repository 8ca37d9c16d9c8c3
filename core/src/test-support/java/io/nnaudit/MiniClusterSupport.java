package io.nnaudit;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.namenode.AuditLogger;
import org.apache.log4j.Level;
import org.apache.log4j.LogManager;
import org.apache.log4j.Logger;
import org.apache.log4j.PatternLayout;
import org.apache.log4j.RollingFileAppender;

import io.nnaudit.config.NnauditConfigKeys;

/** A real NameNode (MiniDFSCluster, real RPC on 127.0.0.1) with nnaudit configured, for integration tests. */
final class MiniClusterSupport {
  public static final String STOCK_AUDIT_LOGGER = "org.apache.hadoop.hdfs.server.namenode.FSNamesystem.audit";
  /** The layout of the stock RFAAUDIT appender in Hadoop's log4j.properties. */
  public static final String STOCK_LAYOUT = "%d{ISO8601} %p %c{2}: %m%n";

  private MiniClusterSupport() {
  }

  public static Configuration conf(File baseDir, File auditFile, String loggers) {
    Configuration c = new HdfsConfiguration();
    c.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(baseDir, "dfs").getPath());
    c.set(DFSConfigKeys.DFS_NAMENODE_AUDIT_LOGGERS_KEY, loggers);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, auditFile.getPath());
    c.set(DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
    return c;
  }

  public static MiniDFSCluster start(Configuration c) throws Exception {
    return start(c, 0);
  }

  public static MiniDFSCluster start(Configuration c, int dataNodes) throws Exception {
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(c).numDataNodes(dataNodes).build();
    cluster.waitActive();
    return cluster;
  }

  public static QueuedAuditLogger ourLogger(MiniDFSCluster cluster) {
    for (AuditLogger l : cluster.getNamesystem().getAuditLoggers()) {
      if (l instanceof QueuedAuditLogger) {
        return (QueuedAuditLogger) l;
      }
    }
    throw new AssertionError("nnaudit is not among the NameNode's audit loggers");
  }

  /** Sends the stock FSNamesystem.audit lines to a file, the way the stock RFAAUDIT appender does. */
  public static RollingFileAppender stockAuditLogTo(File f) {
    RollingFileAppender a = new RollingFileAppender();
    a.setName("test-RFAAUDIT");
    a.setFile(f.getPath());
    a.setEncoding("UTF-8");
    a.setLayout(new PatternLayout(STOCK_LAYOUT));
    a.setMaxFileSize("256MB");
    a.activateOptions();
    Logger audit = LogManager.getLogger(STOCK_AUDIT_LOGGER);
    audit.setLevel(Level.INFO);
    audit.setAdditivity(false);
    audit.addAppender(a);
    return a;
  }

  /**
   * As {@link #conf}, with nnaudit sealing {@code auditFile} with {@code key} (made in {@code keyDir}), files of
   * {@code maxSize}, {@code backups} kept, a seal every {@code interval} records.
   */
  public static Configuration sealedConf(File baseDir, File auditFile, io.nnaudit.seal.SealKeys.KeyFiles key,
      java.nio.file.Path keyDir, String maxSize, int backups, int interval) throws Exception {
    Configuration conf = conf(baseDir, auditFile, QueuedAuditLogger.class.getName());
    io.nnaudit.seal.SealKeys.enable(conf, key, keyDir);
    conf.set(io.nnaudit.config.NnauditConfigKeys.FILE_MAX_SIZE_KEY, maxSize);
    conf.setInt(io.nnaudit.config.NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, backups);
    conf.setInt(io.nnaudit.config.NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, interval);
    return conf;
  }
}
