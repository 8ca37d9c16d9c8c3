package org.apache.hadoop.hdfs.server.namenode;

/**
 * Whether a NameNode audits its calls at all: {@code FSNamesystem#isAuditEnabled} (package-private, hence
 * this package). It is false when Hadoop's own logger is the only audit logger and its log4j logger
 * ({@code FSNamesystem.audit}) is not at INFO; FSNamesystem then builds no audit event and calls no logger.
 */
public final class AuditSwitch {
  private AuditSwitch() {
  }

  public static boolean isAuditEnabled(FSNamesystem namesystem) {
    return namesystem.isAuditEnabled();
  }
}
