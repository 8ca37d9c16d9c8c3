package io.nnaudit.throttle;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;

/**
 * At most one ERROR line per interval from any number of threads, each saying how many similar lines were
 * left out since the one before, so that a dead disk or a flood of bad events cannot flood the NameNode log.
 * Never blocks and never throws (it is called from catch blocks that must go on): the thread that the
 * {@link IntervalGate} lets through logs, the others count themselves as suppressed.
 */
public final class RateLimitedLog {
  private final Logger log;
  private final IntervalGate gate;
  /** Lines left out since the last one logged; any thread. */
  private final AtomicLong suppressed = new AtomicLong();

  public RateLimitedLog(Logger log, long intervalMs) {
    this.log = log;
    this.gate = new IntervalGate(intervalMs);
  }

  /** Logs {@code what} at ERROR unless a line was logged less than the interval ago. */
  public void error(String what, Throwable t) {
    if (gate.tryOpen(System.currentTimeMillis())) {
      try {
        log.error("nnaudit: {} ({} similar lines suppressed since the last one)", what, suppressed.getAndSet(0), t);
      } catch (Throwable ignored) {
        // a failing log must not stop the caller from answering its operations
      }
    } else {
      suppressed.incrementAndGet();
    }
  }
}
