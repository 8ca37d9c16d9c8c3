package io.nnaudit.journal;

import java.util.Arrays;
import java.util.function.Supplier;
import java.util.zip.CRC32;

import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.RecordBuffer;
import io.nnaudit.format.RecordFormatter;

/**
 * Formats an event's record on its handler thread, for the journal: each handler thread has a formatter and a
 * buffer of its own (formatters are not thread-safe), and the record leaves as a copy of its bytes with their
 * CRC-32. A buffer grown by a hostile record is let go after it.
 *
 * <p>Design note. Thread-confined: every mutable part is the calling thread's own. Nothing blocks or drops; a
 * formatting error is thrown to the caller, which counts it and answers the operation with an error.
 */
public final class HandlerFormatting {
  private static final int KEEP_BUFFER_BYTES = 16 * 1024;

  private final ThreadLocal<State> state;

  /** {@code formatters} makes one formatter for each handler thread. */
  public HandlerFormatting(Supplier<RecordFormatter> formatters) {
    this.state = ThreadLocal.withInitial(() -> new State(formatters.get()));
  }

  /** A formatted record: its bytes and their CRC-32. */
  public static final class Record {
    public final byte[] bytes;
    public final int crc;

    Record(byte[] bytes, int crc) {
      this.bytes = bytes;
      this.crc = crc;
    }
  }

  /** {@code e}'s record, as the writer would have written it. */
  public Record format(AuditEvent e) {
    State s = state.get();
    RecordBuffer buf = s.buffer;
    buf.setLength(0);
    s.formatter.appendRecord(buf, e);
    byte[] bytes = Arrays.copyOf(buf.asByteBuffer().array(), buf.length());
    if (buf.capacity() > KEEP_BUFFER_BYTES) {
      s.buffer = new RecordBuffer(1024);
    }
    s.crc.reset();
    s.crc.update(bytes, 0, bytes.length);
    return new Record(bytes, (int) s.crc.getValue());
  }

  private static final class State {
    final RecordFormatter formatter;
    final CRC32 crc = new CRC32();
    RecordBuffer buffer = new RecordBuffer(1024);

    State(RecordFormatter formatter) {
      this.formatter = formatter;
    }
  }
}
