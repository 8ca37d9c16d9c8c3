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

  /**
   * A named header's value, or, for a record in the compact form ({@link ShipHeaders#COMPACT}), the field that
   * header names ({@code nnaudit.source}: the key); null if there is none.
   */
  String header(String name) {
    String[] f = compactFields();
    if (f != null && FIELDS.containsKey(name)) {
      int i = FIELDS.get(name);
      return i < 0 ? new String(key, StandardCharsets.UTF_8) : i < f.length ? f[i] : null;
    }
    for (int i = headers.size() - 1; i >= 0; i--) {
      if (headers.get(i).key().equals(name)) {
        return new String(headers.get(i).value(), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /**
   * Replaces (or adds) a named header; in the compact form, the field it names. The source is a header of its own
   * in the named form and the key in the compact one: set the key too for a record that claims another source in
   * either. A type other than {@code record-cut} takes a compact record's length field away, as a cut record's
   * type would leave {@code nnaudit.length} behind in the named form (see {@link #withoutHeader}).
   */
  CopiedRecord header(String name, String v) {
    String[] f = compactFields();
    if (f != null && FIELDS.containsKey(name)) {
      int i = FIELDS.get(name);
      if (i < 0) {
        key = v.getBytes(StandardCharsets.UTF_8);
        return this;
      }
      String[] g = java.util.Arrays.copyOf(f, Math.max(f.length, i + 1));
      g[i] = v;
      if (i == ShipHeaders.C_TYPE && !ShipHeaders.RECORD_CUT.equals(v) && g.length > ShipHeaders.C_LENGTH) {
        g = java.util.Arrays.copyOf(g, ShipHeaders.C_LENGTH);
      }
      setCompact(g);
      return this;
    }
    headers.removeIf(h -> h.key().equals(name));
    headers.add(new RecordHeader(name, v.getBytes(StandardCharsets.UTF_8)));
    return this;
  }

  /** Takes a named header away; in the compact form, the length field ({@code nnaudit.length}) only. */
  CopiedRecord withoutHeader(String name) {
    String[] f = compactFields();
    if (f != null && FIELDS.containsKey(name)) {
      if (FIELDS.get(name) != ShipHeaders.C_LENGTH) {
        throw new IllegalArgumentException("only the length field of a compact header may be taken away");
      }
      setCompact(java.util.Arrays.copyOf(f, Math.min(f.length, ShipHeaders.C_LENGTH)));
      return this;
    }
    headers.removeIf(h -> h.key().equals(name));
    return this;
  }

  /** Whether its headers are the compact form. */
  boolean isCompact() {
    return compactFields() != null;
  }

  /** The compact header's fields as they are, split at each space (edits may leave them in any shape), or null. */
  private String[] compactFields() {
    for (int i = headers.size() - 1; i >= 0; i--) {
      if (headers.get(i).key().equals(ShipHeaders.COMPACT)) {
        return new String(headers.get(i).value(), StandardCharsets.UTF_8).split(" ", -1);
      }
    }
    return null;
  }

  private void setCompact(String[] fields) {
    headers.removeIf(h -> h.key().equals(ShipHeaders.COMPACT));
    headers.add(new RecordHeader(ShipHeaders.COMPACT, String.join(" ", fields).getBytes(StandardCharsets.UTF_8)));
  }

  /** The named headers and their places in the compact header's value; the source (-1) is the key. */
  private static final java.util.Map<String, Integer> FIELDS = new java.util.HashMap<>();

  static {
    FIELDS.put(ShipHeaders.TYPE, ShipHeaders.C_TYPE);
    FIELDS.put(ShipHeaders.SOURCE, -1);
    FIELDS.put(ShipHeaders.FILE, ShipHeaders.C_FILE);
    FIELDS.put(ShipHeaders.OFFSET, ShipHeaders.C_OFFSET);
    FIELDS.put(ShipHeaders.SEQ, ShipHeaders.C_SEQ);
    FIELDS.put(ShipHeaders.EPOCH, ShipHeaders.C_EPOCH);
    FIELDS.put(ShipHeaders.FORMAT, ShipHeaders.C_FORMAT);
    FIELDS.put(ShipHeaders.LENGTH, ShipHeaders.C_LENGTH);
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
