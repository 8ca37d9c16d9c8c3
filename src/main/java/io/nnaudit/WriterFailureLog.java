package io.nnaudit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rate-limited ERROR logging of the writer thread's failures (events it cannot format, writes and fsyncs the
 * disk refuses): at most one line per {@link #INTERVAL_MS}, saying how many were left unlogged in between, so
 * that a dead disk cannot flood the NameNode log. One writing thread at a time (the writer thread, or a handler
 * holding the pipeline's write lock); not thread-safe.
 */
final class WriterFailureLog {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFailureLog.class);
  static final long INTERVAL_MS = 10_000;

  private long lastLog = Long.MIN_VALUE;
  private long suppressed;

  void log(String what, Throwable t) {
    long now = System.currentTimeMillis();
    if (lastLog == Long.MIN_VALUE || now - lastLog >= INTERVAL_MS) {
      LOG.error("nnaudit: {} ({} similar failures not logged since the last report)", what, suppressed, t);
      lastLog = now;
      suppressed = 0;
    } else {
      suppressed++;
    }
  }
}
