package org.apache.hadoop.hdfs.server.namenode;

import java.util.function.Consumer;

import org.apache.hadoop.conf.Configuration;

/**
 * Hadoop's own audit logger, {@code FSNamesystem.FSNamesystemAuditLogger}, which is package-private: this class
 * sits in its package only to construct it. The benchmarks then run Hadoop's real code, not a copy of it: the
 * same escaping, the same StringBuilder, the same {@code AUDIT_LOG.info(String)} through SLF4J.
 */
public final class StockAuditLoggers {
  private StockAuditLoggers() {
  }

  /** The stock logger, writing through {@code FSNamesystem.AUDIT_LOG} (SLF4J, bound to reload4j in Hadoop). */
  public static HdfsAuditLogger hadoop(Configuration conf) {
    HdfsAuditLogger l = new FSNamesystem.FSNamesystemAuditLogger();
    l.initialize(conf);
    return l;
  }

  /**
   * The stock logger's formatting, with each finished line handed to {@code sink} instead of SLF4J: the same
   * line, another backend (log4j2 here).
   */
  public static HdfsAuditLogger hadoopFormatting(Configuration conf, Consumer<String> sink) {
    HdfsAuditLogger l = new FSNamesystem.FSNamesystemAuditLogger() {
      @Override
      public void logAuditMessage(String message) {
        sink.accept(message);
      }
    };
    l.initialize(conf);
    return l;
  }
}
