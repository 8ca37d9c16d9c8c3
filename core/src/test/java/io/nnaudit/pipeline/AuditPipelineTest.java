package io.nnaudit.pipeline;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.LoggerFixture;
import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.QueueFullPolicy;

/** The queue, the two overflow policies, batching and the writer's survival, against real files. */
class AuditPipelineTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  private static Thread[] run(int threads, int callsEach, Runnable perCall) {
    Thread[] ts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      ts[t] = new Thread(() -> {
        for (int i = 0; i < callsEach; i++) {
          perCall.run();
        }
      }, "client-" + t);
      ts[t].start();
    }
    return ts;
  }

  @Test
  void blockUnderSaturationLosesNothing() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 4));
    audit.sink().delayWrites(1); // a slow disk: the 8 producers outrun the writer
    int threads = 8;
    int each = 400;
    Thread[] ts = run(threads, each, () -> logCreate(l, "/f-" + Thread.currentThread().getName()));
    for (Thread t : ts) {
      t.join();
    }
    assertTrue(l.pipeline().awaitWritten(30_000));
    AuditStats s = l.stats();
    assertEquals(threads * each, s.accepted, s.toString());
    assertEquals(0, s.dropped, s.toString());
    assertEquals(threads * each, s.written, s.toString());
    assertTrue(s.blockedWaits > 0, "producers should have found the queue full: " + s);
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(threads * each, records.size());
    for (int t = 0; t < threads; t++) {
      String src = "src=/f-client-" + t + "\t";
      assertEquals(each, records.stream().filter(r -> r.contains(src)).count(), src);
    }
  }

  @Test
  void dropNeverWaitsCountsExactlyAndReportsInTheFile() throws Exception {
    QueuedAuditLogger l = audit.start(c -> {
      c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 4);
      c.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP");
    });
    audit.stallWriter(l, "/stall");
    int threads = 8;
    int each = 250;
    Thread[] ts = run(threads, each, () -> logCreate(l, "/d"));
    for (Thread t : ts) {
      t.join(60_000);
      assertFalse(t.isAlive(), "a DROP call waited for the stalled sink");
    }
    assertEquals(1, audit.sink().writersWaiting(), "the sink was stalled the whole time");
    int calls = threads * each + 1;
    AuditStats stalled = l.stats();
    assertEquals(calls, stalled.accepted + stalled.dropped, stalled.toString());
    assertEquals(5, stalled.accepted, "one in the writer's hands and four queued: " + stalled);
    assertEquals(0, stalled.blockedWaits);

    audit.sink().resume();
    assertTrue(l.pipeline().awaitWritten(30_000));
    TestFiles.awaitDropRecord(audit.file());
    List<String> drops = TestFiles.dropRecords(audit.file());
    assertEquals(1, drops.size(), drops.toString());
    Matcher m = Pattern.compile(" WARN FSNamesystem\\.audit: nnaudit=dropped\tcount=(\\d+)\tfrom=[-0-9 :,]{23}"
        + "\tto=[-0-9 :,]{23}\ttotal=(\\d+)$").matcher(drops.get(0));
    assertTrue(m.find(), drops.get(0));
    assertEquals(stalled.dropped, Long.parseLong(m.group(1)));
    assertEquals(stalled.dropped, Long.parseLong(m.group(2)));
    assertEquals(stalled.accepted, TestFiles.operationRecords(audit.file()).size());
  }

  @Test
  void writerTakesEverythingQueuedAsOneBatchWithOneWrite() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 100));
    audit.stallWriter(l, "/stall");
    for (int i = 0; i < 50; i++) {
      logCreate(l, "/b" + i);
    }
    audit.sink().resume();
    assertTrue(l.pipeline().awaitWritten(30_000));
    assertEquals(Arrays.asList(1, 50), audit.sink().recordsPerWrite());
    assertEquals(51, TestFiles.operationRecords(audit.file()).size());
  }

  @Test
  void batchesAreBoundedByTheBatchMax() throws Exception {
    QueuedAuditLogger l = audit.start(c -> {
      c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 100);
      c.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 16);
    });
    audit.stallWriter(l, "/stall");
    for (int i = 0; i < 50; i++) {
      logCreate(l, "/b" + i);
    }
    audit.sink().resume();
    assertTrue(l.pipeline().awaitWritten(30_000));
    assertEquals(Arrays.asList(1, 16, 16, 16, 2), audit.sink().recordsPerWrite());
    List<String> records = TestFiles.operationRecords(audit.file());
    for (int i = 0; i < 50; i++) {
      assertTrue(records.get(i + 1).contains("\tsrc=/b" + i + "\t"), "queue order is kept: " + records.get(i + 1));
    }
  }

  @Test
  void poisonEventsAreSkippedAndCountedAndTheWriterGoesOn() throws Exception {
    QueuedAuditLogger l = audit.start();
    FileStatus throwsOnCapture = new FileStatus() {
      @Override
      public String getOwner() {
        throw new IllegalStateException("poison getter");
      }
    };
    FsPermission throwsOnFormat = new FsPermission((short) 0644) {
      @Override
      public String toString() {
        throw new IllegalStateException("poison toString");
      }
    };
    FileStatus poisonOnWriter = new FileStatus(0, false, 1, 1, 1, 1, throwsOnFormat, "o", "g", null);

    logCreate(l, "/before");
    l.logAuditEvent(true, "u", null, "create", "/p1", null, throwsOnCapture, null, null, null);
    l.logAuditEvent(true, "u", null, "create", "/p2", null, poisonOnWriter, null, null, null);
    logCreate(l, "/after");
    assertTrue(l.pipeline().awaitWritten(30_000));
    AuditStats s = l.stats();
    assertEquals(1, s.captureFailed, s.toString());
    assertEquals(1, s.writeFailed, s.toString());
    assertEquals(2, s.written, s.toString());
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(2, records.size(), records.toString());
    assertTrue(records.get(0).contains("src=/before\t"));
    assertTrue(records.get(1).contains("src=/after\t"));
  }

  @Test
  void blockedHandlerKeepsWaitingThroughAnInterruptAndKeepsTheFlag() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1));
    audit.stallWriter(l, "/stall");
    logCreate(l, "/fills-the-queue");
    boolean[] flagAfter = new boolean[1];
    Throwable[] thrown = new Throwable[1];
    Thread handler = new Thread(() -> {
      try {
        logCreate(l, "/waits");
        flagAfter[0] = Thread.currentThread().isInterrupted();
      } catch (Throwable t) {
        thrown[0] = t;
      }
    });
    handler.start();
    awaitTrue("the handler to wait", 10_000, () -> l.stats().blockedWaits == 1);
    handler.interrupt();
    Thread.sleep(50); // proves a negative: the interrupted handler does not return in this time
    assertTrue(handler.isAlive(), "an interrupt must not end a BLOCK wait");
    audit.sink().resume();
    handler.join(30_000);
    assertFalse(handler.isAlive());
    assertEquals(null, thrown[0]);
    assertTrue(flagAfter[0], "the interrupt flag is restored for the caller");
    assertTrue(l.pipeline().awaitWritten(30_000));
    assertEquals(3, TestFiles.operationRecords(audit.file()).size());
  }

  /**
   * After the shutdown hook handed the file over, a handler writes its own record: an interrupt flag it
   * arrives with neither refuses the record nor closes the file, and is there again when it returns.
   */
  @Test
  void afterTheHandOverAnInterruptedHandlerWritesItsRecordAndKeepsTheFlag() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.set(NnauditConfigKeys.ACK_POLICY_KEY, "write"));
    logCreate(l, "/before");
    assertTrue(l.pipeline().shutdown(), "the hook drained and handed the file over");
    boolean[] flagAfter = new boolean[1];
    Thread handler = new Thread(() -> {
      Thread.currentThread().interrupt();
      logCreate(l, "/after-hand-over");
      flagAfter[0] = Thread.currentThread().isInterrupted();
    });
    handler.start();
    handler.join(30_000);
    assertFalse(handler.isAlive());
    assertTrue(flagAfter[0], "the interrupt flag is restored for the caller");
    assertEquals(0, l.stats().aborted, l.stats().toString());
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(2, records.size(), records.toString());
    assertTrue(records.get(1).contains("\tsrc=/after-hand-over\t"), records.get(1));
  }

  @Test
  void closeDrainsEverythingAcceptedAndLaterEventsAreCountedAsDropped() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 64));
    audit.stallWriter(l, "/stall");
    for (int i = 0; i < 60; i++) {
      logCreate(l, "/c" + i);
    }
    boolean[] closedInTime = new boolean[1];
    Thread closer = new Thread(() -> closedInTime[0] = l.pipeline().close(30_000));
    closer.start();
    awaitTrue("the pipeline to close", 10_000, () -> !l.pipeline().isOpen());
    logCreate(l, "/too-late");
    audit.sink().resume();
    closer.join();
    assertTrue(closedInTime[0]);
    AuditStats s = l.stats();
    assertEquals(61, s.accepted);
    assertEquals(61, s.written);
    assertEquals(1, s.dropped);
    assertEquals(61, TestFiles.operationRecords(audit.file()).size());
    assertEquals(1, TestFiles.dropRecords(audit.file()).size(), "the late event is reported before the file closes");

    // After the writer has exited: refused, counted, and its operation not acknowledged as audited.
    long fileBytes = audit.file().length();
    logCreate(l, "/after-exit");
    AuditStats after = l.stats();
    assertEquals(2, after.dropped, after.toString());
    assertEquals(2, after.aborted, "both late events were refused, not acknowledged: " + after);
    assertEquals(61, after.written);
    assertEquals(fileBytes, audit.file().length(), "nothing is written to a closed file");
  }

  @Test
  void repeatedInitializeSharesOneWriterAndOneFileHandle() throws Exception {
    QueuedAuditLogger first = audit.start();
    for (int i = 0; i < 4; i++) {
      audit.start();
    }
    assertEquals(1, writerThreads(), "one writer for one file");
    assertEquals(1, TestFiles.openHandles(audit.file()), "one open file handle");

    // New settings for the same file replace the pipeline; the first logger follows the swap.
    QueuedAuditLogger second = audit.start(c -> c.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP"));
    awaitTrue("the old writer to end", 10_000, () -> writerThreads() == 1);
    assertEquals(1, TestFiles.openHandles(audit.file()));
    logCreate(first, "/from-first");
    logCreate(second, "/from-second");
    assertTrue(second.pipeline().awaitWritten(30_000));
    assertEquals(2, TestFiles.operationRecords(audit.file()).size());
    assertEquals(QueueFullPolicy.DROP, first.pipeline().settings().queueFullPolicy());
  }

  private long writerThreads() {
    Set<Thread> all = new HashSet<>(Thread.getAllStackTraces().keySet());
    return all.stream().filter(t -> t.isAlive() && t.getName().equals("nnaudit-writer[audit.log]")).count();
  }
}
