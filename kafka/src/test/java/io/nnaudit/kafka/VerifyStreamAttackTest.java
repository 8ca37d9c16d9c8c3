package io.nnaudit.kafka;

import static io.nnaudit.kafka.StreamEdits.appendForged;
import static io.nnaudit.kafka.StreamEdits.lastOf;
import static io.nnaudit.kafka.StreamEdits.lastRecord;
import static io.nnaudit.kafka.StreamEdits.nth;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKeys;

/**
 * Attacks on {@code nnaudit verify-stream} with a stream that real sealing NameNodes (child JVMs) shipped across
 * restarts: a SIGTERM stop and a start again while the NameNode is still in its chain's first file (the start
 * sends that file's seals again, the chain's first seal among them), more records over several rotations, a
 * kill -9, a start again, and a SIGTERM stop; the last start, and a second NameNode that ships once to the same
 * topic, with the records' headers in the compact form ({@code nnaudit.kafka.headers=compact}), so that the topic
 * holds both forms and the attacks fall on both. Each test reads the
 * topic --from a time, or changes a copy of it as a writer to the topic could (records and seals planted, moved,
 * removed, replayed, spliced), and holds verify-stream's exit code to what docs/kafka.md says.
 */
class VerifyStreamAttackTest {
  static final String TOPIC = "audit";
  static final int PARTITIONS = 3;
  static final String S1 = "ns1/nn1";
  static final int INTERVAL = 10;

  @TempDir
  static Path dir;
  static KafkaTestBroker broker;
  static SealKeys.KeyFiles key1;
  static SealKeys.KeyFiles key2;
  static String source2;
  static int size;
  /** The epochs of S1's starts, in order. */
  static final List<Long> epochs = new ArrayList<>();
  private static int copies;

