package io.nnaudit.kafka.verify;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;

/**
 * One source's stream as a shipper writes it, made in memory for the checks that need no broker: stock audit
 * lines, a signed seal after every {@code sealEvery} records (or when asked), file ends, gaps and cut records on
 * request. Each item is a {@link ConsumerRecord} with the shipper's key and headers, in the source's partition,
 * with the next offset of that partition (the caller's counter).
 */
final class SyntheticSource {
  final String name;
  final int partition;
  final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
  private final SealKey signer;
  private final String trail = java.util.UUID.randomUUID().toString();
  private final MessageDigest range = Sha256.digest();
  private long file;
  private long offset;
  private long from;
  private long inRange;
  private long sealNumber;
  private long seq;
  private long kafkaOffset;
  private String prev = Seal.GENESIS;
  /** Whether records get the compact header ({@code nnaudit.kafka.headers=compact}) rather than the named ones. */
  boolean compact;
  long tailRecords = 25;
  long tailBytes = 1 << 20;

  SyntheticSource(String name, int partition, SealKey signer) {
    this.name = name;
    this.partition = partition;
    this.signer = signer;
  }

  /** An audit line, its place in the file, returns its record. */
  ConsumerRecord<byte[], byte[]> line(int i) {
    byte[] line = String.format(Locale.ROOT, "2026-11-26 10:00:00,000 INFO FSNamesystem.audit: allowed=true\t"
        + "ugi=bob\tip=/10.0.0.9\tcmd=mkdirs\tsrc=/%s/d%06d\tdst=null\tperm=bob:hadoop:rwxr-xr-x\tproto=rpc", name, i)
        .getBytes(StandardCharsets.UTF_8);
    ConsumerRecord<byte[], byte[]> r = add(ShipHeaders.RECORD, offset, line);
    range.update(line);
    range.update((byte) '\n');
    offset += line.length + 1;
    inRange++;
    return r;
  }

  /**
   * Lines, seals, a cut line, a file's end, and an unsealed tail: lines 1-30, a seal, line 31, line 32 cut, line
   * 33, a seal, the file's end, lines 34-60, a seal, lines 61-63. Returns {@link #records}.
   */
  List<ConsumerRecord<byte[], byte[]>> everyKind() throws Exception {
    lines(1, 30);
    seal(Seal.Kind.INTERVAL);
    line(31);
    cutLine(1500);
    line(33);
    seal(Seal.Kind.INTERVAL);
    endFile();
    lines(34, 60);
    seal(Seal.Kind.INTERVAL);
    lines(61, 63);
    return records;
  }

  /** {@code r} moved to file {@code file}, byte {@code offset}. */
  static ConsumerRecord<byte[], byte[]> at(ConsumerRecord<byte[], byte[]> r, String file, String offset) {
    r.headers().remove(ShipHeaders.FILE);
    r.headers().remove(ShipHeaders.OFFSET);
    r.headers().add(ShipHeaders.FILE, file.getBytes(StandardCharsets.UTF_8));
    r.headers().add(ShipHeaders.OFFSET, offset.getBytes(StandardCharsets.UTF_8));
    return r;
  }

  /** Lines {@code from} to {@code to}. */
  void lines(int from, int to) {
    for (int i = from; i <= to; i++) {
      line(i);
    }
  }

  /**
   * Lines 1 to {@code count}, an interval seal after every {@code every}th; returns their records, line i at
   * index i (index 0 holds null).
   */
  List<ConsumerRecord<byte[], byte[]>> linesSealedEvery(int count, int every) throws Exception {
    List<ConsumerRecord<byte[], byte[]>> lines = new ArrayList<>();
    lines.add(null);
    for (int i = 1; i <= count; i++) {
      lines.add(line(i));
      if (i % every == 0) {
        seal(Seal.Kind.INTERVAL);
      }
    }
    return lines;
  }

  /** A whole audit line of {@code length} bytes (an 'x' after another past the stock fields). */
  ConsumerRecord<byte[], byte[]> longLine(int length) {
    StringBuilder b = new StringBuilder("2026-11-26 10:00:00,000 INFO FSNamesystem.audit: allowed=true\tugi=bob\t"
        + "cmd=setXAttr\tsrc=/" + name + "/");
    while (b.length() < length) {
      b.append('x');
    }
    byte[] line = b.toString().getBytes(StandardCharsets.UTF_8);
    ConsumerRecord<byte[], byte[]> r = add(ShipHeaders.RECORD, offset, line);
    range.update(line);
    range.update((byte) '\n');
    offset += line.length + 1;
    inRange++;
    return r;
  }

