package io.nnaudit.format;

import java.nio.charset.StandardCharsets;

import org.apache.hadoop.ipc.CallerContext;

/**
 * The stock logger's caller-context rules, for both record formats. {@code FSNamesystemAuditLogger} (Hadoop
 * 3.3 to 3.5) writes the field only when {@code hadoop.caller.context.enabled} is true and the context is
 * valid (not null, not empty), and then:
 * <pre>
 * String context = escapeJava(callerContext.getContext());
 * if (context.length() &gt; callerContextMaxLen) cut it to callerContextMaxLen;
 * if (signature != null &amp;&amp; 0 &lt; signature.length &lt;= callerSignatureMaxLen)
 *   append ":" + escapeJava(new String(signature, UTF-8));
 * </pre>
 * So escaping comes first and the limit counts characters of the escaped text, which is ASCII: a context of
 * {@code max.size} characters or fewer can still be cut if escaping lengthens it, and the cut can fall inside
 * an escape. The stock format reproduces that byte for byte, fragments included. It escapes only what it
 * keeps, so a huge context costs its limit, not its length.
 *
 * <p>JSON carries values unescaped, so it cannot hold half an escape: its {@code callerContext} is the leading
 * characters of the context whose escapes lie wholly within the stock limit, i.e. exactly the characters the
 * stock line shows in full. Where the stock cut falls between the two escapes of a surrogate pair, that is a
 * lone high surrogate, written as a {@code \}{@code uXXXX} escape like any other unpaired surrogate. The
 * signature is the same in both formats.
 */
final class CallerContextField {
  private final boolean enabled;
  private final int maxLen;
  private final int signatureMaxLen;

  CallerContextField(FormatOptions options) {
    this.enabled = options.callerContextEnabled();
    this.maxLen = options.callerContextMaxLen();
    this.signatureMaxLen = options.callerSignatureMaxLen();
  }

  /** Whether the record has the field at all. */
  boolean shows(CallerContext ctx) {
    return enabled && ctx != null && ctx.isContextValid();
  }

  /** Appends the stock field's value: the cut, escaped context and {@code :signature} (after {@link #shows}). */
  void appendStock(RecordBuffer out, CallerContext ctx) {
    JavaEscaper.appendEscapedPrefix(out, ctx.getContext(), maxLen);
    String signature = signature(ctx);
    if (signature != null) {
      out.appendAscii(':');
      JavaEscaper.appendEscaped(out, signature);
    }
  }

  /** The JSON value of the context (after {@link #shows}): the characters the stock line shows in full. */
  String jsonContext(CallerContext ctx) {
    String c = ctx.getContext();
    int keep = JavaEscaper.wholeEscapesWithin(c, maxLen);
    return keep == c.length() ? c : c.substring(0, keep);
  }

  /** The signature as text, or null when the stock rules leave it out. */
  String signature(CallerContext ctx) {
    byte[] signature = ctx.getSignature(); // a copy: ask once
    if (signature == null || signature.length == 0 || signature.length > signatureMaxLen) {
      return null;
    }
    return new String(signature, StandardCharsets.UTF_8);
  }
}
