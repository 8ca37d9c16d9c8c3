package io.nnaudit.format;

/**
 * The escaping of commons-text {@code StringEscapeUtils.escapeJava}, which the stock audit logger applies to
 * src, dst and the caller context, written straight into a {@link StringBuilder} with a no-copy fast path.
 *
 * <p>Same output as commons-text (checked by a randomized test against it): {@code "} and {@code \} get a
 * backslash; \b \n \t \f \r their Java escapes; any other UTF-16 unit below 0x20 or above 0x7F becomes
 * {@code \}{@code uXXXX} with upper-case hex. Unpaired surrogates are escaped like any other unit, so the
 * output is always plain ASCII.
 */
public final class JavaEscaper {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private JavaEscaper() {
  }

  /** Appends {@code escapeJava(s)}; a null {@code s} appends {@code null}, as the stock line does. */
  public static void appendEscaped(StringBuilder sb, String s) {
    if (s == null) {
      sb.append("null");
      return;
    }
    int n = s.length();
    int i = 0;
    while (i < n && isPlain(s.charAt(i))) {
      i++;
    }
    if (i == n) {
      sb.append(s);
      return;
    }
    sb.append(s, 0, i);
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (isPlain(c)) {
        sb.append(c);
      } else {
        appendEscape(sb, c);
      }
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
  public static void appendControlEscaped(StringBuilder sb, String s) {
    if (s == null) {
      sb.append("null");
      return;
    }
    int n = s.length();
    int i = 0;
    while (i < n && !needsRawEscape(s, i)) {
      i++;
    }
    if (i == n) {
      sb.append(s);
      return;
    }
    sb.append(s, 0, i);
    for (; i < n; i++) {
      char c = s.charAt(i);
      if (!needsRawEscape(s, i)) {
        sb.append(c);
      } else {
        appendEscape(sb, c);
      }
    }
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

  private static void appendEscape(StringBuilder sb, char c) {
    switch (c) {
      case '"':
        sb.append("\\\"");
        break;
      case '\\':
        sb.append("\\\\");
        break;
      case '\b':
        sb.append("\\b");
        break;
      case '\n':
        sb.append("\\n");
        break;
      case '\t':
        sb.append("\\t");
        break;
      case '\f':
        sb.append("\\f");
        break;
      case '\r':
        sb.append("\\r");
        break;
      default:
        sb.append('\\').append('u')
            .append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF])
            .append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
    }
  }
}
