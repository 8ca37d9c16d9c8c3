package io.nnaudit.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import org.apache.commons.text.StringEscapeUtils;
import org.junit.jupiter.api.Test;

class JavaEscaperTest {

  private static String escaped(String s) {
    RecordBuffer sb = new RecordBuffer();
    JavaEscaper.appendEscaped(sb, s);
    return sb.toString();
  }

  private static String controlEscaped(String s) {
    RecordBuffer sb = new RecordBuffer();
    JavaEscaper.appendControlEscaped(sb, s);
    return sb.toString();
  }

  @Test
  void namedCases() {
    assertEquals("null", escaped(null));
    assertEquals("", escaped(""));
    assertEquals("/a/b c", escaped("/a/b c"));
    assertEquals("/a\\tb\\nc\\rd", escaped("/a\tb\nc\rd"));
    assertEquals("\\\"q\\\" back\\\\slash", escaped("\"q\" back\\slash"));
    assertEquals("\\u00E9t\\u00E9 \\u65E5\\u672C", escaped("été 日本"));
    assertEquals("\\u0000\\u0001\\b\\f\\u001F", escaped("\u0000\u0001\b\f\u001f"));
    assertEquals("\u007f", escaped("\u007f")); // DEL is not escaped by escapeJava
    assertEquals("\\uD83D\\uDE00", escaped("\uD83D\uDE00")); // a pair, as two units
    assertEquals("\\uD800x\\uDC00", escaped("\uD800x\uDC00")); // unpaired surrogates
  }

  @Test
  void matchesCommonsTextOnRandomStrings() {
    Random r = new Random(20261122L);
    char[] interesting = {'\n', '\r', '\t', '\b', '\f', '\0', '"', '\\', '/', ' ', '\u007f', '\u0080', '\u00ff',
        '\ud800', '\udbff', '\udc00', '\udfff', '\uffff', 'a', 'Z', ':', '='};
    for (int i = 0; i < 20_000; i++) {
      int len = r.nextInt(40);
      StringBuilder sb = new StringBuilder(len);
      for (int j = 0; j < len; j++) {
        int kind = r.nextInt(4);
        if (kind == 0) {
          sb.append(interesting[r.nextInt(interesting.length)]);
        } else if (kind == 1) {
          sb.append((char) r.nextInt(0x10000));
        } else {
          sb.append((char) (0x20 + r.nextInt(0x5f)));
        }
      }
      String s = sb.toString();
      assertEquals(StringEscapeUtils.escapeJava(s), escaped(s), "escaping of " + s.codePoints().count()
          + " code points, seed iteration " + i);
    }
  }

  @Test
  void aPrefixIsTheFirstCharactersOfTheWholeEscape() {
    Random r = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      StringBuilder sb = new StringBuilder();
      int len = 1 + r.nextInt(20);
      for (int j = 0; j < len; j++) {
        sb.append(r.nextBoolean() ? (char) r.nextInt(0x10000) : "a\t\"\\\ud83d\ude00".charAt(r.nextInt(6)));
      }
      String s = sb.toString();
      String whole = StringEscapeUtils.escapeJava(s);
      int max = r.nextInt(whole.length() + 3);
      RecordBuffer out = new RecordBuffer();
      out.append("x=");
      JavaEscaper.appendEscapedPrefix(out, s, max);
      assertEquals("x=" + whole.substring(0, Math.min(max, whole.length())), out.toString(), "max " + max);
      int keep = JavaEscaper.wholeEscapesWithin(s, max);
      assertTrue(StringEscapeUtils.escapeJava(s.substring(0, keep)).length() <= max);
      assertTrue(keep == s.length() || StringEscapeUtils.escapeJava(s.substring(0, keep + 1)).length() > max);
    }
  }

  @Test
  void rawFieldsKeepRealNamesAndEscapeWhatCouldForgeARecord() {
    assertEquals("null", controlEscaped(null));
    assertEquals("alice (auth:SIMPLE)", controlEscaped("alice (auth:SIMPLE)"));
    assertEquals("ünï \"q\" 日本 \uD83D\uDE00", controlEscaped("ünï \"q\" 日本 \uD83D\uDE00"));
    assertEquals("evil\\nallowed=true\\tcmd=delete", controlEscaped("evil\nallowed=true\tcmd=delete"));
    assertEquals("a\\rb\\u0000c\\u001B", controlEscaped("a\rb\u0000c\u001b"));
    assertEquals("DOM\\\\user", controlEscaped("DOM\\user"));
    assertEquals("nel\\u0085ls\\u2028ps\\u2029del\\u007F", controlEscaped("nel\u0085ls\u2028ps\u2029del\u007f"));
    assertEquals("\\uD800x\\uDC00", controlEscaped("\uD800x\uDC00"));
  }

  @Test
  void rawFieldEscapingRoundTripsThroughUnescapeJava() {
    Random r = new Random(42);
    for (int i = 0; i < 20_000; i++) {
      StringBuilder sb = new StringBuilder();
      int len = r.nextInt(30);
      for (int j = 0; j < len; j++) {
        sb.append(r.nextBoolean() ? (char) r.nextInt(0x10000) : "\\\n\t\"u\u2028\u0085".charAt(r.nextInt(7)));
      }
      String s = sb.toString();
      String escaped = controlEscaped(s);
      assertEquals(s, StringEscapeUtils.unescapeJava(escaped));
      assertEquals(-1, escaped.indexOf('\n'));
      assertEquals(-1, escaped.indexOf('\t'));
      assertEquals(-1, escaped.indexOf('\r'));
    }
  }
}
