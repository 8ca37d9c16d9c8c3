package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Splits an audit file into records the way every reader might: on {@code \n} alone (nnaudit's own record
 * end), as Java's {@code BufferedReader.readLine} does ({@code \n}, {@code \r}, {@code \r\n}), as Python's
 * {@code str.splitlines} and Java's {@code \R} do ({@code \v}, {@code \f}, {@code \x1c}-{@code \x1e},
 * U+0085, U+2028, U+2029 too), and on NUL (C strings, {@code xargs -0}). All must give the same records.
 */
public final class LineEnds {
  /** Every character some reader ends a line or a record at. */
  public static final String TERMINATORS = "\n\r\u000b\u000c\u001c\u001d\u001e\u0085\u2028\u2029\u0000";

  private LineEnds() {
  }

  /** The records of {@code f}, after checking it is valid UTF-8 and that every way of splitting it agrees. */
  public static List<String> records(File f) throws IOException {
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(Files.readAllBytes(f.toPath())))
          .toString();
    } catch (CharacterCodingException e) {
      throw new AssertionError(f + " is not valid UTF-8", e);
    }
    List<String> byNewline = TestFiles.lines(f);

    List<String> byReader = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new StringReader(text))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        byReader.add(line);
      }
    }
    assertEquals(byNewline.size(), byReader.size(), "records as BufferedReader.readLine splits them");
    assertEquals(byNewline, byReader, "records as BufferedReader.readLine splits them");

    List<String> byAny = new ArrayList<>(Arrays.asList(text.split("[" + TERMINATORS + "]", -1)));
    assertEquals("", byAny.remove(byAny.size() - 1), "the file ends with a record end");
    assertEquals(byNewline.size(), byAny.size(), "records split at every line end a reader might honour");
    assertEquals(byNewline, byAny, "records split at every line end a reader might honour");
    return byNewline;
  }

  /**
   * The first character in {@code record} that a reader or a terminal might act on: C0 controls other than
   * the tab that separates fields, C1 controls (U+0080-U+009F), U+2028 and U+2029; -1 if none.
   */
  public static int firstControl(String record) {
    for (int i = 0; i < record.length(); i++) {
      char c = record.charAt(i);
      if ((c < 0x20 && c != '\t') || (c >= 0x80 && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
        return i;
      }
    }
    return -1;
  }
}
