package io.nnaudit;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * Run in a separate JVM by {@link CrashTest} and {@link SealedCrashTest}: a NameNode with nnaudit at a given
 * durability that serves RPC until it is killed with SIGKILL (or stopped with SIGTERM). Arguments: baseDir
 * auditFile durability ackPolicy [key=value ...], each {@code key=value} one more setting (the sealing keys, say).
 * Prints {@code READY port=N}.
 */
public final class CrashableNameNodeMain {
  private CrashableNameNodeMain() {
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = MiniClusterSupport.conf(new File(args[0]), new File(args[1]),
        QueuedAuditLogger.class.getName());
    conf.set(NnauditConfigKeys.DURABILITY_KEY, args[2]);
    conf.set(NnauditConfigKeys.ACK_POLICY_KEY, args[3]);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 16);
    for (int i = 4; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("not key=value: " + args[i]);
      }
      conf.set(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    MiniDFSCluster cluster = MiniClusterSupport.start(conf);
    System.out.println("READY port=" + cluster.getNameNodePort());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // serve until the test kills this JVM
  }
}
