package io.nnaudit.ship;

/**
 * What a {@link Shipper} reports, read at one moment: the counts since start-up and the lag now. Immutable.
 * Every field is set by the shipper; what it cannot know is -1.
 */
public final class ShipStats {
  /** Records (and their bytes, line ends included) the remote system acknowledged since start-up. */
  public final long shippedRecords;
  public final long shippedBytes;
  /**
   * Records in the files not yet acknowledged: those sent, exactly, and those not yet read, estimated from their
   * bytes; 0 exactly when nothing waits.
   */
  public final long lagRecords;
  /** Bytes of the spool files not yet acknowledged. */
  public final long lagBytes;
  /** Age of the oldest record not yet acknowledged, in milliseconds; 0 when nothing waits. */
  public final long lagMillis;
  /** Sends that failed (each is retried from the last acknowledged record). */
  public final long sendErrors;
  /** Retries made by the client library within a send. */
  public final long retries;
  /** Milliseconds since the last acknowledgement; -1 before the first. */
  public final long millisSinceLastAck;
  /** Spool files holding records not yet acknowledged. */
  public final long filesWaiting;
  /** Unshipped files, and their unshipped bytes, deleted by retention since start-up (see {@link SpoolGuard}). */
  public final long lostFiles;
  public final long lostBytes;

  public ShipStats(long shippedRecords, long shippedBytes, long lagRecords, long lagBytes, long lagMillis,
      long sendErrors, long retries, long millisSinceLastAck, long filesWaiting, long lostFiles, long lostBytes) {
    this.shippedRecords = shippedRecords;
    this.shippedBytes = shippedBytes;
    this.lagRecords = lagRecords;
    this.lagBytes = lagBytes;
    this.lagMillis = lagMillis;
    this.sendErrors = sendErrors;
    this.retries = retries;
    this.millisSinceLastAck = millisSinceLastAck;
    this.filesWaiting = filesWaiting;
    this.lostFiles = lostFiles;
    this.lostBytes = lostBytes;
  }

  @Override
  public String toString() {
    return "shipped=" + shippedRecords + " records/" + shippedBytes + " bytes, lag=" + lagRecords + " records/"
        + lagBytes + " bytes/" + lagMillis + " ms, filesWaiting=" + filesWaiting + ", sendErrors=" + sendErrors
        + ", retries=" + retries + ", lost=" + lostFiles + " files/" + lostBytes + " bytes";
  }
}
