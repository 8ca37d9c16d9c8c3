package io.nnaudit.kafka.verify;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.trail.LineEnds;

/**
 * One record of the topic with the headers the shipper gives it (docs/kafka.md, "Record schema"), in either form
 * (seven named headers, or the one compact header with the key as the source), read once; or one line of a
 * {@code records} record, read as the {@code record} it would be alone ({@link #read}).
 * A record whose headers are missing or do not parse is still made, with {@link #malformed} saying what is wrong:
 * the check reports it as a record no shipper wrote.
 */
final class StreamRecord {
  final int partition;
  final long kafkaOffset;
  /** The Kafka timestamp (when the shipper sent it), ms since 1970. */
  final long timestamp;
  /** The key as text, or null. */
  final String key;
  final String type;
  final String source;
  final long file;
  final long offset;
  /** The length of the line in the file: the value's, or a cut record's length field (either form). */
  final long length;
  final byte[] value;
  /** Null, or why the headers are not the shipper's. */
  final String malformed;
  /** How many lines the Kafka record it was read from holds: more than 1 for a line of a {@code records} record. */
  final int linesInRecord;

  private StreamRecord(ConsumerRecord<byte[], byte[]> r, String type, String source, long file, long offset,
      long length, String malformed) {
    this.partition = r.partition();
    this.kafkaOffset = r.offset();
    this.timestamp = r.timestamp();
    this.key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
    this.value = r.value() == null ? new byte[0] : r.value();
    this.type = type;
    this.source = source;
    this.file = file;
    this.offset = offset;
    this.length = length;
    this.malformed = malformed;
    this.linesInRecord = 1;
  }

  /** The line {@code value} at {@code offset} of the {@code records} record {@code whole}, of {@code lines} lines. */
  private StreamRecord(StreamRecord whole, long offset, byte[] value, int lines) {
    this.partition = whole.partition;
    this.kafkaOffset = whole.kafkaOffset;
    this.timestamp = whole.timestamp;
    this.key = whole.key;
    this.value = value;
    this.type = ShipHeaders.RECORD;
    this.source = whole.source;
    this.file = whole.file;
    this.offset = offset;
    this.length = value.length;
    this.malformed = null;
    this.linesInRecord = lines;
  }

  /**
   * The records {@code r} holds, as the check reads them: a {@code records} record as the {@code record}s of its
   * lines, each at its own offset (the first at the record's, each next one byte past the end of the one before),
   * so that a line reads the same whether it came alone or with others; any other record as itself.
   */
  static List<StreamRecord> read(ConsumerRecord<byte[], byte[]> r) {
    StreamRecord whole = of(r);
    if (whole.malformed != null || !ShipHeaders.RECORDS.equals(whole.type)) {
      return Collections.singletonList(whole);
    }
    byte[] v = whole.value;
    List<byte[]> values = new ArrayList<>();
    LineEnds ends = new LineEnds(v);
    int start = 0;
    for (int i; (i = ends.next(start, v.length)) >= 0; start = i + 1) {
      values.add(Arrays.copyOfRange(v, start, i));
    }
    values.add(Arrays.copyOfRange(v, start, v.length));
    int lines = values.size();
    if (lines < 2 || lines > ShipHeaders.MAX_RECORD_LINES || v.length > ShipHeaders.MAX_TOGETHER_BYTES) {
      return Collections.singletonList(new StreamRecord(r, whole.type, whole.source, whole.file, whole.offset,
          whole.length, "a " + ShipHeaders.RECORDS + " record of " + lines + " line(s), " + v.length + " bytes: the "
          + "shipper sends 2 to " + ShipHeaders.MAX_RECORD_LINES + " lines in one, in at most "
          + ShipHeaders.MAX_TOGETHER_BYTES + " bytes, and a single line as a " + ShipHeaders.RECORD));
    }
    List<StreamRecord> parts = new ArrayList<>(lines);
    long offset = whole.offset;
    for (byte[] line : values) {
      parts.add(new StreamRecord(whole, offset, line, lines));
      offset += line.length + 1;
    }
    return parts;
  }

  /**
   * Where the shipper's places end: it numbers a file's bytes below 2^40 (1 TiB) and its files below 2^23, so
   * that (file, offset) fits in one long ({@code ShipPosition.global}). A place beyond is none it gives.
   */
  static final long MAX_OFFSET = 1L << 40;
  static final long MAX_FILE = 1L << 23;
  /**
   * The shortest value of a genuine {@code record-cut}: the shipper cuts a line to {@code max.request.size} less
   * 4 KiB, at least 1 KiB, or to 1 KiB when the broker refused it (TrailReader), never shorter.
   */
  static final int MIN_CUT_BYTES = 1024;

