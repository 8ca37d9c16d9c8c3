package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URI;
import java.nio.file.Path;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a NameNode JVM in the middle of a mutation load. The client keeps the set of mkdirs that returned
 * success; afterwards every one of them must have its record under the default ack policy (write), whatever
 * the durability, because a response waits for the write(2) of its record and no power is cut here. Under the
 * opt-out (ack.policy=queue) the loss is measured and bounded by what can be queued.
 */
class CrashTest {
  @TempDir
  Path dir;

  private static final int CLIENTS = 8;
  private static final int QUEUE = 16 * 16; // the child's queue: 16 slots for each of its 16 handlers

  @Test
  void syncLosesNoAcknowledgedOperation() throws Exception {
    assertEquals(0, crash("sync", "write"), "sync: an acknowledged operation has no record");
  }

  @Test
  void batchLosesNoAcknowledgedOperation() throws Exception {
    assertEquals(0, crash("batch", "write"), "batch: an acknowledged operation has no record");
  }

  @Test
  void theDefaultLosesNoAcknowledgedOperation() throws Exception {
    assertEquals(0, crash("none", "write"), "none (the default): an acknowledged operation has no record");
  }

  /**
   * The opt-out: responses leave once queued, so the kill can take what was queued and the batch the writer
   * held, and no more: at most the queue's capacity plus one batch (of at most the queue's capacity).
   */
  @Test
  void ackPolicyQueueLosesAtMostTheQueueAndTheBatchInHand() throws Exception {
    long lost = crash("none", "queue");
    assertTrue(lost <= QUEUE + QUEUE, "ack.policy=queue lost " + lost);
  }

  /** Returns the acknowledged operations without a record. */
  private long crash(String durability, String ack) throws Exception {
    String mode = durability + (ack.equals("write") ? "" : ", ack.policy=" + ack);
    File audit = dir.resolve("audit-" + durability + "-" + ack + ".log").toFile();
    Set<String> acked;
    try (ChildJvm nn = new ChildJvm(CrashableNameNodeMain.class, dir.resolve("nn-" + durability + "-" + ack).toString(),
        audit.getPath(), durability, ack)) {
      String ready = nn.awaitLine("READY port=", 120_000);
      URI uri = URI.create("hdfs://127.0.0.1:" + ready.substring("READY port=".length()).trim());
      MkdirsLoad load = new MkdirsLoad(uri, CLIENTS, "/crash").start();
      try {
        load.awaitAcked(1500, 60_000);
        nn.kill(); // SIGKILL mid-load: no shutdown hook runs
      } finally {
        load.stop();
      }
      acked = load.acked();
    }
    assertTrue(acked.size() >= 1500, "the load ran: " + acked.size());
    AuditedMkdirs records = AuditedMkdirs.read(audit);
    long lost = records.missing(acked);
    ReliabilityResults.record("kill -9 of the NameNode JVM mid-load", mode, acked.size(),
        acked.size() - lost, lost, "CrashTest", records.partialFiles == 0 ? "" : "file ended in 1 partial record");
    return lost;
  }
}
