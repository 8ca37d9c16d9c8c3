package io.nnaudit.pipeline;

import java.util.List;

import io.nnaudit.event.AuditEvent;

/**
 * What differs in the writer thread's turn between writing alone ({@link SoloTurns}) and writing among handlers
 * that lead writes ({@link WriteLeader}): how it waits for work, what it holds while it writes, and where a
 * batch comes from. {@link AuditWriter} calls these in this order each turn: {@link #awaitWork}, {@link #enter},
 * {@link #gather}, {@link #wrote} (if the turn wrote a record), {@link #exit}. All on the writer thread.
 */
interface WriterTurns {
  /** Before a turn, holding nothing: waits (up to the writer's idle poll) while there is nothing to write. */
  void awaitWork();

  /** Takes the right to write for this turn (the pipeline's write lock among leaders). */
  void enter();

  /** Gives it back; called once for each {@link #enter}, however the turn ended. */
  void exit();

  /**
   * Fills the empty {@code batch} for this turn: events handed back by leaders first, then the queue. Returns
   * false when the turn is to be skipped (an interrupt while waiting for the queue).
   */
  boolean gather(List<AuditEvent> batch);

  /** The turn's write put at least one record into the sink. */
  void wrote();

  /** The writer is dying: moves the events handed back by leaders, if any, into {@code batch}. */
  void reclaim(List<AuditEvent> batch);
}
