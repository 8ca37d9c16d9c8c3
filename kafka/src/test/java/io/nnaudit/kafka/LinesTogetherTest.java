package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.nnaudit.trail.LineEnds;

/**
 * Which lines {@link LinesTogether} puts in one record: up to the most lines and bytes, never past the end of the
 * next seal held or over the start of a refused line, and after a refused {@code records} record, its lines alone
 * and later ones together in half the bytes.
 */
class LinesTogetherTest {
  /** Ten lines of 9 bytes and their line ends: line k starts at 10 k, its line end at 10 k + 9. */
  private static final byte[] TEN = "line-0000\nline-0001\nline-0002\nline-0003\nline-0004\nline-0005\nline-0006\n"
      .concat("line-0007\nline-0008\nline-0009\n").getBytes(StandardCharsets.UTF_8);
  /** The place of byte 0 of {@link #TEN}: file 3, byte 500. */
  private static final long AT = ShipPosition.global(3, 500);
  private static final long NO_SEAL = Long.MAX_VALUE;

  private static int last(LinesTogether t, int startLine, long sealEnd, long refusedAt) {
    return t.lastLine(new LineEnds(TEN), 10 * startLine, 10 * startLine + 9, TEN.length, AT + 10 * startLine,
        sealEnd, refusedAt);
  }

  @Test
  void upToTheMostLinesAndTheWholeLinesRead() {
    LinesTogether t = new LinesTogether(4, 1 << 16);
    assertEquals(39, last(t, 0, NO_SEAL, -1));
    assertEquals(4, t.lines());
    assertEquals(99, last(t, 8, NO_SEAL, -1)); // two lines left in the buffer
    assertEquals(2, t.lines());
    assertEquals(99, last(t, 9, NO_SEAL, -1));
    assertEquals(1, t.lines());
    LinesTogether alone = new LinesTogether(1, 1 << 16);
    assertEquals(9, last(alone, 0, NO_SEAL, -1));
    assertEquals(1, alone.lines());
  }

  @Test
  void upToTheMostBytesLineEndsBetweenLinesIncluded() {
    LinesTogether t = new LinesTogether(1024, 29); // three lines are 29 bytes without the last line end
    assertEquals(29, last(t, 0, NO_SEAL, -1));
    assertEquals(3, t.lines());
    assertEquals(9, last(new LinesTogether(1024, 18), 0, NO_SEAL, -1)); // two are 19
    assertEquals(9, last(new LinesTogether(1024, 0), 0, NO_SEAL, -1)); // batch.size 4096 or less: none together
  }

  @Test
  void neverPastTheEndOfTheNextSealHeld() {
    LinesTogether t = new LinesTogether(1024, 1 << 16);
    assertEquals(49, last(t, 0, AT + 50, -1)); // the seal ends after line 4: the record ends there too
    assertEquals(5, t.lines());
    assertEquals(9, last(t, 0, AT + 10, -1)); // the seal ends with the first line: it goes alone
    assertEquals(9, last(t, 0, AT + 5, -1)); // a seal not sent yet, ending before: nothing goes together
    assertEquals(99, last(t, 0, ShipPosition.global(4, 0), -1)); // the next seal held is of the next file
  }

  @Test
  void aRefusedLineGoesAloneAndIsNotTakenIn() {
    LinesTogether t = new LinesTogether(1024, 1 << 16);
    assertEquals(29, last(t, 0, NO_SEAL, AT + 30)); // stops before the refused line 3
    assertEquals(39, last(t, 3, NO_SEAL, AT + 30)); // which goes alone
    assertEquals(1, t.lines());
    assertEquals(99, last(t, 4, NO_SEAL, AT + 30));
  }

  @Test
  void afterARefusedRecordsRecordItsLinesGoAloneAndLaterOnesInHalfTheBytes() {
    LinesTogether t = new LinesTogether(1024, 40);
    assertEquals(39, last(t, 0, NO_SEAL, -1)); // lines 0-3, 39 bytes
    assertEquals(20, t.refused(AT + 40));
    for (int line = 0; line < 4; line++) {
      assertEquals(10 * line + 9, last(t, line, NO_SEAL, -1));
    }
    assertEquals(59, last(t, 4, NO_SEAL, -1)); // two lines, 19 bytes
    assertEquals(10, t.refused(AT + 60));
    assertEquals(69, last(t, 6, NO_SEAL, -1)); // past the refused record's end: together again, in 10 bytes
    assertEquals(1, t.lines()); // where no two lines fit: each goes alone
  }
}
