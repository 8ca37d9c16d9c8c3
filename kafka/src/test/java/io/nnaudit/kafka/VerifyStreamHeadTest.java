package io.nnaudit.kafka;

import static io.nnaudit.kafka.StreamEdits.lastOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKeys;

/**
 * verify-stream at the head of a stream: what a read can say of records sealed before the first record it holds.
 * A sealing NameNode (a child JVM) ships a few records to topic {@code old} and is stopped with SIGTERM; started
 * again in the same first file, it ships to a new topic {@code moved} (the topic changed in its settings): the
 * start sends its file's seals again, the chain's first seal among them, then its records from its checkpoint on.
 * Records sealed before the first record read may have been sent before the read's start, but no more of them
 * than the partition's offsets before the read can hold; the rest were never in the topic there. Copies of
 * {@code old} are changed as a writer to the topic could, with Kafka's delete-records where a change needs it.
 */
class VerifyStreamHeadTest {
  static final String OLD = "old";
  static final String MOVED = "moved";
  static final int PARTITIONS = 3;
  static final String S1 = "ns1/nn1";
  static final int INTERVAL = 10;

  @TempDir
  static Path dir;
  static KafkaTestBroker broker;
  static SealKeys.KeyFiles key1;
  static SealKeys.KeyFiles key2;
  static int oldSize;
  static int movedSize;
  private static int copies;

