package io.nnaudit;

import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;

/**
 * At most one log line per interval from any number of threads: the thread that wins a CAS on the time of
 * the last line logs, the others count themselves as suppressed. Never blocks, never throws: it is called
 * from catch blocks that must go on.
 */
final class RateLimitedLog {
  private static final long NONE = Long.MIN_VALUE;

  private final Logger log;
  private final long intervalMs;
  private final AtomicLong last = new AtomicLong(NONE);
  private final AtomicLong suppressed = new AtomicLong();

  RateLimitedLog(Logger log, long intervalMs) {
    this.log = log;
    this.intervalMs = intervalMs;
  }

  /** Logs {@code what} at ERROR unless a line was logged less than the interval ago. */
  void error(String what, Throwable t) {
    long now = System.currentTimeMillis();
    long l = last.get();
    if ((l == NONE || now - l >= intervalMs) && last.compareAndSet(l, now)) {
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
