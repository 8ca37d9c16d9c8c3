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
import io.nnaudit.seal.SealKeys;

/** A real NameNode (MiniDFSCluster, real RPC on 127.0.0.1) with nnaudit configured, for integration tests. */
public final class MiniClusterSupport {
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
    QueuedAuditLogger l = nnauditLogger(cluster);
    if (l == null) {
      throw new AssertionError("nnaudit is not among the NameNode's audit loggers");
    }
    return l;
  }

  /** The NameNode's nnaudit logger; null when {@code dfs.namenode.audit.loggers} does not name it. */
  static QueuedAuditLogger nnauditLogger(MiniDFSCluster cluster) {
    for (AuditLogger l : cluster.getNamesystem().getAuditLoggers()) {
      if (l instanceof QueuedAuditLogger) {
        return (QueuedAuditLogger) l;
      }
    }
    return null;
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
   * As {@link #conf}, with nnaudit sealing {@code auditFile} with {@code key} (its password's credential
   * provider beside it), files of {@code maxSize}, {@code backups} kept, a seal every {@code interval} records.
   */
  public static Configuration sealedConf(File baseDir, File auditFile, SealKeys.KeyFiles key, String maxSize,
      int backups, int interval) throws Exception {
    Configuration conf = conf(baseDir, auditFile, QueuedAuditLogger.class.getName());
    SealKeys.enable(conf, key);
    conf.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, maxSize);
    conf.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, backups);
    conf.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, interval);
    return conf;
  }
}