  /** A line the shipper had to cut: its value the first {@code keep} bytes, {@code nnaudit.length} the whole. */
  ConsumerRecord<byte[], byte[]> cutLine(int keep) {
    byte[] line = new byte[keep * 3];
    java.util.Arrays.fill(line, (byte) 'x');
    ConsumerRecord<byte[], byte[]> r = add(ShipHeaders.RECORD_CUT, offset, java.util.Arrays.copyOf(line, keep));
    if (compact) {
      String fields = new String(r.headers().lastHeader(ShipHeaders.COMPACT).value(), StandardCharsets.UTF_8);
      r.headers().remove(ShipHeaders.COMPACT);
      r.headers().add(ShipHeaders.COMPACT, bytes(fields + " " + line.length));
    } else {
      r.headers().add(ShipHeaders.LENGTH, Long.toString(line.length).getBytes(StandardCharsets.UTF_8));
    }
    range.update(line);
    range.update((byte) '\n');
    offset += line.length + 1;
    inRange++;
    return r;
  }

  /** The seal of the records since the last one, of {@code kind}; returns its record (not yet added). */
  ConsumerRecord<byte[], byte[]> sealRecord(Seal.Kind kind) throws Exception {
    Seal s = Seal.unsigned(trail, file + 1, 1, ++sealNumber, kind, from, offset, inRange, 0, 0, range.digest(),
        0, 1000 * sealNumber, tailRecords, tailBytes, prev).signedWith(signer);
    prev = s.hash();
    from = offset;
    inRange = 0;
    return make(ShipHeaders.SEAL, offset, s.line().getBytes(StandardCharsets.UTF_8));
  }

  /** Adds the seal at once. */
  ConsumerRecord<byte[], byte[]> seal(Seal.Kind kind) throws Exception {
    ConsumerRecord<byte[], byte[]> r = sealRecord(kind);
    records.add(r);
    return r;
  }

  /** Seals the file (rotate), ends it, and begins the next. */
  void endFile() throws Exception {
    seal(Seal.Kind.ROTATE);
    add(ShipHeaders.FILE_END, offset, new byte[0]);
    file++;
    offset = 0;
    from = 0;
  }

  ConsumerRecord<byte[], byte[]> add(String type, long at, byte[] value) {
    ConsumerRecord<byte[], byte[]> r = make(type, at, value);
    records.add(r);
    return r;
  }

  /** A record as the shipper would send it here, not added. */
  ConsumerRecord<byte[], byte[]> make(String type, long at, byte[] value) {
    RecordHeaders h = new RecordHeaders();
    if (compact) { // <type> <file> <offset> <seq> <epoch> <format>, as docs/kafka.md has it
      h.add(ShipHeaders.COMPACT, bytes(type + " " + file + " " + at + " " + seq++ + " 1 hdfs"));
      return new ConsumerRecord<>("t", partition, kafkaOffset++, 1_000_000L + seq, TimestampType.CREATE_TIME, -1,
          -1, bytes(name), value, h, java.util.Optional.empty());
    }
    h.add(ShipHeaders.TYPE, bytes(type));
    h.add(ShipHeaders.SOURCE, bytes(name));
    h.add(ShipHeaders.EPOCH, bytes("1"));
    h.add(ShipHeaders.SEQ, bytes(Long.toString(seq++)));
    h.add(ShipHeaders.FILE, bytes(Long.toString(file)));
    h.add(ShipHeaders.OFFSET, bytes(Long.toString(at)));
    h.add(ShipHeaders.FORMAT, bytes("hdfs"));
    return new ConsumerRecord<>("t", partition, kafkaOffset++, 1_000_000L + seq, TimestampType.CREATE_TIME, -1, -1,
        bytes(name), value, h, java.util.Optional.empty());
  }

  /** A copy of {@code r} (its headers copied) with another value. */
  ConsumerRecord<byte[], byte[]> withValue(ConsumerRecord<byte[], byte[]> r, byte[] value) {
    RecordHeaders h = new RecordHeaders();
    r.headers().forEach(h::add);
    return new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), TimestampType.CREATE_TIME, -1,
        -1, r.key(), value, h, java.util.Optional.empty());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
