package io.nnaudit.sink;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Where the writer puts finished records. Called by the writer thread only, one chunk at a time: a chunk is
 * one or more whole records, each ending in a newline.
 *
 * <p>A sink must keep records whole: {@link #write} either stores the whole chunk or, when it throws, leaves
 * the destination as it was before the call (a file sink truncates a partial write away), so that a retried
 * or later chunk never follows half a record.
 *
 * <p>An implementation has a public constructor taking {@link io.nnaudit.NnauditSettings}; it opens its
 * destination there and throws {@link IllegalArgumentException} (naming the key and the value) when it cannot.
 */
public interface AuditSink extends Closeable {
  /**
   * Writes all remaining bytes of {@code chunk} and makes them visible to readers of the destination (for a
   * file: handed to the OS with write(2)) before returning. All or nothing, as above.
   */
  void write(ByteBuffer chunk) throws IOException;

  /** Forces everything written so far to stable storage (fsync). */
  void force() throws IOException;

  /** Releases the destination. No write follows. */
  @Override
  void close() throws IOException;
}
