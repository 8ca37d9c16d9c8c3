package io.nnaudit.bench;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Properties;

import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.apache.log4j.PropertyConfigurator;

/**
 * Hadoop's own audit log, {@code FSNamesystem.audit}: one log4j logger for the whole JVM, so its level is set
 * for each NameNode's turn (INFO while the stock NameNode runs, WARN otherwise).
 */
final class StockAuditLog {
  static final String AUDIT_LOG = "org.apache.hadoop.hdfs.server.namenode.FSNamesystem.audit";

  private StockAuditLog() {
  }

  /**
   * Hadoop's audit log as its {@code etc/hadoop/log4j.properties} defines it ({@code RFAAUDIT}: a synchronous
   * RollingFileAppender, the stock layout, 256 MB × 20 files), writing to {@code file}. The logger's level stays
   * as it is: {@link #setLevel} turns it on and off.
   */
  static void attach(File file) throws IOException {
    Files.createDirectories(file.getAbsoluteFile().getParentFile().toPath());
    Properties p = new Properties();
    p.setProperty("log4j.logger." + AUDIT_LOG, "WARN,RFAAUDIT");
    p.setProperty("log4j.additivity." + AUDIT_LOG, "false");
    p.setProperty("log4j.appender.RFAAUDIT", "org.apache.log4j.RollingFileAppender");
    p.setProperty("log4j.appender.RFAAUDIT.File", file.getAbsolutePath());
    p.setProperty("log4j.appender.RFAAUDIT.layout", "org.apache.log4j.PatternLayout");
    p.setProperty("log4j.appender.RFAAUDIT.layout.ConversionPattern", "%d{ISO8601} %p %c{2}: %m%n");
    p.setProperty("log4j.appender.RFAAUDIT.MaxFileSize", "256MB");
    p.setProperty("log4j.appender.RFAAUDIT.MaxBackupIndex", "20");
    PropertyConfigurator.configure(p);
  }

  /** FSNamesystem.audit's level, set explicitly (NNThroughputBenchmark sets FSNamesystem's, its parent). */
  static void setLevel(Level level) {
    Logger.getLogger(AUDIT_LOG).setLevel(level);
  }
}
