package io.nnaudit.format;

/**
 * Events dropped between two records of the audit stream, as a drop record reports them: {@code count}
 * events, the first at {@code fromMillis} and the last at {@code toMillis}, and {@code total} dropped since
 * start-up, these included. Immutable.
 */
public final class DropReport {
  public final long count;
  public final long fromMillis;
  public final long toMillis;
  /** The drops since start-up, this report's included. */
  public final long total;

  public DropReport(long count, long fromMillis, long toMillis, long total) {
    this.count = count;
    this.fromMillis = fromMillis;
    this.toMillis = toMillis;
    this.total = total;
  }
}
