package io.nnaudit.kafka.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.Seal;

/**
 * verify-stream on the two forms of the headers ({@code nnaudit.kafka.headers}: seven named, or the compact one
 * with the key as the source): a stream gives the same report in either form, a source that changed form at a
 * restart verifies, a copy in the other form is compared as any copy, and headers that are not the shipper's (a
 * compact header of another shape, beside named headers, a number spelled otherwise than the shipper spells it) are
 * a record no shipper wrote.
 */
class HeaderFormsCheckTest extends SignedStreamsTestBase {
  @Test
  void aStreamGivesTheSameReportInEitherForm() throws Exception {
    SyntheticSource named = new SyntheticSource("ns1/nn1", 0, signer);
    SyntheticSource compact = new SyntheticSource("ns1/nn1", 0, signer);
    compact.compact = true;
    StreamCheckRun a = check(named.everyKind());
    StreamCheckRun b = check(compact.everyKind());
    assertEquals(2, a.code, a.output); // the cut line's range cannot be hashed; the tail is unsealed
    assertEquals(a.code, b.code, b.output);
    assertEquals(withoutSealHashes(a.output), withoutSealHashes(b.output)); // each source signs its own seals
    assertTrue(b.output.contains("record-cut"), b.output);
    assertTrue(b.output.contains("63 records"), b.output);
  }

