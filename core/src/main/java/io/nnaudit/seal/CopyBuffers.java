package io.nnaudit.seal;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The buffers that carry copies of written bytes from the writing thread to the sealing thread, reused. A
 * writer's full chunk is 1 MiB and the record that ended it ({@code ChunkWriter.WRITE_CHUNK_BYTES}): a fresh
 * array for each would cost the writing thread the zeroing of a megabyte and the collector a megabyte of garbage
 * per chunk, as much work as the copy itself. So a copy of {@link #POOLED_FROM} to {@link #CAPACITY} bytes goes
 * into a buffer of {@link #CAPACITY} bytes taken from the spare ones, and the sealing thread gives it back once
 * hashed; at most {@link #SPARE} are kept. Any other copy (a batch's last, shorter chunk, or a handler's write of
 * a few records) gets an array of its own length, as does a chunk ended by a record of more than 256 KiB. Only
 * full chunks are pooled, so a queued copy's array is never more than 1.25 times the bytes it carries: the
 * sealing thread's queue, bounded in bytes, stays bounded in heap.
 *
 * <p>Design note. Nothing blocks and nothing drops: a writer that finds no spare buffer allocates one. The
 * writing thread takes ({@link #take}), the sealing thread gives back ({@link #giveBack}); a buffer belongs to
 * whoever took it until it is given back, and is given back once, after its bytes were hashed. The spare queue
 * and its count are thread-safe. No shut-down: spare buffers are garbage with the pool.
 */
final class CopyBuffers {
  /** Copies of this many bytes or more (a full chunk of the writer's) are made into reused buffers. */
  static final int POOLED_FROM = 1 << 20;
  /** A reused buffer's size: a 1 MiB chunk and the record that ended it. */
  static final int CAPACITY = (1 << 20) + (256 << 10);
  /** Spare buffers kept at most: the queue of copies holds the rest while the sealing thread is behind. */
  static final int SPARE = 4;

  private final ConcurrentLinkedQueue<byte[]> spare = new ConcurrentLinkedQueue<>();
  private final AtomicInteger spareCount = new AtomicInteger();

  /** A copy of {@code bytes}' remaining bytes, its position unmoved: in {@code [0, length)} of the array. */
  Copy take(ByteBuffer bytes) {
    int n = bytes.remaining();
    byte[] into = null;
    if (n >= POOLED_FROM && n <= CAPACITY) {
      into = spare.poll();
      if (into != null) {
        spareCount.decrementAndGet();
      } else {
        into = new byte[CAPACITY];
      }
    } else {
      into = new byte[n];
    }
    bytes.duplicate().get(into, 0, n);
    return new Copy(into, n);
  }

  /** {@code copy} has been hashed: its buffer may carry another. */
  void giveBack(Copy copy) {
    if (copy.bytes.length == CAPACITY && spareCount.get() < SPARE) {
      spare.add(copy.bytes);
      spareCount.incrementAndGet();
    }
  }

  /** Bytes written, copied for the sealing thread: {@code bytes[0, length)}. */
  static final class Copy {
    final byte[] bytes;
    final int length;

    Copy(byte[] bytes, int length) {
      this.bytes = bytes;
      this.length = length;
    }
  }
}
