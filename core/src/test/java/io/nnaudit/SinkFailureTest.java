package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;

/** Write and fsync errors injected in the real file sink, under both failure policies. */
class SinkFailureTest {
  @RegisterExtension
  final LoggerFixture audit =
      new LoggerFixture(c -> c.setLong(NnauditConfigKeys.FAILURE_RETRY_INTERVAL_MS_KEY, 20));

  @Test
  void failClosedRetriesAWriteUntilItSucceedsAndLosesNothing() throws Exception {
    QueuedAuditLogger l = audit.start();
    audit.sink().failNextWrites(3);
    for (int i = 0; i < 10; i++) {
      logCreate(l, "/r" + i);
    }
    assertTrue(l.pipeline().awaitWritten(30_000));
    AuditStats s = l.stats();
    assertEquals(3, s.sinkErrors, s.toString());
    assertEquals(0, s.dropped, s.toString());
    assertEquals(10, s.written, s.toString());
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(10, records.size(), "each record once: " + records);
    assertEquals(10, records.stream().distinct().count());
  }

  @Test
  void failClosedBlocksHandlersWhileTheDiskRefuses() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 2));
    audit.sink().failNextWrites(Integer.MAX_VALUE);
    Thread handler = new Thread(() -> {
      for (int i = 0; i < 10; i++) {
        logCreate(l, "/wait" + i);
      }
    });
    handler.start();
    awaitTrue("the queue to fill", 10_000, () -> l.stats().blockedWaits > 0);
    Thread.sleep(100); // proves a negative: the handler does not return in this time
    assertTrue(handler.isAlive(), "handlers wait while audit does not work");
    audit.sink().failNextWrites(0);
    handler.join(30_000);
    assertFalse(handler.isAlive());
    assertTrue(l.pipeline().awaitWritten(30_000));
    assertEquals(10, TestFiles.operationRecords(audit.file()).size());
    assertEquals(0, l.stats().dropped);
  }

  @Test
  void failOpenDropsCountsReportsAndResumesByItself() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-open"));
    audit.sink().failNextWrites(1);
    logCreate(l, "/lost");
    awaitTrue("the failed write", 10_000, () -> l.stats().sinkErrors == 1);
    logCreate(l, "/kept");
    assertTrue(l.pipeline().awaitWritten(30_000));
    AuditStats s = l.stats();
    assertEquals(1, s.dropped, s.toString());
    assertEquals(1, s.droppedAfterAcceptance, s.toString());
    assertEquals(1, s.written, s.toString());
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(1, records.size());
    assertTrue(records.get(0).contains("src=/kept\t"));
    List<String> drops = TestFiles.dropRecords(audit.file());
    assertEquals(1, drops.size(), drops.toString());
    assertTrue(drops.get(0).contains("\tcount=1\t"), drops.get(0));
  }

  @Test
  void aFailedFsyncIsRetriedAloneAndItsRecordIsNeverReportedDurable() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.set(NnauditConfigKeys.DURABILITY_KEY, "sync"));
    audit.sink().failNextForces(2);
    logCreate(l, "/unsure");
    assertTrue(audit.sink().forcedSrcs().contains("/unsure"), "the fsync was retried until it succeeded");
    assertEquals(2, l.stats().sinkErrors);
    assertEquals(1, l.stats().aborted, "the record whose fsync failed was not acknowledged as durable");
    assertEquals(1, l.stats().notDurable);
    logCreate(l, "/sure");
    assertEquals(1, l.stats().aborted, "a record written after a successful fsync is durable");
    assertEquals(2, TestFiles.operationRecords(audit.file()).size(), "no record was written twice");
  }

  @Test
  void failOpenUnderSyncReleasesTheHandler() throws Exception {
    QueuedAuditLogger l = audit.start(c -> {
      c.set(NnauditConfigKeys.DURABILITY_KEY, "sync");
      c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-open");
    });
    audit.sink().failNextWrites(1);
    logCreate(l, "/released");
    assertEquals(1, l.stats().dropped, "the handler returns, and the loss is counted");
    assertFalse(audit.sink().forcedSrcs().contains("/released"));
  }
}
