package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * durability=sync over real RPC: the response waits for the fsync, the handler does not. With one handler
 * and a stalled disk, a second client's call is still processed while the first one's response is held back.
 */
class MiniClusterSyncTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final GatedSinkReset gates = new GatedSinkReset();

  private static Thread mkdirs(MiniDFSCluster cluster, String path, AtomicBoolean done) {
    Thread t = new Thread(() -> {
      try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration(0))) {
        fs.mkdirs(new org.apache.hadoop.fs.Path(path));
        done.set(true);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    t.start();
    return t;
  }

  @Test
  void responsesWaitForTheFsyncWhileTheHandlerServesOtherCalls() throws Exception {
    File audit = dir.resolve("sync.log").toFile();
    Configuration conf = MiniClusterSupport.conf(dir.toFile(), audit, QueuedAuditLogger.class.getName());
    conf.set(NnauditConfigKeys.DURABILITY_KEY, "sync");
    conf.set(NnauditConfigKeys.SINK_KEY, GatedFileSink.class.getName());
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 1);
    MiniDFSCluster cluster = MiniClusterSupport.start(conf);
    try {
      QueuedAuditLogger logger = MiniClusterSupport.ourLogger(cluster);
      long base = logger.stats().accepted;
      GatedFileSink.stall();
      AtomicBoolean aDone = new AtomicBoolean();
      AtomicBoolean bDone = new AtomicBoolean();
      Thread a = mkdirs(cluster, "/sync/a", aDone);
      awaitTrue("a's event", 30_000, () -> logger.stats().accepted == base + 1);
      awaitTrue("the writer to block in the stalled sink", 30_000, () -> GatedFileSink.writersWaiting.get() == 1);
      Thread b = mkdirs(cluster, "/sync/b", bDone);
      // The only handler took b's call although a's response is still held back: the handler is free.
      awaitTrue("b's event, through the single handler", 30_000, () -> logger.stats().accepted == base + 2);
      Thread.sleep(200);
      assertFalse(aDone.get(), "a was acknowledged before its record was durable");
      assertFalse(bDone.get(), "b was acknowledged before its record was durable");
      GatedFileSink.resume();
      a.join(30_000);
      b.join(30_000);
      assertTrue(aDone.get() && bDone.get());
      assertTrue(GatedFileSink.forcedSrcs.contains("/sync/a"));
      assertTrue(GatedFileSink.forcedSrcs.contains("/sync/b"));
    } finally {
      cluster.shutdown();
    }
  }

  @Test
  void theResponseWaitsForTheFsyncNotJustTheWrite() throws Exception {
    File audit = dir.resolve("sync-force.log").toFile();
    Configuration conf = MiniClusterSupport.conf(dir.toFile(), audit, QueuedAuditLogger.class.getName());
    conf.set(NnauditConfigKeys.DURABILITY_KEY, "sync");
    conf.set(NnauditConfigKeys.SINK_KEY, GatedFileSink.class.getName());
    MiniDFSCluster cluster = MiniClusterSupport.start(conf);
    try {
      GatedFileSink.stallForces();
      AtomicBoolean done = new AtomicBoolean();
      Thread a = mkdirs(cluster, "/sync/forced", done);
      awaitTrue("the record to be written", 30_000, () -> GatedFileSink.writtenSrcs.contains("/sync/forced"));
      awaitTrue("the writer to wait in the stalled fsync", 30_000, () -> GatedFileSink.forcersWaiting.get() == 1);
      Thread.sleep(200);
      assertFalse(done.get(), "acknowledged after the write, before the fsync");
      GatedFileSink.resumeForces();
      a.join(30_000);
      assertTrue(done.get());
      assertTrue(GatedFileSink.forcedSrcs.contains("/sync/forced"));
    } finally {
      GatedFileSink.resumeForces();
      cluster.shutdown();
    }
  }
}
