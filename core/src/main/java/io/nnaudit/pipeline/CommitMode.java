package io.nnaudit.pipeline;

/**
 * How one call of {@link BatchCommitter#commit} treats a chunk the sink refuses, chosen by the thread that
 * calls it: the writer thread's way (the failure policy, for as long as the pipeline is not abandoned), a
 * leading handler's (one try; the chunk is neither retried nor given up, it goes back to the writer thread), or
 * a direct write's (the failure policy up to a deadline, and only until the last shutdown hook asks for the
 * file). Immutable: each call is given its mode, so no mode outlives the call that chose it.
 */
final class CommitMode {
  /** The writer thread: the failure policy without a deadline. Interrupts are ignored (see AuditWriter). */
  static final CommitMode WRITER = new CommitMode(false, false, 0);
  /** A handler leading a write: one attempt, no retry, no give-up. */
  static final CommitMode LEADER = new CommitMode(true, false, 0);

  private final boolean once;
  private final boolean bounded;
  private final long deadlineNanos;

  private CommitMode(boolean once, boolean bounded, long deadlineNanos) {
    this.once = once;
    this.bounded = bounded;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * A handler's direct write after the hand-over, which must not hold the file forever: past {@code deadline}
   * (a System.nanoTime()), or once the last shutdown hook waits to close the file, a failing write or fsync is
   * given up and its operation answered with an error. An interrupt that arrives during a retry's pause is given
   * back to the handler when the call ends.
   */
  static CommitMode until(long deadlineNanos) {
    return new CommitMode(false, true, deadlineNanos);
  }

  /** One attempt: a refused chunk is left untouched, tickets pending, for the writer thread. */
  boolean triesOnce() {
    return once;
  }

  /** Retries end at the deadline, or once the last hook asks for the file: a direct write. */
  boolean bounded() {
    return bounded;
  }

  /** Whether a bounded call's deadline has passed at {@code nowNanos}; never for an unbounded one. */
  boolean pastDeadline(long nowNanos) {
    return bounded && nowNanos - deadlineNanos >= 0;
  }

  /**
   * Whether an interrupt swallowed by a retry's pause is restored on the calling thread when the call ends: a
   * direct write's, made on a handler whose caller keeps its flag; the writer thread ignores interrupts.
   */
  boolean keepsInterrupts() {
    return bounded;
  }
}
