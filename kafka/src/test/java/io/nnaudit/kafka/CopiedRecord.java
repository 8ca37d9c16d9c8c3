package io.nnaudit.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * A record read from a topic, to be written to another as it is or changed: its partition, key, value,
 * timestamp and headers, each replaceable. What a test that tampers with a copy of a topic works on.
 */
final class CopiedRecord {
  int partition;
  byte[] key;
  byte[] value;
  long timestamp;
  final List<Header> headers = new ArrayList<>();
  /**
   * Written, then deleted from the partition's start as retention deletes (its offset kept, below the log
   * start): only the first records of a partition may be.
   */
  boolean deletedFromStart;

  CopiedRecord(ConsumerRecord<byte[], byte[]> r) {
    this.partition = r.partition();
    this.key = r.key();
    this.value = r.value();
    this.timestamp = r.timestamp();
    for (Header h : r.headers()) {
      headers.add(new RecordHeader(h.key(), h.value()));
    }
  }

  CopiedRecord(CopiedRecord r) {
    this.partition = r.partition;
    this.key = r.key;
    this.value = r.value;
    this.timestamp = r.timestamp;
    this.headers.addAll(r.headers);
    this.deletedFromStart = r.deletedFromStart;
  }

  String header(String name) {
    for (int i = headers.size() - 1; i >= 0; i--) {
      if (headers.get(i).key().equals(name)) {
        return new String(headers.get(i).value(), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /** Replaces (or adds) a header. */
  CopiedRecord header(String name, String v) {
    headers.removeIf(h -> h.key().equals(name));
    headers.add(new RecordHeader(name, v.getBytes(StandardCharsets.UTF_8)));
    return this;
  }

  String type() {
    return header(ShipHeaders.TYPE);
  }

  String source() {
    return header(ShipHeaders.SOURCE);
  }

  long file() {
    return Long.parseLong(header(ShipHeaders.FILE));
  }

  long offset() {
    return Long.parseLong(header(ShipHeaders.OFFSET));
  }

  String text() {
    return new String(value, StandardCharsets.UTF_8);
  }

  boolean is(String source, String type) {
    return source.equals(source()) && type.equals(type());
  }

  @Override
  public String toString() {
    return type() + " " + source() + " file " + header(ShipHeaders.FILE) + " @" + header(ShipHeaders.OFFSET);
  }
}
