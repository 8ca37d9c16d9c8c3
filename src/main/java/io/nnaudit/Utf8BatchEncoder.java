package io.nnaudit;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Encodes the writer's batch text as UTF-8. {@code toString().getBytes(UTF_8)} is two bulk copies for the
 * ASCII text that audit records are (on JDK 9+ a Latin-1 string is copied, checked for high bytes, and copied
 * again), where a reused {@code CharsetEncoder} widened every byte to a char and encoded it back one at a
 * time: profiling the writer under JMH put that at 40% of its CPU. The price is two short-lived arrays per
 * batch, about twice the batch's size. An unpaired surrogate in a raw field (the stock format writes ugi and
 * cmd unescaped) becomes {@code ?}, as log4j's writer would make it. Writer thread only.
 */
final class Utf8BatchEncoder {
  private Utf8BatchEncoder() {
  }

  /** Returns a buffer, ready to read, holding {@code text} in UTF-8. */
  static ByteBuffer encode(StringBuilder text) {
    return ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
  }
}
