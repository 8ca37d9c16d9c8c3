package io.nnaudit.pipeline;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.conf;
import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.LoggerFixture;
import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * The queue is bounded in bytes as well as in events: hostile multi-kilobyte paths fill it by bytes long
 * before they fill it by count, and the full-queue policy then applies as usual.
 */
class QueueByteBudgetTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  private static final int BUDGET = 64 * 1024;

  private static String bigPath(String name) {
    return "/" + name + "/" + String.join("", Collections.nCopies(20_000, "x")); // 40 KB on the heap
  }

  private Configuration budgeted(File file, String policy) {
    Configuration c = conf(file);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1000);
    c.setLong(NnauditConfigKeys.QUEUE_CAPACITY_BYTES_KEY, BUDGET);
    c.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, policy);
    return c;
  }

  @Test
  void aQueueFullByBytesDropsUnderDrop() throws Exception {
    File file = audit.file("drop.log");
    QueuedAuditLogger l = audit.start(budgeted(file, "DROP"));
    audit.stallWriter(l, "/stall");
    for (int i = 0; i < 10; i++) {
      logCreate(l, bigPath("d" + i));
    }
    AuditStats s = l.stats();
    assertEquals(2, s.accepted, "the stalled event and one 40 KB event fit in 64 KiB: " + s);
    assertEquals(9, s.dropped, s.toString());
    long held = l.pipeline().queuedBytes();
    assertTrue(held > 40_000 && held <= BUDGET, "bytes held: " + held);
    audit.sink().resume();
    assertTrue(l.pipeline().awaitWritten(30_000));
    assertEquals(2, TestFiles.operationRecords(file).size());
    awaitTrue("the budget to be given back", 10_000, () -> l.pipeline().queuedBytes() == 0);
  }

  @Test
  void aQueueFullByBytesMakesHandlersWaitUnderBlockAndLosesNothing() throws Exception {
    File file = audit.file("block.log");
    QueuedAuditLogger l = audit.start(budgeted(file, "BLOCK"));
    audit.stallWriter(l, "/stall");
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      final int id = t;
      Thread th = new Thread(() -> logCreate(l, bigPath("b" + id)));
      ts.add(th);
      th.start();
    }
    awaitTrue("handlers waiting for bytes", 10_000, () -> l.stats().blockedWaits >= 3);
    assertEquals(2, l.stats().accepted, "one 40 KB event fits beside the stalled one");
    audit.sink().resume();
    for (Thread th : ts) {
      th.join(30_000);
    }
    assertTrue(l.pipeline().awaitWritten(30_000));
    AuditStats s = l.stats();
    assertEquals(5, s.accepted, s.toString());
    assertEquals(0, s.dropped, s.toString());
    assertEquals(5, TestFiles.operationRecords(file).size());
  }

  @Test
  void anEventLargerThanTheWholeBudgetIsStillLetIn() throws Exception {
    File file = audit.file("huge.log");
    QueuedAuditLogger l = audit.start(budgeted(file, "DROP"));
    logCreate(l, "/huge/" + String.join("", Collections.nCopies(100_000, "y")));
    assertTrue(l.pipeline().awaitWritten(30_000));
    assertEquals(1, l.stats().accepted, l.stats().toString());
    assertEquals(1, TestFiles.operationRecords(file).size());
  }
}
