package io.nnaudit.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

class RecordBufferTest {

  private static byte[] bytes(RecordBuffer b) {
    ByteBuffer bb = b.asByteBuffer();
    byte[] out = new byte[bb.remaining()];
    bb.get(out);
    return out;
  }

  @Test
  void encodesLikeTheJdkIncludingUnpairedSurrogates() {
    Random r = new Random(20261122L);
    char[] interesting = {'a', '\n', '\u007f', '\u0080', '\u07ff', '\u0800', '\uffff', '\ud83d', '\ude00',
        '\udbff', '\udc00', '\u00e9', '\u65e5'};
    for (int i = 0; i < 20_000; i++) {
      StringBuilder sb = new StringBuilder();
      int len = r.nextInt(40);
      for (int j = 0; j < len; j++) {
        sb.append(r.nextBoolean() ? interesting[r.nextInt(interesting.length)] : (char) r.nextInt(0x10000));
      }
      String s = sb.toString();
      RecordBuffer b = new RecordBuffer(16);
      b.append(s);
      assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), bytes(b),
          () -> "for " + Arrays.toString(s.toCharArray()));
      RecordBuffer c = new RecordBuffer(16);
      c.append(s.toCharArray(), 0, s.length());
      assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), bytes(c));
    }
  }

  @Test
  void growsKeepsWhatItHoldsAndCutsBackToAMark() {
    RecordBuffer b = new RecordBuffer(16);
    b.append("head|");
    int mark = b.length();
    String big = new String(new char[100_000]).replace('\0', 'x');
    b.append(big).append('é').append(42L);
    assertEquals("head|" + big + "é42", b.toString());
    b.setLength(mark);
    b.append((String) null);
    assertEquals("head|null", b.toString());
  }
}
