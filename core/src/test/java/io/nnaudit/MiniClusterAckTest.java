package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;

/**
 * {@code nnaudit.ack.policy} over real RPC, with a disk the test can stall: under {@code write} (the default)
 * a response waits for the write of its record while other calls are served; under {@code queue} it
 * does not; and an event refused at {@code nnaudit.handler.max.wait.ms} answers its RPC with an error.
 */
class MiniClusterAckTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  @Test
  void byDefaultAResponseWaitsForTheWriteOfItsRecordWhileOtherCallsAreServed() throws Exception {
    Configuration conf = audit.clusterConf("ack-write.log");
    // Two handlers: a's handler finds no one writing and writes the queue itself, so the stalled disk holds
    // it; b's call is served by the other handler, which finds the write taken and leaves b's event queued.
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HANDLER_COUNT_KEY, 2);
    MiniDFSCluster cluster = audit.startCluster(conf);
    QueuedAuditLogger logger = MiniClusterSupport.ourLogger(cluster);
    long base = logger.stats().accepted;
    audit.sink().stall();
    MkdirsCall a = MkdirsCall.start(cluster.getURI(), "/ack/a");
    awaitTrue("the writer to block in the stalled sink", 30_000, () -> audit.sink().writersWaiting() == 1);
    MkdirsCall b = MkdirsCall.start(cluster.getURI(), "/ack/b");
    awaitTrue("b's event, through the other handler", 30_000, () -> logger.stats().accepted == base + 2);
    Thread.sleep(200); // proves a negative: no response leaves in this time while the disk is stalled
    assertFalse(a.done.get(), "a was acknowledged before its record was written");
    assertFalse(b.done.get(), "b was acknowledged before its record was written");
    audit.sink().resume();
    a.join(30_000);
    b.join(30_000);
    assertTrue(a.done.get() && b.done.get() && !a.failed.get() && !b.failed.get());
    assertTrue(audit.sink().writtenSrcs().containsAll(List.of("/ack/a", "/ack/b")));
  }

  @Test
  void withAckPolicyQueueAResponseDoesNotWaitForTheWrite() throws Exception {
    Configuration conf = audit.clusterConf("ack-queue.log");
    conf.set(NnauditConfigKeys.ACK_POLICY_KEY, "queue");
    MiniDFSCluster cluster = audit.startCluster(conf);
    audit.sink().stall();
    MkdirsCall a = MkdirsCall.start(cluster.getURI(), "/ack/queued");
    a.join(30_000);
    assertTrue(a.done.get(), "acknowledged while its record waits in the queue");
    assertFalse(audit.sink().writtenSrcs().contains("/ack/queued"));
  }

  @Test
  void anEventRefusedAtTheWaitBoundAnswersItsRpcWithAnErrorNeverSuccess() throws Exception {
    Configuration conf = audit.clusterConf("ack-refused.log");
    conf.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1);
    conf.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 1);
    conf.setLong(NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY, 300);
    MiniDFSCluster cluster = audit.startCluster(conf);
    QueuedAuditLogger logger = MiniClusterSupport.ourLogger(cluster);
    int clients = 6;
    Set<String> acked = ConcurrentHashMap.newKeySet();
    AtomicInteger errors = new AtomicInteger();
    audit.sink().stall(); // one event in the writer's hand, one in the queue, the rest wait and are refused
    List<MkdirsCall> calls = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      calls.add(MkdirsCall.start(cluster.getURI(), "/refused/" + c));
    }
    awaitTrue("refusals", 30_000, () -> logger.stats().aborted >= clients - 2);
    audit.sink().resume();
    for (int c = 0; c < clients; c++) {
      calls.get(c).join(60_000);
      if (calls.get(c).done.get()) {
        acked.add("/refused/" + c);
      }
      if (calls.get(c).failed.get()) {
        errors.incrementAndGet();
      }
    }
    audit.sink().resume();
    cluster.shutdown();
    assertTrue(logger.pipeline().close(30_000));
    AuditStats s = logger.stats();
    assertEquals(clients - 2, s.aborted, s.toString());
    assertEquals(clients - 2, errors.get(), "every refused operation was answered with an error");
    assertEquals(2, acked.size(), "only the operations whose records were written were acknowledged");
    assertTrue(audit.sink().writtenSrcs().containsAll(acked), "every acknowledged operation has its record");
  }
}
