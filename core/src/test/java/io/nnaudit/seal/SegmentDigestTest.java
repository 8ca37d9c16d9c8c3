package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The records' ends as the writer gives them make the same digest as the newlines searched for: the same hash,
 * count, sum and last line's checksum, over chunks of every shape; ends that do not fit the bytes are not
 * trusted.
 */
class SegmentDigestTest {
  /** A chunk of whole records, and the offset just past each one's newline. */
  private static final class Chunk {
    final byte[] bytes;
    final int[] ends;

    Chunk(byte[] bytes, int[] ends) {
      this.bytes = bytes;
      this.ends = ends;
    }
  }

  private static Chunk chunk(Random r, int records) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int[] ends = new int[records];
    for (int i = 0; i < records; i++) {
      int len = r.nextInt(8) == 0 ? r.nextInt(3) : r.nextInt(400);
      for (int k = 0; k < len; k++) {
        int b = r.nextInt(256);
        out.write(b == '\n' ? 'x' : b);
      }
      out.write('\n');
      ends[i] = out.size();
    }
    return new Chunk(out.toByteArray(), ends);
  }

  private static void assertSame(SegmentDigest searched, SegmentDigest told, String where) {
    assertEquals(searched.bytes(), told.bytes(), where);
    assertEquals(searched.records(), told.records(), where);
    assertEquals(searched.lineSum(), told.lineSum(), where);
    assertEquals(searched.lastLineHash(), told.lastLineHash(), where);
    assertArrayEquals(searched.peekSha256(), told.peekSha256(), where);
  }

  @Test
  void theWritersEndsMakeTheDigestTheSearchMakes() {
    Random r = new Random(23);
    SegmentDigest searched = new SegmentDigest();
    SegmentDigest told = new SegmentDigest();
    for (int trial = 0; trial < 2000; trial++) {
      Chunk c = chunk(r, 1 + r.nextInt(30));
      // the chunk sits anywhere in a larger array, as a writer's buffer or a copy of it may
      int before = r.nextInt(16);
      byte[] padded = new byte[before + c.bytes.length + r.nextInt(16)];
      System.arraycopy(c.bytes, 0, padded, before, c.bytes.length);
      ByteBuffer buf = ByteBuffer.wrap(padded, before, c.bytes.length).slice();
      searched.update(buf);
      told.update(buf, c.ends);
      assertEquals(0, buf.position(), "the position is not moved");
      if (r.nextInt(50) == 0) {
        assertSame(searched, told, "trial " + trial);
        searched.finish();
        told.finish();
      }
      if (r.nextInt(40) == 0) { // a line the writer did not end (the sink's own bytes after a reopen): searched
        byte[] partial = "partial".getBytes(StandardCharsets.US_ASCII);
        searched.update(partial, 0, partial.length);
        told.update(partial, 0, partial.length);
      }
    }
    assertSame(searched, told, "at the end");
  }

  @Test
  void endsThatDoNotFitTheBytesAreIgnored() {
    Random r = new Random(5);
    List<int[]> wrong = new ArrayList<>();
    Chunk c = chunk(r, 6);
    int[] e = c.ends;
    wrong.add(new int[0]);
    wrong.add(new int[] {e[0], e[1]}); // the last not at the chunk's end
    int[] shifted = e.clone();
    shifted[2]--; // not just past a newline
    wrong.add(shifted);
    int[] backwards = e.clone();
    backwards[1] = backwards[3];
    wrong.add(backwards);
    wrong.add(new int[] {c.bytes.length + 5, c.bytes.length}); // beyond the bytes, then back
    for (int[] ends : wrong) {
      SegmentDigest searched = new SegmentDigest();
      SegmentDigest told = new SegmentDigest();
      searched.update(c.bytes, 0, c.bytes.length);
      told.update(c.bytes, 0, c.bytes.length, ends);
      assertSame(searched, told, java.util.Arrays.toString(ends));
      assertEquals(6, told.records());
    }
  }

  @Test
  void aNewlineInsideARecordFailsTheTestsAssertions() {
    boolean assertions = false;
    assert assertions = true;
    assumeTrue(assertions, "the tests run with assertions on");
    byte[] b = "a\nb\n".getBytes(StandardCharsets.US_ASCII);
    assertThrows(AssertionError.class, () -> new SegmentDigest().update(b, 0, b.length, new int[] {4}));
  }
}
