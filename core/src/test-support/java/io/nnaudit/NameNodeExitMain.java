package io.nnaudit;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;

/**
 * Run in a separate JVM by {@link ShutdownHookTest}: a NameNode with nnaudit and a slow disk serves a burst of
 * mkdirs, then the process exits with System.exit while audit events are still queued: the NameNode is not
 * shut down and no nnaudit method is called. Arguments: baseDir auditFile operations.
 */
public final class NameNodeExitMain {
  private NameNodeExitMain() {
  }

  public static void main(String[] args) throws Exception {
    File base = new File(args[0]);
    File audit = new File(args[1]);
    int ops = Integer.parseInt(args[2]);
    Configuration conf = MiniClusterSupport.conf(base, audit, QueuedAuditLogger.class.getName());
    conf.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, ops + 100);
    conf.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 10);
    GatedFileSink sink = new GatedFileSink();
    sink.installIn(conf); // the NameNode creates its logger by class name; this JVM exits without uninstalling
    conf.set(NnauditConfigKeys.ACK_POLICY_KEY, "queue"); // acknowledged while queued: the hook must drain them
    MiniDFSCluster cluster = MiniClusterSupport.start(conf);
    FileSystem fs = cluster.getFileSystem();
    sink.delayWrites(20); // ~500 records/s: the burst outruns the writer
    int acked = 0;
    for (int i = 0; i < ops; i++) {
      if (fs.mkdirs(new Path("/exit/d" + i))) {
        acked++;
      }
    }
    AuditStats s = MiniClusterSupport.ourLogger(cluster).stats();
    System.out.println("ACKED " + acked + " written-at-exit=" + s.written);
    System.out.flush();
    System.exit(0);
  }
}
