package io.nnaudit.trail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Finding and counting the line ends of a trail's file, in 64 KB reads: where the {@code n}-th record after an
 * offset ends, where the last whole record before an offset ends, and how many records follow an offset. Shared by
 * a start's seal (the crash tail), the verifier and retention's count of what a loss costs. Stateless.
 */
public final class FileLines {
  private static final int READ = 1 << 16;

  private FileLines() {
  }

  /**
   * The offset just after the {@code n}-th newline from {@code from}, reading no further than {@code limit};
   * -1 when there are fewer.
   */
  public static long afterLines(FileChannel ch, long from, long n, long limit) throws IOException {
    if (n == 0) {
      return from;
    }
    ByteBuffer b = ByteBuffer.allocate(READ);
    long pos = from;
    long seen = 0;
    while (pos < limit) {
      b.clear();
      b.limit((int) Math.min(b.capacity(), limit - pos));
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
    return -1;
  }

  /** The offset just after the {@code n}-th newline from {@code from}, reading to the end; -1 when fewer. */
  public static long afterLines(FileChannel ch, long from, long n) throws IOException {
    return afterLines(ch, from, n, Long.MAX_VALUE);
  }

  /** The offset just after the last newline in {@code [from, limit)}, or {@code from} when there is none. */
  public static long lastLineEndAtOrBefore(FileChannel ch, long from, long limit) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(READ);
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

  /** The newlines from {@code from} to the end of the file. */
  public static long count(FileChannel ch, long from) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(READ);
    long lines = 0;
    long pos = from;
    int n;
    while ((n = ch.read(b, pos)) > 0) {
      for (int i = 0; i < n; i++) {
        if (b.get(i) == '\n') {
          lines++;
        }
      }
      pos += n;
      b.clear();
    }
    return lines;
  }
}
