package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

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
    long afterRecords = afterLines(ch, last.to, last.tailRecords, size);
    if (size - afterRecords <= last.tailBytes) {
      return size;
    }
    return lastLineEndAtOrBefore(ch, afterRecords, afterRecords + last.tailBytes);
  }

  /** The offset after {@code n} more newlines from {@code from}, or {@code size} when there are fewer. */
  private static long afterLines(FileChannel ch, long from, long n, long size) throws IOException {
    if (n == 0) {
      return from;
    }
    ByteBuffer b = ByteBuffer.allocate(1 << 16);
    long pos = from;
    long seen = 0;
    while (pos < size) {
      b.clear();
      b.limit((int) Math.min(b.capacity(), size - pos));
      int r = ch.read(b, pos);
      if (r <= 0) {
        break;
      }
      for (int i = 0; i < r; i++) {
        if (b.get(i) == '\n' && ++seen == n) {
          return pos + i + 1;
        }
      }
      pos += r;
    }
    return size;
  }

  /** The offset just after the last newline in {@code [from, limit)}, or {@code from} when there is none. */
  private static long lastLineEndAtOrBefore(FileChannel ch, long from, long limit) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(1 << 16);
    long end = limit;
    while (end > from) {
      long start = Math.max(from, end - b.capacity());
      b.clear();
      b.limit((int) (end - start));
      int r = 0;
      while (b.hasRemaining()) {
        int n = ch.read(b, start + b.position());
        if (n <= 0) {
          break;
        }
        r += n;
      }
      for (int i = r - 1; i >= 0; i--) {
        if (b.get(i) == '\n') {
          return start + i + 1;
        }
      }
      end = start;
    }
    return from;
  }
}
