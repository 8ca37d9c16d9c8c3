package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.kafka.verify.VerifyStreamCommand;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Verification;

/**
 * A sealing NameNode ships its seals with its records: every seal line of every digest (rotated files' included,
 * across a restart) is in the topic as a seal record, after the records it covers, which hash as it says;
 * the sink's latest seal reaches the topic while the NameNode runs; and the last seal of the topic anchors
 * {@code nnaudit verify} on the host's files, which fails once a seal is taken off them. Sends that fail (a hung
 * broker) and are made again from the last acknowledged record lose no seal and put none out of place.
 */
class SealShippingTest {
  private static final String TOPIC = "audit";
  private static final String SOURCE = "ns1/nn1";

  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  /**
   * {@code first}, {@code second}: {@code nnaudit.kafka.headers} of the first start and of the second, and
   * {@code firstLines}, {@code secondLines}: their {@code nnaudit.kafka.record.lines}; an operator may change
   * either at a restart, and the topic then holds both forms, or lines alone and together.
   */
  @ParameterizedTest(name = "nnaudit.kafka.headers={0}, then {1}; record.lines={2}, then {3}")
  @CsvSource({"named,named,1,1", "compact,compact,1,1", "named,compact,1,1", "compact,compact,64,64",
      "named,named,64,1"})
  void everySealReachesTheTopicAfterItsRecordsAndAnchorsTheTrail(String first, String second, int firstLines,
      int secondLines) throws Exception {
    SealKeys.KeyFiles key = SealKeys.ec(dir.resolve("keys"));
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic(TOPIC, 3);
    File audits = kafka.audits();
    Configuration conf = kafka.conf(TOPIC);
    conf.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 25); // several seals in each 16 KiB file
    conf.set(NnauditConfigKeys.KAFKA_HEADERS_KEY, first);
    conf.setInt(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, firstLines);
    SealKeys.enable(conf, key, dir);
    MiniDFSCluster cluster = kafka.start(conf);
    FileSystem fs = cluster.getFileSystem();
    ShippingCluster.mkdirs(fs, "/a", 0, 1000);
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    ShippingCluster.awaitShipped(logger, 60_000);
    // The sink's latest seal (the LatestSealHash metric) reaches the topic while the NameNode runs.
    String latest = logger.pipeline().stats().latestSealHash;
    assertEquals(64, latest.length(), "a seal was written: " + latest);
    ShippingCluster.await("the latest seal " + latest + " in the topic", 60_000,
        () -> sealHashes(broker, 0).contains(latest));

    cluster.shutdownNameNode(0);
    QueuedAuditLogger.closeAll(10_000); // the sink's last seal, then the shipper's stop
    cluster.getConfiguration(0).set(NnauditConfigKeys.KAFKA_HEADERS_KEY, second);
    cluster.getConfiguration(0).setInt(NnauditConfigKeys.KAFKA_RECORD_LINES_KEY, secondLines);
    cluster.restartNameNode(0);
    cluster.waitActive();
    fs = cluster.getFileSystem();
    ShippingCluster.mkdirs(fs, "/b", 0, 300);
    ShippingCluster.awaitShipped(ShippingCluster.logger(cluster.getNamesystem()), 60_000);
    kafka.stopCluster();

    File live = new File(audits, "audit.log");
    List<String> localSeals = localSeals(live);
    assertTrue(new File(live.getPath() + ".5").exists(), "the test rotated several times");
    TrailCheck c = checkTopic(broker, live, key);
    assertEquals(2, c.epochs.size(), "two starts");
    int[] together = new int[2];
    for (ShippedRecord r : ShippedRecord.of(TopicCheck.readAll(broker.bootstrapServers(), TOPIC))) {
      int start = r.epoch == c.epochs.get(0) ? 0 : 1;
      String form = start == 0 ? first : second;
      assertEquals(form.equals("compact"), r.compactForm, "each start ships in its form: " + r);
      assertTrue(r.linesInRecord <= (start == 0 ? firstLines : secondLines), "at most record.lines a record: " + r);
      together[start] += r.linesInRecord > 1 ? 1 : 0;
    }
    assertEquals(firstLines > 1, together[0] > 0, "the first start sends lines together if asked to");
    assertEquals(secondLines > 1, together[1] > 0, "the second start sends lines together if asked to");
    assertEquals(0, c.gaps);

    // The last seal of the topic is the sink's latest: an auditor anchors the host's trail with its hash.
    String lastLocal = localSeals.get(localSeals.size() - 1);
    assertEquals(lastLocal, Files.readAllLines(TrailNames.digest(live.toPath()), StandardCharsets.UTF_8)
        .stream().reduce((a, b) -> b).orElse(""), "the live digest's last seal is the trail's last");
    String anchor = Seal.parse(c.seals.get(c.seals.size() - 1)).hash();
    assertEquals(Seal.parse(lastLocal).hash(), anchor);
    Verification.Run anchored = Verification.withCert(key, "--anchor", anchor, audits.getPath());
    assertFalse(anchored.output.isEmpty(), "verify prints its findings");
    assertEquals(0, anchored.code, "the host's trail holds the seal anchored off the host: " + anchored);

