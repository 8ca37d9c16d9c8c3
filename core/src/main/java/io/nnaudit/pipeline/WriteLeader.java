package io.nnaudit.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import io.nnaudit.event.AuditEvent;
import io.nnaudit.settings.AckPolicy;
import io.nnaudit.settings.Durability;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.settings.QueueFullPolicy;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * Group commit led by a handler. After its event was accepted, a handler that finds no one writing takes the
 * pipeline's write lock and writes everything queued (its own event and others') with one write call,
 * completing the batch's tickets, so that its response does not wait for the writer thread to be scheduled
 * ({@link #lead}). The writer thread is then the backstop that writes what leaders leave: its turns
 * ({@link WriterTurns}) take the same lock.
 *
 * <p>Design note. What blocks: a handler never waits for the lock ({@code tryLock}); one that finds it taken
 * returns at once, and the holder checks the queue again after it lets go, so nothing is left behind. A leader
 * holds the lock across its formatting, its write call and the completion of the batch's tickets (serializing
 * those responses); how long a write call can take is in {@link AuditPipeline}'s note. After
 * {@link #LEAD_ROUNDS} batches a handler unparks the writer thread for the rest. The writer thread sleeps while
 * nothing is queued or handed back, then takes the lock ({@code lock}) for each turn. What drops: nothing. A
 * leader writes once and never retries ({@link CommitMode#LEADER}): if the sink refuses, the unwritten events
 * (tickets still pending) are handed back to the writer thread, which writes them first under the failure
 * policy, and handlers stop leading until it has written again. Shut-down: once the pipeline is closed,
 * handlers stop leading (checked before and under the lock), and the writer thread or the shutdown hook owns
 * what is left. The thread's interrupt flag is cleared around each write (an interrupted FileChannel closes
 * itself) and restored.
 *
 * <p>Who owns what: {@link #handedOff} and the batch in hand belong to the holder of the write lock (asserted);
 * {@link #paused} and {@link #hasHandedOff} are written under the lock and read without it (volatile).
 */
final class WriteLeader implements WriterTurns {
  /** Batches one handler writes in a row before it leaves the rest to the writer thread. */
  static final int LEAD_ROUNDS = 2;

  private final Lifecycle life;
  private final AuditQueue queue;
  /** Held by every writing thread while handlers lead: leaders, the writer thread, the hand-over. */
  private final ReentrantLock writeLock;
  private final WriterThread writer;
  private final BatchInHand inHand;
  private final ChunkWriter chunks;
  private final DropTracker drops;
  private final AuditMetrics metrics;
  /** The writing threads' failures, rate-limited. */
  private final RateLimitedLog failures;
  /** The pipeline's log, for a lead that failed outright. */
  private final Refusals refusals;
  private final int batchMax;
  private final long idlePollNanos;
  /**
   * Set by a leader whose write failed, cleared by the writer thread once it has written again, both under the
   * write lock; read by handlers without it: while set, handlers do not lead.
   */
  private volatile boolean paused;
  /** Events a leader could not write, oldest first: the writer thread writes them before the queue. Under the lock. */
  private final List<AuditEvent> handedOff = new ArrayList<>();
  /** Whether {@link #handedOff} holds events: set under the lock, read without it (the writer must not sleep). */
  private volatile boolean hasHandedOff;

  WriteLeader(Lifecycle life, AuditQueue queue, ReentrantLock writeLock, WriterThread writer, BatchInHand inHand,
      ChunkWriter chunks, DropTracker drops, AuditMetrics metrics, RateLimitedLog failures, Refusals refusals,
      int batchMax, long idlePollMs) {
    this.life = life;
    this.queue = queue;
    this.writeLock = writeLock;
    this.writer = writer;
    this.inHand = inHand;
    this.chunks = chunks;
    this.drops = drops;
    this.metrics = metrics;
    this.failures = failures;
    this.refusals = refusals;
    this.batchMax = batchMax;
    this.idlePollNanos = TimeUnit.MILLISECONDS.toNanos(idlePollMs);
  }

  /**
   * Handlers lead writes only where a write is all a response waits for and a handler may wait: ack policy
   * write, durability none (an fsync stays off handler threads), BLOCK (a DROP handler never waits), and a
   * sink whose failed write leaves its destination as it was ({@link AuditSink#undoesFailedWrites}): a
   * leader's failed chunk is formatted again by the writer thread, which a sink that keeps part of a failed
   * chunk (log4j2) would deliver twice.
   */
  static boolean leadsByHandlers(NnauditSettings settings, AuditSink sink) {
    return settings.ackPolicy() == AckPolicy.WRITE && settings.durability() == Durability.NONE
        && settings.queueFullPolicy() == QueueFullPolicy.BLOCK && sink.undoesFailedWrites();
  }

  /** A handler whose event was accepted: writes what is queued if no one else is writing. Never throws. */
  void lead() {
    boolean interrupted = Thread.interrupted();
    try {
      for (int round = 0; round < LEAD_ROUNDS; round++) {
        if (life.closed || paused) {
          writer.unpark(); // the writer thread (or the shutdown hook) takes it
          return;
        }
        if (queue.isEmpty()) {
          return;
        }
        if (!writeLock.tryLock()) {
          return; // the holder checks the queue again after it lets go
        }
        try {
          if (!life.closed) { // else the writer thread or the shutdown hook owns what is left
            writeQueued();
          }
        } finally {
          writeLock.unlock();
        }
        interrupted |= Thread.interrupted();
      }
      if (!queue.isEmpty() || paused) {
        writer.unpark();
      }
    } catch (Throwable t) {
      writer.unpark();
      refusals.error("a handler could not write the audit queue; the writer thread takes it over", t);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * A handler leading a write, holding the lock: writes what is queued, trying each chunk once. A refused chunk
   * and the rest go, tickets pending, to the writer thread ({@link #handOff}), and handlers stop leading until
   * it has written again.
   */
  private void writeQueued() {
    assert writeLock.isHeldByCurrentThread() : "a leader writes under the write lock";
    if (paused || hasHandedOff) {
      // Checked under the lock: a leader that lost the race to a failed one leaves the queue to the writer
      // thread, which writes the handed-off events first (oldest first) and counts their bytes once.
      return;
    }
    List<AuditEvent> batch = inHand.events();
    queue.drainTo(batch, batchMax);
    if (batch.isEmpty()) {
      return;
    }
    metrics.batchDrained(batch.size());
    long writtenBefore = metrics.written();
    try {
      List<AuditEvent> unwritten = chunks.write(batch, drops.unreported(), CommitMode.LEADER);
      if (unwritten != null) {
        handOff(unwritten);
      }
      inHand.releaseExcept(handedOff);
    } catch (Throwable t) {
      inHand.abort("the audit write failed", writtenBefore);
      failures.error("a handler could not write the audit queue; its operations are not acknowledged", t);
    }
  }

  /**
   * A leading handler's write failed: {@code unwritten} go, in order and with their tickets pending, to
   * {@link #handedOff}, which the writer thread writes first under its failure policy.
   */
  private void handOff(List<AuditEvent> unwritten) {
    handedOff.addAll(unwritten);
    hasHandedOff = true;
    paused = true;
  }

  /** Whether a leader's failed write paused leading until the writer thread writes again. */
  boolean paused() {
    return paused;
  }

  /** The writer thread sleeps while the queue is empty: a handler that leaves events behind unparks it. */
  @Override
  public void awaitWork() {
    if (queue.isEmpty() && !hasHandedOff) {
      LockSupport.parkNanos(this, idlePollNanos);
      Thread.interrupted(); // a stray interrupt must not make every park return at once
    }
  }

  /** Holding the lock like any leader. */
  @Override
  public void enter() {
    writeLock.lock();
  }

  @Override
  public void exit() {
    writeLock.unlock();
  }

  /** The events leaders handed back (their bytes still counted: they were never given back), then the queue. */
  @Override
  public boolean gather(List<AuditEvent> batch) {
    reclaim(batch);
    queue.drainTo(batch, Math.max(0, batchMax - batch.size()));
    return true;
  }

  /** The writer thread has written again: handlers may lead. */
  @Override
  public void wrote() {
    paused = false;
  }

  @Override
  public void reclaim(List<AuditEvent> batch) {
    assert writeLock.isHeldByCurrentThread() : "handed-off events belong to the holder of the write lock";
    batch.addAll(handedOff);
    handedOff.clear();
    hasHandedOff = false;
  }
}
