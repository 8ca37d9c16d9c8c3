package io.nnaudit.seal;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The buffers that carry copies of written bytes from the writing thread to the sealing thread, reused. A
 * writer's chunk is about 1 MiB ({@code ChunkWriter.WRITE_CHUNK_BYTES}): a fresh array for each would cost the
 * writing thread the zeroing of a megabyte and the collector a megabyte of garbage per chunk, which is as much
 * as the copy itself. So a copy of {@link #POOLED_FROM} bytes or more goes into a buffer of {@link #CAPACITY}
 * bytes taken from the spare ones, and the sealing thread gives it back once hashed; at most {@link #SPARE} are
 * kept. A smaller copy (a handler's write of its own few records) gets an array of its own, as does a copy
 * larger than a buffer (a chunk ended by a hostile record of many KiB).
 *
 * <p>Design note. Nothing blocks and nothing drops: a writer that finds no spare buffer allocates one. Any
 * thread may take and give back ({@link #take} by the writing thread, {@link #giveBack} by the sealing thread);
 * a buffer belongs to whoever took it until it is given back, and is never given back twice. The spare queue
 * and its count are thread-safe; the count may briefly exceed {@link #SPARE} by the number of threads giving
 * back at once, which only keeps a buffer more. No shut-down: spare buffers are garbage with the pool.
 */
final class CopyBuffers {
  /** Copies of this many bytes or more are made into reused buffers. */
  static final int POOLED_FROM = 64 << 10;
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
      spareCount.incrementAndGet();
      spare.add(copy.bytes);
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
