package org.apache.hadoop.hdfs.server.namenode;

import java.net.InetAddress;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.ipc.CallerContext;

/**
 * Hadoop's own {@code FSNamesystem.FSNamesystemAuditLogger} (package-private, hence this package), asked for
 * the message it hands to log4j for one event, so tests compare against the stock code itself rather than a
 * copy of it. Outside an RPC call its {@code proto} is {@code null}.
 */
public final class StockAuditMessage {
  private StockAuditMessage() {
  }

  /** The stock message for an event, under the caller-context and tracking-id settings of {@code conf}. */
  public static String of(Configuration conf, boolean succeeded, String ugi, InetAddress addr, String cmd,
      String src, String dst, FileStatus stat, CallerContext ctx) {
    Capturing logger = new Capturing();
    logger.initialize(conf);
    logger.logAuditEvent(succeeded, ugi, addr, cmd, src, dst, stat, ctx, null, null);
    if (logger.message == null) {
      throw new IllegalStateException("the stock logger wrote nothing: is FSNamesystem.audit below INFO?");
    }
    return logger.message;
  }

  private static final class Capturing extends FSNamesystem.FSNamesystemAuditLogger {
    private String message;

    @Override
    public void logAuditMessage(String m) {
      message = m;
    }
  }
}
