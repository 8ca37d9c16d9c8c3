package io.nnaudit.kafka;

import static io.nnaudit.kafka.StreamEdits.appendForged;
import static io.nnaudit.kafka.StreamEdits.forgedFrom;
import static io.nnaudit.kafka.StreamEdits.lastOf;
import static io.nnaudit.kafka.StreamEdits.nth;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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
    VerifyStreamRun r = verify(SealedStream.TOPIC);
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
    VerifyStreamRun r = verify(SealedStream.TOPIC, "--source", stream.source2);
    assertEquals(0, r.code, r.output);
    assertFalse(r.output.contains(S1), r.output);
    assertTrue(r.output.contains("sources: 1 verified"), r.output);
  }

  /** Changes to a copy of the topic, each named at the record, file and byte where it is: exit 1. */
  static Stream<ChangeAt> changesNamedAtTheirPlace() {
    return Stream.of(
        new ChangeAt("a deleted record", "records deleted",
            all -> placeOf(all.remove(nth(all, S1, ShipHeaders.RECORD, 100)))),
        new ChangeAt("a changed value, named at its sealed range", "modified bytes", all -> {
          CopiedRecord c = all.get(nth(all, S1, ShipHeaders.RECORD, 150));
          c.value = c.text().replace("src=/", "src=\\").getBytes(StandardCharsets.UTF_8); // same length
          List<CopiedRecord> seals = new ArrayList<>();
          all.stream().filter(x -> x.is(S1, ShipHeaders.SEAL)).forEach(seals::add);
          return new long[] {c.file(), covering(seals, c).from};
        }),
        new ChangeAt("two records swapped", "records were moved", all -> {
          int i = nth(all, S1, ShipHeaders.RECORD, 120);
          int j = i + 1;
          while (!all.get(j).is(S1, ShipHeaders.RECORD)) {
            j++;
          }
          CopiedRecord first = all.get(i);
          all.set(i, all.get(j));
          all.set(j, first);
          return placeOf(first);
        }),
        new ChangeAt("a seal signed by another key", "bad signature", all -> {
          SealKeys.KeyFiles other = SealKeys.ec(dir.resolve("other-key"));
          CopiedRecord c = all.get(nth(all, S1, ShipHeaders.SEAL, 6));
          c.value = Seal.parse(c.text()).signedWith(other.signingKey()).line().getBytes(StandardCharsets.UTF_8);
          return placeOf(c);
        }),
        new ChangeAt("an edited seal line", "bad signature", all -> {
          for (int n = 1;; n++) {
            CopiedRecord c = all.get(nth(all, S1, ShipHeaders.SEAL, n));
            Seal s = Seal.parse(c.text());
            if (s.records > 1) {
              c.value = c.text().replace(" records=" + s.records + " ", " records=" + (s.records - 1) + " ")
                  .getBytes(StandardCharsets.UTF_8);
              return placeOf(c);
            }
          }
        }),
        new ChangeAt("a copy with another value", "sent again with another value", all -> {
          int i = nth(all, S1, ShipHeaders.RECORD, 200);
          CopiedRecord original = all.get(i);
          CopiedRecord copy = new CopiedRecord(original);
          copy.value = copy.text().replace("mkdirs", "delete").getBytes(StandardCharsets.UTF_8);
          all.add(i + 5, copy);
          return placeOf(original);
        }),
        new ChangeAt("a record at the source's first record's place, appended: compared with it",
            "sent again with another value", all -> {
              all.add(lastOf(all, S1) + 1, forged(all, 50).header(ShipHeaders.FILE, "0")
                  .header(ShipHeaders.OFFSET, "0"));
              return new long[] {0, 0};
            }),
        new ChangeAt("a record changed, and labelled cut at its own length", "the shipper cuts only a line longer",
            all -> {
              CopiedRecord c = all.get(nth(all, S1, ShipHeaders.RECORD, 150));
              c.value = c.text().replace("src=/", "src=\\").getBytes(StandardCharsets.UTF_8);
              c.header(ShipHeaders.TYPE, ShipHeaders.RECORD_CUT).header(ShipHeaders.LENGTH,
                  Integer.toString(c.value.length));
              return placeOf(c);
            }),
        new ChangeAt("records deleted, the one before them labelled cut over them",
            "the shipper cuts only a line longer", all -> {
              CopiedRecord first = all.get(nth(all, S1, ShipHeaders.RECORD, 101));
              CopiedRecord last = all.get(nth(all, S1, ShipHeaders.RECORD, 104));
              first.header(ShipHeaders.TYPE, ShipHeaders.RECORD_CUT).header(ShipHeaders.LENGTH,
                  Long.toString(last.offset() + last.value.length - first.offset()));
              for (int n = 0; n < 3; n++) {
                all.remove(nth(all, S1, ShipHeaders.RECORD, 102));
              }
              return placeOf(first);
            }),
        new ChangeAt("a record relabelled cut as it is, and later records changed",
            "the shipper cuts only a line longer", all -> {
              CopiedRecord c = all.get(nth(all, S1, ShipHeaders.RECORD, 150));
              c.header(ShipHeaders.TYPE, ShipHeaders.RECORD_CUT).header(ShipHeaders.LENGTH,
                  Integer.toString(c.value.length));
              for (int n : new int[] {160, 185, 199}) {
                CopiedRecord m = all.get(nth(all, S1, ShipHeaders.RECORD, n));
                m.value = m.text().replace("src=/", "src=\\").getBytes(StandardCharsets.UTF_8);
              }
              return placeOf(c);
            }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("changesNamedAtTheirPlace")
  void aChangeIsNamedAtItsPlace(ChangeAt change) throws Exception {
    long[] at = new long[2];
    VerifyStreamRun r = copyAndVerify(all -> {
      try {
        long[] place = change.make.apply(all);
        at[0] = place[0];
        at[1] = place[1];
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      return all;
    });
    assertTampered(r, S1, at[0], at[1], change.what);
  }

  /**
   * Changes to a copy of the topic, each with what verify-stream says of it: changes (exit 1), losses the source
   * announced (exit 2, and no change), and what shipping itself does (exit 0).
   */
  static Stream<ChangeSeen> changesSeen() {
    return Stream.of(
        new ChangeSeen("a record at file 2^23, whose place as one number would be negative", all -> {
          all.add(nth(all, S1, ShipHeaders.RECORD, 120), forged(all, 50).header(ShipHeaders.FILE, "8388608")
              .header(ShipHeaders.OFFSET, "0"));
          return all;
        }, 1, "a file number or byte beyond any the shipper gives"),
        new ChangeSeen("a record at the source's first record's place where the stream starts mid-chain (retention)",
            all -> {
              List<CopiedRecord> out = dropHead(all, 60);
              CopiedRecord first = out.get(nth(out, S1, ShipHeaders.RECORD, 1));
              out.add(lastOf(out, S1) + 1, forged(all, 50).header(ShipHeaders.FILE, Long.toString(first.file()))
                  .header(ShipHeaders.OFFSET, "0"));
              return out;
            }, 1, "before the first record read"),
        new ChangeSeen("a record of another source under this key", all -> {
          CopiedRecord theirs = new CopiedRecord(all.get(nth(all, stream.source2, ShipHeaders.RECORD, 40)));
          int i = nth(all, S1, ShipHeaders.RECORD, 60);
          theirs.partition = all.get(i).partition;
          theirs.key = S1.getBytes(StandardCharsets.UTF_8);
          theirs.header(ShipHeaders.SOURCE, S1);
          all.add(i, theirs);
          return all;
        }, 1, "TAMPERED: " + S1 + " file "),
        new ChangeSeen("the first seal over records removed", all -> {
          for (int n = 1;; n++) {
            int i = nth(all, S1, ShipHeaders.SEAL, n);
            if (Seal.parse(all.get(i).text()).records > 0) {
              all.remove(i);
              return all;
            }
          }
        }, 1, "TAMPERED: " + S1 + " file ", "a seal between them was removed"),
        new ChangeSeen("a repeated header: a consumer that reads the first sees a seal, verify-stream the last",
            all -> {
              CopiedRecord c = all.get(nth(all, S1, ShipHeaders.RECORD, 50));
              c.headers.add(0, new RecordHeader(ShipHeaders.TYPE, ShipHeaders.SEAL.getBytes(StandardCharsets.UTF_8)));
              return all;
            }, 1, "TAMPERED: " + S1, "the header nnaudit.type is repeated"),
        new ChangeSeen("records appended after the last seal, a close (the NameNode was stopped)",
            all -> appendForged(all, S1, 5), 1, "records inserted: 5 record(s) after seal ", "closed the file (close)"),
        new ChangeSeen("records appended after a rotate seal, its file's end and what follows cut away", all -> {
          int fe = nth(all, S1, ShipHeaders.FILE_END, 2);
          List<CopiedRecord> out = new ArrayList<>();
          for (int k = 0; k < all.size(); k++) {
            if (k < fe || !S1.equals(all.get(k).source())) {
              out.add(all.get(k));
            }
          }
          return appendForged(out, S1, 5);
        }, 1, "records inserted: 5 record(s) after seal ", "ended the file for its rotation (rotate)"),
        new ChangeSeen("a seal the broker refused, announced in its place",
            all -> announcedInPlace(all, ShipHeaders.SEAL, 7, "the seal was refused by the broker"), 2,
            "GAP: " + S1 + " file ", "whose seal went with the gap").lacking("TAMPERED"),
        new ChangeSeen("a record the broker refused twice, skipped, announced in its place",
            all -> announcedInPlace(all, ShipHeaders.RECORD, 130, "a record was refused by the broker"), 2,
            "GAP: " + S1 + " file ", "could not be hashed: records were lost in an announced gap")
            .lacking("TAMPERED"),
        new ChangeSeen("a file shipped again under a new number after a gap", VerifyStreamTest::fileShippedAgain, 2,
            "GAP: " + S1 + " file ").lacking("TAMPERED"),
        new ChangeSeen("records sent again, and a seal after later records", VerifyStreamTest::resentAndSealedLate,
            0, " duplicate(s) dropped"),
        new ChangeSeen("the stream's start deleted (retention took the older half, mid-range)",
            VerifyStreamTest::olderHalfDeleted, 0, "note: starts mid-chain: its first seal read",
            "verified: " + S1 + ": "));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("changesSeen")
  void aChangedCopyIsSeenForWhatItIs(ChangeSeen change) throws Exception {
    VerifyStreamRun r = copyAndVerify(change.make);
    assertEquals(change.code, r.code, r.output);
    for (String text : change.holds) {
      assertTrue(r.output.contains(text), r.output);
    }
    for (String text : change.lacks) {
      assertFalse(r.output.contains(text), r.output);
    }
  }

  @Test
  void sealsThatStopBeforeAFileEndIsNamed() throws Exception {
    VerifyStreamRun r = copyAndVerify(all -> {
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
    VerifyStreamRun r = copyAndVerify(all -> {
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
    VerifyStreamRun both = copyAndVerify(replace);
    assertEquals(1, both.code, both.output);
    assertTrue(both.output.contains("whose seals " + stream.source2 + " has too"), both.output);

    String topic = "copy-" + (++copies);
    TopicCopy.copy(stream.broker, SealedStream.TOPIC, topic, SealedStream.PARTITIONS, stream.size,
        all -> { // and the other source gone: only the key bound to the source shows it
          List<CopiedRecord> out = replace.apply(all);
          out.removeIf(c -> stream.source2.equals(c.source()));
          return out;
        });
    VerifyStreamRun alone = verify(topic);
    assertEquals(0, alone.code, "a stream alone cannot tell whose it is without the keys bound: " + alone.output);
    VerifyStreamRun bound = verify(topic, "--cert", S1 + "=" + stream.key1.certificate);
    assertEquals(1, bound.code, bound.output);
    assertTrue(bound.output.contains("TAMPERED: " + S1 + " file "), bound.output);
    assertTrue(bound.output.contains("bad signature"), bound.output);
  }

  @Test
  void readFromATimeTheSourcesStartMidChain() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(stream.broker, SealedStream.TOPIC, stream.size);
    CopiedRecord middle = all.get(nth(all, S1, ShipHeaders.RECORD, 300));
    VerifyStreamRun r = verify(SealedStream.TOPIC, "--from",
        java.time.Instant.ofEpochMilli(middle.timestamp).toString());
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
      VerifyStreamRun r = verify(SealedStream.TOPIC, "--from", java.time.Instant.ofEpochMilli(t).toString());
      assertFalse(r.code == 1 || r.output.contains("TAMPERED"), r.output);
    }
  }

  @Test
  void aGapIsReportedAsTheLossTheSourceAnnounced() throws Exception {
    long[] lost = new long[1];
    VerifyStreamRun r = copyAndVerify(all -> {
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

  // --- changes

  /** {@code all}, the {@code n}th record of {@link #S1} of {@code type} replaced by a gap record saying {@code why}. */
  private static List<CopiedRecord> announcedInPlace(List<CopiedRecord> all, String type, int n, String why) {
    int i = nth(all, S1, type, n);
    CopiedRecord gap = new CopiedRecord(all.get(i)).header(ShipHeaders.TYPE, ShipHeaders.GAP);
    gap.value = why.getBytes(StandardCharsets.UTF_8);
    all.set(i, gap);
    return all;
  }

  /**
   * A file of {@link #S1} half shipped and a gap announced, then the whole file shipped again under the next
   * number, and the files after it renumbered.
   */
  private static List<CopiedRecord> fileShippedAgain(List<CopiedRecord> all) {
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
  }

  /** A resend from an earlier checkpoint, seals and all; and a seal that comes three records later. */
  private static List<CopiedRecord> resentAndSealedLate(List<CopiedRecord> all) {
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
  }

  /** Retention took the older half of each partition, mid-range (deleted from the partitions' starts). */
  private static List<CopiedRecord> olderHalfDeleted(List<CopiedRecord> all) {
    int[] seen = new int[SealedStream.PARTITIONS];
    int[] total = new int[SealedStream.PARTITIONS];
    all.forEach(c -> total[c.partition]++);
    for (CopiedRecord c : all) {
      c.deletedFromStart = seen[c.partition]++ < total[c.partition] / 2 + 7;
    }
    return all;
  }

  // --- helpers

  /** A change made in place to a copy of the topic; returns the file and byte it must be named at. */
  private interface Placed {
    long[] apply(List<CopiedRecord> all) throws Exception;
  }

  /** A change to a copy of the topic, and what verify-stream must name it with, at its place. */
  static final class ChangeAt {
    final String name;
    final String what;
    final Placed make;

    ChangeAt(String name, String what, Placed make) {
      this.name = name;
      this.what = what;
      this.make = make;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** A change to a copy of the topic, and what verify-stream says of it: its exit code, what it holds and lacks. */
  static final class ChangeSeen {
    final String name;
    final UnaryOperator<List<CopiedRecord>> make;
    final int code;
    final List<String> holds;
    final List<String> lacks = new ArrayList<>();

    ChangeSeen(String name, UnaryOperator<List<CopiedRecord>> make, int code, String... holds) {
      this.name = name;
      this.make = make;
      this.code = code;
      this.holds = List.of(holds);
    }

    ChangeSeen lacking(String... texts) {
      lacks.addAll(List.of(texts));
      return this;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** A copy of the {@code n}th record of {@link #S1} with another value. */
  private static CopiedRecord forged(List<CopiedRecord> all, int n) {
    return forgedFrom(all.get(nth(all, S1, ShipHeaders.RECORD, n)));
  }

  /** The file and byte of {@code c}. */
  private static long[] placeOf(CopiedRecord c) {
    return new long[] {c.file(), c.offset()};
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



  static VerifyStreamRun verify(String topic, String... extra) {
    List<String> args = new ArrayList<>(List.of("--bootstrap", stream.broker.bootstrapServers(), "--topic", topic,
        "--cert", stream.key1.certificate.toString(), "--cert", stream.key2.certificate.toString(),
        "--timeout", "30"));
    args.addAll(List.of(extra));
    return VerifyStreamRun.of(args);
  }

  private static VerifyStreamRun copyAndVerify(UnaryOperator<List<CopiedRecord>> change) throws Exception {
    String topic = "copy-" + (++copies);
    TopicCopy.copy(stream.broker, SealedStream.TOPIC, topic, SealedStream.PARTITIONS, stream.size, change);
    return verify(topic);
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

  private static void assertTampered(VerifyStreamRun r, String source, long file, long offset, String what) {
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
