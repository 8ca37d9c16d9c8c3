package io.nnaudit.pipeline;

import java.util.concurrent.locks.ReentrantLock;

import io.nnaudit.format.RecordFormatter;
import io.nnaudit.journal.RecordJournal;
import io.nnaudit.settings.AckPolicy;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * The writing side of one pipeline, wired once when it opens its sink: the writer thread's loop, the leader
 * when handlers lead writes, and the direct writer that takes the sink after the hand-over. They share one
 * writing state (the batch in hand, the chunk writer, the committer, the sink), which belongs to one writing
 * thread at a time (see AuditWriter's notes). Immutable; nothing here blocks.
 */
final class WriterParts {
  /** The writer thread's loop. */
  final AuditWriter writer;
  /** Handlers leading writes, or null when the writer thread is the only writer. */
  final WriteLeader leader;
  /** The sink after the hand-over. */
  final DirectWriter direct;

  private WriterParts(AuditWriter writer, WriteLeader leader, DirectWriter direct) {
    this.writer = writer;
    this.leader = leader;
    this.direct = direct;
  }

  /**
   * Wires the writing side for {@code sink}: handlers lead writes when {@code handlersLead} (see
   * {@link WriteLeader#leadsByHandlers}), under {@code writeLock}, which the hand-over and the direct writes
   * hold in every mode.
   */
  static WriterParts wire(NnauditSettings settings, Lifecycle life, AuditQueue queue, AuditSink sink,
      RecordFormatter formatter, DropTracker drops, AuditMetrics metrics, boolean handlersLead,
      ReentrantLock writeLock, WriterThread thread, Refusals refusals) {
    RateLimitedLog failures = AuditWriter.failureLog();
    RecordJournal journal = settings.ackPolicy() == AckPolicy.JOURNAL ? sink.journal() : null;
    BatchCommitter committer = new BatchCommitter(settings, sink, drops, life, metrics, failures, journal);
    ChunkWriter chunks = new ChunkWriter(formatter, committer, drops, metrics, failures, journal);
    int batchMax = settings.batchMaxEvents();
    BatchInHand inHand = new BatchInHand(batchMax, queue, metrics, chunks);
    long idlePollMs = AuditWriter.idlePollMs(settings);
    WriteLeader leader = handlersLead ? new WriteLeader(life, queue, writeLock, thread, inHand, chunks, drops,
        metrics, failures, refusals, batchMax, idlePollMs) : null;
    WriterTurns turns = leader != null ? leader : new SoloTurns(queue, batchMax, idlePollMs);
    AuditWriter writer = new AuditWriter(life, queue, turns, inHand, chunks, committer, sink, drops, settings,
        metrics, failures);
    DirectWriter direct = new DirectWriter(writeLock, chunks, committer, sink, drops, metrics, failures);
    return new WriterParts(writer, leader, direct);
  }
}
