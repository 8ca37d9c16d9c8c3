package io.nnaudit.pipeline;

import java.nio.ByteBuffer;
import java.util.List;

import io.nnaudit.config.ConfigSpelling;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.journal.RecordJournal;
import io.nnaudit.settings.Durability;
import io.nnaudit.settings.FailurePolicy;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.sink.RecordEnds;
import io.nnaudit.throttle.RateLimitedLog;

/**
 * Puts one chunk of records into the sink under the durability and failure policies, and completes the
 * chunk's tickets. One writing thread at a time: the writer thread, or, when handlers lead writes and after
 * the writer ends, the thread holding the pipeline's write lock. Each call says how a refused chunk is treated
 * ({@link CommitMode}): a leading handler tries a chunk once and never retries or gives up (a failed chunk goes
 * back, tickets pending, to the writer thread, which applies the failure policy to it); a direct write retries up
 * to its deadline; the writer thread retries as the failure policy says.
 *
 * <p>Design note. A chunk is written, then fsynced when the durability mode asks (after every chunk for
 * batch and sync; at most every T ms or N records for interval, including from the idle loop). Tickets are
 * completed once the record is where the acknowledgement needs it: after the write under
 * {@code nnaudit.ack.policy=write}, after the fsync under durability=sync. The write and the fsync fail
 * separately: the sink undoes a partial write, so a write is retried whole, while a failed fsync is retried
 * alone (the records are in the file already; writing them again would duplicate them).
 * <ul>
 * <li>fail-closed: retry every {@code nnaudit.failure.retry.interval.ms} until the sink works again. The
 * queue fills and, under BLOCK, handlers wait. Only an abandoned pipeline (closed, and its shutdown time
 * spent) stops retrying; its events are then counted as write failures and their operations' responses are
 * aborted with an error.</li>
 * <li>fail-open: give the chunk up at once: its events are counted as dropped and reported by a drop record
 * once writing works again; their tickets are released (the operator chose availability).</li>
 * </ul>
 * Linux may report an fsync error only once and then call the pages clean, so a retried fsync that succeeds
 * does not prove that the earlier data reached the disk. A chunk whose fsync failed is therefore never
 * reported durable: under sync its operations' responses are aborted with an error (fail-closed) or released
 * and counted as not durable (fail-open), and only chunks written after a successful fsync count as durable.
 */
final class BatchCommitter {
  /*
   * Implementation notes.
   *
   * What blocks: the write(2) and the fsync themselves, which nothing can bound (with whatever the sink does
   * inside its write: see AuditPipeline's note on where a handler waits), and under fail-closed the
   * pause between retries (slices of at most 50 ms, so that an abandoned pipeline or a direct writer's
   * deadline ends it promptly). Nothing here takes a lock: the caller is the writing thread. What drops: under
   * fail-open, a chunk the sink refuses (giveUp), counted in DropTracker as dropped after acceptance.
   * Shutdown: once the pipeline is abandoned, retries stop and what fails is counted and its tickets aborted;
   * at the hand-over the shutdown hook fsyncs what is written (forceIfPending), and so does the last hook
   * before it closes the sink. A direct write's retries also end once the last hook has asked for the file
   * (Lifecycle.ended), so that a refusing disk does not keep the file from being closed.
   *
   * Who owns what: every mutable field belongs to the writing thread (see AuditWriter's notes: one thread at
   * a time, handed over through the pipeline's write lock), so none is volatile; the final fields are
   * immutable or thread-safe themselves. How a call retries is the caller's CommitMode, and what a call's
   * pauses swallowed (an interrupt) is that call's own (Call), so nothing of one call is left for the next.
   */

  private final NnauditSettings settings;
  private final AuditSink sink;
  private final DropTracker drops;
  /** The pipeline's flags; read here (abandoned, and ended for a direct write). */
  private final Lifecycle life;
  private final AuditMetrics metrics;
  /** durability=sync: tickets complete after the fsync, not after the write. */
  private final boolean syncAcks;
  /** Records written since the last successful fsync. The writing thread. */
  private long recordsSinceForce;
  /** When the last fsync succeeded (or this committer was made). The writing thread. */
  private long lastForceMillis = System.currentTimeMillis();
  /** Shared with the writer: any thread. */
  private final RateLimitedLog failures;
  /** The sink's journal under ack policy journal, else null: suspended while the sink refuses writes. */
  private final RecordJournal journal;

