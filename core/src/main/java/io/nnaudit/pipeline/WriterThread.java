package io.nnaudit.pipeline;

import java.util.concurrent.locks.LockSupport;

/**
 * The thread that runs a pipeline's {@link AuditWriter}: made and started once by the pipeline's open, woken by
 * handlers (a full queue, a lead that leaves events behind) and by close, joined by whoever stops the pipeline.
 *
 * <p>Design note. Nothing here blocks but {@link #join} and {@link #awaitEnd}, each to the caller's bound;
 * nothing drops. How the thread ends: a normal end of the writer's loop is the writer's business; an abnormal
 * one (an error out of {@link AuditWriter#run}) calls the pipeline's {@code onDeath} on the dying thread first,
 * and however it ends, the thread's last act is to set {@link Lifecycle#writerExited}, after which offers find
 * the pipeline gone. Who owns what: {@link #thread} is written once by open (under the registry's lock) and
 * read by anyone; until then {@link #unpark} does nothing and a handler leaves its event to the thread to come.
 */
final class WriterThread {
  private final Lifecycle life;
  /** Written once by {@link #start}; read by any thread. */
  private volatile Thread thread;

  WriterThread(Lifecycle life) {
    this.life = life;
  }

  /**
   * Runs {@code writer} on a new daemon thread named {@code name}; {@code onDeath} runs on it first should the
   * writer end by an error.
   */
  void start(AuditWriter writer, String name, Runnable onDeath) {
    assert thread == null : "a pipeline's writer thread is started once";
    Thread t = new Thread(() -> run(writer, onDeath), name);
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  private void run(AuditWriter writer, Runnable onDeath) {
    boolean normal = false;
    try {
      writer.run();
      normal = true;
    } finally {
      try {
        if (!normal) {
          onDeath.run();
        }
      } finally {
        life.writerExited = true; // even if degrading failed: offers then find the pipeline gone
      }
    }
  }

  /** Whether the thread was started (by the pipeline's open). */
  boolean started() {
    return thread != null;
  }

  /** Ends a park of the writer (its idle wait, its linger); nothing before the thread is started. */
  void unpark() {
    LockSupport.unpark(thread); // null: does nothing
  }

  /** Waits up to {@code timeoutMs} (at least 1) for the thread to end; an interrupt ends the wait, kept. */
  boolean join(long timeoutMs) {
    try {
      return awaitEnd(timeoutMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !thread.isAlive();
    }
  }

  /** As {@link #join}, but an interrupt ends the wait by throwing. Returns whether the thread has ended. */
  boolean awaitEnd(long timeoutMs) throws InterruptedException {
    Thread t = thread;
    t.join(Math.max(1, timeoutMs));
    return !t.isAlive();
  }
}
