package io.nnaudit;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The loggers a test starts, each closed (its queue drained) after the test, with {@link GatedFileSink}'s
 * hooks reset around it as {@link GatedSinkReset} does. Use as
 * {@code @RegisterExtension final LoggerFixture loggers = new LoggerFixture();}.
 */
final class LoggerFixture extends GatedSinkReset {
  private final List<QueuedAuditLogger> started = new ArrayList<>();

  QueuedAuditLogger start(Configuration c) {
    QueuedAuditLogger l = AuditTestSupport.logger(c);
    started.add(l);
    return l;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    GatedFileSink.openGates(); // first, so that no stalled writer holds a close back
    for (QueuedAuditLogger l : started) {
      l.pipeline().close(10_000);
    }
    started.clear();
    super.afterEach(context);
  }
}
