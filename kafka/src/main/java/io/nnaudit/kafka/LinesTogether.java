package io.nnaudit.kafka;

import io.nnaudit.trail.LineEnds;

/**
 * Which whole lines read in one pass go together in one {@code records} record ({@code nnaudit.kafka.record.lines}):
 * from the line at the read position on, the lines after it, while the record keeps within the most lines and
 * bytes, ends at or before the end of the next seal held (so that the seal still follows the record that ends where
 * its range does), and does not take in the start of a record the broker refused (which goes alone). After a
 * {@code records} record the broker refused, its lines go alone up to its end, and lines go together in half the
 * bytes from then on.
 *
 * <p>Design note. Used by the shipper's thread only ({@link TrailReader}'s): every field is that thread's, nothing
 * here is read by another thread, and nothing here blocks or drops.
 */
final class LinesTogether {
  private final int mostLines;
  /** The most bytes of lines one record holds, line ends between them included; halved at each refusal. */
  private int mostBytes;
  /** Lines that start before this place ({@link ShipPosition#global}) go alone: a refused record ended there. */
  private long aloneUntil = -1;
  /** How many lines the last {@link #lastLine} put together, the first included. */
  private int lines;

  LinesTogether(int mostLines, int mostBytes) {
    this.mostLines = mostLines;
    this.mostBytes = mostBytes;
  }

  /**
   * The index of the line end of the last line to send with the line from {@code start} to the line end at
   * {@code end} of {@code ends}' array, whose first {@code n} bytes were read: {@code end} itself when it goes
   * alone. {@code at}: the first line's place; {@code sealEnd}: where the next seal held ends (both
   * {@link ShipPosition#global}; {@code Long.MAX_VALUE} when none is held); {@code refusedAt}: the start of a
   * record the broker refused, or -1. {@link #lines} says how many lines it found.
   */
  int lastLine(LineEnds ends, int start, int end, int n, long at, long sealEnd, long refusedAt) {
    lines = 1;
    if (mostLines < 2 || at < aloneUntil || at == refusedAt) {
      return end;
    }
    int last = end;
    int j;
    while (lines < mostLines) {
      long next = at + (last + 1 - start); // where the record ends so far, and the next line starts
      if (next >= sealEnd || next == refusedAt || (j = ends.next(last + 1, n)) < 0 || j - start > mostBytes) {
        break;
      }
      last = j;
      lines++;
    }
    return last;
  }

  /** The lines the last {@link #lastLine} put together. */
  int lines() {
    return lines;
  }

  /**
   * The broker refused a {@code records} record ending at {@code end} ({@link ShipPosition#global}): the lines up
   * to there go alone, and lines go together in half the bytes from now on. Returns that many bytes.
   */
  int refused(long end) {
    aloneUntil = Math.max(aloneUntil, end);
    mostBytes /= 2;
    return mostBytes;
  }
}
