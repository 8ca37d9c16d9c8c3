package io.nnaudit.sink;

import java.util.Arrays;

/**
 * Where each record of a chunk ends, as the writer formatted it: offsets from the chunk's first byte (its
 * position as the writer hands it, which is 0), each one past a record's newline, rising, the last at the
 * chunk's end. A sealed file's hashing takes them instead of searching every byte for newlines; the built-in
 * formatters write each record as one line, so each end is just past a newline and no other newline lies
 * between two ends. Not thread-safe: the writing thread fills it; a sink reads it ({@link #count},
 * {@link #copy}) only during the write it came with, and never changes it.
 */
public final class RecordEnds {
  private int[] ends = new int[256];
  private int count;

  /** Forgets every end: the chunk is empty again. */
  public void clear() {
    count = 0;
  }

  /** A record ends at {@code end}, after the ones before. */
  public void add(int end) {
    if (count == ends.length) {
      ends = Arrays.copyOf(ends, count * 2);
    }
    ends[count++] = end;
  }

  /** Forgets the ends after the first {@code n}: the records after them were taken back out of the chunk. */
  public void truncate(int n) {
    if (n < 0 || n > count) {
      throw new IndexOutOfBoundsException(n + " of " + count + " ends");
    }
    count = n;
  }

  /** How many records the chunk holds. */
  public int count() {
    return count;
  }


  /** The ends, copied: for a thread that reads them after the write has returned. */
  public int[] copy() {
    return Arrays.copyOf(ends, count);
  }
}
