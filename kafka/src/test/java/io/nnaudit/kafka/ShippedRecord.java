package io.nnaudit.kafka;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** One record read back from the topic, with the identity its headers carry (docs/kafka.md, "Record schema"). */
final class ShippedRecord {
  final String type;
  final String source;
  final long epoch;
  final long seq;
  final long file;
  final long offset;
  final byte[] value;
  final int partition;
  final String key;
  /** Whether it came with the compact header ({@code nnaudit.kafka.headers=compact}). */
  final boolean compactForm;

  /** Read from either form of headers: the seven named, or the compact one with the key as the source. */
  private ShippedRecord(ConsumerRecord<byte[], byte[]> r) {
    this.value = r.value();
    this.partition = r.partition();
    this.key = new String(r.key(), StandardCharsets.UTF_8);
    Header compact = r.headers().lastHeader(ShipHeaders.COMPACT);
    if (compact != null) {
      String[] f = ShipHeaders.compactFields(compact.value());
      if (f == null) {
        throw new AssertionError("record at " + r.partition() + "/" + r.offset() + " has a malformed header "
            + ShipHeaders.COMPACT + ": " + new String(compact.value(), StandardCharsets.UTF_8));
      }
      this.type = f[ShipHeaders.C_TYPE];
      this.source = key;
      this.epoch = Long.parseLong(f[ShipHeaders.C_EPOCH]);
      this.seq = Long.parseLong(f[ShipHeaders.C_SEQ]);
      this.file = Long.parseLong(f[ShipHeaders.C_FILE]);
      this.offset = Long.parseLong(f[ShipHeaders.C_OFFSET]);
      this.compactForm = true;
      return;
    }
    this.type = header(r, ShipHeaders.TYPE);
    this.source = header(r, ShipHeaders.SOURCE);
    this.epoch = Long.parseLong(header(r, ShipHeaders.EPOCH));
    this.seq = Long.parseLong(header(r, ShipHeaders.SEQ));
    this.file = Long.parseLong(header(r, ShipHeaders.FILE));
    this.offset = Long.parseLong(header(r, ShipHeaders.OFFSET));
    this.compactForm = false;
  }

  static List<ShippedRecord> of(List<ConsumerRecord<byte[], byte[]>> records) {
    List<ShippedRecord> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      out.add(new ShippedRecord(r));
    }
    return out;
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    if (h == null) {
      throw new AssertionError("record at " + r.partition() + "/" + r.offset() + " has no header " + name);
    }
    return new String(h.value(), StandardCharsets.UTF_8);
  }

  String text() {
    return new String(value, StandardCharsets.UTF_8);
  }

  /**
   * The identity a consumer drops duplicates by: source, type, file and offset; for a gap or a seal record its
   * value too (several losses may be announced at one place while shipping is stuck; a seal written anew over a
   * file found without its digest ends where an earlier one did).
   */
  String identity() {
    return source + "|" + type + "|" + file + "|" + offset
        + (ShipHeaders.GAP.equals(type) || ShipHeaders.SEAL.equals(type) ? "|" + text() : "");
  }

  @Override
  public String toString() {
    return type + " " + source + " epoch " + epoch + " seq " + seq + " file " + file + " @" + offset + ": " + text();
  }
}