  static StreamRecord of(ConsumerRecord<byte[], byte[]> r) {
    int valueLength = r.value() == null ? 0 : r.value().length;
    String repeated = repeatedHeader(r);
    if (repeated != null) {
      return new StreamRecord(r, typeOf(r), keyText(r), -1, -1, valueLength, "the header " + repeated + " is "
          + "repeated: the shipper gives each header once, and readers that take the first or the last of them "
          + "read different records");
    }
    if (!shippersTextIsUtf8(r)) {
      return new StreamRecord(r, null, keyText(r), -1, -1, valueLength, "its key or one of its " + ShipHeaders.COMPACT
          + " headers is not UTF-8: readers that decode it otherwise would read another source or field");
    }
    Header compact = r.headers().lastHeader(ShipHeaders.COMPACT);
    if (compact == null) {
      return named(r, valueLength);
    }
    String source = keyText(r);
    if (hasNamedHeader(r)) {
      return new StreamRecord(r, null, source, -1, -1, valueLength, "it has both the header " + ShipHeaders.COMPACT
          + " and named " + ShipHeaders.COMPACT + ".* headers: the shipper gives one form or the other");
    }
    String[] f = ShipHeaders.compactFields(compact.value());
    if (f == null || source == null) {
      return new StreamRecord(r, f == null ? null : f[ShipHeaders.C_TYPE], source, -1, -1, valueLength, f == null
          ? "its header " + ShipHeaders.COMPACT + " is not '<type> <file> <offset> <seq> <epoch> <format>', with the "
          + "length after for a cut record" : "it has no key, which is the source of every record the shipper gives");
    }
    if (!isWord(f[ShipHeaders.C_TYPE]) || !isFormat(f[ShipHeaders.C_FORMAT])) {
      return new StreamRecord(r, null, source, -1, -1, valueLength, "its header " + ShipHeaders.COMPACT + " has a "
          + "type that is not a word of a-z and '-', or a format neither hdfs nor json");
    }
    for (int i = ShipHeaders.C_FILE; i < f.length; i++) {
      if (i != ShipHeaders.C_FORMAT && count(f[i]) < 0) {
        return new StreamRecord(r, f[ShipHeaders.C_TYPE], source, -1, -1, valueLength, "its header "
            + ShipHeaders.COMPACT + " has '" + f[i] + "' where the shipper gives a number");
      }
    }
    return checked(r, f[ShipHeaders.C_TYPE], source, f[ShipHeaders.C_FILE], f[ShipHeaders.C_OFFSET],
        f.length > ShipHeaders.C_LENGTH ? f[ShipHeaders.C_LENGTH] : null, valueLength);
  }

  /** A record with the seven named headers (and {@code nnaudit.length} on a cut one), each checked as written. */
  private static StreamRecord named(ConsumerRecord<byte[], byte[]> r, int valueLength) {
    String type = text(r, ShipHeaders.TYPE);
    String source = text(r, ShipHeaders.SOURCE);
    String file = text(r, ShipHeaders.FILE);
    String offset = text(r, ShipHeaders.OFFSET);
    if (type == null || source == null || file == null || offset == null) {
      return new StreamRecord(r, type, source != null ? source : keyText(r), -1, -1, valueLength,
          "it lacks the headers " + ShipHeaders.TYPE + ", " + ShipHeaders.SOURCE + ", " + ShipHeaders.FILE + " and "
          + ShipHeaders.OFFSET + " that the shipper gives every record (or the one header " + ShipHeaders.COMPACT
          + ")");
    }
    String length = text(r, ShipHeaders.LENGTH);
    if (length != null && !ShipHeaders.RECORD_CUT.equals(type)) {
      return new StreamRecord(r, type, source, -1, -1, valueLength, "a header " + ShipHeaders.LENGTH + " on a "
          + "record that is not cut");
    }
    String format = text(r, ShipHeaders.FORMAT);
    String seq = text(r, ShipHeaders.SEQ);
    String epoch = text(r, ShipHeaders.EPOCH);
    if (!isWord(type) || !isFormat(format)) {
      return new StreamRecord(r, null, source, -1, -1, valueLength, "its " + ShipHeaders.TYPE + " header is not "
          + "a word of a-z and '-', or its " + ShipHeaders.FORMAT + " header is missing or neither hdfs nor json");
    }
    if (seq == null || count(seq) < 0 || epoch == null || count(epoch) < 0) {
      return new StreamRecord(r, type, source, -1, -1, valueLength, "its " + ShipHeaders.SEQ + " or "
          + ShipHeaders.EPOCH + " header is missing or not a number as the shipper writes one");
    }
    return checked(r, type, source, file, offset, length, valueLength);
  }

