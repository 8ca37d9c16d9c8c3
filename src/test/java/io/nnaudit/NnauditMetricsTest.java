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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import io.nnaudit.config.NnauditConfigKeys;

/** The metrics2 source, read with Hadoop's own MetricsAsserts. */
class NnauditMetricsTest {
  @TempDir
  Path dir;
  @RegisterExtension
  final LoggerFixture loggers = new LoggerFixture();


  @Test
  void countsGaugesLatenciesAndQuantiles() throws Exception {
    File file = dir.resolve("m.log").toFile();
    Configuration c = conf(file);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 2);
    c.set(NnauditConfigKeys.DURABILITY_KEY, "batch");
    c.set("dfs.metrics.percentiles.intervals", "1");
    QueuedAuditLogger l = loggers.start(c);
    String name = l.pipeline().metricsSourceName();
    assertEquals("NnauditLogger", name);

    // Stall the disk so that a handler must wait for room, then let everything through.
    AuditTestSupport.stallWriter(l, "/m0");
    logCreate(l, "/m1");
    logCreate(l, "/m2");
    Thread waiter = new Thread(() -> logCreate(l, "/m3"));
    waiter.start();
    awaitTrue("a handler wait", 10_000, () -> l.stats().blockedWaits == 1);
    MetricsRecordBuilder full = getMetrics(name);
    assertGauge("QueueDepth", 2, full);
    Thread.sleep(20); // a wait of a known least length, for HandlerWaitMillis below; not a wait for a result
    GatedFileSink.resume();
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
  void dropsFailuresAndSinkErrorsAreCounted() throws Exception {
    File file = dir.resolve("d.log").toFile();
    Configuration c = conf(file);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1);
    c.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP");
    c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, "fail-open");
    QueuedAuditLogger l = loggers.start(c);
    AuditTestSupport.stallWriter(l, "/held");
    logCreate(l, "/queued");
    logCreate(l, "/dropped-1");
    logCreate(l, "/dropped-2");
    GatedFileSink.failNextWrites.set(1);
    GatedFileSink.resume();
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
    QueuedAuditLogger l = loggers.start(conf(dir.resolve("g.log").toFile()));
    AuditTestSupport.stallWriter(l, "/g0");
    for (int i = 1; i <= 3; i++) {
      logCreate(l, "/g" + i);
    }
    GatedFileSink.resume();
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
    File a = dir.resolve("a.log").toFile();
    QueuedAuditLogger first = loggers.start(conf(a));
    QueuedAuditLogger again = loggers.start(conf(a));
    assertEquals(first.pipeline(), again.pipeline(), "same settings: one pipeline, one source");
    String name = first.pipeline().metricsSourceName();
    assertNotNull(DefaultMetricsSystem.instance().getSource(name));

    Configuration changed = conf(a);
    changed.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP");
    QueuedAuditLogger swapped = loggers.start(changed);
    assertEquals(name, swapped.pipeline().metricsSourceName(), "the replaced pipeline gave its name back");

    QueuedAuditLogger other = loggers.start(conf(dir.resolve("b.log").toFile()));
    assertNotEquals(name, other.pipeline().metricsSourceName());
    assertNotNull(DefaultMetricsSystem.instance().getSource(other.pipeline().metricsSourceName()));

    String otherName = other.pipeline().metricsSourceName();
    other.pipeline().close(10_000);
    assertNull(DefaultMetricsSystem.instance().getSource(otherName), "closing unregisters");
  }
}
