package io.nnaudit.seal;

import java.io.IOException;
import java.nio.channels.FileChannel;

import io.nnaudit.trail.FileLines;

/**
 * The most a run killed after a seal can have left unsealed: at most the seal's {@code tail} records, then at
 * most its {@code tail} bytes more (see {@link Seal#tailRecords}). The start after the kill seals no more than
 * that as recovered, and verify reports anything beyond it as inserted. Stateless.
 */
public final class CrashTail {
  private CrashTail() {
  }

  /**
   * Where, in a file of {@code size} bytes, the tail that {@code last} allows ends: after at most
   * {@code last.tailRecords} records from {@code last.to}, then at most {@code last.tailBytes} bytes, cut back to
   * the end of a record; {@code size} when the whole tail is allowed.
   */
  public static long end(FileChannel ch, Seal last, long size) throws IOException {
    if (last.tailRecords == Seal.UNBOUNDED || size - last.to <= last.tailBytes) {
      return size;
    }
    long found = FileLines.afterLines(ch, last.to, last.tailRecords, size);
    long afterRecords = found < 0 ? size : found;
    if (size - afterRecords <= last.tailBytes) {
      return size;
    }
    return FileLines.lastLineEndAtOrBefore(ch, afterRecords, afterRecords + last.tailBytes);
  }
}
