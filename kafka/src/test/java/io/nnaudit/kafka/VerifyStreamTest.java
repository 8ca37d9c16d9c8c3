package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.kafka.verify.VerifyStreamCommand;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.verify.Verification;

/**
 * {@code nnaudit verify-stream} against a real broker: the stream two sealing NameNodes shipped verifies, and each
 * source's last verified seal anchors {@code nnaudit verify} on that host's files; copies of the topic made with
 * a change (what someone with write access to the topic can do) fail, naming the source, file and byte; copies
 * with what shipping itself does (records sent again, a seal after later records, a start deleted by retention,
 * a loss announced with a gap record, a file shipped again) do not.
 */
class VerifyStreamTest {
  private static final String S1 = SealedStream.SOURCE1;

  @TempDir
  static Path dir;
  static SealedStream stream;
  private static int copies;

  @BeforeAll
  static void ship() throws Exception {
    stream = SealedStream.make(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    if (stream != null) {
      stream.close();
    }
  }

  @Test
  void theShippedStreamVerifiesAndItsAnchorsVerifyTheHostsFiles() throws Exception {
    Run r = verify(SealedStream.TOPIC);
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("verified: " + S1 + ": "), r.output);
    assertTrue(r.output.contains("verified: " + stream.source2 + ": "), r.output);
    assertTrue(r.output.contains("sources: 2 verified, 0 with records not verified, 0 tampered"), r.output);
    assertTrue(r.output.contains(" duplicate(s) dropped"), "the restart sent the resumed file's seals again: "
        + r.output);
    String anchor1 = anchor(r.output, S1);
    String anchor2 = anchor(r.output, stream.source2);
    Verification.Run host1 = Verification.withCert(stream.key1, "--anchor", anchor1, stream.audits1.getPath());
    assertEquals(0, host1.code, host1.toString());
    Verification.Run host2 = Verification.withCert(stream.key2, "--anchor", anchor2, stream.audits2.getPath());
    assertEquals(0, host2.code, host2.toString());
    Verification.Run crossed = Verification.withCert(stream.key1, "--anchor", anchor2, stream.audits1.getPath());
    assertEquals(1, crossed.code, "another source's anchor is not in this host's trail: " + crossed);
  }

  @Test
  void onlyTheSourceAskedForIsChecked() throws Exception {
    Run r = verify(SealedStream.TOPIC, "--source", stream.source2);
    assertEquals(0, r.code, r.output);
    assertFalse(r.output.contains(S1), r.output);
    assertTrue(r.output.contains("sources: 1 verified"), r.output);
  }

  @Test
  void aDeletedRecordIsNamed() throws Exception {
    CopiedRecord[] gone = new CopiedRecord[1];
    Run r = copyAndVerify(all -> {
      int i = nth(all, S1, ShipHeaders.RECORD, 100);
      gone[0] = all.remove(i);
      return all;
    });
    assertTampered(r, S1, gone[0].file(), gone[0].offset(), "records deleted");
  }

  @Test
  void aChangedValueIsNamedAtItsSealedRange() throws Exception {
    CopiedRecord[] changed = new CopiedRecord[1];
    List<CopiedRecord> seals = new ArrayList<>();
    Run r = copyAndVerify(all -> {
      CopiedRecord c = all.get(nth(all, S1, ShipHeaders.RECORD, 150));
      c.value = c.text().replace("src=/", "src=\\").getBytes(StandardCharsets.UTF_8); // same length
      changed[0] = c;
      all.stream().filter(x -> x.is(S1, ShipHeaders.SEAL)).forEach(seals::add);
      return all;
    });
    Seal covering = covering(seals, changed[0]);
    assertTampered(r, S1, changed[0].file(), covering.from, "modified bytes");
  }

  @Test
  void twoRecordsSwappedAreNamed() throws Exception {
    CopiedRecord[] first = new CopiedRecord[1];
    Run r = copyAndVerify(all -> {
      int i = nth(all, S1, ShipHeaders.RECORD, 120);
      int j = i + 1;
      while (!all.get(j).is(S1, ShipHeaders.RECORD)) {
        j++;
      }
      first[0] = all.get(i);
      all.set(i, all.get(j));
      all.set(j, first[0]);
      return all;
    });
    assertTampered(r, S1, first[0].file(), first[0].offset(), "records were moved");
  }

