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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.RealNameNodeProcess;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.trail.TrailNames;

/**
 * A sealing NameNode (the stock NameNode main, in a JVM of its own) stopped by SIGTERM while clients keep calling
 * it ships, before its JVM halts, every record of its file (those handlers wrote themselves while it stopped too)
 * and the file's last seal, the {@code close} seal written in the last shutdown hook: verify-stream vouches for
 * the whole stream at once, without waiting for a next start, and records appended after the stream's end read
 * as records after a {@code close} seal. Three stops, the second and third after starts again in the same audit
 * file. With the broker away at the stop, the stop is bounded and what it left is shipped by the next start.
 * Hadoop's own hook shuts log4j down before nnaudit's last hook, so the shipper's last line is on standard error.
 */
class StopShipsCloseSealTest {
  private static final String TOPIC = "audit";
  private static final String SOURCE = "ns1/nn1";
  private static final int STOPS = 3;

  @TempDir
  Path dir;
  private KafkaTestBroker broker;
  private SealKeys.KeyFiles key;
  private File base;
  private File live;
  private Map<String, String> site;

  /** A broker with the topic, a key, and the settings of a NameNode under {@code dir/nn} that seals and ships. */
  @BeforeEach
  void startBroker() throws Exception {
    broker = new KafkaTestBroker(dir.resolve("broker")).start();
    broker.createTopic(TOPIC, 1);
    key = SealKeys.ec(dir.resolve("keys"));
    base = dir.resolve("nn").toFile();
    live = new File(base, "audit/audit.log");
    site = site(broker, key, dir.resolve("creds.jceks"));
  }

  @AfterEach
  void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void aStopUnderLoadShipsEveryRecordAndTheCloseSeal() throws Exception {
    List<String> verdicts = new ArrayList<>();
    long ackedInAll = 0;
    for (int stop = 1; stop <= STOPS; stop++) {
      Stopped st = stopUnderLoad(base, site, () -> { });
      long acked = st.acked;
      assertTrue(st.shipperLine.contains("every record of the file acknowledged"), "the last hook stopped the "
          + "shipper once everything was shipped:\n" + st.output);

      ackedInAll += acked;
      List<String> local = TrailCheck.localLines(live);
      assertTrue(local.size() >= ackedInAll, local.size() + " lines for " + ackedInAll + " acknowledged mkdirs");
      List<ShippedRecord> all = ShippedRecord.of(broker.readAll(TOPIC, local.size(),
          Duration.ofSeconds(30)));
      TrailCheck trail = TrailCheck.of(all, SOURCE);
      assertEquals(local, trail.lines, "every local line is in the topic, in order, once, as the JVM halted");
      String lastLocalSeal = last(Files.readAllLines(TrailNames.digest(live.toPath()), StandardCharsets.UTF_8));
      assertEquals(Seal.Kind.CLOSE, Seal.parse(lastLocalSeal).kind, "the file ends with its close seal");
      assertEquals(lastLocalSeal, last(trail.seals), "the stream's last seal is the file's close seal");
      ShippedRecord end = all.get(all.size() - 1);
      assertEquals(ShipHeaders.SEAL, end.type, "nothing of the source follows its close seal: " + end);

      VerifyStreamRun r = verify(broker, TOPIC, key);
      assertEquals(0, r.code, "stop " + stop + ": the stream verifies at once:\n" + r.output);
      assertFalse(r.output.contains("UNSEALED"), r.output);
      long flushSeals = trail.seals.stream().filter(s -> Seal.parse(s).kind == Seal.Kind.FLUSH).count();
      verdicts.add("stop " + stop + ": " + acked + " acknowledged, " + local.size() + " lines, "
          + trail.seals.size() + " seals in the stream (" + flushSeals + " of records handlers wrote themselves "
          + "while a NameNode stopped), verify-stream exit " + r.code);
    }

    String appended = "appended";
    int size = broker.readAll(TOPIC, 1, Duration.ofSeconds(30)).size();
    TopicCopy.copy(broker, TOPIC, appended, 1, size, all -> StreamEdits.appendForged(all, SOURCE, 3));
    VerifyStreamRun r = verify(broker, appended, key);
    assertEquals(1, r.code, "records after the close seal are inserted:\n" + r.output);
    assertTrue(r.output.contains("records inserted"), r.output);
    System.out.println("StopShipsCloseSealTest: " + String.join("; ", verdicts));
  }

