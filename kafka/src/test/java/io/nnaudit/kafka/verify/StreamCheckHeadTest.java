package io.nnaudit.kafka.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.nnaudit.kafka.ShipHeaders;
import io.nnaudit.seal.Seal;

/**
 * verify-stream where a read begins inside a source's chain, and where seals come again past what it remembers,
 * on streams made in memory ({@link SyntheticSource}): what a read that starts at or inside a seal's range can be
 * made to hold, what a changed source leaves of a partition's bound, and a rotated file's seals sent again.
 */
class StreamCheckHeadTest extends SignedStreamsTestBase {
  /**
   * A topic that begins at the first record of seal 3's range (nothing deleted from it, nothing before it read):
   * every record of that range is read, so their bytes are hashed, and forged ones are a change.
   */
  @Test
  void aReadBeginningWhereASealsRangeBeginsHashesThatRange() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> lines = thirtyLines(s);
    List<ConsumerRecord<byte[], byte[]>> read = from(s, lines.get(11));
    StreamCheckRun genuine = check(read, Collections.emptySet(), 0);
    assertEquals(0, genuine.code, genuine.output);
    assertTrue(genuine.output.contains("20 records (20 verified by 3 seals)"), genuine.output);
    for (int i = 11; i <= 20; i++) {
      read.set(read.indexOf(lines.get(i)), forged(s, lines.get(i)));
    }
    StreamCheckRun r = check(read, Collections.emptySet(), 0);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("modified bytes: the range sealed by seal 3"), r.output);
  }

  /**
   * A topic that begins one record into seal 3's range, holding as many records before that seal's end as it
   * sealed (one record split in two): at least one of its records was before the read, so that is one too many.
   */
  @Test
  void asManyRecordsBeforeTheFirstSealsEndAsItSealedAreInsertedWhenItsRangeBeganBeforeTheRead()
      throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> lines = thirtyLines(s);
    List<ConsumerRecord<byte[], byte[]>> read = from(s, lines.get(12));
    StreamCheckRun genuine = check(read, Collections.emptySet(), Long.MAX_VALUE);
    assertEquals(0, genuine.code, genuine.output);
    ConsumerRecord<byte[], byte[]> twelve = lines.get(12);
    byte[] v = twelve.value();
    int k = 60;
    ConsumerRecord<byte[], byte[]> first = s.withValue(twelve, Arrays.copyOf(v, k));
    ConsumerRecord<byte[], byte[]> second = SyntheticSource.at(s.withValue(twelve,
        Arrays.copyOfRange(v, k + 1, v.length)), "0", Long.toString(offsetOf(twelve) + k + 1));
    int i = read.indexOf(twelve);
    read.set(i, first);
    read.add(i + 1, second);
    StreamCheckRun r = check(read, Collections.emptySet(), Long.MAX_VALUE);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("records inserted: 10 record(s) read before the end of seal 3"), r.output);
  }

  /**
   * A read --from a time after the source went quiet (its offsets before the read many), holding records put
   * inside a seal's range, fewer than it sealed, then a copy of that seal: they read as the head of a read that
   * began inside the seal's range, and no seal chained after it shows that seal in its place, so they are not
   * vouched for. A genuine read that begins in a range and goes on to a later seal verifies.
   */
  @Test
  void aHeadWithNoSealAfterItVerifyingRecordsIsNotVerified() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> lines = thirtyLines(s);
    ConsumerRecord<byte[], byte[]> sealThree = s.records.get(s.records.indexOf(lines.get(20)) + 1);
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
    for (int i = 14; i <= 20; i++) {
      read.add(forged(s, lines.get(i)));
    }
    read.add(s.withValue(sealThree, sealThree.value()));
    StreamCheckRun r = check(read, Collections.emptySet(), Long.MAX_VALUE);
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("the 7 record(s) read before the end of the first seal over them, whose range "
        + "began before the read, are not vouched for: no seal chained after that one was read"), r.output);
    StreamCheckRun genuine = check(from(s, lines.get(14)), Collections.emptySet(), Long.MAX_VALUE);
    assertEquals(0, genuine.code, genuine.output);
    assertTrue(genuine.output.contains("the 7 record(s) before that seal's end are not verified"), genuine.output);
  }

  /**
   * Two sources share a partition whose read began at offset 10, and each lost its first 8 records after its
   * first seal: 16 sealed, not read, more than 10 offsets hold. A record of the second source put where its file
   * never reaches makes it tampered; its unread records, counted from seals whose signatures verified, still
   * count against the partition, so the first source is not verified, asked for alone or not.
   */
  @Test
  void aChangedSourcesUnreadRecordsStillCountAgainstItsPartition() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> headless = new ArrayList<>();
    SyntheticSource second = null;
    for (String name : new String[] {"ns1/nn1", "ns2/nn1"}) {
      SyntheticSource s = new SyntheticSource(name, 0, signer);
      s.seal(Seal.Kind.OPEN);
      List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(20, 10);
      s.seal(Seal.Kind.CLOSE);
      List<ConsumerRecord<byte[], byte[]>> cut = new ArrayList<>(s.records);
      cut.removeAll(lines.subList(1, 9));
      headless.addAll(cut);
      second = s;
    }
    StreamCheckRun before = check(headless, Collections.emptySet(), 10);
    assertEquals(2, before.code, before.output);
    headless.add(SyntheticSource.at(second.make(ShipHeaders.RECORD, 0, "x".getBytes(StandardCharsets.UTF_8)), "0",
        "999999"));
    StreamCheckRun asked = check(headless, Collections.singleton("ns1/nn1"), 10);
    assertEquals(2, asked.code, asked.output);
    assertTrue(asked.output.contains("they were not in this topic before the read"), asked.output);
    StreamCheckRun all = check(headless, Collections.emptySet(), 10);
    assertEquals(1, all.code, all.output);
    assertTrue(all.output.contains("NOT VERIFIED: ns1/nn1"), all.output);
  }

  /**
   * A file of more seals than are remembered (4 here, 10,000 in verify-stream) is rotated; the shipper starts
   * again (kill -9, or a rewind after a failed send) from a checkpoint still in that file after the next file's
   * first records were shipped, with that file's first seal ({@code nextFileSealed}) or before it (the last seal
   * read is then the rotated file's last), and sends every seal of the file it resumes in again, its end, then
   * the next file's records again. All copies.
   */
  @ParameterizedTest(name = "the next file's first seal shipped before the restart: {0}")
  @ValueSource(booleans = {true, false})
  void aRotatedFilesSealsSentAgainPastWhatIsRememberedAreCopies(boolean nextFileSealed) throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    List<ConsumerRecord<byte[], byte[]>> fileZeroSeals = new ArrayList<>();
    fileZeroSeals.add(s.seal(Seal.Kind.OPEN));
    for (int i = 1; i <= 40; i++) {
      s.line(i);
      if (i % 5 == 0) {
        fileZeroSeals.add(s.seal(Seal.Kind.INTERVAL));
      }
    }
    s.endFile(); // its rotate seal, then its file-end
    fileZeroSeals.add(s.records.get(s.records.size() - 2));
    ConsumerRecord<byte[], byte[]> end = s.records.get(s.records.size() - 1);
    int fileOneAt = s.records.size();
    s.lines(41, 45);
    if (nextFileSealed) {
      s.seal(Seal.Kind.INTERVAL);
    }
    List<ConsumerRecord<byte[], byte[]>> fileOne = new ArrayList<>(s.records.subList(fileOneAt, s.records.size()));
    for (ConsumerRecord<byte[], byte[]> seal : fileZeroSeals) { // sent again from a checkpoint in file 0
      s.records.add(s.withValue(seal, seal.value()));
    }
    s.records.add(s.withValue(end, end.value()));
    for (ConsumerRecord<byte[], byte[]> r : fileOne) {
      s.records.add(s.withValue(r, r.value()));
    }
    s.lines(46, 48);
    s.seal(Seal.Kind.CLOSE);
    StreamCheck c = new StreamCheck(keys, Collections.emptyMap(), false, Collections.emptySet(), 1 << 20, 1000);
    c.sealsRemembered = 4;
    StreamCheckRun r = StreamCheckRun.of(c, s.records, 0);
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("48 records (48 verified by"), r.output);
  }

  /**
   * A seal over more records than verify-stream keeps the ends of (--max-pending-bytes small), coming after the
   * next record as the sealing thread's seals may: its range is reported not hashed (exit 2), never taken for
   * records inserted because the count then holds the later record too.
   */
  @Test
  void aRangeTooLargeToHoldWithALaterRecordBeforeItsSealIsNotHashedNotAChange() throws Exception {
    SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
    s.seal(Seal.Kind.OPEN);
    s.lines(1, 1100);
    ConsumerRecord<byte[], byte[]> late = s.sealRecord(Seal.Kind.INTERVAL); // over lines 1-1100
    s.line(1101); // written before that seal was shipped
    s.records.add(late);
    s.lines(1102, 1105);
    s.seal(Seal.Kind.CLOSE);
    StreamCheckRun small = StreamCheckRun.of(new StreamCheck(keys, Collections.emptyMap(), false,
        Collections.emptySet(), 16_000, 1000), s.records, 0);
    assertEquals(2, small.code, small.output);
    assertTrue(small.output.contains("could not be hashed"), small.output);
    StreamCheckRun enough = StreamCheckRun.of(new StreamCheck(keys, Collections.emptyMap(), false,
        Collections.emptySet(), 64 << 20, 1000), s.records, 0);
    assertEquals(0, enough.code, enough.output);
  }

  /**
   * Past what is remembered (2 seals), an older seal of the file being read is put at the stream's end again,
   * then a record at a place read before with another value: the seal is a copy, the record is compared with
   * the one read there (a change), or, beyond the window of records compared, not compared (exit 2).
   */
  @Test
  void anOlderSealPutAgainPastWhatIsRememberedLeavesTheRecordAfterItCompared() throws Exception {
    for (int window : new int[] {1000, 5}) {
      SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
      List<ConsumerRecord<byte[], byte[]>> lines = thirtyLines(s);
      s.records.remove(s.records.size() - 1); // no close: the file goes on
      ConsumerRecord<byte[], byte[]> sealTwo = s.records.get(s.records.indexOf(lines.get(10)) + 1);
      s.records.add(s.withValue(sealTwo, sealTwo.value()));
      s.records.add(forged(s, lines.get(11)));
      StreamCheck c = new StreamCheck(keys, Collections.emptyMap(), false, Collections.emptySet(), 1 << 20,
          window);
      c.sealsRemembered = 2;
      StreamCheckRun r = StreamCheckRun.of(c, s.records, 0);
      assertEquals(window == 1000 ? 1 : 2, r.code, "window " + window + ":\n" + r.output);
    }
  }

  /**
   * A file's open seal (over no bytes), its lines, then a kill: the next start sends the open seal again, then the
   * lines after its checkpoint. A read that begins anywhere between the two open seals finds the second one first,
   * over nothing read: it is no record inserted, with the lines alone or together.
   */
  @Test
  void anOpenSealSentAgainAfterTheReadBeganCoversNothingRead() throws Exception {
    for (int most : new int[] {1, 4}) {
      SyntheticSource s = new SyntheticSource("ns1/nn1", 0, signer);
      s.lines(1, 10);
      s.seal(Seal.Kind.INTERVAL);
      s.endFile();
      ConsumerRecord<byte[], byte[]> open = s.seal(Seal.Kind.OPEN); // file 1, bytes 0-0
      List<ConsumerRecord<byte[], byte[]>> fileOne = new ArrayList<>();
      for (int i = 11; i <= 22; i++) {
        fileOne.add(s.line(i));
      }
      List<ConsumerRecord<byte[], byte[]>> all = LinesTogetherCheckTest.together(new ArrayList<>(s.records), most);
      s.records.clear();
      s.records.add(s.withValue(open, open.value())); // the next start: the open seal again, lines 15-22 again
      s.records.addAll(fileOne.subList(4, fileOne.size()));
      s.seal(Seal.Kind.INTERVAL);
      s.lines(23, 25);
      s.seal(Seal.Kind.CLOSE);
      all.addAll(LinesTogetherCheckTest.together(s.records, most));
      all = LinesTogetherCheckTest.renumbered(all);
      int after = -1;
      for (int i = 0; i < all.size() && after < 0; i++) {
        after = java.util.Arrays.equals(all.get(i).value(), open.value()) ? i + 1 : -1;
      }
      List<String> wrong = new ArrayList<>();
      for (int from = after; from < all.size(); from++) {
        StreamCheckRun r = check(new ArrayList<>(all.subList(from, all.size())), Collections.emptySet(), from);
        if (r.code == 1) {
          wrong.add("together by " + most + ", from offset " + from + ": " + r.output.split("\n")[0]);
        }
      }
      assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }
  }

  /** An open seal, 30 lines sealed every 10, a close; returns the lines, line i at index i. */
  private static List<ConsumerRecord<byte[], byte[]>> thirtyLines(SyntheticSource s) throws Exception {
    s.seal(Seal.Kind.OPEN);
    List<ConsumerRecord<byte[], byte[]>> lines = s.linesSealedEvery(30, 10);
    s.seal(Seal.Kind.CLOSE);
    return lines;
  }

  /** The source's records from {@code first} on, as a topic that begins there holds them. */
  private static List<ConsumerRecord<byte[], byte[]>> from(SyntheticSource s, ConsumerRecord<byte[], byte[]> first) {
    return new ArrayList<>(s.records.subList(s.records.indexOf(first), s.records.size()));
  }

  /** {@code like} at the same place and length, another user's. */
  private static ConsumerRecord<byte[], byte[]> forged(SyntheticSource s, ConsumerRecord<byte[], byte[]> like) {
    byte[] v = like.value().clone();
    int i = new String(v, StandardCharsets.UTF_8).indexOf("ugi=bob");
    v[i + 4] = 'e';
    v[i + 5] = 'v';
    v[i + 6] = 'e';
    return s.withValue(like, v);
  }

  private static long offsetOf(ConsumerRecord<byte[], byte[]> r) {
    return Long.parseLong(new String(r.headers().lastHeader(ShipHeaders.OFFSET).value(), StandardCharsets.UTF_8));
  }

  /** {@code offsetsBefore}: the offset each partition's read began at. */
  private static StreamCheckRun check(List<ConsumerRecord<byte[], byte[]>> records, Set<String> only,
      long offsetsBefore) {
    return StreamCheckRun.of(new StreamCheck(keys, Collections.emptyMap(), false, only, 1 << 20, 1000), records,
        offsetsBefore);
  }
}
