package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.ship.ShipStats;

/**
 * Bad shipping input never hangs the NameNode: a setting that cannot work stops start-up with a message naming
 * the key; a broker that is not there, a topic that does not exist or one the NameNode may not write to shows
 * as send errors in the metrics and a WARN, while every operation goes on at its usual speed and the records
 * wait in the file.
 */
class ShippingBadInputTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  private Configuration conf(String servers, String topic) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("audit.log").toString());
    c.set(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, servers);
    c.set(NnauditConfigKeys.KAFKA_TOPIC_KEY, topic);
    return c;
  }

  private static String refusal(Configuration c) {
    return assertThrows(IllegalArgumentException.class, () -> NnauditSettings.fromConf(c)).getMessage();
  }

  @Test
  void settingsThatCannotWorkAreRefusedNamingTheKey() {
    assertEquals("nnaudit: invalid value for nnaudit.kafka.bootstrap.servers: 'no-such-host.invalid:9092'. "
        + "Allowed: a comma-separated list of host:port of Kafka brokers whose host names resolve (No resolvable "
        + "bootstrap urls given in bootstrap.servers).", refusal(conf("no-such-host.invalid:9092", "audit")));
    assertTrue(refusal(conf("", "audit")).startsWith("nnaudit: invalid value for nnaudit.kafka.bootstrap.servers: "
        + "''. Allowed: a comma-separated list of host:port of Kafka brokers; it is required when nnaudit.kafka.topic "
        + "is set"));
    assertTrue(refusal(conf("127.0.0.1:9092", "")).startsWith("nnaudit: invalid value for nnaudit.kafka.topic: ''"));
    assertTrue(refusal(conf("127.0.0.1:9092", "a/b")).startsWith("nnaudit: invalid value for nnaudit.kafka.topic: "
        + "'a/b'. Allowed: a Kafka topic name"));
    Configuration acks = conf("127.0.0.1:9092", "audit");
    acks.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "acks", "1");
    assertTrue(refusal(acks).startsWith("nnaudit: invalid value for nnaudit.kafka.producer.acks: '1'. Allowed: not "
        + "set: nnaudit sets acks itself"), refusal(acks));
    Configuration inFlight = conf("127.0.0.1:9092", "audit");
    inFlight.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "max.in.flight.requests.per.connection", "10");
    assertTrue(refusal(inFlight).contains("Allowed: 1 to 5"), refusal(inFlight));
    Configuration zstd = conf("127.0.0.1:9092", "audit");
    zstd.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "compression.type", "zstd");
    assertTrue(refusal(zstd).contains("Allowed: none, gzip or lz4"), refusal(zstd));
    Configuration typo = conf("127.0.0.1:9092", "audit");
    typo.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "lingr.ms", "5");
    assertTrue(refusal(typo).startsWith("nnaudit: invalid value for nnaudit.kafka.producer.lingr.ms: '5'. Allowed: "
        + "the name of a Kafka producer property"), refusal(typo));
    Configuration otherSink = conf("127.0.0.1:9092", "audit");
    otherSink.set(NnauditConfigKeys.SINK_KEY, NotAFileSink.class.getName());
    assertTrue(refusal(otherSink).contains("no shipping while nnaudit.sink is not file"), refusal(otherSink));
  }

  @Test
  void anUnresolvableBrokerStopsTheNameNodeAtStartUpWithTheMessage() {
    Configuration c = ShippingCluster.conf(dir.toFile(), dir.resolve("audit").toFile(), false,
        "no-such-host.invalid:9092", "audit");
    Throwable t = assertThrows(Throwable.class,
        () -> new MiniDFSCluster.Builder(c).numDataNodes(0).build().shutdown());
    StringBuilder chain = new StringBuilder();
    for (Throwable e = t; e != null; e = e.getCause()) {
      chain.append(e.getMessage()).append('\n');
    }
    assertTrue(chain.toString().contains("nnaudit: invalid value for nnaudit.kafka.bootstrap.servers: "
        + "'no-such-host.invalid:9092'"), chain.toString());
  }

  @Test
  void noBrokerAtTheAddressShowsAsSendErrorsAndNeverSlowsAnOperation() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    Configuration c = ShippingCluster.conf(dir.toFile(), dir.resolve("audit").toFile(), false, "127.0.0.1:" + port,
        "audit");
    LogCapturer warnings = LogCapturer.captureLogs(LoggerFactory.getLogger(KafkaShipper.class));
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(c).numDataNodes(0).build();
    try {
      cluster.waitActive();
      loadWaitsInTheFile(cluster, warnings, "no broker at 127.0.0.1:" + port + " has answered");
    } finally {
      long t0 = System.nanoTime();
      cluster.shutdown();
      QueuedAuditLogger.closeAll(10_000);
      long stopMs = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(stopMs < 20_000, "stopping took " + stopMs + " ms");
    }
  }

  @Test
  void aMissingTopicShowsAsSendErrorsUntilItIsCreatedThenEverythingIsShipped() throws Exception {
    KafkaTestBroker broker = kafka.broker();
    LogCapturer warnings = LogCapturer.captureLogs(LoggerFactory.getLogger(KafkaShipper.class));
    MiniDFSCluster cluster = kafka.start(kafka.conf("not-yet"));
    QueuedAuditLogger logger = loadWaitsInTheFile(cluster, warnings, "Topic not-yet not present in metadata");
    assertTrue(warnings.getOutput().contains("the brokers answer, but topic not-yet is not in their metadata"),
        "the WARN names the cause: " + warnings.getOutput());
    broker.createTopic("not-yet", 1);
    ShippingCluster.awaitShipped(logger, 60_000);
    kafka.stopCluster();
    List<String> local = TrailCheck.localLines(new File(kafka.audits(), "audit.log"));
    TrailCheck.of(ShippedRecord.of(broker.readAll("not-yet", local.size(), Duration.ofSeconds(30))), "ns1/nn1")
        .assertLines(local, "once the topic exists, everything waiting is shipped");
  }

  @Test
  void anUnauthorizedTopicShowsAsSendErrorsAndAWarnAndNeverSlowsAnOperation() throws Exception {
    KafkaTestBroker broker = kafka.brokerWithAcls();
    broker.createTopic("forbidden", 1);
    broker.denyWrites("forbidden");
    LogCapturer warnings = LogCapturer.captureLogs(LoggerFactory.getLogger(KafkaShipper.class));
    loadWaitsInTheFile(kafka.start(kafka.conf("forbidden")), warnings, "TopicAuthorizationException");
  }

  /**
   * 300 mkdirs, none slowed by Kafka, whose records wait in the file: send errors counted, nothing shipped, the
   * lag showing them, and (when {@code warnings} is given) a WARN containing {@code why}.
   */
  private static QueuedAuditLogger loadWaitsInTheFile(MiniDFSCluster cluster, LogCapturer warnings, String why)
      throws Exception {
    QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
    long worst = timedMkdirs(cluster.getFileSystem(), 300);
    // A wait for the topic's metadata counts as an error once it has lasted 30 s (the shipper's bound).
    ShippingCluster.await("send errors", 60_000, () -> logger.pipeline().shipStats().sendErrors > 0);
    if (warnings != null) {
      ShippingCluster.await("a WARN saying " + why, 60_000, () -> warnings.getOutput().contains(why));
    }
    ShippingCluster.await("the lag to show the 300 records waiting", 30_000,
        () -> logger.pipeline().shipStats().lagBytes >= 300 * 100);
    ShipStats s = logger.pipeline().shipStats();
    assertEquals(0, s.shippedRecords, s.toString());
    assertTrue(s.lagRecords >= 200, "an estimate from the bytes: " + s);
    assertTrue(worst < 1500, "an operation took " + worst + " ms");
    return logger;
  }

  /** Runs {@code n} mkdirs and returns the slowest, in ms. */
  private static long timedMkdirs(FileSystem fs, int n) throws Exception {
    long worst = 0;
    for (int i = 0; i < n; i++) {
      long t = System.nanoTime();
      fs.mkdirs(new org.apache.hadoop.fs.Path("/d" + i));
      worst = Math.max(worst, (System.nanoTime() - t) / 1_000_000);
    }
    return worst;
  }
}
