package io.nnaudit.pipeline;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The state of one pipeline that its parts share. The pipeline and its shutdown hand-over
 * ({@link ShutdownHandOver}) change it, through the synchronized transitions below for {@code closed},
 * {@code direct} and {@code ended}; the queue counts {@link #handlersInside}; the {@link WriterThread} sets
 * {@link #writerExited}; the writer and the committer only read it.
 *
 * <p>Order of the flags. {@code direct} is set before {@code closed}, so a handler that sees the pipeline
 * closed also sees whether it must write directly. {@code handedOver} is set once the writer thread has
 * stopped writing: by the shutdown hook after joining it, or by the dying writer thread itself as its last
 * act under the pipeline's write lock; a handler that sees it owns the sink under that lock, until
 * {@code ended}, which the last shutdown hook sets before it takes that lock to close the sink: a handler that
 * sees it under the lock writes nothing more.
 * All fields are volatile; {@code handlersInside} counts handlers between their check of {@code closed} and
 * the end of their offer, so that the writer can tell when nothing more can enter the queue.
 */
final class Lifecycle {
  /*
   * Implementation notes. Nothing here blocks or drops. Every flag goes from false to true once and never
   * back, so a reader needs no lock, only the volatile read; this object's monitor (the synchronized methods,
   * which neither wait nor take another lock) orders closed, direct and ended between the threads that may set
   * them (close, the two shutdown hooks, a dying writer, failUnopened).
   */

  /**
   * No more events enter the queue. Set once, under this object's monitor, by close, the shutdown hook, a
   * dying writer or failUnopened; read by everyone.
   */
  volatile boolean closed;
  /**
   * After close, handlers write their own records. Set before closed, under this object's monitor, by the
   * shutdown hook or a dying writer; read by handlers and the writer.
   */
  volatile boolean direct;
  /**
   * The writer has ended and left the sink open for direct writes. Set under the pipeline's write lock by the
   * shutdown hook or the dying writer; read by handlers.
   */
  volatile boolean handedOver;
  /**
   * Closed and out of time: the writer stops retrying a failing sink, fails what is left, and ends. Set by the
   * thread that closes the pipeline; read by the writing thread and by handlers waiting for the hand-over.
   */
  volatile boolean abandoned;
  /**
   * The last shutdown hook is taking the sink from the handlers for good, to close it: a handler that sees
   * this under the pipeline's write lock, or while it waits for the hand-over, refuses its event, and a direct
   * write retrying a refusing disk gives up. Set once, after direct and under this object's monitor, by the
   * last hook (or by close(), for a pipeline whose handlers write directly) before it takes the write lock;
   * read by handlers and the committer.
   */
  volatile boolean ended;
  /** Set by the writer thread as it ends, however it ends; read by handlers in offer. */
  volatile boolean writerExited;
  /** Handlers inside an offer: each handler counts itself in and out; read through {@link #isQuiescent}. */
  final AtomicInteger handlersInside = new AtomicInteger();

  /** close() and failUnopened(): no more events enter. Returns whether the pipeline was closed already. */
  synchronized boolean close() {
    boolean already = closed;
    closed = true;
    return already;
  }

  /**
   * The shutdown hook: no more events enter, and handlers write their own records once the sink is handed over.
   * Returns false, changing nothing, when the pipeline was closed already.
   */
  synchronized boolean goDirect() {
    if (closed) {
      return false;
    }
    direct = true;
    closed = true;
    return true;
  }

  /** A dying writer: the pipeline goes direct, however it was closed before. */
  synchronized void degradeToDirect() {
    direct = true;
    closed = true;
  }

  /**
   * The last hook, or close() of a pipeline gone direct: ends the handlers' direct writes. Returns false,
   * changing nothing, when the pipeline is not direct or was ended already.
   */
  synchronized boolean end() {
    if (!direct || ended) {
      return false;
    }
    ended = true; // before the write lock: a handler that takes it after this writes nothing
    return true;
  }

  /** True once closed and no handler is still inside an offer: nothing more can enter the queue. */
  boolean isQuiescent() {
    return closed && handlersInside.get() == 0;
  }

  boolean isOpen() {
    return !closed;
  }
}