    // Someone rewrites the host's trail without its last seal: the anchor from the topic says so.
    Path liveDigest = TrailNames.digest(live.toPath());
    List<String> kept = Files.readAllLines(liveDigest, StandardCharsets.UTF_8);
    kept.remove(kept.size() - 1);
    Files.write(liveDigest, kept, StandardCharsets.UTF_8);
    Verification.Run rewritten = Verification.withCert(key, "--anchor", anchor, audits.getPath());
    assertFalse(rewritten.output.isEmpty(), "verify prints its findings");
    assertEquals(1, rewritten.code, "a trail without the anchored seal is reported changed: " + rewritten);
  }

  @Test
  void failedSendsMadeAgainLoseNoSealAndPutNoneOutOfPlace() throws Exception {
    SealKeys.KeyFiles key = SealKeys.ec(dir.resolve("keys"));
    KafkaTestBroker broker = kafka.broker();
    broker.createTopic(TOPIC, 1);
    Configuration conf = kafka.conf(TOPIC);
    conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "delivery.timeout.ms", "4000");
    conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "request.timeout.ms", "2000");
    conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "linger.ms", "5");
    conf.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 10);
    SealKeys.enable(conf, key, dir);
    MiniDFSCluster cluster = kafka.start(conf);
    FileSystem fs = cluster.getFileSystem();
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    ShippingCluster.mkdirs(fs, "/before", 0, 200);
    ShippingCluster.awaitShipped(logger, 60_000);
    broker.pause(); // hung: what is in flight fails after the delivery timeout and is sent again
    try {
      ShippingCluster.mkdirs(fs, "/during", 0, 300);
      ShippingCluster.await("sends to fail", 30_000, () -> logger.pipeline().shipStats().sendErrors > 0);
    } finally {
      broker.resume();
    }
    ShippingCluster.mkdirs(fs, "/after", 0, 200);
    ShippingCluster.awaitShipped(logger, 120_000);
    long sendErrors = logger.pipeline().shipStats().sendErrors;
    kafka.stopCluster();
    assertTrue(sendErrors > 0, "the resend path was taken");
    checkTopic(broker, new File(kafka.audits(), "audit.log"), key);
  }

  /** Every seal line of the digests of {@code live} and its backups, oldest first. */
  private static List<String> localSeals(File live) throws Exception {
    List<String> out = new ArrayList<>();
    for (File f : TrailCheck.localFiles(live)) {
      out.addAll(Files.readAllLines(TrailNames.digest(f.toPath()), StandardCharsets.UTF_8));
    }
    return out;
  }

  /**
   * Reads the topic back as a consumer does and checks that it holds every line and every seal of the local
   * files, each seal after the record its range ends with and over records that hash as it says; and that
   * {@code nnaudit verify-stream} verifies it, its anchor being the last local seal.
   */
  private static TrailCheck checkTopic(KafkaTestBroker broker, File live, SealKeys.KeyFiles key) throws Exception {
    List<String> local = TrailCheck.localLines(live);
    List<String> localSeals = localSeals(live);
    assertTrue(localSeals.size() > 40, "seals written: " + localSeals.size());
    List<ShippedRecord> shipped = ShippedRecord.of(TopicCheck.readAll(broker.bootstrapServers(), TOPIC));
    TrailCheck c = TrailCheck.of(shipped, SOURCE); // each seal after the record its range ends with
    c.assertLines(local, "every local line, in order");
    assertEquals(localSeals, c.seals, "every seal of every digest, in order, once a duplicate is dropped");
    assertEquals(c.seals.size(), c.sealsChecked, "every seal's range read from the topic hashes as it says");
    System.out.println("topic: " + c.lines.size() + " records, " + c.seals.size() + " seals, " + c.duplicates
        + " duplicates, " + c.fileEnds + " file ends");
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.PrintStream p = new java.io.PrintStream(out, true, StandardCharsets.UTF_8);
    int code = VerifyStreamCommand.run(new String[] {"--bootstrap", broker.bootstrapServers(), "--topic", TOPIC,
        "--cert", SOURCE + "=" + key.certificate}, p, p);
    String report = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, report);
    assertTrue(report.contains("verified: " + SOURCE + ": " + c.lines.size() + " records (" + c.lines.size()
        + " verified by " + c.seals.size() + " seals)"), report);
    assertTrue(report.contains("  last verified seal: " + Seal.parse(localSeals.get(localSeals.size() - 1)).hash()),
        report);
    return c;
  }

  /** The hashes of the seal records of the topic now, read from its beginning. */
  private static List<String> sealHashes(KafkaTestBroker broker, int expectedAtLeast) {
    List<String> out = new ArrayList<>();
    for (ShippedRecord r : ShippedRecord.of(broker.readAll(TOPIC, expectedAtLeast, Duration.ofSeconds(5)))) {
      if (ShipHeaders.SEAL.equals(r.type)) {
        out.add(Seal.parse(r.text()).hash());
      }
    }
    return out;
  }
}