  @BeforeAll
  static void ship() throws Exception {
    broker = new KafkaTestBroker(dir.resolve("broker")).start();
    broker.createTopic(OLD, PARTITIONS);
    broker.createTopic(MOVED, PARTITIONS);
    key1 = SealKeys.ec(dir.resolve("keys1"));
    key2 = SealKeys.ec(dir.resolve("keys2"));
    File base1 = dir.resolve("nn1").toFile();
    File audits1 = new File(base1, "audit");
    try (ShippingNameNodeProcess nn = start(base1, audits1, true, OLD)) {
      nn.mkdirs("/r1", 20);
      nn.awaitShipped(120_000);
      nn.stop();
    }
    try (ShippingNameNodeProcess nn = start(base1, audits1, false, MOVED)) {
      nn.mkdirs("/r2", 20);
      nn.awaitShipped(120_000);
      nn.stop();
    }
    oldSize = TopicCopy.read(broker, OLD, 1).size();
    movedSize = TopicCopy.read(broker, MOVED, 1).size();
    dump(OLD, TopicCopy.read(broker, OLD, oldSize));
    dump(MOVED, TopicCopy.read(broker, MOVED, movedSize));
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  private static ShippingNameNodeProcess start(File base, File audits, boolean format, String topic)
      throws Exception {
    return ShippingNameNodeProcess.startSealed(base, audits, broker.bootstrapServers(), topic, format, S1,
        key1.keystore.toFile(), INTERVAL, 180_000);
  }

  private static void dump(String topic, List<CopiedRecord> all) {
    StringBuilder b = new StringBuilder("topic " + topic + ":\n");
    for (CopiedRecord c : all) {
      b.append("  ").append(c.partition).append(" ").append(c);
      if (ShipHeaders.SEAL.equals(c.type())) {
        Seal s = Seal.parse(c.text());
        b.append(" seal=").append(s.number).append(" ").append(s.kind.text()).append(" ").append(s.from).append("-")
            .append(s.to).append(s.prev.equals(Seal.GENESIS) ? " GENESIS" : "");
      }
      b.append('\n');
    }
    System.out.println(b);
  }

  // ------------------------------------------------------------------ a genuine stream in a new topic

  /**
   * The topic changed in the NameNode's settings (or the topic was recreated, or mirrored after retention): its
   * first partition offset holds the chain's first seal as the start sent it again, its records go on from the
   * checkpoint. Nothing was changed in what the shipper wrote to this topic, but the records the resent seals
   * sealed are in the old topic: not verified here (exit 2), not a change.
   */
  @Test
  void aGenuineStreamShippedToANewTopicAfterARestartInTheFirstFile() throws Exception {
    List<CopiedRecord> moved = TopicCopy.read(broker, MOVED, movedSize);
    CopiedRecord first = firstOf(moved, S1);
    assertEquals(ShipHeaders.SEAL, first.type(), "the new topic begins with the resent seals");
    assertEquals(Seal.GENESIS, Seal.parse(first.text()).prev);
    for (VerifyStreamRun r : List.of(verify(MOVED, "--source", S1), verify(MOVED, "--source", S1, "--from", "0"))) {
      assertEquals(2, r.code, r.output);
      assertFalse(r.output.contains("TAMPERED"), r.output);
      assertTrue(r.output.contains("they were not in this topic before the read"), r.output);
    }
  }

  // ------------------------------------------------------------------ the first-seal rule turned off

  /**
   * Records deleted right after the chain's first seal, in a copy read from its first offset, and in one whose
   * first offset (a record of no source's put there) was then deleted with delete-records: {@code n} records of
   * the source sealed before the first record read, more than the offsets before the read's start (0, then 1), so
   * they were never in the topic there: not verified, whichever way the topic was made.
   */
  @Test
  void recordsDeletedAfterTheChainsFirstSealAreNotVerifiedWhateverWasDeletedBeforeIt() throws Exception {
    for (int n : new int[] {3, 12}) {
      List<CopiedRecord> all = TopicCopy.read(broker, OLD, oldSize);
      int g = firstOf(all, S1, ShipHeaders.SEAL);
      assertEquals(Seal.GENESIS, Seal.parse(all.get(g).text()).prev);
      List<CopiedRecord> cut = new ArrayList<>(all);
      removeRecordsAfter(cut, g, n);
      VerifyStreamRun whole = verify(copy(cut), "--source", S1); // the copy read from offset 0
      assertEquals(2, whole.code, whole.output);
      assertTrue(whole.output.contains("more than the 0 offset(s) before its first record read"), whole.output);

      List<CopiedRecord> padded = new ArrayList<>(cut);
      CopiedRecord junk = new CopiedRecord(all.get(g));
      junk.key = "junk".getBytes(StandardCharsets.UTF_8);
      junk.header(ShipHeaders.SOURCE, "junk");
      padded.add(g, junk);
      String topic = copy(padded);
      TopicCopy.deleteBefore(broker, topic, all.get(g).partition, 1);
      VerifyStreamRun r = verify(topic, "--source", S1);
      assertTrue(r.output.contains("1 records before them deleted from the topic"), r.output);
      assertEquals(2, r.code, r.output);
      assertTrue(r.output.contains("more than the 1 offset(s) before its first record read"), r.output);
    }
  }

  /** The same, read --from the time of the chain's first seal: the read begins at the partition's first offset. */
  @Test
  void readFromTheChainsFirstSealWithRecordsDeletedAfterIt() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, OLD, oldSize);
    int g = firstOf(all, S1, ShipHeaders.SEAL);
    List<CopiedRecord> cut = new ArrayList<>(all);
    removeRecordsAfter(cut, g, 3);
    VerifyStreamRun r = verify(copy(cut), "--source", S1, "--from", Long.toString(all.get(g).timestamp));
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("were sent before the read's start, not read"), r.output);
    assertTrue(r.output.contains("they were not in this topic before the read"), r.output);
  }

  // ------------------------------------------------------------------ a chain's start replayed

  /** The chain's first seal and its first records appended again under the file number being read: a replay. */
  @Test
  void theChainsStartReplayedUnderTheCurrentFileIsAChange() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, OLD, oldSize);
    int g = firstOf(all, S1, ShipHeaders.SEAL);
    int last = lastOf(all, S1);
    String file = all.get(last).header(ShipHeaders.FILE);
    List<CopiedRecord> replay = new ArrayList<>(all);
    CopiedRecord again = new CopiedRecord(all.get(g));
    again.header(ShipHeaders.FILE, Long.toString(Long.parseLong(file) + 1));
    replay.add(last + 1, again);
    VerifyStreamRun r = verify(copy(replay), "--source", S1);
    assertEquals(1, r.code, r.output);
  }

  /**
   * The chain's first seal sent again with exactly its identity (file, offset, hash) long after: a duplicate, as
   * docs/kafka.md says of copies.
   */
  @Test
  void theChainsFirstSealSentAgainWithItsIdentityIsADuplicate() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, OLD, oldSize);
    int g = firstOf(all, S1, ShipHeaders.SEAL);
    List<CopiedRecord> again = new ArrayList<>(all);
    again.add(lastOf(all, S1) + 1, new CopiedRecord(all.get(g)));
    VerifyStreamRun base = verify(OLD, "--source", S1);
    VerifyStreamRun r = verify(copy(again), "--source", S1);
    assertEquals(base.code, r.code, r.output);
    assertTrue(r.output.contains("duplicate(s) dropped"), r.output);
  }

  // ------------------------------------------------------------------ sources named on the command line

  /**
   * Every record of a source bound to its key moved under another key (key and source header rewritten): the
   * bound source has no record (exit 2), and the other is signed by the bound key.
   */
  @Test
  void aBoundSourceWhoseRecordsAllMovedUnderAnotherKey() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, OLD, oldSize);
    List<CopiedRecord> moved = new ArrayList<>();
    for (CopiedRecord c : all) {
      CopiedRecord m = new CopiedRecord(c);
      if (S1.equals(c.source())) {
        m.key = "ns9/nn1".getBytes(StandardCharsets.UTF_8);
        m.header(ShipHeaders.SOURCE, "ns9/nn1");
      }
      moved.add(m);
    }
    String topic = copy(moved);
    VerifyStreamRun bound = VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic", topic,
        "--cert", S1 + "=" + key1.certificate, "--timeout", "30"));
    assertEquals(1, bound.code, bound.output); // the moved source's seals are signed by no key it may use
    VerifyStreamRun boundAndPlain = VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic",
        topic, "--cert", S1 + "=" + key1.certificate, "--cert", key1.certificate.toString(), "--timeout", "30"));
    assertEquals(2, boundAndPlain.code, boundAndPlain.output);
    assertTrue(boundAndPlain.output.contains("NOT VERIFIED: " + S1 + ": no record of the source in the topic"),
        boundAndPlain.output);
  }

  /**
   * A source that shipped nothing after a time: read --from then, with its key bound, it has no record (exit 2).
   * A writer to the topic appends a copy of the stream's start, from the chain's first seal to an old seal, with
   * timestamps after that time: the copies are not known as copies (their first sending is before the read), and
   * they verify (the end of the stream cannot vouch for itself), but the read says that its last verified seal
   * was made before --from.
   */
  @Test
  void anIdleSourceReadFromATimeWithTheChainsStartReplayedAfterIt() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, OLD, oldSize);
    long after = 0;
    for (CopiedRecord c : all) {
      after = Math.max(after, c.timestamp + 1);
    }
    VerifyStreamRun idle = VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic", OLD,
        "--cert", S1 + "=" + key1.certificate, "--from", Long.toString(after), "--timeout", "30"));
    assertEquals(2, idle.code, idle.output);
    String genuineAnchor = anchorOf(verify(OLD, "--source", S1).output);

    int g = firstOf(all, S1, ShipHeaders.SEAL);
    int third = -1;
    for (int i = g; i < all.size(); i++) {
      if (all.get(i).is(S1, ShipHeaders.SEAL) && Seal.parse(all.get(i).text()).number == 3) {
        third = i;
      }
    }
    List<CopiedRecord> replayed = new ArrayList<>(all);
    long t = after;
    for (int i = g; i <= third; i++) {
      if (S1.equals(all.get(i).source())) {
        CopiedRecord c = new CopiedRecord(all.get(i));
        c.timestamp = t++;
        replayed.add(c);
      }
    }
    String topic = copy(replayed);
    VerifyStreamRun r = VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic", topic,
        "--cert", S1 + "=" + key1.certificate, "--from", Long.toString(after), "--timeout", "30"));
    assertNotEquals(1, r.code, r.output);
    assertNotEquals(genuineAnchor, anchorOf(r.output));
    assertTrue(r.output.contains("before --from: no seal the source made after that time was read"), r.output);
  }

  // ------------------------------------------------------------------ a read that begins at a seal's range

  /**
   * A new topic (nothing deleted from it) that begins at the first record of a seal's range: every record of that
   * range is read, so its bytes are hashed. As shipped it verifies; with each record of the range forged, the
   * range is a change.
   */
  @Test
  void aTopicBeginningWhereASealsRangeBeginsHasThatRangeHashed() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, OLD, oldSize);
    int k = sealInsideTheFile(all);
    VerifyStreamRun genuine = verify(copy(fromRangeOf(all, k, false)));
    assertEquals(0, genuine.code, genuine.output);
    VerifyStreamRun forged = verify(copy(fromRangeOf(all, k, true)));
    assertEquals(1, forged.code, forged.output);
    assertTrue(forged.output.contains("modified bytes: the range sealed by seal"), forged.output);
  }

  /**
   * The source went idle; a writer appends records over a seal's whole range, forged, then a copy of that seal,
   * later than the source's last record. Read --from that time, with the source's key bound: the range read
   * whole is hashed, and it is a change.
   */
  @Test
  void forgedRecordsOverAnOldSealsRangeAppendedAfterAnIdleSourceAreAChange() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, OLD, oldSize);
    long after = 0;
    for (CopiedRecord c : all) {
      after = Math.max(after, c.timestamp + 1);
    }
    int k = sealInsideTheFile(all);
    Seal s = Seal.parse(all.get(k).text());
    List<CopiedRecord> appended = new ArrayList<>(all);
    long t = after;
    for (CopiedRecord c : fromRangeOf(all, k, true)) {
      boolean ofTheRange = c.is(S1, ShipHeaders.RECORD) && c.offset() < s.to
          || c.is(S1, ShipHeaders.SEAL) && Seal.parse(c.text()).number == s.number;
      if (ofTheRange) {
        c.timestamp = t++;
        appended.add(c);
      }
    }
    VerifyStreamRun r = VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic",
        copy(appended), "--cert", S1 + "=" + key1.certificate, "--from", Long.toString(after), "--timeout", "30"));
    assertEquals(1, r.code, r.output);
  }

  /** The index of S1's first seal over records whose range starts inside its file. */
  static int sealInsideTheFile(List<CopiedRecord> all) {
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).is(S1, ShipHeaders.SEAL)) {
        Seal s = Seal.parse(all.get(i).text());
        if (s.from > 0 && s.records > 0) {
          return i;
        }
      }
    }
    throw new AssertionError("no seal over records inside the file");
  }

  /**
   * S1's items from the first record of the range of the seal at {@code k} on, the seals numbered before it left
   * out; {@code forge}: each record of that range forged.
   */
  static List<CopiedRecord> fromRangeOf(List<CopiedRecord> all, int k, boolean forge) {
    Seal s = Seal.parse(all.get(k).text());
    long file = all.get(k).file();
    List<CopiedRecord> out = new ArrayList<>();
    boolean on = false;
    for (CopiedRecord c : all) {
      if (!S1.equals(c.source())) {
        continue;
      }
      on |= c.is(S1, ShipHeaders.RECORD) && c.file() == file && c.offset() == s.from;
      if (!on || c.is(S1, ShipHeaders.SEAL) && Seal.parse(c.text()).number < s.number) {
        continue;
      }
      boolean inRange = c.is(S1, ShipHeaders.RECORD) && c.file() == file && c.offset() < s.to;
      out.add(forge && inRange ? StreamEdits.forgedFrom(c) : new CopiedRecord(c));
    }
    return out;
  }

  static String anchorOf(String output) {
    for (String line : output.split("\n")) {
      if (line.startsWith("  last verified seal: ")) {
        return line.substring("  last verified seal: ".length());
      }
    }
    return null;
  }

  // ------------------------------------------------------------------ helpers

  static VerifyStreamRun verify(String topic, String... extra) {
    List<String> args = new ArrayList<>(List.of("--bootstrap", broker.bootstrapServers(), "--topic", topic,
        "--cert", key1.certificate.toString(), "--cert", key2.certificate.toString(), "--timeout", "30"));
    args.addAll(List.of(extra));
    return VerifyStreamRun.of(args);
  }

  static String copy(List<CopiedRecord> records) throws Exception {
    String topic = "copy" + (++copies);
    TopicCopy.write(broker, topic, PARTITIONS, records);
    return topic;
  }

  /** Removes the first {@code n} audit records of S1 after index {@code after}. */
  static void removeRecordsAfter(List<CopiedRecord> all, int after, int n) {
    int removed = 0;
    for (int i = after + 1; i < all.size() && removed < n; ) {
      if (all.get(i).is(S1, ShipHeaders.RECORD)) {
        all.remove(i);
        removed++;
      } else {
        i++;
      }
    }
    assertEquals(n, removed);
  }

  static CopiedRecord firstOf(List<CopiedRecord> all, String source) {
    for (CopiedRecord c : all) {
      if (source.equals(c.source())) {
        return c;
      }
    }
    throw new AssertionError("no record of " + source);
  }

  static int firstOf(List<CopiedRecord> all, String source, String type) {
    for (int i = 0; i < all.size(); i++) {
      if (all.get(i).is(source, type)) {
        return i;
      }
    }
    throw new AssertionError("no " + type + " of " + source);
  }
}
