package io.nnaudit.pipeline;

import java.util.ArrayList;
import java.util.List;

import io.nnaudit.event.AuditEvent;

/**
 * The events the writing thread has taken from the queue (or been handed back by a leader) and not yet settled,
 * with the accounting of their fate: their bytes go back to the queue's budget once they are settled
 * ({@link #release}), and after an unexpected error every one not written is counted as failed and its
 * operation answered with an error ({@link #abort}).
 *
 * <p>Design note. Nothing here blocks or takes a lock, and nothing drops: an event leaves the batch written,
 * failed (counted, its ticket aborted) or handed back to the writer thread with its bytes still counted. Who
 * owns what: the list belongs to the writing thread, one thread at a time (see AuditWriter's notes): the writer
 * thread, or whoever holds the pipeline's write lock.
 */
final class BatchInHand {
  private final List<AuditEvent> events;
  private final AuditQueue queue;
  private final AuditMetrics metrics;
  /** Let go of after an error, so that the next write starts clean. */
  private final ChunkWriter chunks;

  BatchInHand(int batchMax, AuditQueue queue, AuditMetrics metrics, ChunkWriter chunks) {
    this.events = new ArrayList<>(Math.min(batchMax, 4096));
    this.queue = queue;
    this.metrics = metrics;
    this.chunks = chunks;
  }

  /** The batch itself, filled and written by the writing thread. */
  List<AuditEvent> events() {
    return events;
  }

  /** Gives the batch's bytes back to the queue's budget and empties it. */
  void release() {
    queue.release(bytesOf(events));
    events.clear();
  }

  /**
   * As {@link #release}, but the bytes of {@code kept} (events of this batch handed back to the writer thread)
   * stay counted until the writer thread settles them.
   */
  void releaseExcept(List<AuditEvent> kept) {
    queue.release(bytesOf(events) - bytesOf(kept));
    events.clear();
  }

  /**
   * After an unexpected error: the tickets of the batch that are still pending are aborted and counted (a
   * ticket already completed ignores it), the events not written since {@code writtenBefore} (the written count
   * when the batch was taken) are counted as failed, and the batch is released.
   */
  void abort(String why, long writtenBefore) {
    long notWritten = events.size() - (metrics.written() - writtenBefore);
    if (notWritten > 0) {
      metrics.countWriteFailed((int) notWritten);
    }
    int aborted = 0;
    for (AuditEvent e : events) {
      if (e.ticket != null) {
        try {
          if (e.ticket.abort(why)) {
            aborted++;
          }
        } catch (Throwable t) {
          // go on: every other response in the batch must still be answered
        }
      }
    }
    metrics.countAborted(aborted);
    release();
    chunks.reset();
  }

  private static long bytesOf(List<AuditEvent> list) {
    long bytes = 0;
    for (AuditEvent e : list) {
      bytes += e.heapBytes;
    }
    return bytes;
  }
}
