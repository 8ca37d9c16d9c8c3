package io.nnaudit.sink;

import java.nio.ByteBuffer;

/**
 * How far a sink that cannot take records back got through a chunk before it failed, so that the writer's
 * retry of that chunk delivers only the rest (see {@link AuditSink}). Not thread-safe: the writer's alone.
 *
 * <p>A call is a retry when it passes the same buffer object, with the same limit, its position back where
 * the failed call started (the writer rewinds) or where that call left it, and the bytes already delivered
 * unchanged: they are kept as a copy when a delivery fails, and compared before anything is skipped, so a
 * buffer reused for other records is never mistaken for a retry. Anything else is a new chunk, delivered
 * from its position. The copy is made and compared only after a failure.
 */
final class ChunkProgress {
  private static final byte[] NONE = new byte[0];

  private ByteBuffer chunk;
  private int origin;
  private int limit;
  private byte[] delivered = NONE;

  /** Begins a write of {@code c}: returns the index to deliver from, past what an earlier call delivered. */
  int begin(ByteBuffer c) {
    if (!isRetryOf(c)) {
      chunk = c;
      origin = c.position();
      limit = c.limit();
      delivered = NONE;
    }
    return origin + delivered.length;
  }

  /** The write in progress stopped at {@code at}: the records before it are delivered, the rest are not. */
  void stoppedAt(int at) {
    byte[] copy = new byte[at - origin];
    ByteBuffer from = chunk.duplicate();
    from.limit(at);
    from.position(origin);
    from.get(copy);
    delivered = copy;
  }

  /** The write in progress delivered the whole chunk. */
  void finished() {
    chunk = null;
    delivered = NONE;
  }

  private boolean isRetryOf(ByteBuffer c) {
    if (c != chunk || c.limit() != limit) {
      return false;
    }
    int pos = c.position();
    int resume = origin + delivered.length;
    if (pos != origin && pos != resume) {
      return false;
    }
    ByteBuffer before = c.duplicate();
    before.limit(resume);
    before.position(origin);
    return before.equals(ByteBuffer.wrap(delivered));
  }
}
