package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.config.NnauditConfigKeys;

/**
 * durability=sync over real RPC: the response waits for the fsync, the handler does not. With one handler
 * and a stalled disk, a second client's call is still processed while the first one's response is held back.
 */
class MiniClusterSyncTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  /** durability=sync, into the fixture's {@link GatedFileSink}. */
  private Configuration conf(String name) {
    Configuration conf = audit.clusterConf(name);
    conf.set(NnauditConfigKeys.DURABILITY_KEY, "sync");
    return conf;
  }

  @Test
  void responsesWaitForTheFsyncWhileTheHandlerServesOtherCalls() throws Exception {
    Configuration conf = conf("sync.log");
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 1);
    MiniDFSCluster cluster = audit.startCluster(conf);
    QueuedAuditLogger logger = MiniClusterSupport.ourLogger(cluster);
    long base = logger.stats().accepted;
    audit.sink().stall();
    MkdirsCall a = MkdirsCall.start(cluster.getURI(), "/sync/a");
    awaitTrue("a's event", 30_000, () -> logger.stats().accepted == base + 1);
    awaitTrue("the writer to block in the stalled sink", 30_000, () -> audit.sink().writersWaiting() == 1);
    MkdirsCall b = MkdirsCall.start(cluster.getURI(), "/sync/b");
    // The only handler took b's call although a's response is still held back: the handler is free.
    awaitTrue("b's event, through the single handler", 30_000, () -> logger.stats().accepted == base + 2);
    Thread.sleep(200); // proves a negative: no response leaves in this time while the disk is stalled
    assertFalse(a.done.get(), "a was acknowledged before its record was durable");
    assertFalse(b.done.get(), "b was acknowledged before its record was durable");
    audit.sink().resume();
    a.join(30_000);
    b.join(30_000);
    assertTrue(a.done.get() && b.done.get());
    assertTrue(audit.sink().forcedSrcs().contains("/sync/a"));
    assertTrue(audit.sink().forcedSrcs().contains("/sync/b"));
  }

  @Test
  void theResponseWaitsForTheFsyncNotJustTheWrite() throws Exception {
    Configuration conf = conf("sync-force.log");
    MiniDFSCluster cluster = audit.startCluster(conf);
    audit.sink().stallForces();
    MkdirsCall a = MkdirsCall.start(cluster.getURI(), "/sync/forced");
    awaitTrue("the record to be written", 30_000, () -> audit.sink().writtenSrcs().contains("/sync/forced"));
    awaitTrue("the writer to wait in the stalled fsync", 30_000, () -> audit.sink().forcersWaiting() == 1);
    Thread.sleep(200); // proves a negative: the response does not leave in this time while the fsync is stalled
    assertFalse(a.done.get(), "acknowledged after the write, before the fsync");
    audit.sink().resumeForces();
    a.join(30_000);
    assertTrue(a.done.get());
    assertTrue(audit.sink().forcedSrcs().contains("/sync/forced"));
  }
}
