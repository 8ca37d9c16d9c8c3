package io.nnaudit.jmh;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.server.namenode.HdfsAuditLogger;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The one event every variant logs: a successful create by a Kerberos user from a remote host, with the new
 * file's status (owner, group, permission), proto and a Spark-style caller context with a signature. It is the
 * argument list FSNamesystem passes to {@code logAuditEvent} after a create, so every variant does the same
 * work per call; the line it makes is about 300 bytes.
 */
final class RealisticCreateEvent {
  static final String CMD = "create";
  static final String SRC = "/warehouse/tablespace/managed/hive/sales.db/orders/dt=2026-11-22/"
      + "part-00042-7d1c5e1a-0b7e-4f43-9d2c-5a1f0e6b8c3d.c000.snappy.parquet";
  /** The marker a record of this event holds, to count them in the file afterwards. */
  static final String RECORD_MARK = "\tcmd=create\tsrc=" + SRC + "\t";

  final String userName;
  final InetAddress addr;
  final FileStatus stat;
  final CallerContext callerContext;
  final UserGroupInformation ugi;

  RealisticCreateEvent() {
    // Simple authentication in this JVM; the caller's UGI still says Kerberos, as on a secure cluster.
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
    conf.set("hadoop.security.auth_to_local", "RULE:[2:$1](.*)\nDEFAULT");
    UserGroupInformation.setConfiguration(conf);
    ugi = UserGroupInformation.createRemoteUser("etl-svc/worker-17.example.com@EXAMPLE.COM",
        org.apache.hadoop.security.SaslRpcServer.AuthMethod.KERBEROS);
    userName = ugi.toString();
    try {
      addr = InetAddress.getByAddress(new byte[] {10, 20, 31, 47});
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
    stat = new FileStatus(0, false, 3, 128L << 20, 1_763_800_000_000L, 1_763_800_000_000L,
        new FsPermission((short) 0644), "etl-svc", "hadoop", new Path(SRC));
    callerContext = new CallerContext.Builder("SPARK_DRIVER_application_1763800000000_0042_JobId_17_StageId_3")
        .setSignature("sig-0042".getBytes(StandardCharsets.UTF_8)).build();
  }

  void logTo(HdfsAuditLogger logger) {
    logger.logAuditEvent(true, userName, addr, CMD, SRC, null, stat, callerContext, ugi, null);
  }
}
