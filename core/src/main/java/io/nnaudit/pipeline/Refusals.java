package io.nnaudit.pipeline;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.event.AuditEvent;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * How a pipeline refuses an event that will have no record: counted as dropped and as aborted, and logged at
 * ERROR, rate-limited, under the pipeline's logger. Also the pipeline's rate-limited log for the errors of its
 * handlers (a lead that failed) and of a dying writer. Thread-safe: any thread; never blocks, never throws from
 * its log.
 */
final class Refusals {
  /** The pipeline's log: its lines keep the logger name operators know. */
  private static final Logger LOG = LoggerFactory.getLogger(AuditPipeline.class);
  private static final long REFUSAL_LOG_INTERVAL_MS = 10_000;

  private final DropTracker drops;
  private final AuditMetrics metrics;
  private final RateLimitedLog log = new RateLimitedLog(LOG, REFUSAL_LOG_INTERVAL_MS);

  Refusals(DropTracker drops, AuditMetrics metrics) {
    this.drops = drops;
    this.metrics = metrics;
  }

  /** Counts an event that will have no record and whose operation must not be acknowledged as audited. */
  void refuse(AuditEvent e, String why) {
    drops.onDrop(e.timeMillis, why);
    metrics.countAborted(1);
    log.error("an audit event was refused and its operation is not acknowledged as audited: " + why, null);
  }

  /** An error of the pipeline's, at most once an interval. */
  void error(String what, Throwable t) {
    log.error(what, t);
  }
}
