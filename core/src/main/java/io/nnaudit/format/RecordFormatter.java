package io.nnaudit.format;

import io.nnaudit.event.AuditEvent;


/**
 * Turns events into records, each one line ending in a newline, appended to the writer's batch of bytes.
 * Implementations are used by the writer thread alone and need not be thread-safe. A formatter that throws
 * may leave part of a record behind; the writer cuts the text back to where the record began.
 */
public interface RecordFormatter {
  /** Appends the record of one operation. */
  void appendRecord(RecordBuffer out, AuditEvent e);

  /**
   * Appends the record, written at {@code nowMillis}, that reports the events {@code drops} counts. It must never
   * parse as an operation.
   */
  void appendDropRecord(RecordBuffer out, long nowMillis, DropReport drops);
}
