package io.nnaudit.seal;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.throttle.IntervalGate;

/**
 * What a seal that fails costs: it is counted ({@link #failures}) and logged at most every 10 s, and the
 * interval's seal is not tried again for a second (each try may fsync the audit file); a seal asked for is
 * tried at once.
 *
 * <p>Design note. Nothing blocks. Written by the thread that runs the {@link Sealer} only; {@link #failedAtNanos}
 * is volatile, read by the sink's writing thread ({@link SealingThread#checkBeforeWrite}) and set before the
 * failure is counted; the count is volatile for the metrics.
 */
final class SealBackoff {
  private static final Logger LOG = LoggerFactory.getLogger(Sealer.class);
  private static final long NEVER = Long.MIN_VALUE;
  private static final long FAILURE_LOG_INTERVAL_MS = 10_000;
  /** After a failed seal, the interval's seal is tried again this much later (a request tries at once). */
  private static final long RETRY_AFTER_FAILURE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final boolean failClosed;
  private final LongSupplier nanoClock;
  /** When the latest seal failed (nanoTime), or NEVER once one works. */
  private volatile long failedAtNanos = NEVER;
  private final IntervalGate failureLog = new IntervalGate(FAILURE_LOG_INTERVAL_MS);
  private volatile long failures;

  SealBackoff(boolean failClosed, LongSupplier nanoClock) {
    this.failClosed = failClosed;
    this.nanoClock = nanoClock;
  }

  /** Whether a seal failed less than a second before {@code nanoNow}: the interval's seal waits. */
  boolean waiting(long nanoNow) {
    return failedAtNanos != NEVER && nanoNow - failedAtNanos < RETRY_AFTER_FAILURE_NANOS;
  }

  /** Whether the latest seal tried failed, and none has worked since. */
  boolean failing() {
    return failedAtNanos != NEVER;
  }

  /** A seal worked, or nothing was left to seal: nothing is failing. */
  void worked() {
    failedAtNanos = NEVER;
  }

  /** Counts and logs (at most every 10 s) a seal that failed at {@code nowMillis}; returns the failure to throw. */
  IOException failed(long nowMillis, Exception e) {
    failedAtNanos = nanoClock.getAsLong();
    failures++;
    if (failureLog.tryOpen(nowMillis)) {
      LOG.error("nnaudit: could not write a seal of the audit file, or fsync it ({} failures since start-up); {}",
          failures, failClosed ? "fail-closed: no record is written until a seal can be"
              : "fail-open: records go on, sealed by the next seal that works", e);
    }
    return e instanceof IOException ? (IOException) e : new IOException("could not seal the audit file: " + e, e);
  }

  /** Seals that could not be written (signing or writing failed) since start-up. */
  long failures() {
    return failures;
  }
}
