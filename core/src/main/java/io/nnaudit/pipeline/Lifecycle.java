package io.nnaudit.pipeline;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The state of one pipeline that its parts share: what the writer and the committer may see of it, and no
 * more. The pipeline changes it; the writer and the committer only read it, except {@link #writerExited}.
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
   * back, so a reader needs no lock, only the volatile read; the pipeline's monitor orders closed, direct and
   * ended between the threads that may set them (close, the two shutdown hooks, a dying writer, failUnopened).
   */

  /**
   * No more events enter the queue. Set once, under the pipeline's monitor, by close, the shutdown hook, a
   * dying writer or failUnopened; read by everyone.
   */
  volatile boolean closed;
  /**
   * After close, handlers write their own records. Set before closed, under the pipeline's monitor, by the
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
   * write retrying a refusing disk gives up. Set once, after direct and under the pipeline's monitor, by the
   * last hook (or by close(), for a pipeline whose handlers write directly) before it takes the write lock;
   * read by handlers and the committer.
   */
  volatile boolean ended;
  /** Set by the writer thread as it ends, however it ends; read by handlers in offer. */
  volatile boolean writerExited;
  /** Handlers inside an offer: each handler counts itself in and out; read through {@link #isQuiescent}. */
  final AtomicInteger handlersInside = new AtomicInteger();

  /** True once closed and no handler is still inside an offer: nothing more can enter the queue. */
  boolean isQuiescent() {
    return closed && handlersInside.get() == 0;
  }

  boolean isOpen() {
    return !closed;
  }
}
