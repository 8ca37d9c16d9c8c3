package io.nnaudit;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The state of one pipeline that its parts share: what the writer and the committer may see of it, and no
 * more. The pipeline changes it; the writer and the committer only read it, except {@link #writerExited}.
 *
 * <p>Order of the flags. {@code direct} is set before {@code closed}, so a handler that sees the pipeline
 * closed also sees whether it must write directly. {@code handedOver} is set once the writer thread has
 * stopped writing: by the shutdown hook after joining it, or by the dying writer thread itself as its last
 * act under the pipeline's write lock; a handler that sees it owns the sink under that lock.
 * All fields are volatile; {@code handlersInside} counts handlers between their check of {@code closed} and
 * the end of their offer, so that the writer can tell when nothing more can enter the queue.
 */
final class Lifecycle {
  /** No more events enter the queue. Set once, by close or the shutdown hook (pipeline). */
  volatile boolean closed;
  /** After close, handlers write their own records (the shutdown hook, or a writer that died). */
  volatile boolean direct;
  /** The writer has ended and left the sink open for direct writes. */
  volatile boolean handedOver;
  /** Closed and out of time: the writer stops retrying a failing sink, fails what is left, and ends. */
  volatile boolean abandoned;
  /** Set by the writer thread as it ends, however it ends. */
  volatile boolean writerExited;
  final AtomicInteger handlersInside = new AtomicInteger();

  /** True once closed and no handler is still inside an offer: nothing more can enter the queue. */
  boolean isQuiescent() {
    return closed && handlersInside.get() == 0;
  }

  boolean isOpen() {
    return !closed;
  }
}