  BatchCommitter(NnauditSettings settings, AuditSink sink, DropTracker drops, Lifecycle life,
      AuditMetrics metrics, RateLimitedLog failures, RecordJournal journal) {
    this.settings = settings;
    this.sink = sink;
    this.drops = drops;
    this.life = life;
    this.metrics = metrics;
    this.failures = failures;
    this.syncAcks = settings.durability() == Durability.SYNC;
    this.journal = journal;
  }

  /** One call's state: how it retries, and whether a retry's pause swallowed an interrupt. Local to the call. */
  private static final class Call {
    final CommitMode mode;
    boolean interrupted;

    Call(CommitMode mode) {
      this.mode = mode;
    }
  }

  /**
   * Writes {@code bytes}, which hold the records of {@code events} (after a drop record, if any), each ending where
   * {@code ends} says, fsyncs if the durability mode asks, and completes the events' tickets. Returns whether the bytes
   * were written; if not, the events are given up under the failure policy, except after a leading handler's single try
   * ({@link CommitMode#triesOnce}), which leaves them untouched, tickets pending, for the writer thread. An interrupt
   * that a retry's pause swallowed is restored as the call ends when {@code mode} keeps interrupts.
   */
  boolean commit(ByteBuffer bytes, RecordEnds ends, List<AuditEvent> events, CommitMode mode) {
    Call call = new Call(mode);
    try {
      boolean written = commit(bytes, ends, events, call);
      if (!written && journal != null && !life.abandoned && !call.mode.triesOnce()
          && settings.failurePolicy() == FailurePolicy.FAIL_OPEN) {
        journal.passCovered(); // counted as dropped, as the policy says; an abandoned one is left for the next start
      }
      return written;
    } finally {
      if (call.interrupted && mode.keepsInterrupts()) {
        Thread.currentThread().interrupt(); // after the write and its fsync: the handler's flag, for its caller
      }
    }
  }

  private boolean commit(ByteBuffer bytes, RecordEnds ends, List<AuditEvent> events, Call call) {
    int n = events.size();
    // An abandoned writer (given up on by close or the shutdown hook, whose replacement or successor may hold
    // the file now) writes nothing more: its chunk fails as a refused write does.
    if (life.abandoned || !writeWithRetry(bytes, ends, n, call)) {
      if (!call.mode.triesOnce()) {
        giveUp(events, call); // a leading handler's chunk goes back, tickets pending, to the writer thread
      }
      return false;
    }
    metrics.batchWritten(n);
    recordsSinceForce += n;
    if (!syncAcks) {
      complete(events); // ack.policy=write: the record is in the OS; a process crash cannot take it
    }
    if (forceDue()) {
      boolean durable = forceWithRetry(call);
      if (syncAcks) {
        if (durable) {
          complete(events);
        } else {
          notDurable(events);
        }
      }
    }
    return true;
  }

  private static void complete(List<AuditEvent> events) {
    for (AuditEvent e : events) {
      if (e.ticket != null) {
        e.ticket.done();
      }
    }
  }

  /** Under sync, records whose fsync failed: never reported durable. */
  private void notDurable(List<AuditEvent> events) {
    metrics.countNotDurable(events.size());
    for (AuditEvent e : events) {
      if (e.ticket == null) {
        continue;
      }
      if (settings.failurePolicy() == FailurePolicy.FAIL_OPEN && !life.abandoned) { // chosen availability
        e.ticket.release();
      } else {
        metrics.countAborted(1);
        e.ticket.abort("the fsync of the audit file failed, so the record is not known to be durable");
      }
    }
  }

  /**
   * The shutdown hook's hand-over, and the last hook before it closes the sink: one fsync of what is written
   * and not yet fsynced, if the mode fsyncs.
   */
  void forceIfPending() {
    if (settings.durability() == Durability.NONE || recordsSinceForce == 0) {
      return;
    }
    try {
      sink.force();
      recordsSinceForce = 0;
    } catch (Throwable t) {
      metrics.countSinkError();
      logFailure("could not fsync the audit file before the NameNode stopped", t);
    }
  }

  /** Whether a direct write's retries are over: its deadline passed, or the last hook asks for the file. */
  private boolean pastDeadline(Call call) {
    return call.mode.bounded() && (life.ended || call.mode.pastDeadline(System.nanoTime()));
  }

