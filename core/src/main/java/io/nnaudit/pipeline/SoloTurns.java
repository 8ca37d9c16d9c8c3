package io.nnaudit.pipeline;

import java.util.List;

import io.nnaudit.event.AuditEvent;

/**
 * The writer thread's turns when it is the only writer (handlers do not lead): it waits for the first event on
 * the queue itself (up to the idle poll), then takes whatever else is queued, up to the batch's bound, without
 * waiting again. What blocks: that poll, and nothing else; an interrupt ends it and the turn is skipped. What
 * drops: nothing. It holds no lock: until the writer thread has ended nobody else writes, and after that the
 * hand-over's lock takes over (see ShutdownHandOver). Immutable; the writer thread alone calls it.
 */
final class SoloTurns implements WriterTurns {
  private final AuditQueue queue;
  private final int batchMax;
  /** The longest wait for the first event of a turn. */
  private final long idleMs;

  SoloTurns(AuditQueue queue, int batchMax, long idleMs) {
    this.queue = queue;
    this.batchMax = batchMax;
    this.idleMs = idleMs;
  }

  /** Nothing: the poll of {@link #gather} is the wait. */
  @Override
  public void awaitWork() {
  }

  @Override
  public void enter() {
  }

  @Override
  public void exit() {
  }

  @Override
  public boolean gather(List<AuditEvent> batch) {
    AuditEvent first;
    try {
      first = queue.poll(idleMs);
    } catch (InterruptedException e) {
      return false; // see AuditWriter's design note: never leave with events queued
    }
    if (first != null) {
      batch.add(first);
      queue.drainTo(batch, batchMax - 1);
    }
    return true;
  }

  @Override
  public void wrote() {
  }

  @Override
  public void reclaim(List<AuditEvent> batch) {
  }
}
