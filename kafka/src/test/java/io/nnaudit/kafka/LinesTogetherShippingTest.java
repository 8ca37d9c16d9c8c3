package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.ship.ShipStats;

/**
 * A NameNode sends its lines together ({@code nnaudit.kafka.record.lines}) to a topic that takes a batch of the
 * producer's {@code batch.size} and not much more ({@code max.message.bytes}), as any topic must for records sent
 * alone: a {@code records} record is never larger than a batch, so the topic takes every one; what a consumer
 * reads back, each {@code records} record split into its lines, is every line of the local files, in order.
 * And a sealing NameNode in a JVM of its own that sends its lines together, killed (kill -9) while shipping, then
 * started again sending them alone, then together again and stopped (SIGTERM): every line reaches the topic, the
 * lines the kill left unacknowledged sent again grouped otherwise, and verify-stream verifies the topic, whole
 * (but for the records the kill left for the next start to seal, SEALED LATE as docs/kafka.md says) and read from
 * any time.
 */
class LinesTogetherShippingTest {
  private static final int BATCH_BYTES = 16384;
  private static final int TOPIC_MAX_BYTES = 20000;

  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @Test
  void aRecordsRecordIsNeverLargerThanABatchSoATopicThatTakesBatchesTakesEveryOne() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("audit", 1, Collections.singletonMap("max.message.bytes", String.valueOf(TOPIC_MAX_BYTES)));
    Configuration conf = kafka.conf("audit");
    conf.setInt(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, 1024);
    conf.setInt(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "batch.size", BATCH_BYTES);
    conf.setLong(NnauditConfigKeys.KAFKA_POLL_INTERVAL_MS_KEY, 1000); // a second of lines read in each pass
    MiniDFSCluster cluster = kafka.start(conf);
    FileSystem fs = cluster.getFileSystem();
    ShippingCluster.mkdirs(fs, "/a", 0, 1500);
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    ShippingCluster.awaitShipped(logger, 120_000);
    ShipStats s = logger.pipeline().shipStats();
    kafka.stopCluster();
    assertEquals(0, s.sendErrors, "nothing refused: " + s);

    File live = new File(kafka.audits(), "audit.log");
    List<String> local = TrailCheck.localLines(live);
    List<ConsumerRecord<byte[], byte[]>> raw = TopicCheck.readAll(broker.bootstrapServers(), "audit");
    int largest = 0;
    for (ConsumerRecord<byte[], byte[]> r : raw) {
      largest = Math.max(largest, r.value().length);
    }
    assertTrue(largest <= BATCH_BYTES && largest > BATCH_BYTES / 2, "records of up to a batch: " + largest);
    int together = 0;
    List<ShippedRecord> shipped = ShippedRecord.of(raw);
    for (ShippedRecord r : shipped) {
      assertTrue(!ShipHeaders.RECORD_CUT.equals(r.type) && !ShipHeaders.GAP.equals(r.type), "none cut, no gap: " + r);
      together += r.part == 1 ? 1 : 0;
    }
    assertTrue(together > 10, "lines went together: " + together + " records of several lines");
    TrailCheck c = TrailCheck.of(shipped, "ns1/nn1");
    c.assertLines(local, "every local line, in order, nothing else");
    assertEquals(0, c.gaps);
    assertTrue(local.size() >= 1500, "lines: " + local.size());
  }

  @Test
  void aKilledShipperOfLinesTogetherLosesNoneAndItsStreamVerifiesWholeAndFromAnyTime() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("audit", 1);
    SealKeys.KeyFiles key = SealKeys.ec(dir.resolve("keys"));
    File base = dir.resolve("nn").toFile();
    File audits = new File(base, "audit");
    int[] lines = {64, 1, 64};
    for (int run = 0; run < lines.length; run++) {
      try (ShippingNameNodeProcess nn = ShippingNameNodeProcess.startSealed(base, audits, broker.bootstrapServers(),
          "audit", run == 0, "ns1/nn1", key.keystore.toFile(), 50, "compact", lines[run], 180_000)) {
        nn.mkdirs("/r" + run, 200);
        nn.awaitShipped(120_000);
        if (run == 0) {
          nn.mkdirs("/r0b", 400);
          nn.kill(); // while what was just written is read, sent and acknowledged
        } else {
          nn.stop();
        }
      }
    }
    List<ConsumerRecord<byte[], byte[]>> raw = TopicCheck.readAll(broker.bootstrapServers(), "audit");
    List<ShippedRecord> shipped = ShippedRecord.of(raw);
    TrailCheck c = TrailCheck.of(shipped, "ns1/nn1");
    c.assertLines(TrailCheck.localLines(new File(audits, "audit.log")), "every local line, in order");
    assertEquals(3, c.epochs.size(), "three starts");
    assertTrue(shipped.stream().anyMatch(r -> r.part > 0 && r.epoch == c.epochs.get(0))
        && shipped.stream().noneMatch(r -> r.part > 0 && r.epoch == c.epochs.get(1))
        && shipped.stream().anyMatch(r -> r.part > 0 && r.epoch == c.epochs.get(2)), "lines together as started");

    List<String> args = List.of("--bootstrap", broker.bootstrapServers(), "--topic", "audit", "--cert",
        key.certificate.toString(), "--timeout", "30");
    VerifyStreamRun whole = VerifyStreamRun.of(args); // the kill left records its run did not seal: SEALED LATE
    assertEquals(2, whole.code, whole.output);
    assertTrue(whole.output.contains("SEALED LATE") && !whole.output.contains("TAMPERED")
        && !whole.output.contains("UNSEALED") && !whole.output.contains("NOT VERIFIED"), whole.output);
    List<String> late = new java.util.ArrayList<>(args);
    late.add("--accept-late");
    VerifyStreamRun accepted = VerifyStreamRun.of(late);
    assertEquals(0, accepted.code, accepted.output);
    java.util.Set<Long> times = new java.util.TreeSet<>();
    raw.forEach(r -> times.add(r.timestamp()));
    List<String> wrong = new java.util.ArrayList<>();
    int n = 0;
    for (long t : times) {
      if (n++ % 7 != 0) {
        continue;
      }
      List<String> from = new java.util.ArrayList<>(args);
      from.addAll(List.of("--from", java.time.Instant.ofEpochMilli(t).toString(), "--accept-late"));
      VerifyStreamRun r = VerifyStreamRun.of(from);
      if (r.code == 1 || r.output.contains("TAMPERED")) {
        wrong.add("--from " + java.time.Instant.ofEpochMilli(t) + " -> " + r.code + ": " + r.output.split("\n")[0]);
      }
    }
    assertTrue(wrong.isEmpty(), wrong.size() + " reads of " + (times.size() + 6) / 7 + ":\n"
        + String.join("\n", wrong));
  }
}
