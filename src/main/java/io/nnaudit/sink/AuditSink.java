package io.nnaudit.sink;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Where the writer puts finished records. Called by the writer thread only, one batch at a time: a batch is
 * one or more whole records, each ending in a newline, and a sink must never split a record between two
 * destinations (a rotation happens between batches, never inside one).
 *
 * <p>An implementation has a public constructor taking {@link io.nnaudit.NnauditSettings}; it opens its
 * destination there and throws {@link IllegalArgumentException} (naming the key and the value) when it cannot.
 */
public interface AuditSink extends Closeable {
  /**
   * Writes all remaining bytes of {@code batch} and makes them visible to readers of the destination (for a
   * file: handed to the OS with write(2)) before returning.
   */
  void write(ByteBuffer batch) throws IOException;

  /** Releases the destination. No write follows. */
  @Override
  void close() throws IOException;
}