  @BeforeAll
  static void ship() throws Exception {
    broker = new KafkaTestBroker(dir.resolve("broker")).start();
    broker.createTopic(TOPIC, PARTITIONS);
    key1 = SealKeys.ec(dir.resolve("keys1"));
    key2 = SealKeys.ec(dir.resolve("keys2"));
    for (int i = 2; source2 == null; i++) {
      if (SealedStream.partition("ns" + i + "/nn1") != SealedStream.partition(S1)) {
        source2 = "ns" + i + "/nn1";
      }
    }
    File base1 = dir.resolve("nn1").toFile();
    File audits1 = new File(base1, "audit");
    // run 1: a fresh NameNode, a few records, stopped (SIGTERM) while still in its chain's first file
    try (ShippingNameNodeProcess nn = start(base1, audits1, true, key1, S1)) {
      nn.mkdirs("/r1", 20);
      nn.awaitShipped(120_000);
      nn.stop();
    }
    // run 2: started again in the same first file (its seals sent again), then rotations; killed (kill -9)
    try (ShippingNameNodeProcess nn = start(base1, audits1, false, key1, S1)) {
      nn.mkdirs("/r2", 20);
      nn.awaitShipped(120_000);
      nn.mkdirs("/r2b", 150);
      nn.awaitShipped(120_000);
      nn.kill();
    }
    // run 3: started again after the kill, in the compact form, a few records, stopped (SIGTERM)
    try (ShippingNameNodeProcess nn = start(base1, audits1, false, key1, S1, "compact")) {
      nn.mkdirs("/r3", 30);
      nn.awaitShipped(120_000);
      nn.stop();
    }
    File base2 = dir.resolve("nn2").toFile();
    try (ShippingNameNodeProcess nn = start(base2, new File(base2, "audit"), true, key2, source2, "compact")) {
      nn.mkdirs("/s", 40);
      nn.awaitShipped(120_000);
      nn.stop();
    }
    List<CopiedRecord> all = TopicCopy.read(broker, TOPIC, 1);
    size = all.size();
    assertTrue(all.stream().anyMatch(c -> S1.equals(c.source()) && c.isCompact())
        && all.stream().anyMatch(c -> S1.equals(c.source()) && !c.isCompact())
        && all.stream().allMatch(c -> !source2.equals(c.source()) || c.isCompact()), "the forms as started");
    for (CopiedRecord c : all) {
      if (S1.equals(c.source())) {
        long e = Long.parseLong(c.header(ShipHeaders.EPOCH));
        if (!epochs.contains(e)) {
          epochs.add(e);
        }
      }
    }
    dump(all);
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  private static ShippingNameNodeProcess start(File base, File audits, boolean format, SealKeys.KeyFiles key,
      String source) throws Exception {
    return start(base, audits, format, key, source, "named");
  }

  private static ShippingNameNodeProcess start(File base, File audits, boolean format, SealKeys.KeyFiles key,
      String source, String headers) throws Exception {
    return ShippingNameNodeProcess.startSealed(base, audits, broker.bootstrapServers(), TOPIC, format, source,
        key.keystore.toFile(), INTERVAL, headers, 180_000);
  }

  private static void dump(List<CopiedRecord> all) {
    StringBuilder b = new StringBuilder("the stream of " + S1 + ":\n");
    for (CopiedRecord c : all) {
      if (!S1.equals(c.source())) {
        continue;
      }
      b.append("  ").append(c.partition).append(" ts=").append(c.timestamp).append(" ep=")
          .append(epochs.indexOf(Long.parseLong(c.header(ShipHeaders.EPOCH)))).append(" ").append(c);
      if (ShipHeaders.SEAL.equals(c.type())) {
        Seal s = Seal.parse(c.text());
        b.append(" seal=").append(s.number).append(" ").append(s.kind.text()).append(" ").append(s.from).append("-")
            .append(s.to).append(" file=").append(s.file).append(s.prev.equals(Seal.GENESIS) ? " GENESIS" : "");
      }
      b.append('\n');
    }
    System.out.println(b);
  }

  // ------------------------------------------------------------------ the stream as shipped

  @Test
  void theShippedStreamVerifies() throws Exception {
    VerifyStreamRun r = verify(TOPIC);
    assertFalse(r.output.contains("TAMPERED"), r.output);
    assertEquals(0, r.code, r.output);
  }

  /**
   * Reads --from the time of each of the first records of S1 that the second start sent (the seals of the file
   * it resumed in, sent again, the first of them its chain's first seal, an open seal over no bytes with prev all
   * zeros): the stream is as shipped, so nothing is a change. The read that begins at that first seal finds the
   * file's next seal sent again, over records sent before the read's start.
   */
  @Test
  void readFromTheSecondStartsResendIsNoChange() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, TOPIC, size);
    Set<Long> times = new LinkedHashSet<>();
    for (CopiedRecord c : all) {
      if (S1.equals(c.source()) && Long.parseLong(c.header(ShipHeaders.EPOCH)) == epochs.get(1)) {
        times.add(c.timestamp);
        if (times.size() >= 6) {
          break;
        }
      }
    }
    List<String> wrong = new ArrayList<>();
    for (long t : times) {
      VerifyStreamRun r = verify(TOPIC, "--source", S1, "--from", Instant.ofEpochMilli(t).toString());
      if (r.code == 1 || r.output.contains("TAMPERED")) {
        wrong.add("--from " + Instant.ofEpochMilli(t) + " -> " + r.code + "\n" + r.output);
      }
    }
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  /** Reads --from the time of every record of S1 of the stream as shipped: nothing is a change. */
  @Test
  void readFromAnyTimeOfTheStreamIsNoChange() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, TOPIC, size);
    Set<Long> times = new LinkedHashSet<>();
    for (CopiedRecord c : all) {
      if (S1.equals(c.source())) {
        times.add(c.timestamp);
      }
    }
    List<String> wrong = new ArrayList<>();
    int n = 0;
    for (long t : times) {
      if (n++ % 3 != 0) {
        continue;
      }
      VerifyStreamRun r = verify(TOPIC, "--source", S1, "--from", Instant.ofEpochMilli(t).toString(),
          "--accept-late");
      if (r.code == 1 || r.output.contains("TAMPERED")) {
        wrong.add("--from " + Instant.ofEpochMilli(t) + " -> " + r.code + ": " + r.output.split("\n")[0]);
      }
    }
    assertTrue(wrong.isEmpty(), wrong.size() + " reads of " + times.size() / 3 + ":\n" + String.join("\n", wrong));
  }

  // ------------------------------------------------------------------ removed, replayed, appended

  /**
   * A source bound to its certificate (--cert NS/NN=CERT) whose records are all gone from the topic (deleted, or
   * moved under another key): docs/kafka.md gives exit 2 for "a source with no seal, or no record at all".
   */
  @Test
  void aSourceBoundToItsCertificateWithNoRecordLeftIsNotVerified() throws Exception {
    String topic = copy(all -> {
      all.removeIf(c -> S1.equals(c.source()));
      return all;
    });
    VerifyStreamRun r = VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic", topic, "--cert",
        S1 + "=" + key1.certificate, "--cert", source2 + "=" + key2.certificate, "--timeout", "30"));
    assertEquals(2, r.code, r.output);
    assertTrue(r.output.contains("NOT VERIFIED: " + S1 + ": no record of the source in the topic"), r.output);
  }

  /**
   * Retention took the older part of S1's partition (its chain's first seals among it); a writer to the topic
   * who kept a copy appends S1's first file again, its chain's first seal and seals included, as a new file after
   * the stream's last: records and seals replayed, of the very trail the stream is in, numbered from 1 again.
   */
  @Test
  void theChainsFirstSealsReplayedAfterRetentionAreAChange() throws Exception {
    String topic = copy(all -> {
      List<CopiedRecord> head = new ArrayList<>();
      for (CopiedRecord c : all) { // the first start's records and seals, up to its last seal
        if (S1.equals(c.source()) && epoch(c) == 0) {
          head.add(new CopiedRecord(c));
        }
      }
      int keepFrom = sealIndex(all, 16, 1); // retention: S1's partition from the first seal of file 1 on
      List<CopiedRecord> out = new ArrayList<>();
      for (int k = 0; k < all.size(); k++) {
        if (k >= keepFrom || all.get(k).partition != all.get(keepFrom).partition) {
          out.add(all.get(k));
        }
      }
      int last = lastOf(out, S1);
      CopiedRecord end = lastRecord(out, S1);
      long file = end.file();
      CopiedRecord fileEnd = new CopiedRecord(end).header(ShipHeaders.TYPE, ShipHeaders.FILE_END)
          .header(ShipHeaders.OFFSET, Long.toString(end.offset() + end.value.length + 1));
      fileEnd.value = new byte[0];
      List<CopiedRecord> replay = new ArrayList<>();
      replay.add(fileEnd);
      for (CopiedRecord c : head) {
        replay.add(c.header(ShipHeaders.FILE, Long.toString(file + 1)));
      }
      out.addAll(last + 1, replay);
      return out;
    });
    VerifyStreamRun r = verify(topic, "--source", S1);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("begins the chain of trail"), r.output);
  }

  /**
   * Records appended after the last records of a NameNode stopped by SIGTERM. Its stop shipped the file's close
   * seal before the JVM halted, so they are records after a close seal.
   */
  @Test
  void recordsAppendedAfterAStoppedNameNodesCloseSealAreInserted() throws Exception {
    String topic = copy(all -> appendForged(all, S1, 3));
    VerifyStreamRun r = verify(topic, "--source", S1);
    assertEquals(1, r.code, r.output);
    assertTrue(r.output.contains("records inserted: 3 record(s) after seal"), r.output);
    assertTrue(r.output.contains("which closed the file (close)"), r.output);
  }

  // ------------------------------------------------------------------ planted, moved, spliced

  /** Run 1's seal 4, sent again after the last start under the stream's current file: a replay. */
  @Test
  void anEarlierRunsSealReplayedInTheLastRunIsAChange() throws Exception {
    String topic = copy(all -> {
      CopiedRecord s = new CopiedRecord(all.get(sealIndex(all, 4, 0)));
      s.header(ShipHeaders.FILE, Long.toString(lastRecord(all, S1).file()));
      all.add(lastOf(all, S1) + 1, s);
      return all;
    });
    assertEquals(1, verify(topic, "--source", S1).code);
  }

  /** The chain's first seal, as the second start sent it again, put under the last file. */
  @Test
  void theResentFirstSealPutInALaterFileIsAChange() throws Exception {
    String topic = copy(all -> {
      CopiedRecord s = new CopiedRecord(all.get(sealIndex(all, 1, 1)));
      s.header(ShipHeaders.FILE, Long.toString(lastRecord(all, S1).file() + 1));
      CopiedRecord end = lastRecord(all, S1);
      CopiedRecord fileEnd = new CopiedRecord(end).header(ShipHeaders.TYPE, ShipHeaders.FILE_END)
          .header(ShipHeaders.OFFSET, Long.toString(end.offset() + end.value.length + 1));
      fileEnd.value = new byte[0];
      int at = lastOf(all, S1) + 1;
      all.add(at, s);
      all.add(at, fileEnd);
      return all;
    });
    assertEquals(1, verify(topic, "--source", S1).code);
  }

  /** File 0's file-end removed (file 1's records then follow file 0's). */
  @Test
  void aDroppedFileEndIsAChange() throws Exception {
    String topic = copy(all -> {
      all.remove(nth(all, S1, ShipHeaders.FILE_END, 1));
      return all;
    });
    assertEquals(1, verify(topic, "--source", S1).code);
  }

  /** The second start's resume seal moved after three of its records: records after the close came first. */
  @Test
  void theResumeSealMovedAfterTheRestartsRecordsIsAChange() throws Exception {
    String topic = copy(all -> {
      int i = sealIndex(all, 6, 1);
      CopiedRecord resume = all.remove(i);
      int seen = 0;
      int k = i;
      while (seen < 3) {
        if (all.get(k).is(S1, ShipHeaders.RECORD)) {
          seen++;
        }
        k++;
      }
      all.add(k, resume);
      return all;
    });
    assertEquals(1, verify(topic, "--source", S1).code);
  }

  /**
   * The first run's close seal removed, both as its stop sent it and as the second start sent it again: the resume
   * seal's prev names it.
   */
  @Test
  void theCloseSealRemovedIsAChange() throws Exception {
    String topic = copy(all -> {
      all.remove(sealIndex(all, 5, 1));
      all.remove(sealIndex(all, 5, 0));
      return all;
    });
    assertEquals(1, verify(topic, "--source", S1).code);
  }

  /** Two runs spliced: the third start's records replaced by the second start's first records, renumbered. */
  @Test
  void twoRunsSplicedAreAChange() throws Exception {
    String topic = copy(all -> {
      int resume3 = sealIndex(all, 29, 2);
      List<CopiedRecord> run2 = new ArrayList<>();
      for (int k = sealIndex(all, 6, 1) + 1; run2.size() < 10; k++) {
        if (all.get(k).is(S1, ShipHeaders.RECORD)) {
          run2.add(all.get(k));
        }
      }
      long at = Seal.parse(all.get(resume3).text()).to;
      long file = all.get(resume3).file();
      int k = resume3 + 1;
      for (CopiedRecord c : run2) {
        while (!all.get(k).is(S1, ShipHeaders.RECORD)) {
          k++;
        }
        CopiedRecord x = new CopiedRecord(c).header(ShipHeaders.FILE, Long.toString(file))
            .header(ShipHeaders.OFFSET, Long.toString(at));
        at += c.value.length + 1;
        all.set(k, x);
        k++;
      }
      return all;
    });
    assertEquals(1, verify(topic, "--source", S1).code);
  }

  /**
   * The other source's first seal put before S1's first record read (a read --from the second start's resend
   * of file 0's seals): with each source bound to its key, a seal S1 never signed.
   */
  @Test
  void anotherSourcesSealPutBeforeTheReadsStartIsAChangeWithBoundKeys() throws Exception {
    long[] from = new long[1];
    String topic = copy(all -> {
      int resume = sealIndex(all, 6, 1);
      from[0] = all.get(resume).timestamp;
      CopiedRecord theirs = new CopiedRecord(all.get(nth(all, source2, ShipHeaders.SEAL, 1)));
      theirs.key = S1.getBytes(StandardCharsets.UTF_8);
      theirs.header(ShipHeaders.SOURCE, S1).header(ShipHeaders.FILE, "0");
      theirs.partition = all.get(resume).partition;
      theirs.timestamp = all.get(resume + 5).timestamp;
      all.add(resume + 5, theirs);
      return all;
    });
    VerifyStreamRun bound = VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic", topic,
        "--cert", S1 + "=" + key1.certificate, "--cert", source2 + "=" + key2.certificate, "--timeout", "30",
        "--source", S1, "--from", Instant.ofEpochMilli(from[0]).toString()));
    assertEquals(1, bound.code, bound.output);
  }

  // ------------------------------------------------------------------ helpers

  static VerifyStreamRun verify(String topic, String... extra) {
    List<String> args = new ArrayList<>(List.of("--bootstrap", broker.bootstrapServers(), "--topic", topic,
        "--cert", key1.certificate.toString(), "--cert", key2.certificate.toString(), "--timeout", "30"));
    args.addAll(List.of(extra));
    return VerifyStreamRun.of(args);
  }

  static String copy(UnaryOperator<List<CopiedRecord>> change) throws Exception {
    String topic = "copy-" + (++copies);
    TopicCopy.copy(broker, TOPIC, topic, PARTITIONS, size, change);
    return topic;
  }



  static long epoch(CopiedRecord c) {
    return epochs.indexOf(Long.parseLong(c.header(ShipHeaders.EPOCH)));
  }

  /** The index of S1's seal numbered {@code number} as the start numbered {@code epoch} (from 0) sent it. */
  static int sealIndex(List<CopiedRecord> all, long number, int epoch) {
    for (int i = 0; i < all.size(); i++) {
      CopiedRecord c = all.get(i);
      if (c.is(S1, ShipHeaders.SEAL) && epoch(c) == epoch && Seal.parse(c.text()).number == number) {
        return i;
      }
    }
    throw new AssertionError("no seal " + number + " of start " + epoch);
  }


}
