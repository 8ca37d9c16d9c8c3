package io.nnaudit.pipeline;

import io.nnaudit.sink.AuditSink;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * A snapshot of one pipeline's counts and gauges: everything its metrics publish except the distributions.
 * Every call of {@code logAuditEvent} is first accepted by the queue, dropped at the queue, or
 * {@code captureFailed} (or skipped by {@code dfs.namenode.audit.log.debug.cmdlist}). Every accepted event is
 * later written, {@code writeFailed}, or dropped by the writer under fail-open ({@code droppedAfterAcceptance}),
 * or is still queued. {@code dropped} counts both kinds of drop:
 * {@code calls = accepted + (dropped - droppedAfterAcceptance) + captureFailed}. Immutable.
 */
public final class AuditStats {
  public final long accepted;
  public final long dropped;
  public final long written;
  /** Under {@code nnaudit.ack.policy=journal}: events acknowledged once their records were in the journal. */
  public final long journaled;
  /**
   * Under {@code nnaudit.ack.policy=journal}: events the journal could not take (no room, a full queue, an audit
   * file refusing writes), whose operations waited for their writes instead.
   */
  public final long journalWaits;
  /** Events that could not be captured on the handler thread (e.g. a FileStatus whose getters throw). */
  public final long captureFailed;
  /** Accepted events the writer could not format or the sink could not write. */
  public final long writeFailed;
  /** Times a handler found the queue full under BLOCK and had to wait. */
  public final long blockedWaits;
  /** Total time handlers spent waiting for room in the queue under BLOCK, in ms. */
  public final long blockedWaitMillis;
  /** Handlers waiting for room in the queue under BLOCK now, when the snapshot was taken. */
  public final int handlersWaiting;
  /**
   * Accepted events not yet settled (written, failed or given up): queued, or in the batch being written or
   * retried. Under {@code nnaudit.ack.policy=write} the operation of each waits for its record.
   */
  public final long unwritten;
  public final int queueDepth;
  public final int queueCapacity;
  /** Heap held by queued events and the batch being written, in bytes. */
  public final long queueDepthBytes;
  /** The queue's byte budget ({@code nnaudit.queue.capacity.bytes}). */
  public final long queueCapacityBytes;
  /** The most events the writer has taken from the queue for one batch. */
  public final int peakBatchSize;
  /** Write calls that succeeded. */
  public final long batches;
  /** Write or fsync calls the sink failed. */
  public final long sinkErrors;
  public final long droppedAfterAcceptance;
  /**
   * Operations answered with an error instead of success because their record could not be written (a full
   * queue past nnaudit.handler.max.wait.ms, a closed pipeline, a failed write or fsync that was given up).
   */
  public final long aborted;
  /** Under durability=sync, records whose fsync failed, never reported durable. */
  public final long notDurable;
  /** Of {@code written}, the records handlers wrote themselves after the shutdown hook handed the file over. */
  public final long writtenDirect;
  /** When the last write succeeded ({@code System.currentTimeMillis()}), or 0 before the first. */
  public final long lastWriteMillis;
  /** Rotations of the audit file that failed, or -1 for a sink that does not rotate files (not the file sink). */
  public final long rotationFailures;
  /** Replaced audit files not followed (a link, a FIFO, another user's file), or -1 as for rotationFailures. */
  public final long refusedReopens;
  /** Rotated files compressed since start-up, or -1 when they are not (nnaudit.file.compress, the file sink). */
  public final long filesCompressed;
  /** Their bytes before compression, or -1 as for filesCompressed. */
  public final long bytesBeforeCompression;
  /** Their bytes compressed, or -1 as for filesCompressed. */
  public final long bytesAfterCompression;
  /** Compressions that failed (the plain file kept, tried again later), or -1 as for filesCompressed. */
  public final long compressionFailures;
  /** Seals written since start-up, or -1 when the file is not sealed (or the sink is not the file). */
  public final long sealsWritten;
  /** Seals that could not be written (signing or the digest failed), or -1 as for sealsWritten. */
  public final long sealFailures;
  /** When the latest seal was written (ms since the epoch, 0 before the first), or -1 as for sealsWritten. */
  public final long lastSealMillis;
  /** The SHA-256 of the latest seal (hex, empty before the first), or null when the file is not sealed. */
  public final String latestSealHash;

