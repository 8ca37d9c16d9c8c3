package io.nnaudit.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The headers every shipped record carries (docs/kafka.md, "Record schema"), UTF-8 text, in one of two forms
 * ({@code nnaudit.kafka.headers}): seven named headers ({@link #TYPE} ...), or one, {@link #COMPACT}, whose value
 * holds the same fields but the source (the record's key) in one text. A record's identity is (source, type,
 * file, offset), with its value for a gap or a seal: the same record sent twice (after a crash or a failed send)
 * has the same identity, and a consumer keeps the first and drops the rest. Epoch and seq say which start sent
 * it, in what order.
 *
 * <p>Why two forms: the Kafka producer encodes every header's name and value afresh for each record, and the
 * seven named headers cost it about as much CPU as the rest of the record (benchmarks/experiments/ship-headers).
 */
public final class ShipHeaders {
  /** {@link #RECORD}, {@link #RECORDS}, {@link #RECORD_CUT}, {@link #FILE_END}, {@link #GAP} or {@link #SEAL}. */
  public static final String TYPE = "nnaudit.type";
  /** {@code <nameservice>/<namenode>}; also the record's key. */
  public static final String SOURCE = "nnaudit.source";
  /** When the shipper that sent it started, ms since the epoch. */
  public static final String EPOCH = "nnaudit.epoch";
  /** The order of sending within one epoch, from 0. */
  public static final String SEQ = "nnaudit.seq";
  /** The number of the audit file, in the order the files were written. */
  public static final String FILE = "nnaudit.file";
  /** The byte offset of the record's line in that file (file-end: the file's length; seal: where its range ends). */
  public static final String OFFSET = "nnaudit.offset";
  /** {@code hdfs} (the stock line) or {@code json}. */
  public static final String FORMAT = "nnaudit.format";
  /** With {@link #RECORD_CUT}: the length of the whole line, of which the value holds the beginning. */
  public static final String LENGTH = "nnaudit.length";

  /**
   * The one header of the compact form: {@code <type> <file> <offset> <seq> <epoch> <format>}, and for
   * {@link #RECORD_CUT} {@code <length>} after, one space between; the source is the key.
   */
  public static final String COMPACT = "nnaudit";
  /** The fields of a {@link #COMPACT} header, in order ({@link #compactFields}). */
  public static final int C_TYPE = 0;
  public static final int C_FILE = 1;
  public static final int C_OFFSET = 2;
  public static final int C_SEQ = 3;
  public static final int C_EPOCH = 4;
  public static final int C_FORMAT = 5;
  /** Only in a {@link #RECORD_CUT}'s header. */
  public static final int C_LENGTH = 6;

  /** An audit record: the value is the line as written, without its line end. */
  public static final String RECORD = "record";
  /**
   * Several audit records ({@code nnaudit.kafka.record.lines} above 1): consecutive whole lines of the file from
   * {@code nnaudit.offset}, each as written without its line end, joined by one line end ({@code '\n'}); at least
   * two, at most {@link #MAX_RECORD_LINES}. Read as the {@link #RECORD}s it holds, the first at the offset, each
   * next one byte after the end of the one before.
   */
  public static final String RECORDS = "records";
  /** The most lines one {@link #RECORDS} record holds, and the most {@code nnaudit.kafka.record.lines} allows. */
  public static final int MAX_RECORD_LINES = 1024;
  /** The most bytes one {@link #RECORDS} record's value holds (less, with a smaller producer batch). */
  public static final int MAX_TOGETHER_BYTES = 64 * 1024;
  /** A line longer than the producer's max.request.size allows: the value is its beginning. */
  public static final String RECORD_CUT = "record-cut";
  /** The file {@code nnaudit.file} ends at {@code nnaudit.offset}; the next record is in the next file. */
  public static final String FILE_END = "file-end";
  /** Records were lost before they could be shipped (rotation deleted them); the value says what. */
  public static final String GAP = "gap";
  /**
   * A seal of the file {@code nnaudit.file} (a line of its digest, exactly as written there) over its bytes up
   * to {@code nnaudit.offset}; sent after the record that ends there.
   */
  public static final String SEAL = "seal";

  private ShipHeaders() {
  }

  /**
   * What is the same in every record one sender sends (the form, source, epoch and format), made once: the named
   * headers, or the bytes of the compact header's epoch and format fields.
   */
  static final class Fixed {
    private final boolean compact;
    private final Header source;
    private final Header epoch;
    private final Header format;
    private final byte[] epochAndFormat;

    Fixed(String source, long epoch, String format, boolean compact) {
      this.compact = compact;
      this.source = new RecordHeader(SOURCE, bytes(source));
      this.epoch = new RecordHeader(EPOCH, bytes(Long.toString(epoch)));
      this.format = new RecordHeader(FORMAT, bytes(format));
      this.epochAndFormat = bytes(epoch + " " + format); // the last fields but a cut record's length
    }
  }

  /** The type header of each type, made once: headers are read, never changed, by the producer. */
  private static final Map<String, Header> TYPES = new HashMap<>();

  /** The type field of each type in a {@link #COMPACT} header, made once. */
  private static final Map<String, byte[]> TYPE_BYTES = new HashMap<>();

  static {
    for (String t : new String[] {RECORD, RECORDS, RECORD_CUT, FILE_END, GAP, SEAL}) {
      TYPES.put(t, new RecordHeader(TYPE, bytes(t)));
      TYPE_BYTES.put(t, bytes(t));
    }
  }

  /** The headers of one record, in the order of the schema; {@code length} only for a cut record, else -1. */
  static RecordHeaders of(String type, Fixed fixed, long seq, long file, long offset, long length) {
    RecordHeaders h = new RecordHeaders();
    if (fixed.compact) {
      h.add(COMPACT, compact(type, fixed, seq, file, offset, length));
      return h;
    }
    Header t = TYPES.get(type);
    h.add(t != null ? t : new RecordHeader(TYPE, bytes(type)));
    h.add(fixed.source);
    h.add(fixed.epoch);
    h.add(SEQ, decimal(seq));
    h.add(FILE, decimal(file));
    h.add(OFFSET, decimal(offset));
    h.add(fixed.format);
    if (length >= 0) {
      h.add(LENGTH, decimal(length));
    }
    return h;
  }

  /** The value of the {@link #COMPACT} header, written as bytes, without a String between. */
  private static byte[] compact(String type, Fixed fixed, long seq, long file, long offset, long length) {
    byte[] t = TYPE_BYTES.get(type);
    if (t == null || file < 0 || offset < 0 || seq < 0) { // never from the shipper: made the plain way
      return bytes(type + " " + file + " " + offset + " " + seq + " "
          + new String(fixed.epochAndFormat, StandardCharsets.UTF_8) + (length >= 0 ? " " + length : ""));
    }
    byte[] tail = fixed.epochAndFormat;
    byte[] b = new byte[t.length + digits(file) + digits(offset) + digits(seq) + tail.length + 4
        + (length >= 0 ? 1 + digits(length) : 0)];
    System.arraycopy(t, 0, b, 0, t.length);
    int k = t.length;
    b[k++] = ' ';
    k = putDecimal(b, k, file);
    b[k++] = ' ';
    k = putDecimal(b, k, offset);
    b[k++] = ' ';
    k = putDecimal(b, k, seq);
    b[k++] = ' ';
    System.arraycopy(tail, 0, b, k, tail.length);
    k += tail.length;
    if (length >= 0) {
      b[k++] = ' ';
      putDecimal(b, k, length);
    }
    return b;
  }

  /**
   * The fields of a {@link #COMPACT} header's value, split at each space: six, or seven for a cut record; null
   * if it is not that shape (an empty field, another count, or text that is not UTF-8). The fields are not checked
   * further here.
   */
  public static String[] compactFields(byte[] value) {
    if (value == null) {
      return null;
    }
    String text = strictUtf8(value);
    if (text == null) {
      return null;
    }
    String[] f = text.split(" ", -1);
    if (f.length != 6 && !(f.length == 7 && RECORD_CUT.equals(f[C_TYPE]))) {
      return null;
    }
    for (String x : f) {
      if (x.isEmpty()) {
        return null;
      }
    }
    return f;
  }

  /**
   * {@code b} as UTF-8 text, or null if it is not UTF-8 (no byte replaced): readers that decode it otherwise would
   * read another field. ASCII, which is all the shipper writes, is taken without a decoder.
   */
  public static String strictUtf8(byte[] b) {
    boolean ascii = true;
    for (byte x : b) {
      ascii &= x >= 0;
    }
    if (ascii) {
      return new String(b, StandardCharsets.US_ASCII);
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** {@code n} in decimal, as the UTF-8 bytes of {@code Long.toString(n)}, without the String between. */
  static byte[] decimal(long n) {
    if (n < 0) {
      return bytes(Long.toString(n)); // never for a place or a sequence number
    }
    byte[] b = new byte[digits(n)];
    putDecimal(b, 0, n);
    return b;
  }

  /** How many decimal digits {@code n} (at least 0) has. */
  private static int digits(long n) {
    int digits = 1;
    for (long rest = n / 10; rest > 0; rest /= 10) {
      digits++;
    }
    return digits;
  }

  /** Writes {@code n} (at least 0) in decimal into {@code b} from {@code at}; returns where it ends. */
  private static int putDecimal(byte[] b, int at, long n) {
    int end = at + digits(n);
    long rest = n;
    for (int i = end - 1; i >= at; i--) {
      b[i] = (byte) ('0' + (int) (rest % 10));
      rest /= 10;
    }
    return end;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
