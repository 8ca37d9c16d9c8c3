package io.nnaudit;

/**
 * A snapshot of one pipeline's counters. Every call of {@code logAuditEvent} is first accepted by the queue,
 * dropped at the queue, or {@code captureFailed} (or skipped by {@code dfs.namenode.audit.log.debug.cmdlist}).
 * Every accepted event is later written, {@code writeFailed}, or dropped by the writer under fail-open
 * ({@code droppedAfterAcceptance}), or is still queued. {@code dropped} counts both kinds of drop:
 * {@code calls = accepted + (dropped - droppedAfterAcceptance) + captureFailed}.
 */
public final class AuditStats {
  public final long accepted;
  public final long dropped;
  public final long written;
  /** Events that could not be captured on the handler thread (e.g. a FileStatus whose getters throw). */
  public final long captureFailed;
  /** Accepted events the writer could not format or the sink could not write. */
  public final long writeFailed;
  /** Times a handler found the queue full under BLOCK and had to wait. */
  public final long blockedWaits;
  public final int queueDepth;
  public final int queueCapacity;
  public final long batches;
  /** Write or fsync calls the sink failed. */
  public final long sinkErrors;
  public final long droppedAfterAcceptance;
  /**
   * Operations answered with an error instead of success because their record could not be written (a full
   * queue past nnaudit.handler.max.wait.ms, a closed pipeline, a failed write or fsync that was given up).
   */
  public final long aborted;

  AuditStats(long accepted, long dropped, long written, long captureFailed, long writeFailed, long blockedWaits,
      int queueDepth, int queueCapacity, long batches, long sinkErrors, long droppedAfterAcceptance, long aborted) {
    this.accepted = accepted;
    this.dropped = dropped;
    this.written = written;
    this.captureFailed = captureFailed;
    this.writeFailed = writeFailed;
    this.blockedWaits = blockedWaits;
    this.queueDepth = queueDepth;
    this.queueCapacity = queueCapacity;
    this.batches = batches;
    this.sinkErrors = sinkErrors;
    this.droppedAfterAcceptance = droppedAfterAcceptance;
    this.aborted = aborted;
  }

  @Override
  public String toString() {
    return "accepted=" + accepted + " dropped=" + dropped + " written=" + written + " captureFailed="
        + captureFailed + " writeFailed=" + writeFailed + " blockedWaits=" + blockedWaits + " queueDepth="
        + queueDepth + "/" + queueCapacity + " batches=" + batches + " sinkErrors=" + sinkErrors
        + " droppedAfterAcceptance=" + droppedAfterAcceptance + " aborted=" + aborted;
  }
}
