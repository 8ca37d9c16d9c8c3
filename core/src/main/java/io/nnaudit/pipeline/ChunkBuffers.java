package io.nnaudit.pipeline;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.nnaudit.format.RecordBuffer;
import io.nnaudit.sink.ChunkLease;

/**
 * The buffers the writer formats chunks into, and their leases: a sink may keep a written chunk's buffer
 * (the sealed file sink hands large chunks to its sealing thread instead of copying them), and the writer then
 * goes on in another buffer, taken from those that sinks have given back, or new.
 *
 * <p>Design note. Nothing here blocks or takes a lock. What drops: a buffer given back when {@link #POOLED}
 * are waiting already, or one grown past {@link #LARGEST_POOLED} by a hostile record, is left to the collector;
 * a kept buffer never given back (its sink closed with it queued) is too. No shutdown of its own. Who owns
 * what: {@link #current} and each lease's state belong to the writing thread (one at a time, handed over by
 * the pipeline's write lock, like the rest of the writing state); a lease's release may run on any thread and
 * gives its buffer back through the thread-safe {@link #free} queue, after which only the writing thread
 * touches the buffer again, once it has taken it from there.
 */
final class ChunkBuffers {
  /** At most this many given-back buffers wait to be taken: a few are enough to keep one sink busy. */
  static final int POOLED = 4;
  /** A buffer larger than this (grown by hostile records) is not kept for reuse. */
  static final int LARGEST_POOLED = 2 * ChunkWriter.WRITE_CHUNK_BYTES;

  private final ConcurrentLinkedQueue<RecordBuffer> free = new ConcurrentLinkedQueue<>();
  private final AtomicInteger freeCount = new AtomicInteger();
  /** The buffer chunks are formatted into now. The writing thread. */
  private RecordBuffer current = new RecordBuffer();

  /** The buffer to format the next chunk into. */
  RecordBuffer current() {
    return current;
  }

  /** A lease on the current buffer, for the write of the chunk it holds now. */
  Lease lease() {
    return new Lease(current);
  }

  /**
   * The write under {@code lease} is over: its buffer is no longer offered, and if the sink kept it the writer
   * goes on in another one, of the same size so that it need not grow again.
   */
  void returned(Lease lease) {
    lease.open = false;
    if (lease.kept) {
      RecordBuffer next = free.poll();
      if (next != null) {
        freeCount.decrementAndGet();
      } else {
        next = new RecordBuffer(Math.min(lease.buffer.capacity(), LARGEST_POOLED));
      }
      next.setLength(0);
      current = next;
    }
  }

  /** Lets the current buffer go (a hostile record made it large, or a write failed unexpectedly). */
  void replace() {
    current = new RecordBuffer();
  }

  private void giveBack(RecordBuffer b) {
    if (b.capacity() <= LARGEST_POOLED && freeCount.incrementAndGet() <= POOLED) {
      free.add(b);
    } else if (b.capacity() <= LARGEST_POOLED) {
      freeCount.decrementAndGet();
    }
  }

  /** The offer of one buffer for one write. Its state belongs to the writing thread. */
  final class Lease implements ChunkLease {
    private final RecordBuffer buffer;
    private boolean open = true;
    private boolean kept;

    private Lease(RecordBuffer buffer) {
      this.buffer = buffer;
    }

    @Override
    public Runnable keep(ByteBuffer chunk) {
      if (!open || kept || !buffer.backs(chunk)) {
        return null;
      }
      kept = true;
      AtomicBoolean released = new AtomicBoolean();
      return () -> {
        if (released.compareAndSet(false, true)) {
          giveBack(buffer);
        }
      };
    }
  }
}
