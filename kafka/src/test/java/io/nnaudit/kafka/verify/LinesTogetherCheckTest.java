package io.nnaudit.kafka.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.Seal;

/**
 * verify-stream on lines sent together ({@code nnaudit.kafka.record.lines} above 1: {@code records} records):
 * a stream gives the same report whether its lines came alone or together, in either form of the headers; lines
 * sent again grouped otherwise (a resend after a crash) are copies; a line changed, taken out or added inside a
 * {@code records} record is a change; a {@code records} record of fewer than two or more than
 * {@link ShipHeaders#MAX_RECORD_LINES} lines is one no shipper wrote; and a topic offset before the read may have
 * held that many lines of a source that sends them together.
 */
class LinesTogetherCheckTest extends SignedStreamsTestBase {
  @ParameterizedTest(name = "compact headers: {0}")
  @ValueSource(booleans = {false, true})
  void aStreamGivesTheSameReportWithItsLinesAloneOrTogether(boolean compact) throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.compact = compact;
    List<ConsumerRecord<byte[], byte[]>> alone = s.everyKind();
    List<ConsumerRecord<byte[], byte[]>> together = together(alone, 7);
    assertTrue(together.size() < alone.size() - 40, "lines were put together: " + together.size());
    StreamCheckRun a = check(alone);
    StreamCheckRun b = check(together);
    assertEquals(2, a.code, a.output); // the cut line's range cannot be hashed; the tail is unsealed
    assertEquals(a.code, b.code, b.output);
    assertEquals(withoutReadCount(a.output), withoutReadCount(b.output));
    assertTrue(b.output.contains("63 records"), b.output);
  }

  @Test
  void aSourceThatStartsOrStopsSendingLinesTogetherAtARestartVerifies() throws Exception {
    for (boolean togetherFirst : new boolean[] {false, true}) {
      SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
      s.lines(1, 20);
      s.seal(Seal.Kind.INTERVAL);
      s.lines(21, 25);
      s.seal(Seal.Kind.CLOSE);
      List<ConsumerRecord<byte[], byte[]>> first = new ArrayList<>(s.records);
      s.records.clear();
      s.seal(Seal.Kind.RESUME);
      s.lines(26, 40);
      s.seal(Seal.Kind.INTERVAL);
      s.endFile();
      s.lines(41, 45);
      s.seal(Seal.Kind.CLOSE);
      List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(togetherFirst ? together(first, 4) : first);
      all.addAll(togetherFirst ? s.records : together(s.records, 4));
      StreamCheckRun r = check(renumbered(all));
      assertEquals(0, r.code, "together first: " + togetherFirst + "\n" + r.output);
      assertTrue(r.output.contains("verified: ns1/nn1: 45 records (45 verified by "), r.output);
    }
  }

  /** The shipper died after sending lines 1-20 together by 8; its next start sends lines 5-20 again, by 3. */
  @Test
  void linesSentAgainGroupedOtherwiseAreCopies() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(20, 10);
    List<ConsumerRecord<byte[], byte[]>> first = together(new ArrayList<>(s.records), 8);
    List<ConsumerRecord<byte[], byte[]>> again = new ArrayList<>();
    for (int i = 5; i <= 20; i++) {
      again.add(lines.get(i));
      if (i == 10 || i == 20) {
        again.add(s.records.get(s.records.indexOf(lines.get(i)) + 1)); // the seal sent after the line it ends with
      }
    }
    s.records.clear();
    s.lines(21, 24);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(first);
    all.addAll(together(again, 3));
    all.addAll(together(s.records, 8));
    StreamCheckRun r = check(renumbered(all));
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("24 records (24 verified by 3 seals)"), r.output);
    assertTrue(r.output.contains("18 duplicate(s) dropped"), r.output); // 16 lines and 2 seals
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"a byte changed", "a line taken out", "a line added", "two lines swapped"})
  void aLineChangedInsideARecordsRecordIsAChange(String edit) throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.linesSealedEvery(20, 10);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> all = together(s.records, 5);
    int i = indexOfType(all, ShipHeaders.RECORDS, 2); // lines 11-15
    byte[] v = all.get(i).value();
    String text = new String(v, StandardCharsets.UTF_8);
    String[] lines = text.split("\n", -1);
    switch (edit) {
      case "a byte changed":
        v = v.clone();
        v[text.indexOf("ugi=bob") + 4] = 'e';
        break;
      case "a line taken out":
        v = String.join("\n", Arrays.copyOfRange(lines, 1, lines.length)).getBytes(StandardCharsets.UTF_8);
        break;
      case "a line added":
        v = (text + "\n" + lines[4]).getBytes(StandardCharsets.UTF_8);
        break;
      default:
        String t = lines[1];
        lines[1] = lines[2];
        lines[2] = t;
        v = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    }
    all.set(i, withValue(all.get(i), v));
    StreamCheckRun r = check(all);
    assertEquals(1, r.code, edit + ":\n" + r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1"), r.output);
  }

  /** A line of a records record sent again alone with another value is a copy that differs: a change. */
  @Test
  void aCopyAloneOfALineSentTogetherIsComparedWithIt() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(20, 10);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> same = together(s.records, 5);
    same.add(lines.get(13));
    StreamCheckRun r = check(renumbered(same));
    assertEquals(0, r.code, r.output);
    List<ConsumerRecord<byte[], byte[]>> other = together(s.records, 5);
    byte[] v = lines.get(13).value().clone();
    v[new String(v, StandardCharsets.UTF_8).indexOf("ugi=bob") + 4] = 'e';
    other.add(s.withValue(lines.get(13), v));
    r = check(renumbered(other));
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1"), r.output);
  }

  @ParameterizedTest(name = "{0} line(s), compact headers: {1}")
  @org.junit.jupiter.params.provider.CsvSource({"1, false", "1, true", "1025, false", "1025, true"})
  void aRecordsRecordOfOneLineOrOfMoreThanTheMostIsOneNoShipperWrote(int n, boolean compact) throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.compact = compact;
    s.lines(1, n);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> all = together(s.records, n);
    if (n == 1) {
      all.set(0, withType(all.get(0), ShipHeaders.RECORDS));
    }
    assertEquals(ShipHeaders.RECORDS, typeOf(all.get(0)));
    StreamCheckRun r = check(all);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("a record no shipper wrote: a records record of " + n + " line(s)"), r.output);
  }

  /**
   * A read that began at offset 1 of the partition, its first 8 lines before it (sealed, not read): one offset
   * cannot hold 8 records sent alone (not verified), but may hold them sent together, as this source sends them.
   */
  @Test
  void anOffsetBeforeTheReadMayHoldAsManyLinesAsARecordsRecord() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.seal(Seal.Kind.OPEN);
    List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(20, 10);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> alone = new ArrayList<>(s.records);
    alone.removeAll(lines.subList(1, 9));
    StreamCheckRun a = check(alone, 1);
    assertEquals(2, a.code, a.output);
    assertTrue(a.output.contains("they were not in this topic before the read"), a.output);
    List<ConsumerRecord<byte[], byte[]>> together = together(s.records, 4);
    together.remove(indexOfType(together, ShipHeaders.RECORDS, 0)); // lines 1-4
    together.remove(indexOfType(together, ShipHeaders.RECORDS, 0)); // lines 5-8
    StreamCheckRun b = check(together, 1);
    assertEquals(0, b.code, b.output);
    assertTrue(b.output.contains("8 record(s) sealed up to there were sent before"), b.output);
  }

  /**
   * A copy of two lines already read, put together in one records record, or lines together of another source of
   * the partition, do not make the offsets before the read hold more of a source that sends its lines alone.
   */
  @Test
  void linesTogetherThatAreCopiesOrAnotherSourcesDoNotLetAnOffsetHoldMore() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.seal(Seal.Kind.OPEN);
    List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(20, 10);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> headless = new ArrayList<>(s.records);
    headless.removeAll(lines.subList(1, 9));
    List<ConsumerRecord<byte[], byte[]>> copied = new ArrayList<>(headless);
    copied.addAll(together(new ArrayList<>(lines.subList(9, 11)), 2)); // lines 9 and 10 again, together
    StreamCheckRun r = check(renumbered(copied), 1);
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("they were not in this topic before the read"), r.output);

    SyntheticSource other = new SyntheticSource("ns2/nn1", 0, signer);
    other.seal(Seal.Kind.OPEN);
    other.linesSealedEvery(20, 10);
    other.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> shared = new ArrayList<>(headless);
    shared.addAll(together(other.records, 5));
    r = check(renumbered(shared), 1);
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("NOT VERIFIED: ns1/nn1") && r.output.contains("verified: ns2/nn1"), r.output);
  }

  /** A line end inside a record or a cut record, or a records record over the most bytes, is no shipper's. */
  @Test
  void aLineEndInARecordOrARecordsRecordOverTheMostBytesIsOneNoShipperWrote() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.lines(1, 3);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> joined = new ArrayList<>(s.records);
    byte[] two = (new String(joined.get(0).value(), StandardCharsets.UTF_8) + "\n"
        + new String(joined.get(1).value(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
    joined.set(0, withValue(joined.get(0), two)); // lines 1 and 2 as one record, still a record
    joined.remove(1);
    StreamCheckRun r = check(renumbered(joined));
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("a record no shipper wrote: a line end in the value of a record"), r.output);

    SyntheticSource big = new SyntheticSource("ns1/nn1", 0, signer);
    for (int i = 0; i < 40; i++) {
      big.longLine(2000);
    }
    big.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> all = together(big.records, 40); // 80 KB together
    r = check(all);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("a record no shipper wrote: a records record of 40 line(s), 80039 bytes"), r.output);
  }

  /**
   * {@code in} as a shipper with {@code nnaudit.kafka.record.lines} at {@code most} sends it: each run of
   * consecutive {@code record}s (a seal, a file-end or any other record ends one), {@code most} at a time, in one
   * {@code records} record at the first one's place; a run of one stays a {@code record}. Offsets renumbered.
   */
  static List<ConsumerRecord<byte[], byte[]>> together(List<ConsumerRecord<byte[], byte[]>> in, int most) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    List<ConsumerRecord<byte[], byte[]>> run = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : in) {
      if (ShipHeaders.RECORD.equals(typeOf(r))) {
        if (run.size() == most) {
          out.add(joined(run));
          run.clear();
        }
        run.add(r);
        continue;
      }
      if (!run.isEmpty()) {
        out.add(joined(run));
        run.clear();
      }
      out.add(r);
    }
    if (!run.isEmpty()) {
      out.add(joined(run));
    }
    return renumbered(out);
  }

  private static ConsumerRecord<byte[], byte[]> joined(List<ConsumerRecord<byte[], byte[]>> run) {
    if (run.size() == 1) {
      return run.get(0);
    }
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    for (ConsumerRecord<byte[], byte[]> r : run) {
      if (b.size() > 0) {
        b.write('\n');
      }
      b.write(r.value(), 0, r.value().length);
    }
    return withValue(withType(run.get(0), ShipHeaders.RECORDS), b.toByteArray());
  }

  /** The records in their order, at offsets 0, 1, ... of their partition, as a topic holds them. */
  static List<ConsumerRecord<byte[], byte[]>> renumbered(List<ConsumerRecord<byte[], byte[]>> in) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : in) {
      out.add(copy(r, out.size(), r.headers(), r.value()));
    }
    return out;
  }

  /** The type, in either form of the headers. */
  private static String typeOf(ConsumerRecord<byte[], byte[]> r) {
    Header c = r.headers().lastHeader(ShipHeaders.COMPACT);
    if (c != null) {
      return new String(c.value(), StandardCharsets.UTF_8).split(" ")[ShipHeaders.C_TYPE];
    }
    return new String(r.headers().lastHeader(ShipHeaders.TYPE).value(), StandardCharsets.UTF_8);
  }

  /** {@code r} with the type {@code type}, in its form of the headers. */
  private static ConsumerRecord<byte[], byte[]> withType(ConsumerRecord<byte[], byte[]> r, String type) {
    RecordHeaders h = new RecordHeaders();
    for (Header x : r.headers()) {
      if (x.key().equals(ShipHeaders.COMPACT)) {
        String fields = new String(x.value(), StandardCharsets.UTF_8);
        h.add(ShipHeaders.COMPACT, (type + fields.substring(fields.indexOf(' '))).getBytes(StandardCharsets.UTF_8));
      } else if (x.key().equals(ShipHeaders.TYPE)) {
        h.add(ShipHeaders.TYPE, type.getBytes(StandardCharsets.UTF_8));
      } else {
        h.add(x);
      }
    }
    return copy(r, r.offset(), h, r.value());
  }

  private static ConsumerRecord<byte[], byte[]> withValue(ConsumerRecord<byte[], byte[]> r, byte[] value) {
    return copy(r, r.offset(), r.headers(), value);
  }

  private static ConsumerRecord<byte[], byte[]> copy(ConsumerRecord<byte[], byte[]> r, long offset,
      Iterable<Header> headers, byte[] value) {
    RecordHeaders h = new RecordHeaders();
    headers.forEach(h::add);
    return new ConsumerRecord<>(r.topic(), r.partition(), offset, r.timestamp(), TimestampType.CREATE_TIME, -1, -1,
        r.key(), value, h, java.util.Optional.empty());
  }

  /** The index of the {@code nth} (from 0) record of {@code type}. */
  private static int indexOfType(List<ConsumerRecord<byte[], byte[]>> all, String type, int nth) {
    for (int i = 0; i < all.size(); i++) {
      if (type.equals(typeOf(all.get(i))) && nth-- == 0) {
        return i;
      }
    }
    throw new AssertionError("no " + type + " record " + nth);
  }

  /**
   * The report but for what lines sent together make differ: the count of topic records read, the topic offsets
   * findings name, and the time the last was sent (the first line's of its record).
   */
  private static String withoutReadCount(String report) {
    return report.replaceAll("[0-9]+ records read from", "N records read from")
        .replaceAll("partition 0, offset [0-9]+\\)", "partition 0, offset N)")
        .replaceAll(" to 1970-[0-9T:.Z-]+,", " to (time),")
        .replaceAll("last verified seal: [0-9a-f]{64}", "last verified seal: (hash)");
  }

  private static StreamCheckRun check(List<ConsumerRecord<byte[], byte[]>> records) {
    return check(records, Long.MAX_VALUE);
  }

  /** {@code offsetsBefore}: the offset each partition's read began at. */
  private static StreamCheckRun check(List<ConsumerRecord<byte[], byte[]>> records, long offsetsBefore) {
    return StreamCheckRun.of(new StreamCheck(keys, Collections.emptyMap(), false, Collections.emptySet(), 1 << 20,
        1000), records, offsetsBefore);
  }
}
