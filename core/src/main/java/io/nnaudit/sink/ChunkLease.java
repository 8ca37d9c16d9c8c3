package io.nnaudit.sink;

import java.nio.ByteBuffer;

/**
 * The writer's offer of a chunk's buffer to the sink that writes it, so that a sink which needs the bytes after
 * the write has returned (the file sink's sealing thread hashes them) may keep them instead of copying them.
 * Offered with {@link AuditSink#lend} just before the {@link AuditSink#write} of that chunk, and good for that
 * write alone.
 *
 * <p>Not thread-safe: {@link #keep} is called by the writing thread, inside the write; the release it returns
 * may be run by any thread.
 */
public interface ChunkLease {
  /**
   * Keeps the array behind {@code chunk}: the writer formats nothing more into it until the returned release
   * has been run (once, by any thread, when the sink has done with the bytes). Returns null when the chunk
   * cannot be kept: it is not backed by the buffer offered, it was kept already, or its write is over; the sink
   * then copies what it needs before returning, as it would without a lease.
   */
  Runnable keep(ByteBuffer chunk);
}
