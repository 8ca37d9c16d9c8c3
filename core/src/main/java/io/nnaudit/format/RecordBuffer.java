package io.nnaudit.format;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The writer's batch of records as UTF-8 bytes, built in place: formatters append to it and the sink writes
 * straight from its array. It replaces a StringBuilder whose text was then copied twice to become bytes
 * ({@code toString}, then {@code getBytes}); JMH and perf put formatting and those copies at about half the
 * writer's CPU.
 *
 * <p>Text is encoded as UTF-8 as it is appended. An unpaired surrogate becomes {@code ?}, as the JDK's own
 * encoder (and log4j's writer) make it; the formatters escape unpaired surrogates before they get here, so
 * this only guards against a formatter that does not. Not thread-safe: one instance per writer thread.
 */
public final class RecordBuffer {
  private byte[] buf;
  private int len;

  public RecordBuffer() {
    this(16 * 1024);
  }

  public RecordBuffer(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  /** Bytes held. */
  public int length() {
    return len;
  }

  /** Size of the backing array. */
  public int capacity() {
    return buf.length;
  }

  /** Cuts the buffer back to {@code length} bytes (a mark taken with {@link #length()}). */
  public void setLength(int length) {
    if (length < 0 || length > len) {
      throw new IndexOutOfBoundsException("length " + length + " of " + len);
    }
    len = length;
  }

  /** The bytes held, ready to read; valid until the next change to this buffer. */
  public ByteBuffer asByteBuffer() {
    return ByteBuffer.wrap(buf, 0, len);
  }

  /** The bytes held, decoded (for tests and messages). */
  @Override
  public String toString() {
    return new String(buf, 0, len, StandardCharsets.UTF_8);
  }

  /** Appends bytes that are already UTF-8, such as pre-encoded ASCII constants. */
  public RecordBuffer append(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, len, bytes.length);
    len += bytes.length;
    return this;
  }

  /** Appends one ASCII byte. The caller guarantees {@code c < 0x80}. */
  RecordBuffer appendAscii(char c) {
    ensure(1);
    buf[len++] = (byte) c;
    return this;
  }

  /**
   * Appends {@code s[from, to)}, every char of which the caller has checked is below 0x80, with one bulk copy
   * (a plain array copy for the JDK's Latin-1 strings).
   */
  @SuppressWarnings("deprecation")
  RecordBuffer appendAscii(String s, int from, int to) {
    int n = to - from;
    ensure(n);
    s.getBytes(from, to, buf, len); // exact for chars below 0x80
    len += n;
    return this;
  }

  /** Appends {@code s} in UTF-8; null appends {@code null}, as StringBuilder does. */
  public RecordBuffer append(String s) {
    if (s == null) {
      return appendAscii("null", 0, 4);
    }
    return append(s, 0, s.length());
  }

  /** Appends {@code s[from, to)} in UTF-8. */
  public RecordBuffer append(CharSequence s, int from, int to) {
    int i = from;
    if (s instanceof String) {
      String str = (String) s;
      while (i < to && str.charAt(i) < 0x80) {
        i++;
      }
      appendAscii(str, from, i);
      if (i == to) {
        return this;
      }
    }
    ensure((to - i) * 3);
    for (; i < to; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        buf[len++] = (byte) c;
      } else if (c < 0x800) {
        buf[len++] = (byte) (0xC0 | (c >> 6));
        buf[len++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
          int cp = Character.toCodePoint(c, s.charAt(++i));
          buf[len++] = (byte) (0xF0 | (cp >> 18));
          buf[len++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
          buf[len++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
          buf[len++] = (byte) (0x80 | (cp & 0x3F));
        } else {
          buf[len++] = '?';
        }
      } else {
        buf[len++] = (byte) (0xE0 | (c >> 12));
        buf[len++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        buf[len++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return this;
  }

  /** Appends {@code cs[off, off + n)} in UTF-8. */
  public RecordBuffer append(char[] cs, int off, int n) {
    return append(java.nio.CharBuffer.wrap(cs, off, n), 0, n);
  }

  /** Appends one char in UTF-8 (a lone surrogate becomes {@code ?}). */
  public RecordBuffer append(char c) {
    if (c < 0x80) {
      return appendAscii(c);
    }
    return append(String.valueOf(c), 0, 1);
  }

  public RecordBuffer append(long v) {
    String s = Long.toString(v);
    return appendAscii(s, 0, s.length());
  }

  /** Makes room for {@code extra} more bytes. */
  void ensure(int extra) {
    int need = len + extra;
    if (need > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(need, buf.length * 2));
    }
  }

  /** Writes {@code b} at {@code len} (after {@link #ensure}). */
  void put(byte b) {
    buf[len++] = b;
  }

  /** Pre-encodes an ASCII constant for {@link #append(byte[])}. */
  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
