package io.nnaudit.trail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Finds the newlines that end a trail's records in an array of bytes, eight bytes at a time: for verify and
 * for the sealing thread, which count the records they hash (the sealing thread only where the writer did not
 * say where its records end), and for the shipper, which cuts what it reads into records. A
 * record is 100-300 bytes, so a byte-at-a-time loop would look at every byte once for each one it keeps. Not
 * thread-safe: one per thread and array.
 */
public final class LineEnds {
  private static final long NEWLINES = 0x0a0a0a0a0a0a0a0aL;
  private static final long LOW_BITS = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  private final byte[] bytes;
  private final ByteBuffer words;

  public LineEnds(byte[] bytes) {
    this.bytes = bytes;
    this.words = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * The index of the first newline in {@code [from, end)}, or -1. A byte of {@code word ^ 0x0a0a..} is zero
   * where a newline is; the lowest such byte is found exactly (the borrow of the subtraction runs only upwards,
   * past it).
   */
  public int next(int from, int end) {
    int i = from;
    for (; i + 8 <= end; i += 8) {
      long v = words.getLong(i) ^ NEWLINES;
      long zero = (v - LOW_BITS) & ~v & HIGH_BITS;
      if (zero != 0) {
        return i + (Long.numberOfTrailingZeros(zero) >>> 3);
      }
    }
    for (; i < end; i++) {
      if (bytes[i] == '\n') {
        return i;
      }
    }
    return -1;
  }
}
