package io.nnaudit;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Encodes the writer's batch text as UTF-8 into a reused buffer, so a batch costs no allocation once the
 * buffers have grown to the usual batch size. An unpaired surrogate in a raw field (the stock format writes
 * ugi and cmd unescaped) becomes {@code ?}, as log4j's writer would make it. Writer thread only.
 */
final class Utf8BatchEncoder {
  private final CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
      .onMalformedInput(CodingErrorAction.REPLACE)
      .onUnmappableCharacter(CodingErrorAction.REPLACE);
  private char[] chars = new char[16 * 1024];
  private ByteBuffer bytes = ByteBuffer.allocate(48 * 1024);

  /** Returns a buffer, ready to read, holding {@code text} in UTF-8. Valid until the next call. */
  ByteBuffer encode(StringBuilder text) {
    int n = text.length();
    if (chars.length < n) {
      chars = new char[Math.max(n, chars.length * 2)];
    }
    text.getChars(0, n, chars, 0);
    int worst = (int) Math.min(Integer.MAX_VALUE - 8, (long) n * 3);
    if (bytes.capacity() < worst) {
      bytes = ByteBuffer.allocate(Math.max(worst, bytes.capacity() * 2));
    }
    bytes.clear();
    encoder.reset();
    CharBuffer in = CharBuffer.wrap(chars, 0, n);
    CoderResult r = encoder.encode(in, bytes, true);
    if (!r.isUnderflow()) {
      throw new IllegalStateException("UTF-8 encoding of an audit batch did not complete: " + r);
    }
    encoder.flush(bytes);
    bytes.flip();
    return bytes;
  }

  /** Lets an unusually large batch's buffers go, so one 64 KiB path does not pin megabytes forever. */
  void trim(int keepChars) {
    if (chars.length > keepChars) {
      chars = new char[keepChars];
      bytes = ByteBuffer.allocate(keepChars * 3);
    }
  }
}
