package io.nnaudit.ship;

/**
 * Forwards the records of the local audit file to a remote system, from the file itself: the file is the
 * spool, so nothing the shipper does can slow a handler or lose a record that reached the file. One per
 * pipeline, made by {@link ShipperFactory}, started after the sink is open, stopped once the sink is closed (its
 * last seal written).
 *
 * <p>Implementations must never throw from these methods, and every wait in them is bounded by the time given.
 */
public interface Shipper {
  /** Starts shipping on a thread of its own. */
  void start();

  /**
   * Ships what the file holds for at most {@code timeoutMs} more, records how far the remote system has
   * acknowledged (the next start resumes there), and stops. Idempotent.
   */
  void stop(long timeoutMs);

  /** The longest {@link #stop} given {@code timeoutMs} can take, with what a send blocked inside it adds. */
  long stopBoundMs(long timeoutMs);

  /** Every count and gauge of the shipper, read now. */
  ShipStats stats();
}