  @Test
  void aSealSignedByAnotherKeyIsNamed() throws Exception {
    SealKeys.KeyFiles other = SealKeys.ec(dir.resolve("other-key"));
    CopiedRecord[] forged = new CopiedRecord[1];
    Run r = copyAndVerify(all -> {
      CopiedRecord c = all.get(nth(all, S1, ShipHeaders.SEAL, 6));
      try {
        c.value = Seal.parse(c.text()).signedWith(other.signingKey()).line().getBytes(StandardCharsets.UTF_8);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      forged[0] = c;
      return all;
    });
    assertTampered(r, S1, forged[0].file(), forged[0].offset(), "bad signature");
  }

  @Test
  void anEditedSealLineIsNamed() throws Exception {
    CopiedRecord[] edited = new CopiedRecord[1];
    Run r = copyAndVerify(all -> {
      for (int n = 1; edited[0] == null; n++) {
        CopiedRecord c = all.get(nth(all, S1, ShipHeaders.SEAL, n));
        Seal s = Seal.parse(c.text());
        if (s.records > 1) {
          c.value = c.text().replace(" records=" + s.records + " ", " records=" + (s.records - 1) + " ")
              .getBytes(StandardCharsets.UTF_8);
          edited[0] = c;
        }
      }
      return all;
    });
    assertTampered(r, S1, edited[0].file(), edited[0].offset(), "bad signature");
  }

  @Test
  void sealsThatStopBeforeAFileEndIsNamed() throws Exception {
    Run r = copyAndVerify(all -> {
      int from = nth(all, S1, ShipHeaders.SEAL, 8);
      List<CopiedRecord> out = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        if (i < from || !all.get(i).is(S1, ShipHeaders.SEAL)) {
          out.add(all.get(i));
        }
      }
      return out;
    });
    assertEquals(1, r.code, r.output);
    assertTrue(Pattern.compile("TAMPERED: " + Pattern.quote(S1) + " file \\d+ at byte \\d+ \\(partition \\d+, "
        + "offset \\d+\\): seals removed").matcher(r.output).find(), r.output);
  }

  @Test
  void theLastSealsRemovedLeaveAnUnsealedTail() throws Exception {
    Run r = copyAndVerify(all -> {
      for (int i = all.size() - 1; i >= 0; i--) { // up to and including the last seal that covers records
        CopiedRecord c = all.get(i);
        if (c.is(S1, ShipHeaders.SEAL)) {
          all.remove(i);
          if (Seal.parse(c.text()).records > 0) {
            break;
          }
        }
      }
      return all;
    });
    assertEquals(2, r.code, r.output);
    assertTrue(Pattern.compile("UNSEALED: " + Pattern.quote(S1) + " file \\d+ at byte \\d+: unsealed tail: \\d+ "
        + "record\\(s\\) after the last seal").matcher(r.output).find(), r.output);
    assertTrue(r.output.contains("verified: " + stream.source2 + ": "), r.output);
  }

  @Test
  void aCopyWithAnotherValueIsNamed() throws Exception {
    CopiedRecord[] original = new CopiedRecord[1];
    Run r = copyAndVerify(all -> {
      int i = nth(all, S1, ShipHeaders.RECORD, 200);
      original[0] = all.get(i);
      CopiedRecord copy = new CopiedRecord(original[0]);
      copy.value = copy.text().replace("mkdirs", "delete").getBytes(StandardCharsets.UTF_8);
      all.add(i + 5, copy);
      return all;
    });
    assertTampered(r, S1, original[0].file(), original[0].offset(), "sent again with another value");
  }

