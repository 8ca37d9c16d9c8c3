package io.nnaudit.kafka.verify;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import io.nnaudit.kafka.ShipHeaders;

/**
 * One record of the topic with the headers the shipper gives it (docs/kafka.md, "Record schema"), read once.
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
  /** The length of the line in the file: the value's, or {@code nnaudit.length} of a cut record. */
  final long length;
  final byte[] value;
  /** Null, or why the headers are not the shipper's. */
  final String malformed;

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
    String repeated = repeatedHeader(r);
    if (repeated != null) {
      return new StreamRecord(r, text(r, ShipHeaders.TYPE), keyText(r), -1, -1, r.value() == null ? 0
          : r.value().length, "the header " + repeated + " is repeated: the shipper gives each header once, and "
          + "readers that take the first or the last of them read different records");
    }
    String type = text(r, ShipHeaders.TYPE);
    String source = text(r, ShipHeaders.SOURCE);
    String file = text(r, ShipHeaders.FILE);
    String offset = text(r, ShipHeaders.OFFSET);
    int valueLength = r.value() == null ? 0 : r.value().length;
    if (type == null || source == null || file == null || offset == null) {
      return new StreamRecord(r, type, source != null ? source : keyText(r), -1, -1, valueLength,
          "it lacks the headers " + ShipHeaders.TYPE + ", " + ShipHeaders.SOURCE + ", " + ShipHeaders.FILE + " and "
          + ShipHeaders.OFFSET + " that the shipper gives every record");
    }
    try {
      long f = Long.parseLong(file);
      long o = Long.parseLong(offset);
      long length = valueLength;
      if (ShipHeaders.RECORD_CUT.equals(type)) {
        String full = text(r, ShipHeaders.LENGTH);
        length = full == null ? -1 : Long.parseLong(full);
        if (length < valueLength) {
          return new StreamRecord(r, type, source, f, o, valueLength, "a cut record without a valid "
              + ShipHeaders.LENGTH + " header");
        }
        if (length == valueLength || valueLength < MIN_CUT_BYTES) {
          return new StreamRecord(r, type, source, f, o, valueLength, "a cut record (" + ShipHeaders.RECORD_CUT
              + ") of " + valueLength + " bytes of a line of " + length + ": the shipper cuts only a line longer "
              + "than it sends, to at least " + MIN_CUT_BYTES + " bytes (a record changed and relabelled cut?)");
        }
      }
      if (f < 0 || o < 0) {
        return new StreamRecord(r, type, source, f, o, length, "a negative file number or offset");
      }
      if (f >= MAX_FILE || o >= MAX_OFFSET || o + length + 1 >= MAX_OFFSET) {
        return new StreamRecord(r, type, source, f, o, length, "a file number or byte beyond any the shipper "
            + "gives (files below 2^23, bytes below 2^40)");
      }
      return new StreamRecord(r, type, source, f, o, length, null);
    } catch (NumberFormatException e) {
      return new StreamRecord(r, type, source, -1, -1, valueLength, "a file number or offset header that is not a "
          + "number");
    }
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

  /** The first {@code nnaudit.*} header that the record has more than once, or null. */
  private static String repeatedHeader(ConsumerRecord<byte[], byte[]> r) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Header h : r.headers()) {
      if (h.key().startsWith("nnaudit.") && !seen.add(h.key())) {
        return h.key();
      }
    }
    return null;
  }

  private static String keyText(ConsumerRecord<byte[], byte[]> r) {
    return r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
  }
}
