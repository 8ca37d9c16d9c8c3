package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.nnaudit.config.NnauditConfigKeys;

/** The four durability modes, observed through a real file sink that records each fsync. */
class DurabilityTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  /** A logger with {@code nnaudit.durability=durability}, and {@code settings}. */
  private QueuedAuditLogger start(String durability, Consumer<Configuration> settings) {
    return audit.start(c -> {
      c.set(NnauditConfigKeys.DURABILITY_KEY, durability);
      settings.accept(c);
    });
  }

  private QueuedAuditLogger start(String durability) {
    return start(durability, c -> { });
  }

  @Test
  void noneNeverFsyncs() throws Exception {
    QueuedAuditLogger l = start("none");
    for (int i = 0; i < 20; i++) {
      logCreate(l, "/n" + i);
    }
    assertTrue(l.pipeline().awaitWritten(30_000));
    Thread.sleep(200); // several idle loops: none must not fsync there either
    assertEquals(0, audit.sink().forces());
  }

  @Test
  void batchFsyncsAfterEveryWrite() throws Exception {
    QueuedAuditLogger l = start("batch");
    for (int i = 0; i < 20; i++) {
      logCreate(l, "/b" + i);
    }
    assertTrue(l.pipeline().awaitWritten(30_000));
    awaitTrue("the last fsync", 10_000,
        () -> audit.sink().forces() == audit.sink().recordsPerWrite().size());
    assertEquals(20, audit.sink().forcedSrcs().size());
  }

  @Test
  void intervalFsyncsEveryNRecords() throws Exception {
    QueuedAuditLogger l = start("interval", c -> {
      c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 100);
      c.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 5);
      c.setInt(NnauditConfigKeys.DURABILITY_INTERVAL_RECORDS_KEY, 10);
      c.setLong(NnauditConfigKeys.DURABILITY_INTERVAL_MS_KEY, 3_600_000L);
    });
    audit.stallWriter(l, "/first");
    for (int i = 0; i < 29; i++) {
      logCreate(l, "/i" + i);
    }
    audit.sink().resume();
    assertTrue(l.pipeline().awaitWritten(30_000));
    // Writes of 1, 5, 5, 5, 5, 5, 4 records: an fsync once 10 have gathered (after 11, 21), none for the rest.
    assertEquals(List.of(1, 5, 5, 5, 5, 5, 4), audit.sink().recordsPerWrite());
    assertEquals(2, audit.sink().forces());
  }

  @Test
  void intervalFsyncsWithinTheTimeBoundWhenIdle() throws Exception {
    QueuedAuditLogger l = start("interval", c -> {
      c.setLong(NnauditConfigKeys.DURABILITY_INTERVAL_MS_KEY, 100);
      c.setInt(NnauditConfigKeys.DURABILITY_INTERVAL_RECORDS_KEY, 1_000_000);
    });
    logCreate(l, "/lonely");
    // Far fewer records than the count bound: only the time bound can cause this fsync.
    awaitTrue("the time-bound fsync", 10_000, () -> audit.sink().forcedSrcs().contains("/lonely"));
    assertEquals(1, audit.sink().forces());
  }

  @Test
  void syncReturnsOnlyOnceTheRecordIsFsyncedAndSharesFsyncs() throws Exception {
    QueuedAuditLogger l = start("sync", c -> c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 64));
    audit.sink().delayForces(5); // a disk whose fsync costs 5 ms
    int threads = 16;
    int each = 40;
    AtomicInteger notDurableOnReturn = new AtomicInteger();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int id = t;
      Thread th = new Thread(() -> {
        for (int i = 0; i < each; i++) {
          String src = "/s" + id + "-" + i;
          logCreate(l, src);
          if (!audit.sink().forcedSrcs().contains(src)) {
            notDurableOnReturn.incrementAndGet();
          }
        }
      });
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) {
      th.join();
    }
    assertEquals(0, notDurableOnReturn.get(), "a call returned before its record was fsynced");
    int calls = threads * each;
    assertEquals(calls, audit.sink().forcedSrcs().size());
    int forces = audit.sink().forces();
    assertTrue(forces < calls / 2, "group commit: " + forces + " fsyncs for " + calls + " records");
    assertEquals(calls, TestFiles.operationRecords(audit.file()).size());
  }

  @Test
  void syncWaitsThroughAStalledDiskAndAnInterrupt() throws Exception {
    QueuedAuditLogger l = start("sync");
    audit.sink().stall();
    boolean[] flagAfter = new boolean[1];
    Thread handler = new Thread(() -> {
      logCreate(l, "/patient");
      flagAfter[0] = Thread.currentThread().isInterrupted();
    });
    handler.start();
    awaitTrue("the writer to block in the sink", 10_000, () -> audit.sink().writersWaiting() == 1);
    handler.interrupt();
    Thread.sleep(50); // proves a negative: the interrupted handler does not return in this time
    assertTrue(handler.isAlive(), "the operation must not be acknowledged before its record is durable");
    audit.sink().resume();
    handler.join(30_000);
    assertFalse(handler.isAlive());
    assertTrue(flagAfter[0]);
    assertTrue(audit.sink().forcedSrcs().contains("/patient"));
  }
}
