package io.nnaudit.sink;

import io.nnaudit.journal.RecordJournal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Where the writer puts finished records. Called by one thread at a time (the pipeline's writer thread, or a
 * handler holding the pipeline's write lock), one chunk at a time: a chunk is
 * one or more whole records, each ending in a newline.
 *
 * <p>A sink must keep records whole and must never deliver a record twice. When {@link #write(ByteBuffer)} returns,
 * every record of the chunk is delivered. When it throws, the writer either gives the chunk up (fail-open: all its
 * records are counted as dropped) or retries it: it calls {@code write} again with the same buffer, rewound, before any
 * other chunk. A sink meets this in one of two ways:
 * <ul>
 * <li>All or nothing: a failed write leaves the destination as it was before the call (a file sink truncates
 * a partial write away), so a retried or later chunk never follows half a record.</li>
 * <li>Whole records up to the failure, for a destination that cannot take a record back (log4j2): the
 * records before the one that failed stay delivered, the chunk's position is left after the last of them,
 * and the sink remembers how far it got, so that a retry of the same chunk, rewound or not, delivers only the
 * rest. Under fail-open the records delivered before the failure are still counted as dropped: the drop
 * count is then an upper bound, and no record is counted as written that was not delivered.</li>
 * </ul>
 *
 * <p>A sink named by class in {@code nnaudit.sink} has a public constructor taking a {@link SinkContext}, and
 * nothing else of nnaudit's settings: the context holds the NameNode's {@code Configuration}, from which the
 * sink reads keys of its own (named {@code nnaudit.*}, so that changing one counts as a change of settings
 * on re-initialize), and the few validated values the built-in sinks use. The constructor opens the
 * destination and throws {@link IllegalArgumentException} naming the key, the value and what is allowed
 * ({@link io.nnaudit.config.ConfigError} builds that message) when it cannot; that stops the NameNode at
 * start-up. Embedders that build the logger themselves may open sinks with a function instead
 * ({@link SinkFactory#of}).
 */
public interface AuditSink extends Closeable {
  /**
   * Writes all remaining bytes of {@code chunk} and makes them visible to readers of the destination (for a
   * file: handed to the OS with write(2)) before returning. All or nothing, or whole records up to the
   * failure and resumed on retry, as above.
   */
  void write(ByteBuffer chunk) throws IOException;

  /**
   * {@link #write(ByteBuffer)}, told where each of the chunk's records ends ({@code ends}: offsets from the chunk's
   * first byte, its position as the writer hands it, which is 0; the last at its limit), for a sink that would
   * otherwise search the bytes for them (the sealed file's hashing). Valid during the call only. The writer calls this
   * one; a sink that has no use for the ends need not override it.
   */
  default void write(ByteBuffer chunk, RecordEnds ends) throws IOException {
    write(chunk);
  }

  /**
   * Whether a failed {@link #write(ByteBuffer)} is meant to leave the destination as it was (the first way above), so
   * that the chunk's records may be formatted again and written by another thread. Only then may the
   * NameNode's handlers lead writes; a sink that keeps records of a failed chunk is written by the writer
   * thread alone, which retries the very same chunk. False unless a sink says otherwise; a subclass that
   * overrides {@link #write(ByteBuffer)} must say it again.
   */
  default boolean undoesFailedWrites() {
    return false;
  }

  /**
   * The crash journal this sink keeps under {@code nnaudit.ack.policy=journal} (the file sink), or null: then
   * every operation waits for its own record's write, as under {@code ack.policy=write}.
   */
  default RecordJournal journal() {
    return null;
  }

  /**
   * Makes what is written complete as it stands, because the process may end at any moment: called at the
   * shutdown hook's hand-over and after each record a handler writes itself after it. The file sink seals.
   */
  default void seal() throws IOException {
  }

  /**
   * The writer has nothing to write: time-based work is done here (the file sink rotates a file whose period
   * ended). Called by the writer's idle loop, about every 50 ms while no records arrive, like
   * {@link #write(ByteBuffer)} by one thread at a time. A failure is logged by the writer, which goes on.
   */
  default void idle() throws IOException {
  }

  /** Forces everything written so far to stable storage (fsync). */
  void force() throws IOException;

  /**
   * Releases the destination. No write follows. At the JVM's exit the last shutdown hook calls it after the
   * handlers' own writes, under the pipeline's write lock; the file sink seals what is not yet sealed first.
   */
  @Override
  void close() throws IOException;
}
