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
  /** Its place among the lines of the {@code records} record it came in (0 for a record alone), and their count. */
  final int part;
  final int linesInRecord;

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
      this.part = 0;
      this.linesInRecord = 1;
      return;
    }
    this.type = header(r, ShipHeaders.TYPE);
    this.source = header(r, ShipHeaders.SOURCE);
    this.epoch = Long.parseLong(header(r, ShipHeaders.EPOCH));
    this.seq = Long.parseLong(header(r, ShipHeaders.SEQ));
    this.file = Long.parseLong(header(r, ShipHeaders.FILE));
    this.offset = Long.parseLong(header(r, ShipHeaders.OFFSET));
    this.compactForm = false;
    this.part = 0;
    this.linesInRecord = 1;
  }

  /** The line {@code value} at {@code offset}, the {@code part}th of the {@code lines} in the records {@code r}. */
  private ShippedRecord(ShippedRecord r, long offset, byte[] value, int part, int lines) {
    this.type = ShipHeaders.RECORD;
    this.source = r.source;
    this.epoch = r.epoch;
    this.seq = r.seq;
    this.file = r.file;
    this.offset = offset;
    this.value = value;
    this.partition = r.partition;
    this.key = r.key;
    this.compactForm = r.compactForm;
    this.part = part;
    this.linesInRecord = lines;
  }

  static List<ShippedRecord> of(List<ConsumerRecord<byte[], byte[]>> records) {
    List<ShippedRecord> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      ShippedRecord s = new ShippedRecord(r);
      if (ShipHeaders.RECORDS.equals(s.type)) {
        addLines(s, out);
      } else {
        out.add(s);
      }
    }
    return out;
  }

  /**
   * The lines of a {@code records} record, as docs/kafka.md tells a consumer to read them: split at each line end,
   * the first at the record's offset, each next one byte past the end of the one before.
   */
  private static void addLines(ShippedRecord r, List<ShippedRecord> out) {
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= r.value.length; i++) {
      if (i == r.value.length || r.value[i] == '\n') {
        lines.add(java.util.Arrays.copyOfRange(r.value, start, i));
        start = i + 1;
      }
    }
    if (lines.size() < 2 || lines.size() > ShipHeaders.MAX_RECORD_LINES) {
      throw new AssertionError("a records record of " + lines.size() + " lines: " + r);
    }
    long offset = r.offset;
    for (int k = 0; k < lines.size(); k++) {
      out.add(new ShippedRecord(r, offset, lines.get(k), k, lines.size()));
      offset += lines.get(k).length + 1;
    }
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