  @ParameterizedTest(name = "compact first: {0}")
  @ValueSource(booleans = {false, true})
  void aSourceThatChangesFormAtARestartVerifies(boolean compactFirst) throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.compact = compactFirst;
    s.lines(1, 20);
    s.seal(Seal.Kind.INTERVAL);
    s.lines(21, 25);
    s.seal(Seal.Kind.CLOSE);
    s.compact = !compactFirst; // the next start ships in the other form
    s.seal(Seal.Kind.RESUME);
    s.lines(26, 40);
    s.seal(Seal.Kind.INTERVAL);
    s.endFile();
    s.lines(41, 45);
    s.seal(Seal.Kind.CLOSE);
    StreamCheckRun r = check(s.records);
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("verified: ns1/nn1: 45 records (45 verified by "), r.output);
  }

  /** Compact headers no shipper gives, each with what the report must say of it. */
  static Stream<Arguments> forged() {
    return Stream.of(
        Arguments.of("five fields", "record 0 OFFSET 9 1", "is not '<type> <file> <offset> <seq> <epoch> <format>'"),
        Arguments.of("a length on a record not cut", "record 0 OFFSET 9 1 hdfs 300", "is not '<type>"),
        Arguments.of("two spaces", "record 0  OFFSET 9 1 hdfs", "is not '<type>"),
        Arguments.of("a space at the end", "record 0 OFFSET 9 1 hdfs ", "is not '<type>"),
        Arguments.of("a signed offset", "record 0 +OFFSET 9 1 hdfs", "where the shipper gives a number"),
        Arguments.of("a negative file", "record -1 OFFSET 9 1 hdfs", "where the shipper gives a number"),
        Arguments.of("a seq that is not a number", "record 0 OFFSET x9 1 hdfs", "where the shipper gives a number"),
        Arguments.of("an epoch beyond a long", "record 0 OFFSET 9 99999999999999999999 hdfs",
            "where the shipper gives a number"),
        Arguments.of("a file beyond any the shipper gives", "record 8388608 OFFSET 9 1 hdfs",
            "a file number or byte beyond any the shipper gives"),
        Arguments.of("a leading zero", "record 0 0OFFSET 9 1 hdfs", "where the shipper gives a number"),
        Arguments.of("a type with a tab", "record\t9 0 OFFSET 9 1 hdfs", "a type that is not a word"),
        Arguments.of("a format of another shape", "record 0 OFFSET 9 1 HDFS", "a format neither hdfs nor json"),
        Arguments.of("a format the shipper does not give", "record 0 OFFSET 9 1 xml", "a format neither hdfs nor json"),
        Arguments.of("a file-end with a value", "file-end 0 OFFSET 9 1 hdfs", "a file-end with a value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forged")
  void aCompactHeaderNoShipperGivesIsAChange(String name, String header, String says) throws Exception {
    List<ConsumerRecord<byte[], byte[]>> all = withSecondLine(header);
    assertNoShipperWrote(all, says);
  }

  /** Cut lines' lengths no shipper gives: missing, no longer than the value, beyond any file, spelled otherwise. */
  @ParameterizedTest(name = "length field '{0}'")
  @ValueSource(strings = {"", " 1500", " 999999999999999999", " 04500", " +4500"})
  void aCutRecordsLengthNoShipperGivesIsAChange(String length) throws Exception {
    for (boolean compact : new boolean[] {false, true}) {
      SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
      s.compact = compact;
      s.line(1);
      ConsumerRecord<byte[], byte[]> cut = s.cutLine(1500); // a line of 4500 bytes
      s.line(3);
      s.seal(Seal.Kind.CLOSE);
      if (compact) {
        String own = new String(cut.headers().lastHeader(ShipHeaders.COMPACT).value(), StandardCharsets.UTF_8);
        cut.headers().remove(ShipHeaders.COMPACT);
        cut.headers().add(ShipHeaders.COMPACT, (own.substring(0, own.lastIndexOf(' ')) + length)
            .getBytes(StandardCharsets.UTF_8));
      } else {
        cut.headers().remove(ShipHeaders.LENGTH);
        if (!length.isEmpty()) {
          cut.headers().add(ShipHeaders.LENGTH, length.trim().getBytes(StandardCharsets.UTF_8));
        }
      }
      StreamCheckRun r = check(s.records);
      assertEquals(1, r.code, (compact ? "compact: " : "named: ") + r.output);
      assertTrue(r.output.contains("a record no shipper wrote"), r.output);
    }
  }

  @Test
  void aNamedHeaderMissingOrSpelledOtherwiseOrALengthOnAWholeLineIsAChange() throws Exception {
    String[][] edits = {{ShipHeaders.OFFSET, "+0"}, {ShipHeaders.OFFSET, "00"}, {ShipHeaders.FILE, "\u0660"},
        {ShipHeaders.LENGTH, "100"}, {ShipHeaders.SEQ, "-3"}, {ShipHeaders.EPOCH, "01"}, {ShipHeaders.FORMAT, "HDFS"},
        {ShipHeaders.TYPE, "record "}, {ShipHeaders.SEQ, null}, {ShipHeaders.FORMAT, null},
        {ShipHeaders.FORMAT, "xml"}, {ShipHeaders.TYPE, ShipHeaders.FILE_END}, {ShipHeaders.SOURCE, "ns1/nn1\u00ff"}};
    for (String[] e : edits) {
      SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
      ConsumerRecord<byte[], byte[]> one = s.line(1);
      s.line(2);
      s.seal(Seal.Kind.CLOSE);
      one.headers().remove(e[0]);
      if (e[1] != null) {
        one.headers().add(e[0], e[1].getBytes(e[1].endsWith("\u00ff") ? StandardCharsets.ISO_8859_1
            : StandardCharsets.UTF_8)); // ISO-8859-1: a byte 0xff, not UTF-8
      }
      StreamCheckRun r = check(s.records);
      assertEquals(1, r.code, e[0] + "=" + e[1] + ": " + r.output);
      assertTrue(r.output.contains("a record no shipper wrote"), r.output);
    }
  }

  /**
   * A record sent again in the other form (a restart changed it) is compared with the first as any copy: by its
   * value, and by whether it was cut and how long its line was.
   */
  @ParameterizedTest(name = "the copy: {0}")
  @ValueSource(strings = {"the same", "another value", "the cut line relabelled whole"})
  void aCopyInTheOtherFormIsComparedAsAnyCopy(String copy) throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.line(1);
    s.cutLine(1500); // a line of 4500 bytes, its first 1500 sent
    s.line(3);
    s.seal(Seal.Kind.INTERVAL);
    List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(s.records);
    for (int i = 0; i < 3; i++) { // a resend of the three lines, compact, at their places
      ConsumerRecord<byte[], byte[]> r = s.records.get(i);
      String offset = new String(r.headers().lastHeader(ShipHeaders.OFFSET).value(), StandardCharsets.UTF_8);
      String type = new String(r.headers().lastHeader(ShipHeaders.TYPE).value(), StandardCharsets.UTF_8);
      byte[] value = r.value();
      if (i == 2 && copy.equals("another value")) {
        value = "changed".getBytes(StandardCharsets.UTF_8);
      }
      if (i == 1 && copy.equals("the cut line relabelled whole")) {
        type = ShipHeaders.RECORD;
      }
      String tail = type.equals(ShipHeaders.RECORD_CUT) ? " 4500" : "";
      RecordHeaders h = new RecordHeaders();
      h.add(ShipHeaders.COMPACT, (type + " 0 " + offset + " " + i + " 2 hdfs" + tail).getBytes(StandardCharsets.UTF_8));
      all.add(new ConsumerRecord<>("t", 0, all.size(), r.timestamp(), TimestampType.CREATE_TIME, -1, -1, r.key(),
          value, h, java.util.Optional.empty()));
    }
    StreamCheckRun r = check(all);
    if (copy.equals("the same")) {
      assertEquals(2, r.code, r.output); // the cut line's range is not hashed; the copies are the same records
      assertTrue(r.output.contains("3 records"), r.output);
      assertTrue(!r.output.contains("TAMPERED"), r.output);
    } else {
      assertEquals(1, r.code, r.output);
      assertTrue(r.output.contains("a record sent again with another value"), r.output);
    }
  }

  @Test
  void aCompactHeaderBesideNamedHeadersIsAChange() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> all = withSecondLine(null);
    ConsumerRecord<byte[], byte[]> two = all.get(1);
    two.headers().add(ShipHeaders.TYPE, ShipHeaders.SEAL.getBytes(StandardCharsets.UTF_8)); // read by some consumers
    assertNoShipperWrote(all, "it has both the header nnaudit and named nnaudit.* headers");
  }

  @Test
  void aRepeatedCompactHeaderIsAChange() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> all = withSecondLine(null);
    ConsumerRecord<byte[], byte[]> two = all.get(1);
    RecordHeaders h = new RecordHeaders();
    h.add(ShipHeaders.COMPACT, "seal 0 0 1 1 hdfs".getBytes(StandardCharsets.UTF_8)); // read first by some
    two.headers().forEach(h::add);
    all.set(1, new ConsumerRecord<>("t", two.partition(), two.offset(), two.timestamp(), TimestampType.CREATE_TIME,
        -1, -1, two.key(), two.value(), h, java.util.Optional.empty()));
    assertNoShipperWrote(all, "the header nnaudit is repeated");
  }

  @Test
  void aCompactRecordWithoutAKeyIsAChange() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> all = withSecondLine(null);
    ConsumerRecord<byte[], byte[]> two = all.get(1);
    all.set(1, new ConsumerRecord<>("t", two.partition(), two.offset(), two.timestamp(), TimestampType.CREATE_TIME,
        -1, -1, null, two.value(), two.headers(), java.util.Optional.empty()));
    assertNoShipperWrote(all, "it has no key, which is the source of every record the shipper gives");
  }

  @Test
  void aCompactHeaderThatIsNotUtf8IsAChange() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> all = withSecondLine(null);
    ConsumerRecord<byte[], byte[]> two = all.get(1);
    byte[] v = two.headers().lastHeader(ShipHeaders.COMPACT).value().clone();
    v[v.length - 1] = (byte) 0xff; // "hdf\xff"
    two.headers().remove(ShipHeaders.COMPACT);
    two.headers().add(ShipHeaders.COMPACT, v);
    assertNoShipperWrote(all, "is not UTF-8");
  }

  /**
   * Three sealed compact lines; the second's header replaced by {@code header} (OFFSET: its own offset), unless
   * null.
   */
  private static List<ConsumerRecord<byte[], byte[]>> withSecondLine(String header) throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.compact = true;
    s.line(1);
    ConsumerRecord<byte[], byte[]> two = s.line(2);
    s.line(3);
    s.seal(Seal.Kind.CLOSE);
    if (header != null) {
      String own = new String(two.headers().lastHeader(ShipHeaders.COMPACT).value(), StandardCharsets.UTF_8);
      two.headers().remove(ShipHeaders.COMPACT);
      two.headers().add(ShipHeaders.COMPACT, header.replace("OFFSET", own.split(" ")[2])
          .getBytes(StandardCharsets.UTF_8));
    }
    return new ArrayList<>(s.records);
  }

  /** The check of {@code records} finds a record no shipper wrote, and says {@code says} of it. */
  private static void assertNoShipperWrote(List<ConsumerRecord<byte[], byte[]>> records, String says) {
    StreamCheckRun r = check(records);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1"), r.output);
    assertTrue(r.output.contains("a record no shipper wrote"), r.output);
    assertTrue(r.output.contains(says), r.output);
  }

  private static String withoutSealHashes(String report) {
    return report.replaceAll("last verified seal: [0-9a-f]{64}", "last verified seal: (hash)");
  }

  private static StreamCheckRun check(List<ConsumerRecord<byte[], byte[]>> records) {
    return StreamCheckRun.of(new StreamCheck(keys, Collections.emptyMap(), false, Collections.emptySet(), 1 << 20,
        1000), records);
  }
}
