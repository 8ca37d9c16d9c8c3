package io.nnaudit.pipeline;

import java.util.Collection;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.journal.HandlerFormatting;
import io.nnaudit.journal.RecordJournal;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.settings.QueueFullPolicy;

/**
 * A pipeline's bounded queue and its byte budget: handlers offer events ({@link #offer}) by the queue-full
 * policy, and the writing thread takes them ({@link #poll}, {@link #drainTo}) and gives their bytes back once
 * they are settled ({@link #release}).
 *
 * <p>Design note. What blocks: a handler's {@link #offer} is a non-blocking {@code ArrayBlockingQueue.offer}
 * first, which is all that happens while the writer keeps up. When the queue is full, by count
 * ({@code nnaudit.queue.capacity}) or by bytes ({@code nnaudit.queue.capacity.bytes}), the handler unparks the
 * writer, ending its linger, and then:
 * <ul>
 * <li>BLOCK: waits for space in timed slices, through interrupts (the flag is restored afterwards), for at most
 * {@code nnaudit.handler.max.wait.ms}. At that bound the event is {@link Offer#REFUSED}: counted, and the
 * operation's response aborted with an error, never sent as success. A pipeline closed meanwhile, or whose
 * writer has gone, ends the wait with {@link Offer#CLOSED}.</li>
 * <li>DROP: returns at once; the drop is counted exactly, logged at WARN (rate-limited, by the writer, not the
 * handler) and reported in the audit stream by {@link DropTracker}.</li>
 * </ul>
 * Beyond the queue's own lock nothing here takes a lock. Shut-down order: an offer counts itself in and out of
 * {@link Lifecycle#handlersInside} and finds the pipeline closed before it enters, so that once the pipeline is
 * closed and no handler is inside, nothing more can enter ({@link Lifecycle#isQuiescent}). Who owns what: the
 * queue is thread-safe (handlers put, the writing thread takes); the byte count is an atomic that handlers
 * reserve from (CAS) and the writing thread gives back to once a batch is settled.
 */
final class AuditQueue {
  private static final long BLOCK_WAIT_SLICE_MS = 10;

  /** Immutable. */
  private final NnauditSettings settings;
  /** Handlers put, the writing thread takes; the queue's own lock. */
  private final ArrayBlockingQueue<AuditEvent> queue;
  /**
   * Heap held by queued events and the writer's batch in hand; bounded by nnaudit.queue.capacity.bytes.
   * Handlers reserve (CAS), the writing thread gives back once a batch is written.
   */
  private final AtomicLong queuedBytes = new AtomicLong();
  /** The pipeline's flags: closed and writerExited read, handlersInside counted. */
  private final Lifecycle life;
  private final AuditMetrics metrics;
  private final DropTracker drops;
  private final Refusals refusals;
  /** Unparked when the queue is full. */
  private final WriterThread writer;

  AuditQueue(NnauditSettings settings, Lifecycle life, AuditMetrics metrics, DropTracker drops, Refusals refusals,
      WriterThread writer) {
    this.settings = settings;
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.life = life;
    this.metrics = metrics;
    this.drops = drops;
    this.refusals = refusals;
    this.writer = writer;
  }

  /** Hands one event to the writer, by the queue-full policy. Never throws. */
  Offer offer(AuditEvent e) {
    life.handlersInside.incrementAndGet();
    try {
      if (life.closed || life.writerExited) {
        return Offer.CLOSED;
      }
      if (reserve(e.heapBytes)) {
        if (queue.offer(e)) {
          metrics.countAccepted();
          return Offer.ACCEPTED;
        }
        queuedBytes.addAndGet(-e.heapBytes);
      }
      writer.unpark(); // the queue is full: end the writer's linger
      if (settings.queueFullPolicy() == QueueFullPolicy.DROP) {
        drops.onDrop(e.timeMillis, "queue full, policy DROP");
        return Offer.DROPPED;
      }
      return offerBlocking(e);
    } finally {
      life.handlersInside.decrementAndGet();
    }
  }