  /**
   * The broker stopped just before the SIGTERM: the stop gives up within its bound, says on standard error how
   * many records it left, and the topic holds a prefix of the local lines, in order; with the broker back, the
   * next start and stop ship the rest and the close seal, and the stream verifies.
   */
  @Test
  void aStopWithTheBrokerAwayLeavesTheRestForTheNextStart() throws Exception {
    Stopped away = stopUnderLoad(base, site, () -> {
      try {
        broker.stop();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    assertTrue(away.stopMillis < 20_000, "the stop is bounded: " + away.stopMillis + " ms");
    assertTrue(away.shipperLine.contains("are left for the next start"), away.output);
    broker.start();
    List<String> local = TrailCheck.localLines(live);
    List<String> shipped = TrailCheck.of(ShippedRecord.of(broker.readAll(TOPIC, 1, Duration.ofSeconds(30))),
        SOURCE).lines;
    assertTrue(shipped.size() < local.size(), shipped.size() + " of " + local.size() + " lines shipped");
    assertEquals(local.subList(0, shipped.size()), shipped, "what was shipped is the file's beginning, in order");
    int linesAtStop = local.size();

    Stopped clean = stopUnderLoad(base, site, () -> { });
    assertTrue(clean.shipperLine.contains("every record of the file acknowledged"), clean.output);
    local = TrailCheck.localLines(live);
    TrailCheck trail = TrailCheck.of(ShippedRecord.of(broker.readAll(TOPIC, local.size(), Duration.ofSeconds(30))),
        SOURCE);
    assertEquals(local, trail.lines, "every local line, once, in order");
    VerifyStreamRun r = verify(broker, TOPIC, key);
    assertEquals(0, r.code, r.output);
    System.out.println("StopShipsCloseSealTest, broker away: the stop took " + away.stopMillis + " ms and shipped "
        + shipped.size() + " of " + linesAtStop + " lines; " + away.shipperLine.trim());
  }

  /** What a stop under load left: the acknowledged calls, how long the signal took, and the shipper's last line. */
  private static final class Stopped {
    long acked;
    long stopMillis;
    String output;
    String shipperLine;
  }

  /**
   * Starts the NameNode, loads it with 8 clients until 400 calls are acknowledged, runs {@code beforeSignal},
   * sends SIGTERM while the clients go on calling, and waits for the JVM's exit.
   */
  private static Stopped stopUnderLoad(File base, Map<String, String> site, Runnable beforeSignal)
      throws Exception {
    Stopped st = new Stopped();
    List<String> output;
    int status;
    try (RealNameNodeProcess nn = RealNameNodeProcess.start(base, site)) {
      try (PacedMkdirs load = new PacedMkdirs(nn.uri(), 8, 1)) {
        long deadline = System.currentTimeMillis() + 120_000;
        while (load.acked() < 400 && System.currentTimeMillis() < deadline) {
          Thread.sleep(20); // the poll interval of this bounded wait
        }
        assertTrue(load.acked() >= 400, "the load ran: " + load.acked() + " acknowledged");
        beforeSignal.run();
        long t0 = System.nanoTime();
        status = nn.sigterm();
        st.stopMillis = (System.nanoTime() - t0) / 1_000_000;
        st.acked = load.acked();
      }
      output = nn.output();
    }
    assertEquals(143, status, "stopped by the signal");
    st.output = String.join("\n", output);
    File live = new File(base, "audit/audit.log");
    st.shipperLine = output.stream().filter(l -> l.contains("nnaudit: stopped shipping " + live.getPath()
        + " as the NameNode stops")).findFirst().orElse("");
    return st;
  }

  /** Shipping to {@code broker}, sealing with {@code key} (its password in a JCEKS provider at {@code creds}). */
  private static Map<String, String> site(KafkaTestBroker broker, SealKeys.KeyFiles key, Path creds)
      throws Exception {
    Configuration c = new Configuration(false);
    c.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, "jceks://file" + creds.toAbsolutePath());
    CredentialProvider p = CredentialProviderFactory.getProviders(c).get(0);
    p.createCredentialEntry(NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY, SealKeys.PASSWORD.toCharArray());
    p.flush();
    Map<String, String> site = new LinkedHashMap<>();
    site.put(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH,
        c.get(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH));
    site.put(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "16k");
    site.put(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, "10000");
    site.put(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, broker.bootstrapServers());
    site.put(NnauditConfigKeys.KAFKA_TOPIC_KEY, TOPIC);
    site.put(NnauditConfigKeys.KAFKA_NAMESERVICE_ID_KEY, "ns1");
    site.put(NnauditConfigKeys.KAFKA_NAMENODE_ID_KEY, "nn1");
    site.put(NnauditConfigKeys.SEAL_ENABLED_KEY, "true");
    site.put(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, key.keystore.toString());
    site.put(NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY, "PKCS12");
    site.put(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, "50");
    site.put(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, "300");
    return site;
  }

  private static VerifyStreamRun verify(KafkaTestBroker broker, String topic, SealKeys.KeyFiles key) {
    return VerifyStreamRun.of(List.of("--bootstrap", broker.bootstrapServers(), "--topic", topic, "--cert",
        SOURCE + "=" + key.certificate, "--timeout", "30"));
  }

  private static String last(List<String> l) {
    assertFalse(l.isEmpty(), "nothing there");
    return l.get(l.size() - 1);
  }
}