  private AuditStats(Builder b) {
    this.accepted = b.accepted;
    this.dropped = b.dropped;
    this.written = b.written;
    this.captureFailed = b.captureFailed;
    this.journaled = b.journaled;
    this.journalWaits = b.journalWaits;
    this.writeFailed = b.writeFailed;
    this.blockedWaits = b.blockedWaits;
    this.blockedWaitMillis = b.blockedWaitMillis;
    this.handlersWaiting = b.handlersWaiting;
    this.unwritten = b.unwritten;
    this.queueDepth = b.queueDepth;
    this.queueCapacity = b.queueCapacity;
    this.queueDepthBytes = b.queueDepthBytes;
    this.queueCapacityBytes = b.queueCapacityBytes;
    this.peakBatchSize = b.peakBatchSize;
    this.batches = b.batches;
    this.sinkErrors = b.sinkErrors;
    this.droppedAfterAcceptance = b.droppedAfterAcceptance;
    this.aborted = b.aborted;
    this.notDurable = b.notDurable;
    this.writtenDirect = b.writtenDirect;
    this.lastWriteMillis = b.lastWriteMillis;
    this.rotationFailures = b.rotationFailures;
    this.refusedReopens = b.refusedReopens;
    this.filesCompressed = b.filesCompressed;
    this.bytesBeforeCompression = b.bytesBeforeCompression;
    this.bytesAfterCompression = b.bytesAfterCompression;
    this.compressionFailures = b.compressionFailures;
    this.sealsWritten = b.sealsWritten;
    this.sealFailures = b.sealFailures;
    this.lastSealMillis = b.lastSealMillis;
    this.latestSealHash = b.latestSealHash;
  }

  @Override
  public String toString() {
    return "accepted=" + accepted + " dropped=" + dropped + " written=" + written + " captureFailed="
        + captureFailed + " writeFailed=" + writeFailed + " blockedWaits=" + blockedWaits + " queueDepth="
        + queueDepth + "/" + queueCapacity + " batches=" + batches + " sinkErrors=" + sinkErrors
        + " droppedAfterAcceptance=" + droppedAfterAcceptance + " aborted=" + aborted + " notDurable="
        + notDurable + " writtenDirect=" + writtenDirect + " blockedWaitMillis=" + blockedWaitMillis
        + " handlersWaiting=" + handlersWaiting + " unwritten=" + unwritten
        + " queueDepthBytes=" + queueDepthBytes + "/" + queueCapacityBytes + " peakBatchSize=" + peakBatchSize
        + (rotationFailures < 0 ? "" : " rotationFailures=" + rotationFailures + " refusedReopens="
        + refusedReopens) + (sealsWritten < 0 ? "" : " sealsWritten=" + sealsWritten + " sealFailures="
        + sealFailures + " latestSealHash=" + latestSealHash);
  }

  /**
   * Gathers a snapshot: {@link AuditMetrics#snapshot} fills the counts, the pipeline the queue's gauges and
   * {@link #sinkCounts} the sink's own counts. One thread, then {@link #build}.
   */
  static final class Builder {
    long accepted;
    long dropped;
    long written;
    long captureFailed;
    long journaled;
    long journalWaits;
    long writeFailed;
    long blockedWaits;
    long blockedWaitMillis;
    int handlersWaiting;
    long unwritten;
    int queueDepth;
    int queueCapacity;
    long queueDepthBytes;
    long queueCapacityBytes;
    int peakBatchSize;
    long batches;
    long sinkErrors;
    long droppedAfterAcceptance;
    long aborted;
    long notDurable;
    long writtenDirect;
    long lastWriteMillis;
    long rotationFailures = -1;
    long refusedReopens = -1;
    long filesCompressed = -1;
    long bytesBeforeCompression = -1;
    long bytesAfterCompression = -1;
    long compressionFailures = -1;
    long sealsWritten = -1;
    long sealFailures = -1;
    long lastSealMillis = -1;
    String latestSealHash;

    /** The counts of the file sink; other sinks (or none yet) leave them at -1. */
    Builder sinkCounts(AuditSink sink) {
      if (sink instanceof RollingFileSink) {
        RollingFileSink file = (RollingFileSink) sink;
        rotationFailures = file.rotationFailures();
        refusedReopens = file.refusedReopens();
        filesCompressed = file.filesCompressed();
        bytesBeforeCompression = file.bytesBeforeCompression();
        bytesAfterCompression = file.bytesAfterCompression();
        compressionFailures = file.compressionFailures();
        sealsWritten = file.sealsWritten();
        sealFailures = file.sealFailures();
        lastSealMillis = file.lastSealMillis();
        latestSealHash = file.latestSealHash();
      }
      return this;
    }

    AuditStats build() {
      return new AuditStats(this);
    }
  }
}