  /**
   * Under ack policy journal: puts {@code record} in {@code journal} and {@code e} in the queue, both or neither,
   * without waiting. Returns null when the journal or the queue had no room (the caller then waits for its write
   * as under ack policy write), else ACCEPTED, or CLOSED as {@link #offer} does. Never throws but what the copy
   * into the journal's mapping throws.
   */
  Offer offerJournaled(AuditEvent e, HandlerFormatting.Record record, RecordJournal journal) {
    life.handlersInside.incrementAndGet();
    try {
      if (life.closed || life.writerExited) {
        return Offer.CLOSED;
      }
      if (!reserve(e.heapBytes)) {
        return null;
      }
      boolean queued = false;
      try {
        queued = journal.append(e, record.bytes, record.crc, queue);
      } finally {
        if (!queued) {
          queuedBytes.addAndGet(-e.heapBytes);
        }
      }
      if (!queued) {
        return null;
      }
      metrics.countAccepted();
      metrics.countJournaled();
      return Offer.ACCEPTED;
    } finally {
      life.handlersInside.decrementAndGet();
    }
  }

  private Offer offerBlocking(AuditEvent e) {
    metrics.blockedWaitBegins();
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(settings.handlerMaxWaitMs());
    boolean interrupted = false;
    try {
      while (true) {
        if (reserve(e.heapBytes)) {
          try {
            if (queue.offer(e, BLOCK_WAIT_SLICE_MS, TimeUnit.MILLISECONDS)) {
              metrics.countAccepted();
              return Offer.ACCEPTED;
            }
          } catch (InterruptedException ie) {
            interrupted = true; // keep waiting: BLOCK loses nothing
          }
          queuedBytes.addAndGet(-e.heapBytes);
        } else {
          LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1)); // the writer frees bytes per batch
          if (Thread.interrupted()) {
            interrupted = true;
          }
        }
        if (life.closed || life.writerExited) {
          return Offer.CLOSED; // the caller writes directly, follows the slot, or refuses
        }
        if (System.nanoTime() - deadline >= 0) {
          refusals.refuse(e, "the audit queue stayed full for " + settings.handlerMaxWaitMs() + " ms ("
              + NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY + ")");
          return Offer.REFUSED;
        }
      }
    } finally {
      metrics.blockedWaitEnded(System.nanoTime() - start);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Takes {@code bytes} of the queue's byte budget, or says no. An event larger than the whole budget is let in
   * when nothing else holds any of it, so that it is never refused for its size alone.
   */
  private boolean reserve(long bytes) {
    long after = queuedBytes.addAndGet(bytes);
    if (after <= settings.queueCapacityBytes() || after == bytes) {
      return true;
    }
    queuedBytes.addAndGet(-bytes);
    return false;
  }

  /** The writing thread: the oldest event, waiting up to {@code timeoutMs} for one; null if none came. */
  AuditEvent poll(long timeoutMs) throws InterruptedException {
    return queue.poll(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /** The writing thread, and a pipeline failing what is left: the oldest event, or null. */
  AuditEvent poll() {
    return queue.poll();
  }

  /** The writing thread: moves up to {@code max} events, oldest first, into {@code batch}. */
  void drainTo(Collection<AuditEvent> batch, int max) {
    queue.drainTo(batch, max);
  }

  boolean isEmpty() {
    return queue.isEmpty();
  }

  /** Events queued now. */
  int size() {
    return queue.size();
  }

  /** The writing thread: gives {@code bytes} of settled (or failed) events back to the budget. */
  void release(long bytes) {
    queuedBytes.addAndGet(-bytes);
  }

  /** Heap held by queued events now (and by the writer's batch in hand). */
  long queuedBytes() {
    return queuedBytes.get();
  }

  /** The queue's gauges in a stats snapshot: depth and capacity, in events and in bytes. */
  AuditStats.Builder gauges(AuditStats.Builder b) {
    b.queueDepth = queue.size();
    b.queueCapacity = settings.queueCapacity();
    b.queueDepthBytes = queuedBytes.get();
    b.queueCapacityBytes = settings.queueCapacityBytes();
    return b;
  }
}