  @Test
  void aRecordOfAnotherSourceUnderThisKeyIsNamed() throws Exception {
    Run r = copyAndVerify(all -> {
      CopiedRecord theirs = new CopiedRecord(all.get(nth(all, stream.source2, ShipHeaders.RECORD, 40)));
      int i = nth(all, S1, ShipHeaders.RECORD, 60);
      theirs.partition = all.get(i).partition;
      theirs.key = S1.getBytes(StandardCharsets.UTF_8);
      theirs.header(ShipHeaders.SOURCE, S1);
      all.add(i, theirs);
      return all;
    });
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: " + S1 + " file "), r.output);
  }

  @Test
  void aSourceWhoseRecordsAreAnothersIsNamed() throws Exception {
    UnaryOperator<List<CopiedRecord>> replace = all -> { // ns1/nn1's records replaced by ns2/nn1's, renamed
      List<CopiedRecord> out = new ArrayList<>();
      int partition1 = SealedStream.partition(S1);
      for (CopiedRecord c : all) {
        if (S1.equals(c.source())) {
          continue;
        }
        out.add(c);
        if (stream.source2.equals(c.source())) {
          CopiedRecord theirs = new CopiedRecord(c).header(ShipHeaders.SOURCE, S1);
          theirs.key = S1.getBytes(StandardCharsets.UTF_8);
          theirs.partition = partition1;
          out.add(theirs);
        }
      }
      return out;
    };
    Run both = copyAndVerify(replace);
    assertEquals(1, both.code, both.output);
    assertTrue(both.output.contains("whose seals " + stream.source2 + " has too"), both.output);

    String topic = "copy-" + (++copies);
    TopicCopy.copy(stream.broker, SealedStream.TOPIC, topic, SealedStream.PARTITIONS, stream.size,
        all -> { // and the other source gone: only the key bound to the source shows it
          List<CopiedRecord> out = replace.apply(all);
          out.removeIf(c -> stream.source2.equals(c.source()));
          return out;
        });
    Run alone = verify(topic);
    assertEquals(0, alone.code, "a stream alone cannot tell whose it is without the keys bound: " + alone.output);
    Run bound = verify(topic, "--cert", S1 + "=" + stream.key1.certificate);
    assertEquals(1, bound.code, bound.output);
    assertTrue(bound.output.contains("TAMPERED: " + S1 + " file "), bound.output);
    assertTrue(bound.output.contains("bad signature"), bound.output);
  }

