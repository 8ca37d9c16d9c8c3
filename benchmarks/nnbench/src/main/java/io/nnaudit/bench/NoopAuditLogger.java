package io.nnaudit.bench;

import java.net.InetAddress;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hdfs.security.token.delegation.DelegationTokenSecretManager;
import org.apache.hadoop.hdfs.server.namenode.HdfsAuditLogger;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * An audit logger that does nothing: the {@code noop-logger} variant of {@code benchmarks/nn_compare.py}.
 * With any logger configured the NameNode itself pays for auditing before a logger sees the call (for a
 * call with a file status it builds a {@code Path} and a {@code FileStatus}; for every call it renders the
 * caller's UGI as text and looks up the caller context), which the {@code off} variant skips. This variant
 * measures that price, the floor that no audit logger can go below.
 */
public class NoopAuditLogger extends HdfsAuditLogger {
  @Override
  public void initialize(Configuration conf) {
  }

  @Override
  public void logAuditEvent(boolean succeeded, String userName, InetAddress addr, String cmd, String src,
      String dst, FileStatus stat, CallerContext callerContext, UserGroupInformation ugi,
      DelegationTokenSecretManager dtSecretManager) {
  }

  @Override
  public void logAuditEvent(boolean succeeded, String userName, InetAddress addr, String cmd, String src,
      String dst, FileStatus stat, UserGroupInformation ugi, DelegationTokenSecretManager dtSecretManager) {
  }
}
