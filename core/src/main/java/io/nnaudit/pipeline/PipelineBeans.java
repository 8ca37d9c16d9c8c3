package io.nnaudit.pipeline;

import javax.management.ObjectName;

import io.nnaudit.sink.AuditSink;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * What a pipeline shows in the NameNode's {@code /jmx}: its metrics2 source ({@link NnauditMetricsSource}) and,
 * for a sealed file, its seal anchor bean ({@link SealAnchor}). Registered once the writer has started and
 * unregistered, both together, by the thread that finishes the writer. Neither registration can fail the
 * pipeline. Nothing here blocks or drops; the two names are written once by {@link #register} (under the
 * registry's lock) and read by anyone.
 */
final class PipelineBeans {
  /** Null until registered, or if metrics2 refused it. */
  private volatile NnauditMetricsSource metricsSource;
  /** The anchor bean's name; null when the file is not sealed or the bean could not be registered. */
  private volatile ObjectName sealAnchor;

  /** Registers the metrics source of {@code pipeline}, and the seal anchor bean of its sink when it is the file. */
  void register(AuditPipeline pipeline, AuditSink sink) {
    metricsSource = NnauditMetricsSource.register(pipeline);
    if (sink instanceof RollingFileSink) {
      sealAnchor = SealAnchor.register((RollingFileSink) sink, pipeline.settings().file().getPath());
    }
  }

  /** Unregisters both; the names stay readable. */
  void unregister() {
    NnauditMetricsSource source = metricsSource;
    if (source != null) {
      source.unregister();
    }
    ObjectName anchor = sealAnchor;
    if (anchor != null) {
      SealAnchor.unregister(anchor);
    }
  }

  /** The metrics2 source name (as in /jmx), or null when metrics could not be registered. */
  String metricsSourceName() {
    NnauditMetricsSource s = metricsSource;
    return s == null ? null : s.name();
  }

  /** The seal anchor bean's name ({@code NnauditSeal...}), or null. */
  String sealAnchorName() {
    ObjectName n = sealAnchor;
    return n == null ? null : n.getKeyProperty("name");
  }
}