  @Test
  void recordsSentAgainAndASealAfterLaterRecordsVerify() throws Exception {
    Run r = copyAndVerify(all -> {
      int i = nth(all, S1, ShipHeaders.RECORD, 90);
      List<CopiedRecord> resent = new ArrayList<>();
      for (int k = i; k < i + 40; k++) {
        resent.add(new CopiedRecord(all.get(k)));
      }
      all.addAll(i + 60, resent); // a resend from an earlier checkpoint, seals and all
      for (int n = 5;; n++) { // a seal that comes three records later, before its file's end
        int s = nth(all, S1, ShipHeaders.SEAL, n);
        List<Integer> later = new ArrayList<>();
        for (int k = s + 1; k < all.size() && later.size() < 3; k++) {
          CopiedRecord c = all.get(k);
          if (S1.equals(c.source()) && (c.file() != all.get(s).file() || !ShipHeaders.RECORD.equals(c.type()))) {
            break;
          }
          if (S1.equals(c.source())) {
            later.add(k);
          }
        }
        if (later.size() == 3) {
          all.add(later.get(2) + 1, all.get(s));
          all.remove(s);
          return all;
        }
      }
    });
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains(" duplicate(s) dropped"), r.output);
  }

  @Test
  void aStreamWhoseStartWasDeletedStartsMidChain() throws Exception {
    Run r = copyAndVerify(all -> {
      List<CopiedRecord> out = new ArrayList<>();
      int[] seen = new int[SealedStream.PARTITIONS];
      int[] total = new int[SealedStream.PARTITIONS];
      all.forEach(c -> total[c.partition]++);
      for (CopiedRecord c : all) {
        if (seen[c.partition]++ >= total[c.partition] / 2 + 7) { // retention took the older half, mid-range
          out.add(c);
        }
      }
      return out;
    });
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("note: starts mid-chain: its first seal read"), r.output);
    assertTrue(r.output.contains("verified: " + S1 + ": "), r.output);
  }

  @Test
  void readFromATimeTheSourcesStartMidChain() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(stream.broker, SealedStream.TOPIC, stream.size);
    CopiedRecord middle = all.get(nth(all, S1, ShipHeaders.RECORD, 300));
    Run r = verify(SealedStream.TOPIC, "--from", java.time.Instant.ofEpochMilli(middle.timestamp).toString());
    assertEquals(0, r.code, r.output);
    assertTrue(r.output.contains("verified: " + S1 + ": "), r.output);
    assertTrue(r.output.contains("note: starts mid-chain: its first seal read"), r.output);
  }

  @Test
  void readFromAnyTimeOfTheShippedStreamNothingIsAChange() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(stream.broker, SealedStream.TOPIC, stream.size);
    List<Long> times = new ArrayList<>();
    for (int k = 0; k < all.size(); k += 37) { // the read begins at a late seal, inside a resend, at a file-end...
      times.add(all.get(k).timestamp);
    }
    for (long t : times) {
      Run r = verify(SealedStream.TOPIC, "--from", java.time.Instant.ofEpochMilli(t).toString());
      assertFalse(r.code == 1 || r.output.contains("TAMPERED"), r.output);
    }
  }

  @Test
  void theFirstSealOverRecordsRemovedIsNamed() throws Exception {
    Run r = copyAndVerify(all -> {
      for (int n = 1;; n++) {
        int i = nth(all, S1, ShipHeaders.SEAL, n);
        if (Seal.parse(all.get(i).text()).records > 0) {
          all.remove(i);
          return all;
        }
      }
    });
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: " + S1 + " file "), r.output);
    assertTrue(r.output.contains("a seal between them was removed"), r.output);
  }

  @Test
  void aGapIsReportedAsTheLossTheSourceAnnounced() throws Exception {
    long[] lost = new long[1];
    Run r = copyAndVerify(all -> {
      long f = all.get(nth(all, S1, ShipHeaders.RECORD, 150)).file();
      lost[0] = f;
      List<CopiedRecord> out = new ArrayList<>();
      boolean announced = false;
      for (CopiedRecord c : all) {
        if (S1.equals(c.source()) && c.file() == f) {
          if (!announced) {
            CopiedRecord gap = new CopiedRecord(c).header(ShipHeaders.TYPE, ShipHeaders.GAP)
                .header(ShipHeaders.OFFSET, "0");
            gap.value = "1 file lost before it was shipped".getBytes(StandardCharsets.UTF_8);
            out.add(gap);
            announced = true;
          }
          continue;
        }
        out.add(c);
      }
      return out;
    });
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("GAP: " + S1 + " file " + lost[0] + " at byte 0"), r.output);
    assertTrue(r.output.contains("1 file lost before it was shipped"), r.output);
    assertFalse(r.output.contains("TAMPERED"), r.output);
  }

  @Test
  void aSealOrARecordTheBrokerRefusedLeavesAGapNotAChange() throws Exception {
    Run seal = copyAndVerify(all -> { // a seal refused, announced in its place
      int i = nth(all, S1, ShipHeaders.SEAL, 7);
      CopiedRecord gap = new CopiedRecord(all.get(i)).header(ShipHeaders.TYPE, ShipHeaders.GAP);
      gap.value = "the seal was refused by the broker".getBytes(StandardCharsets.UTF_8);
      all.set(i, gap);
      return all;
    });
    assertEquals(2, seal.code, seal.output);
    assertTrue(seal.output.contains("GAP: " + S1 + " file "), seal.output);
    assertTrue(seal.output.contains("whose seal went with the gap"), seal.output);
    assertFalse(seal.output.contains("TAMPERED"), seal.output);

    Run record = copyAndVerify(all -> { // a record refused twice, skipped, announced in its place
      int i = nth(all, S1, ShipHeaders.RECORD, 130);
      CopiedRecord gap = new CopiedRecord(all.get(i)).header(ShipHeaders.TYPE, ShipHeaders.GAP);
      gap.value = "a record was refused by the broker".getBytes(StandardCharsets.UTF_8);
      all.set(i, gap);
      return all;
    });
    assertEquals(2, record.code, record.output);
    assertTrue(record.output.contains("GAP: " + S1 + " file "), record.output);
    assertTrue(record.output.contains("could not be hashed: records were lost in an announced gap"), record.output);
    assertFalse(record.output.contains("TAMPERED"), record.output);
  }

  @Test
  void aFileShippedAgainUnderANewNumberAfterAGapVerifies() throws Exception {
    Run r = copyAndVerify(all -> {
      long f = all.get(nth(all, S1, ShipHeaders.RECORD, 150)).file();
      List<CopiedRecord> out = new ArrayList<>();
      List<CopiedRecord> fileItems = new ArrayList<>();
      int half = -1;
      for (CopiedRecord c : all) {
        if (!S1.equals(c.source())) {
          out.add(c);
        } else if (c.file() < f) {
          out.add(c);
        } else if (c.file() == f) {
          fileItems.add(c);
          if (half < 0 && fileItems.size() > 30 && c.is(S1, ShipHeaders.RECORD)) {
            half = out.size();
            for (CopiedRecord x : fileItems) {
              if (!ShipHeaders.FILE_END.equals(x.type())) {
                out.add(x);
              }
            }
            CopiedRecord gap = new CopiedRecord(c).header(ShipHeaders.TYPE, ShipHeaders.GAP);
            gap.value = "the file shrank before it was shipped".getBytes(StandardCharsets.UTF_8);
            out.add(gap);
          }
        } else {
          if (!fileItems.isEmpty()) { // the whole file again, under the next number
            for (CopiedRecord x : fileItems) {
              out.add(new CopiedRecord(x).header(ShipHeaders.FILE, Long.toString(f + 1)));
            }
            fileItems.clear();
          }
          out.add(new CopiedRecord(c).header(ShipHeaders.FILE, Long.toString(c.file() + 1)));
        }
      }
      return out;
    });
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("GAP: " + S1 + " file "), r.output);
    assertFalse(r.output.contains("TAMPERED"), r.output);
  }

  @Test
  void aRecordAtAPlaceBeforeTheStreamOrBeyondTheShippersIsNamed() throws Exception {
    Run overflow = copyAndVerify(all -> { // file 2^23: its place as one number would be negative
      all.add(nth(all, S1, ShipHeaders.RECORD, 120), forged(all, 50).header(ShipHeaders.FILE, "8388608")
          .header(ShipHeaders.OFFSET, "0"));
      return all;
    });
    assertEquals(1, overflow.code, overflow.output);
    assertTrue(overflow.output.contains("a file number or byte beyond any the shipper gives"), overflow.output);

    Run atFirst = copyAndVerify(all -> { // at the source's first record's place, appended: compared with it
      all.add(lastOf(all, S1) + 1, forged(all, 50).header(ShipHeaders.FILE, "0").header(ShipHeaders.OFFSET, "0"));
      return all;
    });
    assertTampered(atFirst, S1, 0, 0, "sent again with another value");

    Run midChain = copyAndVerify(all -> { // the same where the stream starts mid-chain (retention)
      List<CopiedRecord> out = dropHead(all, 60);
      CopiedRecord first = out.get(nth(out, S1, ShipHeaders.RECORD, 1));
      out.add(lastOf(out, S1) + 1, forged(all, 50).header(ShipHeaders.FILE, Long.toString(first.file()))
          .header(ShipHeaders.OFFSET, "0"));
      return out;
    });
    assertEquals(1, midChain.code, midChain.output);
    assertTrue(midChain.output.contains("before the first record read"), midChain.output);
  }

  @Test
  void recordsAppendedAfterACloseOrARotateSealAreNamed() throws Exception {
    Run closed = copyAndVerify(all -> appendForged(all, 5)); // the NameNode was stopped: its last seal closed
    assertEquals(1, closed.code, closed.output);
    assertTrue(closed.output.contains("records inserted: 5 record(s) after seal "), closed.output);
    assertTrue(closed.output.contains("closed the file (close)"), closed.output);

    Run rotated = copyAndVerify(all -> { // cut at a file's end (its file-end and what follows gone), appended to
      int fe = nth(all, S1, ShipHeaders.FILE_END, 2);
      List<CopiedRecord> out = new ArrayList<>();
      for (int k = 0; k < all.size(); k++) {
        if (k < fe || !S1.equals(all.get(k).source())) {
          out.add(all.get(k));
        }
      }
      return appendForged(out, 5);
    });
    assertEquals(1, rotated.code, rotated.output);
    assertTrue(rotated.output.contains("records inserted: 5 record(s) after seal "), rotated.output);
    assertTrue(rotated.output.contains("ended the file for its rotation (rotate)"), rotated.output);
  }

  @Test
  void aRecordRelabelledCutIsNamed() throws Exception {
    CopiedRecord[] changed = new CopiedRecord[1];
    Run own = copyAndVerify(all -> { // changed, and labelled cut at its own length
      CopiedRecord c = all.get(nth(all, S1, ShipHeaders.RECORD, 150));
      c.value = c.text().replace("src=/", "src=\\").getBytes(StandardCharsets.UTF_8);
      c.header(ShipHeaders.TYPE, ShipHeaders.RECORD_CUT).header(ShipHeaders.LENGTH, Integer.toString(c.value.length));
      changed[0] = c;
      return all;
    });
    assertTampered(own, S1, changed[0].file(), changed[0].offset(), "the shipper cuts only a line longer");

    Run spanning = copyAndVerify(all -> { // records deleted, the one before them labelled cut over them
      CopiedRecord first = all.get(nth(all, S1, ShipHeaders.RECORD, 101));
      CopiedRecord last = all.get(nth(all, S1, ShipHeaders.RECORD, 104));
      first.header(ShipHeaders.TYPE, ShipHeaders.RECORD_CUT).header(ShipHeaders.LENGTH,
          Long.toString(last.offset() + last.value.length - first.offset()));
      for (int n = 0; n < 3; n++) {
        all.remove(nth(all, S1, ShipHeaders.RECORD, 102));
      }
      changed[0] = first;
      return all;
    });
    assertTampered(spanning, S1, changed[0].file(), changed[0].offset(), "the shipper cuts only a line longer");

    Run spreading = copyAndVerify(all -> { // relabelled as it is, and later records changed
      CopiedRecord c = all.get(nth(all, S1, ShipHeaders.RECORD, 150));
      c.header(ShipHeaders.TYPE, ShipHeaders.RECORD_CUT).header(ShipHeaders.LENGTH, Integer.toString(c.value.length));
      for (int n : new int[] {160, 185, 199}) {
        CopiedRecord m = all.get(nth(all, S1, ShipHeaders.RECORD, n));
        m.value = m.text().replace("src=/", "src=\\").getBytes(StandardCharsets.UTF_8);
      }
      changed[0] = c;
      return all;
    });
    assertTampered(spreading, S1, changed[0].file(), changed[0].offset(), "the shipper cuts only a line longer");
  }

  @Test
  void aRepeatedHeaderIsNamed() throws Exception {
    Run r = copyAndVerify(all -> { // a consumer that reads the first header sees a seal, verify-stream the last
      CopiedRecord c = all.get(nth(all, S1, ShipHeaders.RECORD, 50));
      c.headers.add(0, new RecordHeader(ShipHeaders.TYPE, ShipHeaders.SEAL.getBytes(StandardCharsets.UTF_8)));
      return all;
    });
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("TAMPERED: " + S1), r.output);
    assertTrue(r.output.contains("the header nnaudit.type is repeated"), r.output);
  }

  // --- helpers

  /** A copy of the {@code n}th record of {@link #S1} with another value. */
  private static CopiedRecord forged(List<CopiedRecord> all, int n) {
    CopiedRecord c = new CopiedRecord(all.get(nth(all, S1, ShipHeaders.RECORD, n)));
    c.value = c.text().replace("mkdirs", "delete").getBytes(StandardCharsets.UTF_8);
    return c;
  }

  /** The index of the last record of {@code source}. */
  private static int lastOf(List<CopiedRecord> all, String source) {
    for (int i = all.size() - 1; i >= 0; i--) {
      if (source.equals(all.get(i).source())) {
        return i;
      }
    }
    return -1;
  }

  /** {@code all} without the records of {@link #S1} up to its {@code through}th audit record. */
  private static List<CopiedRecord> dropHead(List<CopiedRecord> all, int through) {
    List<CopiedRecord> out = new ArrayList<>();
    int i = nth(all, S1, ShipHeaders.RECORD, through);
    for (int k = 0; k < all.size(); k++) {
      if (k > i || !S1.equals(all.get(k).source())) {
        out.add(all.get(k));
      }
    }
    return out;
  }

  /** {@code n} forged records after {@link #S1}'s last record of the stream, each where the one before ends. */
  private static List<CopiedRecord> appendForged(List<CopiedRecord> all, int n) {
    int last = -1;
    for (int k = 0; k < all.size(); k++) {
      if (all.get(k).is(S1, ShipHeaders.RECORD)) {
        last = k;
      }
    }
    CopiedRecord l = all.get(last);
    long off = l.offset() + l.value.length + 1;
    int at = lastOf(all, S1) + 1;
    for (int i = 0; i < n; i++) {
      CopiedRecord f = new CopiedRecord(l);
      f.value = l.text().replace("mkdirs", "delete").getBytes(StandardCharsets.UTF_8);
      f.header(ShipHeaders.OFFSET, Long.toString(off));
      off += f.value.length + 1;
      all.add(at++, f);
    }
    return all;
  }

  static final class Run {
    final int code;
    final String output;

    Run(int code, String output) {
      this.code = code;
      this.output = output;
    }
  }

  static Run verify(String topic, String... extra) {
    List<String> args = new ArrayList<>(List.of("--bootstrap", stream.broker.bootstrapServers(), "--topic", topic,
        "--cert", stream.key1.certificate.toString(), "--cert", stream.key2.certificate.toString(),
        "--timeout", "30"));
    args.addAll(List.of(extra));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream p = new PrintStream(out, true, StandardCharsets.UTF_8);
    int code = VerifyStreamCommand.run(args.toArray(new String[0]), p, p);
    String text = out.toString(StandardCharsets.UTF_8);
    System.out.println("verify-stream " + topic + " -> " + code + "\n" + text);
    return new Run(code, text);
  }

  private static Run copyAndVerify(UnaryOperator<List<CopiedRecord>> change) throws Exception {
    String topic = "copy-" + (++copies);
    TopicCopy.copy(stream.broker, SealedStream.TOPIC, topic, SealedStream.PARTITIONS, stream.size, change);
    return verify(topic);
  }

  /** The index of the {@code n}th record (from 1) of {@code source} of {@code type}. */
  private static int nth(List<CopiedRecord> all, String source, String type, int n) {
    int seen = 0;
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).is(source, type) && ++seen == n) {
        return i;
      }
    }
    throw new AssertionError("no " + n + "th " + type + " of " + source);
  }

  private static Seal covering(List<CopiedRecord> seals, CopiedRecord record) {
    for (CopiedRecord c : seals) {
      Seal s = Seal.parse(c.text());
      if (c.file() == record.file() && s.from <= record.offset() && record.offset() < s.to) {
        return s;
      }
    }
    throw new AssertionError("no seal covers " + record);
  }

  private static void assertTampered(Run r, String source, long file, long offset, String what) {
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.startsWith("TAMPERED: " + source + " file " + file + " at byte " + offset + " ")
        || r.output.contains("\nTAMPERED: " + source + " file " + file + " at byte " + offset + " "), r.output);
    assertTrue(r.output.contains(what), r.output);
  }

  private static String anchor(String output, String source) {
    Matcher m = Pattern.compile("verified: " + Pattern.quote(source) + ": .*\\n  last verified seal: ([0-9a-f]{64})")
        .matcher(output);
    assertTrue(m.find(), output);
    return m.group(1);
  }
}
