package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * Two NameNodes shipping to a topic of one partition: the offsets of the partition before the read's start are
 * shared by both sources, so the records the first seals of both sealed, not read, must fit in them together.
 */
class VerifyStreamSharedPartitionTest {
  static final String TOPIC = "shared";
  static final String S1 = "ns1/nn1";
  static final String S2 = "ns2/nn1";
  static final int INTERVAL = 10;

  @TempDir
  static Path dir;
  static KafkaTestBroker broker;
  static SealKeys.KeyFiles key1;
  static SealKeys.KeyFiles key2;
  static int size;
  private static int copies;

  @BeforeAll
  static void ship() throws Exception {
    broker = new KafkaTestBroker(dir.resolve("broker")).start();
    broker.createTopic(TOPIC, 1);
    key1 = SealKeys.ec(dir.resolve("keys1"));
    key2 = SealKeys.ec(dir.resolve("keys2"));
    File base1 = dir.resolve("nn1").toFile();
    try (ShippingNameNodeProcess nn = ShippingNameNodeProcess.startSealed(base1, new File(base1, "audit"),
        broker.bootstrapServers(), TOPIC, true, S1, key1.keystore.toFile(), INTERVAL, 180_000)) {
      nn.mkdirs("/a", 20);
      nn.awaitShipped(120_000);
      nn.stop();
    }
    File base2 = dir.resolve("nn2").toFile();
    try (ShippingNameNodeProcess nn = ShippingNameNodeProcess.startSealed(base2, new File(base2, "audit"),
        broker.bootstrapServers(), TOPIC, true, S2, key2.keystore.toFile(), INTERVAL, 180_000)) {
      nn.mkdirs("/b", 20);
      nn.awaitShipped(120_000);
      nn.stop();
    }
    size = TopicCopy.read(broker, TOPIC, 1).size();
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /**
   * Ten offsets of no source's put at the partition's start and deleted with delete-records (as retention
   * would), and the first 8 records after each source's chain's first seal removed: 16 records that cannot have
   * been in the 10 offsets before the read. One source's 8 alone could have been.
   */
  @Test
  void recordsDeletedAfterBothSourcesFirstSealsMustFitTheDeletedOffsetsTogether() throws Exception {
    List<CopiedRecord> all = TopicCopy.read(broker, TOPIC, size);
    VerifyStreamRun genuine = verify(TOPIC);
    System.out.println("genuine:\n" + genuine.output);

    List<CopiedRecord> one = edited(all, 10, S1);
    VerifyStreamRun r1 = verify(copy(one));
    System.out.println("one source, 8 of 10:\n" + r1.output);
    assertEquals(genuine.code, r1.code, r1.output);

    List<CopiedRecord> both = edited(all, 10, S1, S2);
    VerifyStreamRun r2 = verify(copy(both));
    System.out.println("both sources, 16 of 10:\n" + r2.output);
    assertFalse(r2.output.contains("TAMPERED"), r2.output);
    assertEquals(2, r2.code, r2.output);
    assertTrue(r2.output.contains("they were not in this topic before the read"), r2.output);
  }

  /** {@code junk} records deleted from the start, then the first 8 records after each source's first seal removed. */
  private static List<CopiedRecord> edited(List<CopiedRecord> all, int junk, String... sources) {
    List<CopiedRecord> out = new ArrayList<>(all);
    for (String s : sources) {
      int g = -1;
      for (int i = 0; i < out.size() && g < 0; i++) {
        if (out.get(i).is(s, ShipHeaders.SEAL)) {
          g = i;
        }
      }
      assertEquals(Seal.GENESIS, Seal.parse(out.get(g).text()).prev);
      int removed = 0;
      for (int i = g + 1; i < out.size() && removed < 8; ) {
        if (out.get(i).is(s, ShipHeaders.RECORD)) {
          out.remove(i);
          removed++;
        } else {
          i++;
        }
      }
      assertEquals(8, removed);
    }
    for (int i = 0; i < junk; i++) {
      CopiedRecord j = new CopiedRecord(all.get(0));
      j.key = "junk".getBytes(StandardCharsets.UTF_8);
      j.header(ShipHeaders.SOURCE, "junk");
      j.deletedFromStart = true;
      out.add(0, j);
    }
    return out;
  }

  private static String copy(List<CopiedRecord> records) throws Exception {
    String topic = "copy" + (++copies);
    TopicCopy.write(broker, topic, 1, records);
    return topic;
  }

  private static VerifyStreamRun verify(String topic) throws Exception {
    return VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic", topic, "--cert",
        key1.certificate.toString(), "--cert", key2.certificate.toString(), "--timeout", "30"));
  }
}
