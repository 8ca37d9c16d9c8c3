package io.nnaudit.format;

/**
 * The escaping of commons-text {@code StringEscapeUtils.escapeJava}, which the stock audit logger applies to
 * src, dst and the caller context, written straight into the writer's {@link RecordBuffer}: a value with
 * nothing to escape, which is nearly every value, is checked once and copied in bulk.
 *
 * <p>Same output as commons-text (checked by a randomized test against it): {@code "} and {@code \} get a
 * backslash; \b \n \t \f \r their Java escapes; any other UTF-16 unit below 0x20 or above 0x7F becomes
 * {@code \}{@code uXXXX} with upper-case hex. Unpaired surrogates are escaped like any other unit, so the
 * output is always plain ASCII.
 */
public final class JavaEscaper {
  private static final byte[] HEX = RecordBuffer.ascii("0123456789ABCDEF");
  private static final byte[] NULL = RecordBuffer.ascii("null");

  private JavaEscaper() {
  }

  /** Appends {@code escapeJava(s)}; a null {@code s} appends {@code null}, as the stock line does. */
  public static void appendEscaped(RecordBuffer out, String s) {
    if (s == null) {
      out.append(NULL);
      return;
    }
    int n = s.length();
    int i = 0;
    while (i < n && isPlain(s.charAt(i))) {
      i++;
    }
    out.appendAscii(s, 0, i);
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (isPlain(c)) {
        out.appendAscii(c);
      } else {
        appendEscape(out, c);
      }
    }
  }

  /**
   * Appends the first {@code maxChars} characters of {@code escapeJava(s)} ({@code s} not null), which is what
   * the stock logger writes for a caller context: it escapes first and cuts the escaped text. The cut may fall
   * inside an escape (leaving a lone backslash, or the start of a {@code \}{@code uXXXX} escape, at the end) or
   * between the two escapes of a surrogate pair; those fragments are kept, as the stock line keeps them. Only
   * as much of {@code s} is read as gives {@code maxChars} characters of output, so a huge value costs its
   * limit, not its length.
   */
  static void appendEscapedPrefix(RecordBuffer out, String s, int maxChars) {
    int start = out.length();
    int n = s.length();
    int i = 0;
    int plainEnd = Math.min(n, maxChars);
    while (i < plainEnd && isPlain(s.charAt(i))) {
      i++;
    }
    out.appendAscii(s, 0, i);
    for (; i < n && out.length() - start < maxChars; i++) {
      char c = s.charAt(i);
      if (isPlain(c)) {
        out.appendAscii(c);
      } else {
        appendEscape(out, c);
      }
    }
    if (out.length() - start > maxChars) {
      out.setLength(start + maxChars);
    }
  }

  /**
   * How many leading chars of {@code s} have their whole escape within the first {@code maxChars} characters
   * of {@code escapeJava(s)}: the part of the value that {@link #appendEscapedPrefix} shows in full.
   */
  static int wholeEscapesWithin(String s, int maxChars) {
    int n = s.length();
    long used = 0;
    int i = 0;
    for (; i < n; i++) {
      used += escapedLength(s.charAt(i));
      if (used > maxChars) {
        break;
      }
    }
    return i;
  }

  /** The length of {@code escapeJava} of one UTF-16 unit. */
  static int escapedLength(char c) {
    if (isPlain(c)) {
      return 1;
    }
    switch (c) {
      case '"':
      case '\\':
      case '\b':
      case '\n':
      case '\t':
      case '\f':
      case '\r':
        return 2;
      default:
        return 6;
    }
  }

  /**
   * Appends {@code s} raw, as the stock line does for ugi, cmd, owner and group, except for the characters
   * that would let a value break or forge a record, which the stock line writes raw too: they are escaped as
   * {@link #appendEscaped} would escape them. Those are the C0 and C1 control characters and DEL, the Unicode
   * line and paragraph separators (U+2028, U+2029), unpaired surrogates (which UTF-8 cannot carry) and the
   * backslash itself, so that commons-text {@code unescapeJava} gives back exactly the original value. Any
   * other value, which is every real user name, is written byte for byte as the stock logger writes it.
   */
  public static void appendControlEscaped(RecordBuffer out, String s) {
    if (s == null) {
      out.append(NULL);
      return;
    }
    int n = s.length();
    int i = 0;
    char c;
    while (i < n && (c = s.charAt(i)) >= 0x20 && c < 0x7f && c != '\\') {
      i++;
    }
    out.appendAscii(s, 0, i);
    // Raw runs (which may hold non-ASCII text and surrogate pairs) go out as UTF-8; the rest escaped.
    int run = i;
    for (; i < n; i++) {
      if (needsRawEscape(s, i)) {
        out.append(s, run, i);
        appendEscape(out, s.charAt(i));
        run = i + 1;
      }
    }
    out.append(s, run, n);
  }

  private static boolean needsRawEscape(String s, int i) {
    char c = s.charAt(i);
    if (c >= 0x20 && c < 0x7f) {
      return c == '\\';
    }
    if (c <= 0x9f || c == '\u2028' || c == '\u2029') {
      return true;
    }
    if (Character.isHighSurrogate(c)) {
      return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
    }
    if (Character.isLowSurrogate(c)) {
      return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
    }
    return false;
  }

  private static boolean isPlain(char c) {
    return c >= 0x20 && c <= 0x7f && c != '"' && c != '\\';
  }

  private static void appendEscape(RecordBuffer out, char c) {
    out.ensure(6);
    out.put((byte) '\\');
    switch (c) {
      case '"':
      case '\\':
        out.put((byte) c);
        break;
      case '\b':
        out.put((byte) 'b');
        break;
      case '\n':
        out.put((byte) 'n');
        break;
      case '\t':
        out.put((byte) 't');
        break;
      case '\f':
        out.put((byte) 'f');
        break;
      case '\r':
        out.put((byte) 'r');
        break;
      default:
        out.put((byte) 'u');
        out.put(HEX[(c >> 12) & 0xF]);
        out.put(HEX[(c >> 8) & 0xF]);
        out.put(HEX[(c >> 4) & 0xF]);
        out.put(HEX[c & 0xF]);
    }
  }
}
