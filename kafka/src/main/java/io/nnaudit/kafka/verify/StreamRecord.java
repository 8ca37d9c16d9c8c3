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

  static StreamRecord of(ConsumerRecord<byte[], byte[]> r) {
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
      }
      if (f < 0 || o < 0) {
        return new StreamRecord(r, type, source, f, o, length, "a negative file number or offset");
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

  private static String keyText(ConsumerRecord<byte[], byte[]> r) {
    return r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
  }
}
