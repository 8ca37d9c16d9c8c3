package io.nnaudit;

import static io.nnaudit.AuditTestSupport.conf;
import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.nnaudit.sink.DiscardingSink;
import io.nnaudit.sink.SinkContext;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * A re-initialize with new settings replaces the pipeline of an audit file while handlers keep logging, under
 * BLOCK: no event may be dropped in the swap, and a replacement whose sink cannot start must not leave the
 * slot with a closed pipeline.
 */
class ReinitializeSwapTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  /** A sink class whose constructor always fails, as a sink that cannot open its destination. */
  public static final class BrokenSink extends DiscardingSink {
    public BrokenSink(SinkContext context) {
      throw new IllegalArgumentException("nnaudit: invalid value for nnaudit.sink: 'broken'. Allowed: a sink "
          + "that opens");
    }
  }

  private static List<Thread> logging(QueuedAuditLogger l, int threads, AtomicBoolean stop, AtomicInteger calls) {
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int id = t;
      Thread th = new Thread(() -> {
        for (int i = 0; !stop.get(); i++) {
          logCreate(l, "/swap/t" + id + "/" + i);
          calls.incrementAndGet();
        }
      });
      ts.add(th);
      th.start();
    }
    return ts;
  }

  /** Waits until the load has made {@code n} more calls: a swap, and the end, happen under load. */
  private static void awaitCalls(AtomicInteger calls, int n) throws InterruptedException {
    int from = calls.get();
    AuditTestSupport.awaitTrue(n + " more calls", 30_000, () -> calls.get() >= from + n);
  }

  @Test
  void swappingSettingsUnderLoadDropsNothing() throws Exception {
    File file = audit.file();
    Configuration first = conf(file);
    first.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 16);
    QueuedAuditLogger l = audit.start(first);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger calls = new AtomicInteger();
    List<Thread> ts = logging(l, 4, stop, calls);
    for (int swap = 0; swap < 6; swap++) {
      awaitCalls(calls, 100);
      Configuration next = conf(file);
      next.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 16);
      next.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 100 + swap); // different settings: a swap
      audit.start(next);
    }
    awaitCalls(calls, 100);
    stop.set(true);
    for (Thread t : ts) {
      t.join(30_000);
    }
    assertTrue(l.pipeline().close(30_000));
    List<String> records = TestFiles.operationRecords(file);
    Set<String> srcs = new HashSet<>();
    for (String r : records) {
      int at = r.indexOf("\tsrc=");
      srcs.add(r.substring(at + 5, r.indexOf('\t', at + 5)));
    }
    assertEquals(calls.get(), records.size(), "one record per call, across six swaps");
    assertEquals(calls.get(), srcs.size(), "each exactly once");
    assertEquals(0, l.stats().dropped, l.stats().toString());
  }

  @Test
  void aReplacementWhoseSinkCannotStartLeavesAWorkingPipeline() throws Exception {
    File file = audit.file();
    QueuedAuditLogger l = audit.start(conf(file));
    logCreate(l, "/before");
    Configuration broken = conf(file);
    broken.set(NnauditConfigKeys.SINK_KEY, BrokenSink.class.getName());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new QueuedAuditLogger().initialize(broken));
    assertTrue(e.getMessage().startsWith("nnaudit: invalid value for nnaudit.sink"), e.getMessage());
    assertTrue(l.pipeline().isOpen(), "the slot holds an open pipeline");
    logCreate(l, "/after");
    assertTrue(l.pipeline().close(30_000));
    assertEquals(0, l.stats().dropped, l.stats().toString());
    assertEquals(2, TestFiles.operationRecords(file).size(), "the events around the failed swap are written");
  }
}
