package io.nnaudit.kafka;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The headers every shipped record carries (README, "Record schema"), each a UTF-8 string. A record's
 * identity is (source, type, file, offset), with its value for a gap or a seal: the same record sent twice
 * (after a crash or a failed send) has the same identity, and a consumer keeps the first and drops the rest.
 * Epoch and seq say which start sent it, in what order.
 */
public final class ShipHeaders {
  /** {@link #RECORD}, {@link #RECORD_CUT}, {@link #FILE_END}, {@link #GAP} or {@link #SEAL}. */
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

  /** An audit record: the value is the line as written, without its line end. */
  public static final String RECORD = "record";
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

  /** The headers that are the same in every record one sender sends (source, epoch, format), made once. */
  static final class Fixed {
    private final Header source;
    private final Header epoch;
    private final Header format;

    Fixed(String source, long epoch, String format) {
      this.source = new RecordHeader(SOURCE, bytes(source));
      this.epoch = new RecordHeader(EPOCH, bytes(Long.toString(epoch)));
      this.format = new RecordHeader(FORMAT, bytes(format));
    }
  }

  /** The type header of each type, made once: headers are read, never changed, by the producer. */
  private static final Map<String, Header> TYPES = new HashMap<>();

  static {
    for (String t : new String[] {RECORD, RECORD_CUT, FILE_END, GAP, SEAL}) {
      TYPES.put(t, new RecordHeader(TYPE, bytes(t)));
    }
  }

  /** The headers of one record, in the order of the schema. */
  static RecordHeaders of(String type, Fixed fixed, long seq, long file, long offset) {
    Header t = TYPES.get(type);
    RecordHeaders h = new RecordHeaders();
    h.add(t != null ? t : new RecordHeader(TYPE, bytes(type)));
    h.add(fixed.source);
    h.add(fixed.epoch);
    h.add(SEQ, decimal(seq));
    h.add(FILE, decimal(file));
    h.add(OFFSET, decimal(offset));
    h.add(fixed.format);
    return h;
  }

  /** {@code n} in decimal, as the UTF-8 bytes of {@code Long.toString(n)}, without the String between. */
  static byte[] decimal(long n) {
    if (n < 0) {
      return bytes(Long.toString(n)); // never for a place or a sequence number
    }
    int digits = 1;
    for (long rest = n / 10; rest > 0; rest /= 10) {
      digits++;
    }
    byte[] b = new byte[digits];
    long rest = n;
    for (int i = digits - 1; i >= 0; i--) {
      b[i] = (byte) ('0' + (int) (rest % 10));
      rest /= 10;
    }
    return b;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
