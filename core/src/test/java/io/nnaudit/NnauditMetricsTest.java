package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.conf;
import static io.nnaudit.AuditTestSupport.logCreate;
import static org.apache.hadoop.test.MetricsAsserts.assertCounter;
import static org.apache.hadoop.test.MetricsAsserts.assertCounterGt;
import static org.apache.hadoop.test.MetricsAsserts.assertGauge;
import static org.apache.hadoop.test.MetricsAsserts.getLongCounter;
import static org.apache.hadoop.test.MetricsAsserts.getLongGauge;
import static org.apache.hadoop.test.MetricsAsserts.getMetrics;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.pipeline.AuditStats;

/** The metrics2 source, read with Hadoop's own MetricsAsserts. */
class NnauditMetricsTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();


  @Test
  void countsGaugesLatenciesAndQuantiles() throws Exception {
    File file = audit.file("m.log");
    Configuration c = conf(file);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 2);
    c.set(NnauditConfigKeys.DURABILITY_KEY, "batch");
    c.set("dfs.metrics.percentiles.intervals", "1");
    QueuedAuditLogger l = audit.start(c);
    String name = l.pipeline().metricsSourceName();
    assertEquals("NnauditLogger", name);

    // Stall the disk so that a handler must wait for room, then let everything through.
    audit.stallWriter(l, "/m0");
    logCreate(l, "/m1");
    logCreate(l, "/m2");
    Thread waiter = new Thread(() -> logCreate(l, "/m3"));
    waiter.start();
    awaitTrue("a handler wait", 10_000, () -> l.stats().blockedWaits == 1);
    MetricsRecordBuilder full = getMetrics(name);
    assertGauge("QueueDepth", 2, full);
    Thread.sleep(20); // a wait of a known least length, for HandlerWaitMillis below; not a wait for a result
    audit.sink().resume();
    waiter.join();
    for (int i = 4; i < 10; i++) {
      logCreate(l, "/m" + i);
    }
    assertTrue(l.pipeline().awaitWritten(30_000));

    // awaitWritten sees the last write; its fsync follows a moment later.
    awaitTrue("the last fsync", 10_000, () -> getLongCounter("FsyncMicrosNumOps", getMetrics(name))
        == getLongCounter("BatchSizeNumOps", getMetrics(name)));
    MetricsRecordBuilder rb = getMetrics(name);
    assertGauge("QueueCapacity", 2, rb);
    assertGauge("QueueDepth", 0, rb);
    assertCounter("EventsAccepted", 10L, rb);
    assertCounter("EventsWritten", 10L, rb);
    assertCounter("EventsDropped", 0L, rb);
    assertCounter("EventsFailed", 0L, rb);
    assertCounter("HandlerWaits", l.stats().blockedWaits, rb);
    assertCounterGt("HandlerWaitMillis", 9L, rb);
    assertCounter("SinkErrors", 0L, rb);
    long writes = getLongCounter("BatchSizeNumOps", rb);
    assertTrue(writes >= 2 && writes <= 10, "writes: " + writes);
    assertCounter("WriteMicrosNumOps", writes, rb);
    assertCounter("FsyncMicrosNumOps", writes, rb);
    // Quantiles roll over once per interval (1 s here): wait for a window that saw writes.
    awaitTrue("a quantile window with writes", 10_000,
        () -> getLongGauge("FsyncMicros1sNumOps", getMetrics(name)) > 0);
    MetricsRecordBuilder q = getMetrics(name);
    assertTrue(getLongGauge("FsyncMicros1s50thPercentileMicros", q) > 0);
    assertTrue(getLongGauge("FsyncMicros1s99thPercentileMicros", q)
        >= getLongGauge("FsyncMicros1s50thPercentileMicros", q));
  }

  @Test
  void eventsNotYetWrittenAndHandlersWaitingForRoomAreGaugedAsTheyAre() throws Exception {
    Configuration c = conf(audit.file("w.log"));
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 2);
    QueuedAuditLogger l = audit.start(c);
    String name = l.pipeline().metricsSourceName();
    audit.stallWriter(l, "/w0"); // held in the sink's write: taken from the queue, not yet written
    logCreate(l, "/w1");
    logCreate(l, "/w2");
    Thread waiter = new Thread(() -> logCreate(l, "/w3"));
    waiter.start();
    awaitTrue("a handler wait", 10_000, () -> l.stats().handlersWaiting == 1);
    MetricsRecordBuilder held = getMetrics(name);
    assertGauge("HandlersWaiting", 1, held);
    assertGauge("EventsUnwritten", 3L, held); // the batch in the sink and the two queued behind it
    assertGauge("QueueDepth", 2, held);
    audit.sink().resume();
    waiter.join();
    assertTrue(l.pipeline().awaitWritten(30_000));
    MetricsRecordBuilder after = getMetrics(name);
    assertGauge("HandlersWaiting", 0, after);
    assertGauge("EventsUnwritten", 0L, after);
    assertCounter("EventsWritten", 4L, after);
  }

  @Test
  void dropsFailuresAndSinkErrorsAreCounted() throws Exception {
    File file = audit.file("d.log");
    Configuration c = conf(file);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1);
    c.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP");
    c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-open");
    QueuedAuditLogger l = audit.start(c);
    audit.stallWriter(l, "/held");
    logCreate(l, "/queued");
    logCreate(l, "/dropped-1");
    logCreate(l, "/dropped-2");
    audit.sink().failNextWrites(1);
    audit.sink().resume();
    assertTrue(l.pipeline().awaitWritten(30_000));
    MetricsRecordBuilder rb = getMetrics(l.pipeline().metricsSourceName());
    assertCounter("EventsAccepted", 2L, rb);
    assertCounter("SinkErrors", 1L, rb);
    // Two dropped at the queue, one given up by fail-open after the injected write error.
    assertCounter("EventsDropped", 3L, rb);
    assertCounter("EventsWritten", 1L, rb);
  }

  @Test
  void theGaugesAreThoseOfTheSnapshot() throws Exception {
    QueuedAuditLogger l = audit.start(conf(audit.file("g.log")));
    audit.stallWriter(l, "/g0");
    for (int i = 1; i <= 3; i++) {
      logCreate(l, "/g" + i);
    }
    audit.sink().resume();
    assertTrue(l.pipeline().awaitWritten(30_000));
    AuditStats s = l.stats();
    assertTrue(s.peakBatchSize >= 3, s.toString());
    MetricsRecordBuilder rb = getMetrics(l.pipeline().metricsSourceName());
    assertGauge("PeakBatchSize", s.peakBatchSize, rb);
    assertGauge("QueueCapacityBytes", s.queueCapacityBytes, rb);
    assertCounter("EventsNotDurable", 0L, rb);
  }

  @Test
  void repeatedInitializeNeverClashesOnTheSourceName() throws Exception {
    File a = audit.file("a.log");
    QueuedAuditLogger first = audit.start(conf(a));
    QueuedAuditLogger again = audit.start(conf(a));
    assertEquals(first.pipeline(), again.pipeline(), "same settings: one pipeline, one source");
    String name = first.pipeline().metricsSourceName();
    assertNotNull(DefaultMetricsSystem.instance().getSource(name));

    Configuration changed = conf(a);
    changed.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP");
    QueuedAuditLogger swapped = audit.start(changed);
    assertEquals(name, swapped.pipeline().metricsSourceName(), "the replaced pipeline gave its name back");

    QueuedAuditLogger other = audit.start(conf(audit.file("b.log")));
    assertNotEquals(name, other.pipeline().metricsSourceName());
    assertNotNull(DefaultMetricsSystem.instance().getSource(other.pipeline().metricsSourceName()));

    String otherName = other.pipeline().metricsSourceName();
    other.pipeline().close(10_000);
    assertNull(DefaultMetricsSystem.instance().getSource(otherName), "closing unregisters");
  }
}
