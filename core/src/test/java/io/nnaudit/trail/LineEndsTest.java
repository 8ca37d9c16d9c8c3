package io.nnaudit.trail;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;

import org.junit.jupiter.api.Test;

/** The word-at-a-time newline search finds what a byte-at-a-time loop finds, at every alignment and length. */
class LineEndsTest {
  @Test
  void findsTheFirstNewlineAsAByteLoopDoes() {
    Random r = new Random(11);
    for (int trial = 0; trial < 20_000; trial++) {
      byte[] b = new byte[r.nextInt(80)];
      for (int i = 0; i < b.length; i++) {
        // newlines, bytes either side of 0x0a, and bytes with the high bit set, which a borrow could confuse
        int pick = r.nextInt(8);
        b[i] = (byte) (pick == 0 ? '\n' : pick == 1 ? 0x0b : pick == 2 ? 0x09 : pick == 3 ? 0x8a : r.nextInt(256));
      }
      int from = b.length == 0 ? 0 : r.nextInt(b.length + 1);
      int end = from + (b.length == from ? 0 : r.nextInt(b.length - from + 1));
      assertEquals(byteLoop(b, from, end), new LineEnds(b).next(from, end), "trial " + trial);
    }
  }

  @Test
  void walksEveryLineOfABuffer() {
    byte[] b = "a\n\nbcdefghijklmnop\nq".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    LineEnds ends = new LineEnds(b);
    assertEquals(1, ends.next(0, b.length));
    assertEquals(2, ends.next(2, b.length));
    assertEquals(18, ends.next(3, b.length));
    assertEquals(-1, ends.next(19, b.length));
    assertEquals(-1, ends.next(3, 18)); // the end is exclusive
  }

  private static int byteLoop(byte[] b, int from, int end) {
    for (int i = from; i < end; i++) {
      if (b[i] == '\n') {
        return i;
      }
    }
    return -1;
  }
}
