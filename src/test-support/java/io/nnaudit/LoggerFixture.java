package io.nnaudit;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The loggers a test starts, each closed (its queue drained) after the test, with {@link GatedFileSink}'s
 * hooks reset around it. Use as {@code @RegisterExtension final LoggerFixture loggers = new LoggerFixture();}.
 */
final class LoggerFixture implements BeforeEachCallback, AfterEachCallback {
  private final List<QueuedAuditLogger> started = new ArrayList<>();

  QueuedAuditLogger start(Configuration c) {
    QueuedAuditLogger l = AuditTestSupport.logger(c);
    started.add(l);
    return l;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    GatedFileSink.reset();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    GatedFileSink.openGates();
    for (QueuedAuditLogger l : started) {
      l.pipeline().close(10_000);
    }
    started.clear();
    GatedFileSink.reset();
  }
}
