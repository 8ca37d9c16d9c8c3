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
 * kill -9 of a NameNode JVM in the middle of a mutation load, for each durability mode. The client keeps the
 * set of mkdirs that returned success; afterwards every one of them must have its record (sync), or the loss
 * is counted and bounded by what can be queued (none, batch). No power is cut here, so what reached write(2)
 * survives in every mode; the difference between the modes is the queue.
 */
class CrashTest {
  @TempDir
  Path dir;

  private static final int CLIENTS = 8;
  private static final int QUEUE = 16 * 16; // the child's queue: 16 slots for each of its 16 handlers

  @Test
  void syncLosesNoAcknowledgedOperation() throws Exception {
    long lost = crash("sync");
    assertEquals(0, lost, "sync: an acknowledged operation has no record");
  }

  @Test
  void batchLosesAtMostWhatWasQueued() throws Exception {
    long lost = crash("batch");
    assertTrue(lost <= 2 * QUEUE, "batch lost " + lost);
  }

  @Test
  void noneLosesAtMostWhatWasQueued() throws Exception {
    long lost = crash("none");
    assertTrue(lost <= 2 * QUEUE, "none lost " + lost);
  }

  /** Returns the acknowledged operations without a record. */
  private long crash(String durability) throws Exception {
    File audit = dir.resolve("audit-" + durability + ".log").toFile();
    Set<String> acked;
    try (ChildJvm nn = new ChildJvm(CrashableNameNodeMain.class, dir.resolve("nn-" + durability).toString(),
        audit.getPath(), durability)) {
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
    ReliabilityResults.record("kill -9 of the NameNode JVM mid-load", durability, acked.size(),
        acked.size() - lost, lost, "CrashTest", records.partialFiles == 0 ? "" : "file ended in 1 partial record");
    return lost;
  }
}