  /**
   * A record whose fields were found, in either form: its numbers and a cut record's length ({@code fullLength},
   * null if it has none) checked against what the shipper gives.
   */
  private static StreamRecord checked(ConsumerRecord<byte[], byte[]> r, String type, String source, String file,
      String offset, String fullLength, int valueLength) {
    long f = count(file);
    long o = count(offset);
    if (f < 0 || o < 0) {
      return new StreamRecord(r, type, source, -1, -1, valueLength, "a file number or offset that is not a number "
          + "as the shipper writes one (decimal digits, no sign, no leading zero)");
    }
    if ((ShipHeaders.RECORD.equals(type) || ShipHeaders.RECORD_CUT.equals(type)) && r.value() != null
        && new LineEnds(r.value()).next(0, valueLength) >= 0) {
      return new StreamRecord(r, type, source, f, o, valueLength, "a line end in the value of a " + type + ": the "
          + "shipper sends one line without its line end (several lines go together only in a "
          + ShipHeaders.RECORDS + " record)");
    }
    if (ShipHeaders.FILE_END.equals(type) && valueLength != 0) {
      return new StreamRecord(r, type, source, f, o, valueLength, "a file-end with a value: the shipper sends it "
          + "empty");
    }
    long length = valueLength;
    if (ShipHeaders.RECORD_CUT.equals(type)) {
      length = fullLength == null ? -1 : count(fullLength);
      if (length < valueLength) {
        return new StreamRecord(r, type, source, f, o, valueLength, "a cut record without a valid length ("
            + ShipHeaders.LENGTH + ", or the last field of " + ShipHeaders.COMPACT + ")");
      }
      if (length == valueLength || valueLength < MIN_CUT_BYTES) {
        return new StreamRecord(r, type, source, f, o, valueLength, "a cut record (" + ShipHeaders.RECORD_CUT
            + ") of " + valueLength + " bytes of a line of " + length + ": the shipper cuts only a line longer "
            + "than it sends, to at least " + MIN_CUT_BYTES + " bytes (a record changed and relabelled cut?)");
      }
    }
    if (f >= MAX_FILE || o >= MAX_OFFSET || length >= MAX_OFFSET || o + length + 1 >= MAX_OFFSET) {
      return new StreamRecord(r, type, source, f, o, length, "a file number or byte beyond any the shipper "
          + "gives (files below 2^23, bytes below 2^40)");
    }
    return new StreamRecord(r, type, source, f, o, length, null);
  }

  /**
   * {@code s} read as the shipper writes a number (ASCII decimal digits, no sign, no leading zero but in "0", at
   * most 18 digits), or -1: one place or count has one spelling, so that readers that compare the text and readers
   * that compare the number find the same records.
   */
  private static long count(String s) {
    if (s.isEmpty() || s.length() > 18 || s.length() > 1 && s.charAt(0) == '0') {
      return -1;
    }
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }

  /** A record format the shipper gives ({@code nnaudit.record.format}). */
  private static boolean isFormat(String s) {
    return "hdfs".equals(s) || "json".equals(s);
  }

  /** A type as the shipper writes one: a-z, then a-z and '-'. */
  private static boolean isWord(String s) {
    if (s.isEmpty() || s.charAt(0) < 'a' || s.charAt(0) > 'z') {
      return false;
    }
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      if ((c < 'a' || c > 'z') && c != '-') {
        return false;
      }
    }
    return true;
  }

  /** Where the record's line ends in its file, and the next one starts. */
  long end() {
    return offset + length + 1;
  }

  boolean isLine() {
    return ShipHeaders.RECORD.equals(type) || ShipHeaders.RECORD_CUT.equals(type);
  }

  String text() {
    return new String(value, StandardCharsets.UTF_8);
  }

  /** Where it is in the topic: {@code partition P, offset O}. */
  String place() {
    return "partition " + partition + ", offset " + kafkaOffset;
  }

  private static String text(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** The first of the shipper's headers ({@code nnaudit}, {@code nnaudit.*}) that the record has more than once. */
  private static String repeatedHeader(ConsumerRecord<byte[], byte[]> r) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Header h : r.headers()) {
      if (isShippers(h.key()) && !seen.add(h.key())) {
        return h.key();
      }
    }
    return null;
  }

  private static boolean isShippers(String header) {
    return header.equals(ShipHeaders.COMPACT) || isNamed(header);
  }

  /** A header of the named form ({@code nnaudit.*}). */
  private static boolean isNamed(String header) {
    return header.startsWith(ShipHeaders.COMPACT + ".");
  }

  /** Whether the record has a named header of the shipper's ({@code nnaudit.*}). */
  private static boolean hasNamedHeader(ConsumerRecord<byte[], byte[]> r) {
    for (Header h : r.headers()) {
      if (isNamed(h.key())) {
        return true;
      }
    }
    return false;
  }

  /** The type, in either form, for a report; null if there is none. */
  private static String typeOf(ConsumerRecord<byte[], byte[]> r) {
    Header compact = r.headers().lastHeader(ShipHeaders.COMPACT);
    if (compact == null) {
      return text(r, ShipHeaders.TYPE);
    }
    String[] f = ShipHeaders.compactFields(compact.value());
    return f == null ? null : f[ShipHeaders.C_TYPE];
  }

  /** Whether the key and every header of the shipper's ({@code nnaudit}, {@code nnaudit.*}) are UTF-8. */
  private static boolean shippersTextIsUtf8(ConsumerRecord<byte[], byte[]> r) {
    if (r.key() != null && !isUtf8(r.key())) {
      return false;
    }
    for (Header h : r.headers()) {
      if (isShippers(h.key()) && h.value() != null && !isUtf8(h.value())) {
        return false;
      }
    }
    return true;
  }

  private static boolean isUtf8(byte[] b) {
    return ShipHeaders.strictUtf8(b) != null;
  }

  private static String keyText(ConsumerRecord<byte[], byte[]> r) {
    return r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
  }
}
