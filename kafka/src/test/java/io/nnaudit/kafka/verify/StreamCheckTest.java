package io.nnaudit.kafka.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;

/**
 * The checks of verify-stream on streams made in memory ({@link SyntheticSource}), where a broker adds nothing:
 * many sources interleaved over partitions with their seals late, the bounds on what it keeps (the copies it
 * compares, the bytes waiting for a seal), the tail's bound, cut records, records no shipper wrote, and the seals
 * a start writes.
 */
class StreamCheckTest extends SignedStreamsTestBase {
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
    StreamCheckRun r = check(interleave(sources, random), false, 250_000, 64 << 20);
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("sources: 20 verified, 0 with records not verified, 0 tampered"), r.output);
    assertTrue(r.output.contains("verified: ns7/nn1: 400 records (400 verified by 19 seals), 2 files ended"),
        r.output);
  }

  /** Streams of one source made in memory, each with what its check must give. */
  static Stream<Made> streams() {
    return Stream.of(
        new Made("a tail longer than the last seal allows is seals removed", s -> {
          s.tailRecords = 5;
          s.tailBytes = 100;
          s.lines(1, 10);
          s.seal(Seal.Kind.INTERVAL);
          s.lines(11, 30);
          return s.records;
        }, 1, "TAMPERED: ns1/nn1 file 0 at byte ", "20 record(s) after seal 1",
            "more than the source leaves unsealed (5 records, then 100 bytes)"),
        new Made("a tail within the bound the last seal allows is unsealed", s -> {
          s.lines(1, 10);
          s.seal(Seal.Kind.INTERVAL);
          s.lines(11, 12);
          return s.records;
        }, 2, "UNSEALED: ns1/nn1 file 0 at byte ", "unsealed tail: 2 record(s) after the last seal"),
        new Made("a copy older than the window is not compared, and says so", StreamCheckTest::sentAgainLongAfter, 2,
            "NOT VERIFIED: ns1/nn1: 1 record(s) sent again after more records than verify-stream remembers")
            .window(10),
        new Made("a copy within the window is compared", StreamCheckTest::sentAgainLongAfter, 0),
        new Made("a range longer than the bytes kept is reported not hashed, and the next verifies", s -> {
          s.lines(1, 40);
          s.seal(Seal.Kind.INTERVAL); // about 5 KB of records
          s.lines(41, 45);
          s.seal(Seal.Kind.INTERVAL);
          s.seal(Seal.Kind.CLOSE);
          return s.records;
        }, 2, "40 record(s) up to byte ", "more than 2000 bytes of records waited for their seal",
            "45 records (5 verified by 3 seals)").maxPending(2000),
        new Made("a cut record's range cannot be hashed", s -> {
          s.line(1);
          s.cutLine(1500);
          s.line(3);
          s.seal(Seal.Kind.INTERVAL);
          s.line(4);
          s.seal(Seal.Kind.CLOSE);
          return s.records;
        }, 2, "3 record(s) up to byte ", "record-cut", "4 records (1 verified by 2 seals)"),
        new Made("a record no shipper wrote is a change", s -> {
          s.line(1);
          ConsumerRecord<byte[], byte[]> bare = s.make(ShipHeaders.RECORD, 0,
              "planted".getBytes(StandardCharsets.UTF_8));
          bare.headers().remove(ShipHeaders.FILE);
          s.records.add(bare);
          s.seal(Seal.Kind.CLOSE);
          return s.records;
        }, 1, "TAMPERED: ns1/nn1", "a record no shipper wrote: it lacks the headers"),
        new Made("a repeated header is a change", s -> {
          s.line(1);
          ConsumerRecord<byte[], byte[]> two = s.line(2);
          s.seal(Seal.Kind.CLOSE);
          RecordHeaders h = new RecordHeaders();
          h.add(ShipHeaders.TYPE, ShipHeaders.SEAL.getBytes(StandardCharsets.UTF_8)); // read first by some consumers
          two.headers().forEach(h::add);
          List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(s.records);
          all.set(all.indexOf(two), new ConsumerRecord<>("t", two.partition(), two.offset(), two.timestamp(),
              TimestampType.CREATE_TIME, -1, -1, two.key(), two.value(), h, java.util.Optional.empty()));
          return all;
        }, 1, "the header nnaudit.type is repeated"),
        new Made("a record at file 2^23, beyond any place the shipper gives, is a change",
            s -> forgedAt(s, "8388608", "0"), 1, "a file number or byte beyond any the shipper gives"),
        new Made("a record at byte 2^42, beyond any place the shipper gives, is a change",
            s -> forgedAt(s, "1", Long.toString(4L << 40)), 1, "a file number or byte beyond any the shipper gives"),
        new Made("a killed run's tail, sealed by the next start, is sealed late", StreamCheckTest::recovered, 2,
            "SEALED LATE: ns1/nn1 file 0 at byte ", "1 record(s) sealed at the start at "),
        new Made("a killed run's tail, sealed by the next start, is accepted with --accept-late",
            StreamCheckTest::recovered, 0, "(accepted) 1 record(s) sealed at the start").acceptingLate(),
        new Made("records no run wrote, found after a close, are inserted", s -> {
          s.line(1);
          s.seal(Seal.Kind.CLOSE);
          s.line(2);
          s.seal(Seal.Kind.FOUND);
          return s.records;
        }, 1, "records inserted: the source's start at "),
        new Made("records after a close seal are inserted", s -> {
          closedThenTwoRecords(s);
          return s.records;
        }, 1, "records inserted: 2 record(s) after seal 1 ", "closed the file (close)"),
        new Made("a start's seal after the records after a close came too late: they are inserted", s -> {
          ConsumerRecord<byte[], byte[]> resume = closedThenTwoRecords(s);
          s.records.add(resume); // a genuine start writes it before its records
          s.seal(Seal.Kind.INTERVAL);
          return s.records;
        }, 1, "came before seal 2 (resume)"),
        new Made("a stop and a start are no change", s -> {
          s.lines(1, 5);
          s.seal(Seal.Kind.CLOSE);
          s.seal(Seal.Kind.RESUME);
          s.line(6);
          s.line(7);
          s.seal(Seal.Kind.CLOSE);
          return s.records;
        }, 0),
        new Made("records after a rotate seal, its file-end cut away, are inserted", s -> {
          rotatedThenFiveRecords(s);
          return s.records;
        }, 1, "records inserted: 5 record(s) after seal 1 ", "ended the file for its rotation (rotate)"),
        new Made("records after a rotation that failed are covered by the file's next seal", s -> {
          rotatedThenFiveRecords(s);
          s.seal(Seal.Kind.INTERVAL); // the file goes on, and its next seal covers them
          s.seal(Seal.Kind.CLOSE);
          return s.records;
        }, 0),
        new Made("a read that begins at a late seal starts mid-chain", s -> { // --from a time, or retention
          s.lines(1, 10);
          ConsumerRecord<byte[], byte[]> late = s.sealRecord(Seal.Kind.INTERVAL);
          s.lines(11, 13); // sent before the seal of the records before them
          s.records.add(late);
          s.lines(14, 20);
          s.seal(Seal.Kind.INTERVAL);
          s.lines(21, 25);
          s.endFile();
          return s.records.subList(s.records.indexOf(late), s.records.size());
        }, 0, "12 records (5 verified by 3 seals), 1 file ended"),
        new Made("a read from a file's first record takes that file's first seal, sent again later, for a copy",
            s -> { // --from the time of a file's first record; a restarted shipper sends again from the file's start
              s.lines(1, 5);
              s.endFile();
              ConsumerRecord<byte[], byte[]> resumed = s.seal(Seal.Kind.RESUME); // over no bytes, at byte 0
              int first = s.records.size();
              s.lines(6, 10);
              s.seal(Seal.Kind.INTERVAL);
              List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>(s.records.subList(first, s.records.size()));
              read.add(resumed); // the resend, from the checkpoint at the file's start
              read.addAll(s.records.subList(first, s.records.size()));
              return read;
            }, 0, "5 records (5 verified by 1 seal)", "7 duplicate(s) dropped"),
        new Made("seals at a file's first byte after a removed close are a change, not copies", s -> {
          s.seal(Seal.Kind.RESUME); // 1: the chain's first, over no bytes, at byte 0
          ConsumerRecord<byte[], byte[]> close = s.seal(Seal.Kind.CLOSE); // 2: removed
          s.seal(Seal.Kind.RESUME); // 3
          s.seal(Seal.Kind.CLOSE); // 4
          s.line(1); // appended after the close
          s.line(2);
          s.records.remove(close);
          return s.records;
        }, 1, "seal 3 does not follow seal 1"),
        new Made("a read that begins at its chain's first seal over records says what it could not hash", s -> {
          s.lines(1, 3);
          ConsumerRecord<byte[], byte[]> adopt = s.seal(Seal.Kind.ADOPT); // the chain's first, over records 1-3
          s.lines(4, 6);
          ConsumerRecord<byte[], byte[]> seventh = s.line(7);
          s.line(8);
          s.seal(Seal.Kind.INTERVAL);
          s.seal(Seal.Kind.CLOSE);
          List<ConsumerRecord<byte[], byte[]>> read =
              new ArrayList<>(s.records.subList(s.records.indexOf(seventh), s.records.size()));
          read.add(0, adopt); // the read begins at the seal; records 4-6 were sent before it
          return read;
        }, 0, "the read began inside the range of its first seal over records: the 2 record(s) read before that "
            + "seal's end are not verified; 6 record(s) sealed up to there were sent before the read's start")
            .acceptingLate(),
        new Made("a read that begins at a late seal, the file's last seal next, starts mid-chain", s -> {
          s.lines(1, 10);
          ConsumerRecord<byte[], byte[]> held = s.sealRecord(Seal.Kind.INTERVAL);
          s.line(11); // sent before the seal of the records before it, and the file's last seal and end after
          s.records.add(held);
          s.endFile();
          return s.records.subList(s.records.indexOf(held), s.records.size());
        }, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("streams")
  void aStreamIsFoundAsItWasMade(Made made) throws Exception {
    StreamCheckRun r = check(made.make.records(new SyntheticSource("ns1/nn1", 0, signer)), made.acceptLate, made.window,
        made.maxPending);
    assertEquals(made.code, r.code, r.output);
    for (String text : made.holds) {
      assertTrue(r.output.contains(text), r.output);
    }
  }

  @Test
  void aRecordBeforeTheFirstReadThatNoResendLeadsToIsAChange() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> lines = midChainSource(s);
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>(s.records.subList(s.records.indexOf(lines.get(16)),
        s.records.size()));
    List<ConsumerRecord<byte[], byte[]>> forged = new ArrayList<>(read);
    forged.add(SyntheticSource.at(s.make(ShipHeaders.RECORD, 0, "forged".getBytes(StandardCharsets.UTF_8)), "0",
        "0"));
    StreamCheckRun r = check(forged, false, 1000, 1 << 20);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1 file 0 at byte 0 "), r.output);
    assertTrue(r.output.contains("before the first record read"), r.output);

    List<ConsumerRecord<byte[], byte[]>> resent = new ArrayList<>(read); // a resend the read began inside of
    int from = s.records.indexOf(lines.get(9));
    resent.addAll(resent.size() - 1, s.records.subList(from, s.records.indexOf(lines.get(20)) + 1));
    StreamCheckRun genuine = check(resent, false, 1000, 1 << 20); // copies never read here: dropped, not compared
    assertEquals(2, genuine.code, genuine.output);
    assertTrue(genuine.output.contains("note: starts mid-chain"), genuine.output);
    assertTrue(genuine.output.contains("NOT VERIFIED: ns1/nn1: 7 record(s) before the first record read"),
        genuine.output);
    assertFalse(genuine.output.contains("TAMPERED"), genuine.output);

    List<ConsumerRecord<byte[], byte[]>> stopped = new ArrayList<>(read); // the same, but it stops short of it
    stopped.addAll(stopped.size() - 1, s.records.subList(from, s.records.indexOf(lines.get(12))));
    StreamCheckRun r2 = check(stopped, false, 1000, 1 << 20);
    assertEquals(1, r2.code, r2.output);
    assertTrue(r2.output.contains("before the first record read, stop at byte"), r2.output);
  }

  /** 30 lines sealed every 10, and a close; returns the lines (index i: line i, from 1). */
  private static List<ConsumerRecord<byte[], byte[]>> midChainSource(SyntheticSource s) throws Exception {
    List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(30, 10);
    s.seal(Seal.Kind.CLOSE);
    return lines;
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
    StreamCheckRun a = check(relabelled, false, 1000, 1 << 20);
    assertEquals(1, a.code, a.output);
    assertTrue(a.output.contains("the shipper cuts only a line longer than it sends"), a.output);

    // shorter than any cut the shipper makes
    relabelled.set(at, cut(s, big, java.util.Arrays.copyOf(big.value(), 500), big.value().length));
    StreamCheckRun shortCut = check(relabelled, false, 1000, 1 << 20);
    assertEquals(1, shortCut.code, shortCut.output);

    // (b) records 3-4 deleted, the big one labelled cut with a length that runs over them
    List<ConsumerRecord<byte[], byte[]>> spanning = new ArrayList<>(s.records);
    ConsumerRecord<byte[], byte[]> third = s.records.get(at + 1);
    ConsumerRecord<byte[], byte[]> fourth = s.records.get(at + 2);
    long over = big.value().length + 1 + third.value().length + 1 + fourth.value().length;
    spanning.set(at, cut(s, big, java.util.Arrays.copyOf(big.value(), 1024), over));
    spanning.remove(third);
    spanning.remove(fourth);
    StreamCheckRun b = check(spanning, false, 1000, 1 << 20);
    assertEquals(1, b.code, b.output);
    assertTrue(b.output.contains("records deleted: the range sealed by seal 1"), b.output);
    assertTrue(b.output.contains("6 record(s) were sealed, 4 are here"), b.output);

    // (c) a genuine cut: its range is not hashed, the next one is, and a change there is found
    List<ConsumerRecord<byte[], byte[]>> genuine = new ArrayList<>(s.records);
    genuine.set(at, cut(s, big, java.util.Arrays.copyOf(big.value(), 1024), big.value().length));
    StreamCheckRun c = check(genuine, false, 1000, 1 << 20);
    assertEquals(2, c.code, c.output);
    assertTrue(c.output.contains("6 record(s) up to byte "), c.output);
    assertTrue(c.output.contains("10 records (4 verified by 2 seals)"), c.output);
    ConsumerRecord<byte[], byte[]> edited = second.get(1);
    byte[] v = edited.value().clone();
    v[v.length - 1] = 'z';
    genuine.set(genuine.indexOf(edited), s.withValue(edited, v));
    StreamCheckRun c2 = check(genuine, false, 1000, 1 << 20);
    assertEquals(1, c2.code, c2.output);
    assertTrue(c2.output.contains("modified bytes: the range sealed by seal 2"), c2.output);
  }

  @Test
  void recordsSealedAtTheHeadThatThePartitionCannotHaveHeldAreNotVerified() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    ConsumerRecord<byte[], byte[]> open = s.seal(Seal.Kind.OPEN); // the chain's first seal, over no bytes
    List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(20, 10);
    s.seal(Seal.Kind.CLOSE);
    assertEquals(0, check(s.records, false, 1000, 1 << 20).code);

    List<ConsumerRecord<byte[], byte[]>> headless = new ArrayList<>(s.records); // its first records deleted
    headless.removeAll(lines.subList(1, 4));
    StreamCheckRun r = check(headless, false, 1000, 1 << 20, 0);
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("NOT VERIFIED: ns1/nn1 file 0 at byte 0 "), r.output);
    assertTrue(r.output.contains("3 record(s) sealed by the first seals read are not in the read"), r.output);
    assertEquals(0, headless.indexOf(open));
    assertEquals(0, check(headless, false, 1000, 1 << 20, 3).code, "three offsets deleted from the log's start");
  }

  /**
   * Two sources share a partition whose read began at offset 10: the records that the first seals of both sealed,
   * not read, all had to be in those 10 offsets. Eight of each (16) cannot have been: some of them were never in
   * the topic there, as for one source with 11.
   */
  @Test
  void sourcesSharingAPartitionShareTheOffsetsBeforeTheRead() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> headless = new ArrayList<>();
    for (String name : new String[] {"ns1/nn1", "ns2/nn1"}) {
      SyntheticSource s = new SyntheticSource(name, 0, signer);
      s.seal(Seal.Kind.OPEN);
      List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(20, 10);
      s.seal(Seal.Kind.CLOSE);
      List<ConsumerRecord<byte[], byte[]>> cut = new ArrayList<>(s.records);
      cut.removeAll(lines.subList(1, 9)); // each source's first 8 records deleted after its chain's first seal
      assertEquals(0, check(cut, false, 1000, 1 << 20, 10).code, "8 records fit in 10 offsets");
      headless.addAll(cut);
    }
    StreamCheckRun r = check(headless, false, 1000, 1 << 20, 10);
    assertFalse(r.output.contains("TAMPERED"), r.output);
    assertEquals(2, r.code, "16 records sealed before the read cannot fit in the 10 offsets before it:\n"
        + r.output);
    assertTrue(r.output.contains("they were not in this topic before the read"), r.output);

    StreamCheck one = new StreamCheck(keys, Collections.emptyMap(), false, Collections.singleton("ns1/nn1"), 1 << 20,
        1000); // --source ns1/nn1: the other source's records still share the offsets
    StreamCheckRun asked = StreamCheckRun.of(one, headless, 10);
    assertEquals(2, asked.code, asked.output);
    assertFalse(asked.output.contains("ns2/nn1"), asked.output);
  }

  @Test
  void sealsAFileSendsAgainPastWhatIsRememberedAreCopies() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> seals = new ArrayList<>();
    seals.add(s.seal(Seal.Kind.OPEN));
    for (int i = 1; i <= 40; i++) {
      s.line(i);
      if (i % 5 == 0) {
        seals.add(s.seal(Seal.Kind.INTERVAL));
      }
    }
    for (ConsumerRecord<byte[], byte[]> seal : seals) { // a restart in the same file sends its seals again
      s.records.add(s.withValue(seal, seal.value()));
    }
    s.lines(41, 45);
    s.seal(Seal.Kind.CLOSE);
    StreamCheck c = new StreamCheck(keys, Collections.emptyMap(), false, Collections.emptySet(), 1 << 20, 1000);
    c.sealsRemembered = 4; // fewer than the file's seals, as ten thousand are in a file of more
    StreamCheckRun r = StreamCheckRun.of(c, s.records, 0);
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("45 records (45 verified by 10 seals)"), r.output);
  }

  @Test
  void aFilesSealsSentAgainAfterAReadThatBeganInTheNextFileAreCopies() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> fileZeroSeals = new ArrayList<>();
    fileZeroSeals.add(s.seal(Seal.Kind.OPEN));
    s.lines(1, 10);
    fileZeroSeals.add(s.seal(Seal.Kind.INTERVAL));
    s.endFile();
    fileZeroSeals.add(s.records.get(s.records.size() - 2)); // its rotate seal
    ConsumerRecord<byte[], byte[]> first = s.line(11); // the read --from begins here
    s.lines(12, 13);
    for (ConsumerRecord<byte[], byte[]> seal : fileZeroSeals) { // a resend from a checkpoint in file 0
      s.records.add(s.withValue(seal, seal.value()));
    }
    s.lines(14, 15);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> read = s.records.subList(s.records.indexOf(first), s.records.size());
    StreamCheckRun r = check(read, false, 1000, 1 << 20, s.records.indexOf(first));
    assertFalse(r.output.contains("TAMPERED"), r.output);
    assertEquals(0, r.code, r.output);
  }

  /**
   * A read that begins mid-chain (its first 4 offsets deleted): the 7 records read before the first seal's end
   * replaced by 12 over the same bytes. The seal sealed 10 records in all; 12 before its end cannot be its
   * records, whatever was sent before the read: records inserted.
   */
  @Test
  void moreRecordsAtTheHeadThanTheFirstSealSealedAreInserted() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    ConsumerRecord<byte[], byte[]> open = s.seal(Seal.Kind.OPEN);
    List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(20, 10);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>(s.records);
    read.remove(open);
    read.removeAll(lines.subList(1, 4));
    assertEquals(0, check(read, false, 1000, 1 << 20, 4).code);

    long start = Long.parseLong(new String(lines.get(4).headers().lastHeader(ShipHeaders.OFFSET).value(),
        StandardCharsets.UTF_8));
    long total = 0;
    for (ConsumerRecord<byte[], byte[]> l : lines.subList(4, 11)) {
      total += l.value().length + 1;
    }
    List<ConsumerRecord<byte[], byte[]>> forged = new ArrayList<>();
    long at = start;
    for (int k = 0; k < 12; k++) {
      long size = k < 11 ? total / 12 : total - 11 * (total / 12);
      StringBuilder b = new StringBuilder("2026-11-26 10:00:00,000 INFO FSNamesystem.audit: allowed=true\tugi=eve\t"
          + "cmd=delete\tsrc=/x");
      while (b.length() < size - 1) {
        b.append('x');
      }
      forged.add(s.make(ShipHeaders.RECORD, at, b.toString().getBytes(StandardCharsets.UTF_8)));
      at += size;
    }
    assertEquals(start + total, at);
    int i = read.indexOf(lines.get(4));
    read.removeAll(lines.subList(4, 11));
    read.addAll(i, forged);
    StreamCheckRun r = check(read, false, 1000, 1 << 20, 4);
    assertEquals(1, r.code, "12 records before the end of a seal of 10:\n" + r.output);
  }

  @Test
  void aReadThatBeginsAtTheChainsFirstSealSentAgainTakesItsRecordsForSentBefore() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    ConsumerRecord<byte[], byte[]> open = s.seal(Seal.Kind.OPEN);
    s.lines(1, 10);
    ConsumerRecord<byte[], byte[]> second = s.seal(Seal.Kind.INTERVAL);
    ConsumerRecord<byte[], byte[]> openAgain = s.withValue(open, open.value()); // a restart sends its file's seals
    s.records.add(openAgain);
    s.records.add(s.withValue(second, second.value()));
    s.lines(11, 20);
    s.seal(Seal.Kind.INTERVAL);
    s.seal(Seal.Kind.CLOSE);
    List<ConsumerRecord<byte[], byte[]>> read = s.records.subList(s.records.indexOf(openAgain), s.records.size());

    // read --from the restart's time: the partition's offsets before it held the first run's records
    StreamCheckRun from = check(read, false, 1000, 1 << 20, s.records.indexOf(openAgain));
    assertFalse(from.output.contains("TAMPERED"), from.output);
    assertEquals(0, from.code, from.output);
    assertTrue(from.output.contains("10 records (10 verified by 4 seals)"), from.output);
    assertTrue(from.output.contains("note: the read began inside the range of its first seal over records: the 0 "
        + "record(s) read before that seal's end are not verified; 10 record(s) sealed up to there were sent before "
        + "the read's start, not read"), from.output);

    // The same records as a partition's whole history: the records the resent seal sealed were never in it (a
    // stream shipped on to a new topic, or a topic rewritten without them).
    StreamCheckRun whole = check(read, false, 1000, 1 << 20, 0);
    assertEquals(2, whole.code, whole.output);
    assertTrue(whole.output.contains("NOT VERIFIED: ns1/nn1 file 0 at byte 0 (partition 0, offset "), whole.output);
    assertTrue(whole.output.contains("10 record(s) sealed by the first seals read are not in the read"),
        whole.output);
    assertTrue(whole.output.contains("more than the 0 offset(s) before its first record read can hold"),
        whole.output);

    // Read from a log start of 3: no more than 3 of those 10 records can have been deleted from its start.
    StreamCheckRun three = check(read, false, 1000, 1 << 20, 3);
    assertEquals(2, three.code, three.output);
    assertTrue(three.output.contains("more than the 3 offset(s) before its first record read"), three.output);
  }

  @Test
  void aChainsFirstSealsReplayedAsANewChainAreAChange() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> firstRun = new ArrayList<>();
    firstRun.add(s.seal(Seal.Kind.OPEN));
    for (int i = 1; i <= 10; i++) {
      firstRun.add(s.line(i));
    }
    firstRun.add(s.seal(Seal.Kind.INTERVAL));
    s.endFile();
    ConsumerRecord<byte[], byte[]> fileOne = s.line(11);
    s.lines(12, 20);
    s.seal(Seal.Kind.INTERVAL);
    s.endFile();
    // Retention deleted file 0; its records and seals are sent again as file 2, as if a new chain began there.
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>(s.records.subList(s.records.indexOf(fileOne),
        s.records.size()));
    for (ConsumerRecord<byte[], byte[]> r : firstRun) {
      String offset = new String(r.headers().lastHeader(ShipHeaders.OFFSET).value(), StandardCharsets.UTF_8);
      read.add(SyntheticSource.at(s.withValue(r, r.value()), "2", offset));
    }
    StreamCheckRun r = check(read, false, 1000, 1 << 20, read.get(0).offset());
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: ns1/nn1 file 2 at byte 0"), r.output);
    assertTrue(r.output.contains("begins the chain of trail"), r.output);
  }

  @Test
  void aSourceNamedButWithNoRecordInTheTopicIsNotVerified() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.seal(Seal.Kind.OPEN);
    s.lines(1, 5);
    s.seal(Seal.Kind.CLOSE);
    Map<String, Map<String, SealKey>> bound = new HashMap<>();
    bound.put("ns1/nn1", keys);
    bound.put("ns2/nn1", keys);
    StreamCheckRun r = StreamCheckRun.of(new StreamCheck(keys, bound, false, Collections.emptySet(), 1 << 20, 1000),
        s.records, 0);
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("verified: ns1/nn1: 5 records"), r.output);
    assertTrue(r.output.contains("NOT VERIFIED: ns2/nn1: no record of the source in the topic"), r.output);

    StreamCheckRun asked = StreamCheckRun.of(new StreamCheck(keys, Collections.emptyMap(), false,
        Collections.singleton("ns2/nn1"), 1 << 20, 1000), s.records, 0);
    assertEquals(2, asked.code, asked.output);
    assertTrue(asked.output.contains("NOT VERIFIED: ns2/nn1: no record of the source in the topic"), asked.output);
  }

  // --- streams

  /** 50 lines, sealed, and the first sent again long after. */
  private static List<ConsumerRecord<byte[], byte[]>> sentAgainLongAfter(SyntheticSource s) throws Exception {
    ConsumerRecord<byte[], byte[]> first = s.line(1);
    s.lines(2, 50);
    s.seal(Seal.Kind.INTERVAL);
    s.records.add(first); // sent again long after
    return s.records;
  }

  /** 10 lines, sealed, then a record at file {@code file}, byte {@code offset}, and a close. */
  private static List<ConsumerRecord<byte[], byte[]>> forgedAt(SyntheticSource s, String file, String offset)
      throws Exception {
    s.lines(1, 10);
    s.seal(Seal.Kind.INTERVAL);
    s.records.add(SyntheticSource.at(s.make(ShipHeaders.RECORD, 0, "forged".getBytes(StandardCharsets.UTF_8)), file,
        offset));
    s.seal(Seal.Kind.CLOSE);
    return s.records;
  }

  /** 5 lines sealed, a sixth that a killed run left, sealed by the next start (recover), and a close. */
  private static List<ConsumerRecord<byte[], byte[]>> recovered(SyntheticSource s) throws Exception {
    s.lines(1, 5);
    s.seal(Seal.Kind.INTERVAL);
    s.line(6);
    s.seal(Seal.Kind.RECOVER); // a killed run's tail, sealed by the next start
    s.seal(Seal.Kind.CLOSE);
    return s.records;
  }

  /** 5 lines, a close, and 2 lines after it; returns a start's seal at the close's end, not added. */
  private static ConsumerRecord<byte[], byte[]> closedThenTwoRecords(SyntheticSource s) throws Exception {
    s.lines(1, 5);
    s.seal(Seal.Kind.CLOSE);
    ConsumerRecord<byte[], byte[]> resume = s.sealRecord(Seal.Kind.RESUME); // no bytes: at the close's end
    s.line(6);
    s.line(7);
    return resume;
  }

  /** 5 lines, a rotate seal with no file-end after it, and 5 lines appended to the rotated file. */
  private static void rotatedThenFiveRecords(SyntheticSource s) throws Exception {
    s.lines(1, 5);
    s.seal(Seal.Kind.ROTATE); // its file-end cut away, records appended to the rotated file
    s.lines(6, 10);
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

  /** Makes a stream of {@code s}: its records, in the order read. */
  private interface Maker {
    List<ConsumerRecord<byte[], byte[]>> records(SyntheticSource s) throws Exception;
  }

  /** A stream made in memory, how it is checked, and what the check must give: its exit code, what it says. */
  static final class Made {
    final String name;
    final Maker make;
    final int code;
    final List<String> holds;
    boolean acceptLate;
    int window = 1000;
    int maxPending = 1 << 20;

    Made(String name, Maker make, int code, String... holds) {
      this.name = name;
      this.make = make;
      this.code = code;
      this.holds = List.of(holds);
    }

    Made acceptingLate() {
      acceptLate = true;
      return this;
    }

    Made window(int records) {
      window = records;
      return this;
    }

    Made maxPending(int bytes) {
      maxPending = bytes;
      return this;
    }

    @Override
    public String toString() {
      return name;
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

  private static StreamCheckRun check(List<ConsumerRecord<byte[], byte[]>> records, boolean acceptLate, int window,
      int maxPending) {
    return check(records, acceptLate, window, maxPending, Long.MAX_VALUE);
  }

  /**
   * {@code offsetsBefore}: the offset each partition's read began at (its log start, or the first at or after
   * --from); by default as many as any record read first may need.
   */
  private static StreamCheckRun check(List<ConsumerRecord<byte[], byte[]>> records, boolean acceptLate, int window,
      int maxPending, long offsetsBefore) {
    return StreamCheckRun.of(new StreamCheck(keys, Collections.emptyMap(), acceptLate, Collections.emptySet(),
        maxPending, window), records, offsetsBefore);
  }
}
