package io.nnaudit.kafka.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;
import io.nnaudit.seal.SealKeys;

/**
 * The checks of verify-stream on streams made in memory ({@link SyntheticSource}), where a broker adds nothing:
 * many sources interleaved over partitions with their seals late, the bounds on what it keeps (the copies it
 * compares, the bytes waiting for a seal), the tail's bound, cut records, records no shipper wrote, and the seals
 * a start writes.
 */
class StreamCheckTest {
  @TempDir
  static Path dir;
  static SealKey signer;
  static Map<String, SealKey> keys;

  @BeforeAll
  static void keys() throws Exception {
    SealKeys.KeyFiles k = SealKeys.ec(dir.resolve("keys"));
    signer = k.signingKey();
    keys = Collections.singletonMap(k.checkingKey().keyId(), k.checkingKey());
  }

  @Test
  void manySourcesOverManyPartitionsWithLateSealsVerify() throws Exception {
    Random random = new Random(42);
    List<SyntheticSource> sources = new ArrayList<>();
    for (int s = 0; s < 20; s++) {
      SyntheticSource src = new SyntheticSource("ns" + s + "/nn1", s % 8, signer);
      List<ConsumerRecord<byte[], byte[]>> waiting = new ArrayList<>();
      for (int i = 1; i <= 400; i++) {
        src.line(i);
        if (!waiting.isEmpty() && random.nextInt(3) == 0) { // a seal comes a few records after its range
          src.records.addAll(waiting);
          waiting.clear();
        }
        if (i % 25 == 0) {
          src.records.addAll(waiting);
          waiting.clear();
          waiting.add(src.sealRecord(Seal.Kind.INTERVAL));
        }
        if (i % 150 == 0) {
          src.records.addAll(waiting);
          waiting.clear();
          src.endFile();
        }
      }
      src.records.addAll(waiting);
      src.seal(Seal.Kind.CLOSE);
      sources.add(src);
    }
    Result r = check(interleave(sources, random), false, 250_000, 64 << 20);
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("sources: 20 verified, 0 with records not verified, 0 tampered"), r.output);
    assertTrue(r.output.contains("verified: ns7/nn1: 400 records (400 verified by 19 seals), 2 files ended"),
        r.output);
  }

  @Test
  void aTailLongerThanTheLastSealAllowsIsSealsRemoved() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.tailRecords = 5;
    s.tailBytes = 100;
    for (int i = 1; i <= 10; i++) {
      s.line(i);
    }
    s.seal(Seal.Kind.INTERVAL);
    for (int i = 11; i <= 30; i++) {
      s.line(i);
    }
    Result r = check(s.records, false, 1000, 1 << 20);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1 file 0 at byte "), r.output);
    assertTrue(r.output.contains("20 record(s) after seal 1"), r.output);
    assertTrue(r.output.contains("more than the source leaves unsealed (5 records, then 100 bytes)"), r.output);

    SyntheticSource within = new SyntheticSource("ns1/nn1", 0, signer); // the same within the bound: unsealed
    for (int i = 1; i <= 10; i++) {
      within.line(i);
    }
    within.seal(Seal.Kind.INTERVAL);
    for (int i = 11; i <= 12; i++) {
      within.line(i);
    }
    Result u = check(within.records, false, 1000, 1 << 20);
    assertEquals(2, u.code, u.output);
    assertTrue(u.output.contains("UNSEALED: ns1/nn1 file 0 at byte "), u.output);
    assertTrue(u.output.contains("unsealed tail: 2 record(s) after the last seal"), u.output);
  }

  @Test
  void aCopyOlderThanTheWindowIsNotComparedAndSaysSo() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    ConsumerRecord<byte[], byte[]> first = s.line(1);
    for (int i = 2; i <= 50; i++) {
      s.line(i);
    }
    s.seal(Seal.Kind.INTERVAL);
    s.records.add(first); // sent again long after
    Result small = check(s.records, false, 10, 1 << 20);
    assertEquals(2, small.code, small.output);
    assertTrue(small.output.contains("NOT VERIFIED: ns1/nn1: 1 record(s) sent again after more records than "
        + "verify-stream remembers"), small.output);
    Result large = check(s.records, false, 1000, 1 << 20);
    assertEquals(0, large.code, large.output);
  }

  @Test
  void aRangeLongerThanTheBytesKeptIsReportedNotHashedAndTheNextVerifies() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    for (int i = 1; i <= 40; i++) {
      s.line(i);
    }
    s.seal(Seal.Kind.INTERVAL); // about 5 KB of records
    for (int i = 41; i <= 45; i++) {
      s.line(i);
    }
    s.seal(Seal.Kind.INTERVAL);
    s.seal(Seal.Kind.CLOSE);
    Result r = check(s.records, false, 1000, 2000);
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("40 record(s) up to byte "), r.output);
    assertTrue(r.output.contains("more than 2000 bytes of records waited for their seal"), r.output);
    assertTrue(r.output.contains("45 records (5 verified by 3 seals)"), r.output);
  }

  @Test
  void aCutRecordsRangeCannotBeHashed() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.line(1);
    s.cutLine(1500);
    s.line(3);
    s.seal(Seal.Kind.INTERVAL);
    s.line(4);
    s.seal(Seal.Kind.CLOSE);
    Result r = check(s.records, false, 1000, 1 << 20);
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("3 record(s) up to byte "), r.output);
    assertTrue(r.output.contains("record-cut"), r.output);
    assertTrue(r.output.contains("4 records (1 verified by 2 seals)"), r.output);
  }

  @Test
  void aRecordNoShipperWroteIsAChange() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.line(1);
    ConsumerRecord<byte[], byte[]> bare = s.make(ShipHeaders.RECORD, 0, "planted".getBytes(StandardCharsets.UTF_8));
    bare.headers().remove(ShipHeaders.FILE);
    s.records.add(bare);
    s.seal(Seal.Kind.CLOSE);
    Result r = check(s.records, false, 1000, 1 << 20);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1"), r.output);
    assertTrue(r.output.contains("a record no shipper wrote: it lacks the headers"), r.output);
  }

  @Test
  void theSealsOfAStartAreReadAsVerifyReadsThem() throws Exception {
    SyntheticSource late = new SyntheticSource("ns1/nn1", 0, signer);
    for (int i = 1; i <= 5; i++) {
      late.line(i);
    }
    late.seal(Seal.Kind.INTERVAL);
    late.line(6);
    late.seal(Seal.Kind.RECOVER); // a killed run's tail, sealed by the next start
    late.seal(Seal.Kind.CLOSE);
    Result r = check(late.records, false, 1000, 1 << 20);
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("SEALED LATE: ns1/nn1 file 0 at byte "), r.output);
    assertTrue(r.output.contains("1 record(s) sealed at the start at "), r.output);
    Result accepted = check(late.records, true, 1000, 1 << 20);
    assertEquals(0, accepted.code, accepted.output);
    assertTrue(accepted.output.contains("(accepted) 1 record(s) sealed at the start"), accepted.output);

    SyntheticSource found = new SyntheticSource("ns1/nn1", 0, signer);
    found.line(1);
    found.seal(Seal.Kind.CLOSE);
    found.line(2);
    found.seal(Seal.Kind.FOUND); // records no run wrote, after a close
    Result f = check(found.records, false, 1000, 1 << 20);
    assertEquals(1, f.code, f.output);
    assertTrue(f.output.contains("records inserted: the source's start at "), f.output);
  }

  @Test
  void aPlaceBeyondAnyTheShipperGivesIsAChange() throws Exception {
    for (String[] place : new String[][] {{"8388608", "0"}, {"1", Long.toString(4L << 40)}}) {
      SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
      for (int i = 1; i <= 10; i++) {
        s.line(i);
      }
      s.seal(Seal.Kind.INTERVAL);
      s.records.add(at(s.make(ShipHeaders.RECORD, 0, "forged".getBytes(StandardCharsets.UTF_8)), place[0],
          place[1]));
      s.seal(Seal.Kind.CLOSE);
      Result r = check(s.records, false, 1000, 1 << 20);
      assertEquals(1, r.code, r.output);
      assertTrue(r.output.contains("a file number or byte beyond any the shipper gives"), r.output);
    }
  }

  @Test
  void aRecordBeforeTheFirstReadThatNoResendLeadsToIsAChange() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> lines = midChainSource(s);
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>(s.records.subList(s.records.indexOf(lines.get(16)),
        s.records.size()));
    List<ConsumerRecord<byte[], byte[]>> forged = new ArrayList<>(read);
    forged.add(at(s.make(ShipHeaders.RECORD, 0, "forged".getBytes(StandardCharsets.UTF_8)), "0", "0"));
    Result r = check(forged, false, 1000, 1 << 20);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1 file 0 at byte 0 "), r.output);
    assertTrue(r.output.contains("before the first record read"), r.output);

    List<ConsumerRecord<byte[], byte[]>> resent = new ArrayList<>(read); // a resend the read began inside of
    int from = s.records.indexOf(lines.get(9));
    resent.addAll(resent.size() - 1, s.records.subList(from, s.records.indexOf(lines.get(20)) + 1));
    Result genuine = check(resent, false, 1000, 1 << 20); // copies never read here: dropped, not compared
    assertEquals(2, genuine.code, genuine.output);
    assertTrue(genuine.output.contains("note: starts mid-chain"), genuine.output);
    assertTrue(genuine.output.contains("NOT VERIFIED: ns1/nn1: 7 record(s) before the first record read"),
        genuine.output);
    assertFalse(genuine.output.contains("TAMPERED"), genuine.output);

    List<ConsumerRecord<byte[], byte[]>> stopped = new ArrayList<>(read); // the same, but it stops short of it
    stopped.addAll(stopped.size() - 1, s.records.subList(from, s.records.indexOf(lines.get(12))));
    Result r2 = check(stopped, false, 1000, 1 << 20);
    assertEquals(1, r2.code, r2.output);
    assertTrue(r2.output.contains("before the first record read, stop at byte"), r2.output);
  }

  /** 30 lines sealed every 10, and a close; returns the lines (index i: line i, from 1). */
  private static List<ConsumerRecord<byte[], byte[]>> midChainSource(SyntheticSource s) throws Exception {
    List<ConsumerRecord<byte[], byte[]>> lines = new ArrayList<>();
    lines.add(null);
    for (int i = 1; i <= 30; i++) {
      lines.add(s.line(i));
      if (i % 10 == 0) {
        s.seal(Seal.Kind.INTERVAL);
      }
    }
    s.seal(Seal.Kind.CLOSE);
    return lines;
  }

  @Test
  void recordsAfterACloseOrARotateSealAreInserted() throws Exception {
    SyntheticSource closed = new SyntheticSource("ns1/nn1", 0, signer);
    for (int i = 1; i <= 5; i++) {
      closed.line(i);
    }
    closed.seal(Seal.Kind.CLOSE);
    ConsumerRecord<byte[], byte[]> resume = closed.sealRecord(Seal.Kind.RESUME); // no bytes: at the close's end
    closed.line(6);
    closed.line(7);
    Result r = check(closed.records, false, 1000, 1 << 20);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("records inserted: 2 record(s) after seal 1 "), r.output);
    assertTrue(r.output.contains("closed the file (close)"), r.output);

    closed.records.add(resume); // a start's seal after them: a genuine start writes it before its records
    closed.seal(Seal.Kind.INTERVAL);
    Result late = check(closed.records, false, 1000, 1 << 20);
    assertEquals(1, late.code, late.output);
    assertTrue(late.output.contains("came before seal 2 (resume)"), late.output);

    SyntheticSource restarted = new SyntheticSource("ns1/nn1", 0, signer); // a stop and a start: no change
    for (int i = 1; i <= 5; i++) {
      restarted.line(i);
    }
    restarted.seal(Seal.Kind.CLOSE);
    restarted.seal(Seal.Kind.RESUME);
    restarted.line(6);
    restarted.line(7);
    restarted.seal(Seal.Kind.CLOSE);
    assertEquals(0, check(restarted.records, false, 1000, 1 << 20).code);

    SyntheticSource rotated = new SyntheticSource("ns1/nn1", 0, signer);
    for (int i = 1; i <= 5; i++) {
      rotated.line(i);
    }
    rotated.seal(Seal.Kind.ROTATE); // its file-end cut away, records appended to the rotated file
    for (int i = 6; i <= 10; i++) {
      rotated.line(i);
    }
    Result rr = check(rotated.records, false, 1000, 1 << 20);
    assertEquals(1, rr.code, rr.output);
    assertTrue(rr.output.contains("records inserted: 5 record(s) after seal 1 "), rr.output);
    assertTrue(rr.output.contains("ended the file for its rotation (rotate)"), rr.output);

    rotated.seal(Seal.Kind.INTERVAL); // a rotation that failed: the file goes on, and its next seal covers them
    rotated.seal(Seal.Kind.CLOSE);
    Result failed = check(rotated.records, false, 1000, 1 << 20);
    assertEquals(0, failed.code, failed.output);
  }

  @Test
  void aRecordRelabelledCutIsAChangeAndACutRecordHidesNoOtherChange() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.line(1);
    ConsumerRecord<byte[], byte[]> big = s.longLine(2000);
    for (int i = 3; i <= 6; i++) {
      s.line(i);
    }
    s.seal(Seal.Kind.INTERVAL);
    List<ConsumerRecord<byte[], byte[]>> second = new ArrayList<>();
    for (int i = 7; i <= 10; i++) {
      second.add(s.line(i));
    }
    s.seal(Seal.Kind.CLOSE);
    int at = s.records.indexOf(big);

    // (a) changed, and labelled cut at its own length
    List<ConsumerRecord<byte[], byte[]>> relabelled = new ArrayList<>(s.records);
    byte[] changed = big.value().clone();
    changed[changed.length - 1] = 'y';
    relabelled.set(at, cut(s, big, changed, changed.length));
    Result a = check(relabelled, false, 1000, 1 << 20);
    assertEquals(1, a.code, a.output);
    assertTrue(a.output.contains("the shipper cuts only a line longer than it sends"), a.output);

    // shorter than any cut the shipper makes
    relabelled.set(at, cut(s, big, java.util.Arrays.copyOf(big.value(), 500), big.value().length));
    Result shortCut = check(relabelled, false, 1000, 1 << 20);
    assertEquals(1, shortCut.code, shortCut.output);

    // (b) records 3-4 deleted, the big one labelled cut with a length that runs over them
    List<ConsumerRecord<byte[], byte[]>> spanning = new ArrayList<>(s.records);
    ConsumerRecord<byte[], byte[]> third = s.records.get(at + 1);
    ConsumerRecord<byte[], byte[]> fourth = s.records.get(at + 2);
    long over = big.value().length + 1 + third.value().length + 1 + fourth.value().length;
    spanning.set(at, cut(s, big, java.util.Arrays.copyOf(big.value(), 1024), over));
    spanning.remove(third);
    spanning.remove(fourth);
    Result b = check(spanning, false, 1000, 1 << 20);
    assertEquals(1, b.code, b.output);
    assertTrue(b.output.contains("records deleted: the range sealed by seal 1"), b.output);
    assertTrue(b.output.contains("6 record(s) were sealed, 4 are here"), b.output);

    // (c) a genuine cut: its range is not hashed, the next one is, and a change there is found
    List<ConsumerRecord<byte[], byte[]>> genuine = new ArrayList<>(s.records);
    genuine.set(at, cut(s, big, java.util.Arrays.copyOf(big.value(), 1024), big.value().length));
    Result c = check(genuine, false, 1000, 1 << 20);
    assertEquals(2, c.code, c.output);
    assertTrue(c.output.contains("6 record(s) up to byte "), c.output);
    assertTrue(c.output.contains("10 records (4 verified by 2 seals)"), c.output);
    ConsumerRecord<byte[], byte[]> edited = second.get(1);
    byte[] v = edited.value().clone();
    v[v.length - 1] = 'z';
    genuine.set(genuine.indexOf(edited), s.withValue(edited, v));
    Result c2 = check(genuine, false, 1000, 1 << 20);
    assertEquals(1, c2.code, c2.output);
    assertTrue(c2.output.contains("modified bytes: the range sealed by seal 2"), c2.output);
  }

  @Test
  void aRepeatedHeaderIsAChange() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.line(1);
    ConsumerRecord<byte[], byte[]> two = s.line(2);
    s.seal(Seal.Kind.CLOSE);
    RecordHeaders h = new RecordHeaders();
    h.add(ShipHeaders.TYPE, ShipHeaders.SEAL.getBytes(StandardCharsets.UTF_8)); // read first by some consumers
    two.headers().forEach(h::add);
    List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(s.records);
    all.set(all.indexOf(two), new ConsumerRecord<>("t", two.partition(), two.offset(), two.timestamp(),
        TimestampType.CREATE_TIME, -1, -1, two.key(), two.value(), h, java.util.Optional.empty()));
    Result r = check(all, false, 1000, 1 << 20);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("the header nnaudit.type is repeated"), r.output);
  }

  @Test
  void aReadThatBeginsAtALateSealStartsMidChain() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    for (int i = 1; i <= 10; i++) {
      s.line(i);
    }
    ConsumerRecord<byte[], byte[]> late = s.sealRecord(Seal.Kind.INTERVAL);
    for (int i = 11; i <= 13; i++) { // sent before the seal of the records before them
      s.line(i);
    }
    s.records.add(late);
    for (int i = 14; i <= 20; i++) {
      s.line(i);
    }
    s.seal(Seal.Kind.INTERVAL);
    for (int i = 21; i <= 25; i++) {
      s.line(i);
    }
    s.endFile();
    List<ConsumerRecord<byte[], byte[]>> fromSeal = s.records.subList(s.records.indexOf(late), s.records.size());
    Result r = check(fromSeal, false, 1000, 1 << 20); // --from a time, or retention, that begins at the seal
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("12 records (5 verified by 3 seals), 1 file ended"), r.output);

    SyntheticSource t = new SyntheticSource("ns1/nn1", 0, signer); // the same with the file's last seal next
    for (int i = 1; i <= 10; i++) {
      t.line(i);
    }
    ConsumerRecord<byte[], byte[]> held = t.sealRecord(Seal.Kind.INTERVAL);
    t.line(11); // sent before the seal of the records before it, and the file's last seal and end after
    t.records.add(held);
    t.endFile();
    List<ConsumerRecord<byte[], byte[]>> fromRotate = t.records.subList(t.records.indexOf(held),
        t.records.size());
    Result e = check(fromRotate, false, 1000, 1 << 20);
    assertEquals(0, e.code, e.output);
  }

  @Test
  void aSourceThatBeginsAtItsChainsFirstSealMustFollowOnFromIt() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    ConsumerRecord<byte[], byte[]> open = s.seal(Seal.Kind.OPEN); // the chain's first seal, over no bytes
    List<ConsumerRecord<byte[], byte[]>> lines = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      lines.add(s.line(i));
      if (i % 10 == 0) {
        s.seal(Seal.Kind.INTERVAL);
      }
    }
    s.seal(Seal.Kind.CLOSE);
    assertEquals(0, check(s.records, false, 1000, 1 << 20).code);

    List<ConsumerRecord<byte[], byte[]>> headless = new ArrayList<>(s.records); // its first records deleted
    headless.removeAll(lines.subList(0, 3));
    Result r = check(headless, false, 1000, 1 << 20);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1 file 0 at byte "), r.output);
    assertEquals(0, headless.indexOf(open));
  }

  /** {@code r} moved to file {@code file}, byte {@code offset}. */
  private static ConsumerRecord<byte[], byte[]> at(ConsumerRecord<byte[], byte[]> r, String file, String offset) {
    r.headers().remove(ShipHeaders.FILE);
    r.headers().remove(ShipHeaders.OFFSET);
    r.headers().add(ShipHeaders.FILE, file.getBytes(StandardCharsets.UTF_8));
    r.headers().add(ShipHeaders.OFFSET, offset.getBytes(StandardCharsets.UTF_8));
    return r;
  }

  /** {@code r} as a record-cut of {@code value}, {@code length} long. */
  private static ConsumerRecord<byte[], byte[]> cut(SyntheticSource s, ConsumerRecord<byte[], byte[]> r,
      byte[] value, long length) {
    ConsumerRecord<byte[], byte[]> c = s.withValue(r, value);
    c.headers().remove(ShipHeaders.TYPE);
    c.headers().add(ShipHeaders.TYPE, ShipHeaders.RECORD_CUT.getBytes(StandardCharsets.UTF_8));
    c.headers().add(ShipHeaders.LENGTH, Long.toString(length).getBytes(StandardCharsets.UTF_8));
    return c;
  }

  // --- helpers

  private static final class Result {
    final int code;
    final String output;

    Result(int code, String output) {
      this.code = code;
      this.output = output;
    }
  }

  /** The sources' records interleaved at random, each partition's (and so each source's) order kept. */
  private static List<ConsumerRecord<byte[], byte[]>> interleave(List<SyntheticSource> sources, Random random) {
    List<List<ConsumerRecord<byte[], byte[]>>> queues = new ArrayList<>();
    for (SyntheticSource s : sources) {
      queues.add(new ArrayList<>(s.records));
    }
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    while (!queues.isEmpty()) {
      int q = random.nextInt(queues.size());
      List<ConsumerRecord<byte[], byte[]>> l = queues.get(q);
      int n = 1 + random.nextInt(20);
      for (int i = 0; i < n && !l.isEmpty(); i++) {
        ConsumerRecord<byte[], byte[]> r = l.remove(0);
        out.add(r);
      }
      if (l.isEmpty()) {
        queues.remove(q);
      }
    }
    return out;
  }

  private static Result check(List<ConsumerRecord<byte[], byte[]>> records, boolean acceptLate, int window,
      int maxPending) {
    StreamCheck c = new StreamCheck(keys, Collections.emptyMap(), acceptLate, Collections.emptySet(), maxPending,
        window);
    TopicReader reader = new TopicReader(new Properties(), "t", Duration.ofSeconds(1));
    for (ConsumerRecord<byte[], byte[]> r : records) {
      reader.recordsRead++;
      c.accept(StreamRecord.of(r));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = c.report(new PrintStream(out, true, StandardCharsets.UTF_8), "t", reader);
    return new Result(code, out.toString(StandardCharsets.UTF_8));
  }
}