  /** From the idle loop: honours the interval mode's time bound when no new records arrive. */
  void idle() {
    if (settings.durability() == Durability.INTERVAL && recordsSinceForce > 0
        && System.currentTimeMillis() - lastForceMillis >= settings.durabilityIntervalMs()) {
      forceWithRetry(new Call(CommitMode.WRITER));
    }
  }

  /** Has the sink make what is written complete ({@link io.nnaudit.sink.AuditSink#seal}): the process may end. */
  void seal() {
    try {
      sink.seal();
    } catch (Throwable t) {
      metrics.countSinkError();
      logFailure("could not seal the audit file before the NameNode stopped", t);
    }
  }

  private boolean forceDue() {
    switch (settings.durability()) {
      case BATCH:
      case SYNC:
        return true;
      case INTERVAL:
        return recordsSinceForce >= settings.durabilityIntervalRecords()
            || System.currentTimeMillis() - lastForceMillis >= settings.durabilityIntervalMs();
      default:
        return false;
    }
  }

  private boolean writeWithRetry(ByteBuffer bytes, RecordEnds ends, int events, Call call) {
    int chunkStart = bytes.position();
    while (true) {
      long start = System.nanoTime();
      try {
        sink.write(bytes, ends);
        metrics.writeLatency(System.nanoTime() - start);
        if (journal != null) {
          journal.resume();
        }
        return true;
      } catch (Throwable t) {
        metrics.countSinkError();
        if (journal != null) {
          journal.suspend(); // until the file takes a write again, operations wait for their own records
        }
        logFailure("could not write " + events + " audit records", t);
        if (!retryAfterFailure(call)) {
          return false;
        }
        bytes.position(chunkStart); // the sink undid any partial write: the chunk goes again from where it began
      }
    }
  }

  /**
   * fsyncs until it succeeds or the policy gives up. Returns true only if the first attempt succeeded: after
   * a failed fsync, the pages written before it may be lost even if a retry succeeds.
   */
  private boolean forceWithRetry(Call call) {
    boolean failedOnce = false;
    while (true) {
      long start = System.nanoTime();
      try {
        sink.force();
        metrics.fsyncLatency(System.nanoTime() - start);
        recordsSinceForce = 0;
        lastForceMillis = System.currentTimeMillis();
        return !failedOnce;
      } catch (Throwable t) {
        metrics.countSinkError();
        failedOnce = true;
        logFailure("could not fsync the audit file (records written since the last fsync may not survive a "
            + "power cut)", t);
        if (!retryAfterFailure(call)) {
          return false;
        }
      }
    }
  }

  /** Under fail-closed, pauses and says to retry; under fail-open (or once abandoned), says to give up. */
  private boolean retryAfterFailure(Call call) {
    if (call.mode.triesOnce() || settings.failurePolicy() == FailurePolicy.FAIL_OPEN || life.abandoned
        || pastDeadline(call)) {
      return false;
    }
    long until = System.currentTimeMillis() + settings.failureRetryIntervalMs();
    long left;
    while ((left = until - System.currentTimeMillis()) > 0 && !life.abandoned && !pastDeadline(call)) {
      try {
        Thread.sleep(Math.min(left, 50));
      } catch (InterruptedException e) {
        call.interrupted = true; // the writer ignores interrupts (see AuditWriter); a handler gets its flag back
      }
    }
    return !life.abandoned && !pastDeadline(call);
  }

  private void giveUp(List<AuditEvent> events, Call call) {
    long now = System.currentTimeMillis();
    boolean abort = life.abandoned
        || (pastDeadline(call) && settings.failurePolicy() == FailurePolicy.FAIL_CLOSED);
    if (abort) {
      metrics.countWriteFailed(events.size());
    } else {
      drops.onWriterDrops(events.size(), now, "the audit write failed, failure policy fail-open");
    }
    for (AuditEvent e : events) {
      if (e.ticket == null) {
        continue;
      }
      if (abort) {
        metrics.countAborted(1);
        e.ticket.abort("the audit file could not be written before the NameNode stopped");
      } else {
        e.ticket.release();
      }
    }
  }

  private void logFailure(String what, Throwable t) {
    failures.error(what + "; failure policy " + ConfigSpelling.of(settings.failurePolicy()), t);
  }

}
