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
import io.nnaudit.pipeline.AuditPipeline;
import io.nnaudit.pipeline.AuditStats;

/**
 * The last shutdown hook ({@link AuditPipeline#closeAtExit}), called here in order after the first one
 * ({@link AuditPipeline#shutdown}), as Hadoop's ShutdownHookManager calls them: it closes the file between two
 * handlers' direct writes, waits (boundedly) for a handler that is writing, and every handler after it is
 * refused, its operation answered with an error. The real order of a NameNode process under SIGTERM is
 * {@code SealedSignalStopTest}'s.
 */
class LastShutdownHookTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  @Test
  void afterTheLastHookNothingIsWrittenAndEveryOperationIsRefused() throws Exception {
    QueuedAuditLogger l = audit.start();
    logCreate(l, "/queued");
    assertTrue(l.pipeline().shutdown(), "the first hook drained and handed the file over");
    logCreate(l, "/direct");
    assertEquals(1, TestFiles.openHandles(audit.file()));

    assertTrue(l.pipeline().closeAtExit(), "the last hook closed the file");
    assertEquals(0, TestFiles.openHandles(audit.file()), "the file is closed");
    long bytes = audit.file().length();
    logCreate(l, "/too-late");

    AuditStats s = l.stats();
    assertEquals(1, s.writtenDirect, s.toString());
    assertEquals(1, s.aborted, "the late operation is answered with an error: " + s);
    assertEquals(1, s.dropped, "and counted: " + s);
    assertEquals(bytes, audit.file().length(), "nothing is written after the last hook");
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(2, records.size(), records.toString());
    assertFalse(l.pipeline().closeAtExit(), "a second call does nothing");
  }

  @Test
  void theLastHookWaitsForAHandlerWritingItsRecordThenClosesTheFile() throws Exception {
    QueuedAuditLogger l = audit.start();
    assertTrue(l.pipeline().shutdown());
    Thread handler = stuckHandler(l, "/in-flight");

    boolean[] closed = new boolean[1];
    Thread hook = new Thread(() -> closed[0] = l.pipeline().closeAtExit(), "last-hook");
    hook.start();
    awaitTrue("the last hook to wait for the write lock", 10_000,
        () -> hook.getState() == Thread.State.TIMED_WAITING);
    Thread.sleep(50); // proves a negative: the hook does not close the file under the handler
    assertTrue(hook.isAlive(), "the last hook waits for the handler's write");
    audit.sink().resume();
    handler.join(10_000);
    hook.join(10_000);
    assertFalse(hook.isAlive());
    assertTrue(closed[0], "the last hook closed the file after the handler's write");

    logCreate(l, "/after-close");
    AuditStats s = l.stats();
    assertEquals(1, s.writtenDirect, s.toString());
    assertEquals(1, s.aborted, s.toString());
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(1, records.size(), records.toString());
    assertTrue(records.get(0).contains("\tsrc=/in-flight\t"), records.get(0));
  }

  @Test
  void theLastHookWaitsNoLongerThanTheShutdownTimeout() throws Exception {
    QueuedAuditLogger l = audit.start(c -> c.setLong(NnauditConfigKeys.SHUTDOWN_TIMEOUT_MS_KEY, 300));
    assertTrue(l.pipeline().shutdown());
    Thread handler = stuckHandler(l, "/stuck");

    long start = System.nanoTime();
    assertFalse(l.pipeline().closeAtExit(), "a handler held in its write keeps the file from being closed");
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertTrue(tookMs >= 250 && tookMs < 5_000, "the wait ends at nnaudit.shutdown.timeout.ms: " + tookMs + " ms");

    audit.sink().resume();
    handler.join(10_000);
    assertFalse(handler.isAlive());
    logCreate(l, "/after");
    AuditStats s = l.stats();
    assertEquals(1, s.writtenDirect, "the held handler's record is written: " + s);
    assertEquals(1, s.aborted, "a handler after the last hook is refused all the same: " + s);
    List<String> records = TestFiles.operationRecords(audit.file());
    assertEquals(1, records.size(), records.toString());
  }

  /** close() of a pipeline gone direct ends the direct writes and closes the file, as the last hook does. */
  @Test
  void closeOfAPipelineGoneDirectClosesTheFile() throws Exception {
    QueuedAuditLogger l = audit.start();
    assertTrue(l.pipeline().shutdown());
    logCreate(l, "/direct");
    assertTrue(l.pipeline().close(10_000));
    assertEquals(0, TestFiles.openHandles(audit.file()), "the file is closed");
    logCreate(l, "/after-close");
    AuditStats s = l.stats();
    assertEquals(1, s.writtenDirect, s.toString());
    assertEquals(1, s.aborted, s.toString());
    assertEquals(1, TestFiles.operationRecords(audit.file()).size());
    assertFalse(l.pipeline().closeAtExit(), "the last hook finds nothing left to do");
  }

  /** A handler writing its own record, held inside the sink's write (and so holding the write lock). */
  private Thread stuckHandler(QueuedAuditLogger l, String src) throws InterruptedException {
    audit.sink().stall();
    Thread handler = new Thread(() -> logCreate(l, src), "handler");
    handler.start();
    awaitTrue("the handler to block in the sink", 10_000, () -> audit.sink().writersWaiting() == 1);
    return handler;
  }
}
