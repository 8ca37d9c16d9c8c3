package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.RepoRoot;
import io.nnaudit.TmpfsMount;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;

/**
 * The alerting rules ({@code conf/prometheus/nnaudit-alerts.yml}) and the dashboard
 * ({@code conf/grafana/nnaudit-dashboard.json}) against a real NameNode, a real broker and a real Prometheus.
 *
 * <p>A NameNode with every feature on (sealing, shipping to a test broker) audits to a small tmpfs and serves
 * {@code /prom}; Debian's Prometheus scrapes it every second and loads the rules. A paced load runs through three
 * phases: healthy, the audit disk full (really: the tmpfs filled to the last byte, then freed), and the broker
 * stopped. Then:
 * <ul>
 * <li>{@code promtool check rules} passes, and the Prometheus server loaded every rule;</li>
 * <li>every metric name the rules and the dashboard read is in the NameNode's {@code /prom}, so a renamed metric
 * fails here;</li>
 * <li>the series of the run, read back from Prometheus's own store, become the input of a promtool unit test,
 * which checks that at the end of the healthy phase no alert fires, at the end of the full disk the write, hold
 * and refusal alerts fire, and at the end of the outage the shipping alerts fire while the hold alert has
 * cleared. The alerts no fault here makes are unit-tested with series written by hand
 * ({@code conf/prometheus/nnaudit-alerts.test.yml}, also run here).</li>
 * </ul>
 * The recorded series of the dashboard's metrics are left in {@code target/prometheus-alerts/} as CSV, from which
 * {@code docs/dashboard/draw.py} draws the picture in the docs, with the NameNode's {@code /prom} as scraped at the
 * end of the healthy phase ({@code prom.txt}) and the promtool test file made from the run.
 */
class PrometheusAlertsTest {
  private static final long HEALTHY_MS = 20_000;
  private static final long DISK_FULL_MS = 40_000;
  private static final long RECOVERY_MS = 10_000;
  private static final long OUTAGE_MS = 45_000;
  private static final List<String> ALERTS = Arrays.asList("NnauditEventsDropped", "NnauditEventsAborted",
      "NnauditEventsFailed", "NnauditSinkErrors", "NnauditHoldingOperations", "NnauditQueueNearFull",
      "NnauditSealOverdue", "NnauditSealFailures", "NnauditShipLagHigh", "NnauditShipSendErrors",
      "NnauditShipLostFiles");

  @TempDir
  Path dir;

  @RegisterExtension
  final ShippingClusterExtension kafka = new ShippingClusterExtension(() -> dir);

  @Test
  void theRulesFireOnRealFaultsAndReadOnlyMetricsTheNameNodeExports() throws Exception {
    Path rules = RepoRoot.resolve("conf/prometheus/nnaudit-alerts.yml");
    Path dashboard = RepoRoot.resolve("conf/grafana/nnaudit-dashboard.json");
    Path out = RepoRoot.resolve("kafka/target/prometheus-alerts");
    Files.createDirectories(out);
    Promtool.Result checked = Promtool.checkRules(rules);
    assertEquals(0, checked.code, "promtool check rules: " + checked);
    Promtool.Result synthetic = Promtool.testRules(RepoRoot.resolve("conf/prometheus/nnaudit-alerts.test.yml"));
    assertEquals(0, synthetic.code, "promtool test rules with series written by hand: " + synthetic);

    KafkaTestBroker broker = kafka.broker();
    broker.createTopic("audit", 1);
    try (TmpfsMount disk = TmpfsMount.mount(kafka.audits(), "32m")) {
      if (disk == null) {
        throw new AssertionError("cannot mount a tmpfs on " + kafka.audits() + " (this test needs root)");
      }
      Configuration conf = kafka.conf("audit");
      SealKeys.enable(conf, SealKeys.ec(dir.resolve("keys")), dir);
      conf.setBoolean("hadoop.prometheus.endpoint.enabled", true);
      conf.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1m");
      conf.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 5);
      // A small queue and a short wait for room, so that 12 clients on a full disk fill the queue, hold
      // handlers and, after 10 s, have operations refused: the refusal alerts fire for real.
      conf.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 4);
      conf.setLong(NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY, 10_000);
      // Sends fail 8 s into an outage rather than 120 s (the default), so the outage can be short.
      conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "delivery.timeout.ms", "8000");
      conf.set(NnauditConfigKeys.KAFKA_PRODUCER_PREFIX + "request.timeout.ms", "3000");
      MiniDFSCluster cluster = kafka.start(conf);
      QueuedAuditLogger logger = ShippingCluster.logger(cluster.getNamesystem());
      InetSocketAddress http = cluster.getNameNode().getHttpAddress();
      String target = "127.0.0.1:" + http.getPort();
      String auditFile = logger.pipeline().settings().file().getPath();

      try (PrometheusServer prometheus = PrometheusServer.start(dir.resolve("prometheus"), target, rules);
           PacedMkdirs load = new PacedMkdirs(cluster.getURI(), 12, 50)) {
        awaitScraped(prometheus);
        long t0 = nowSeconds();
        Thread.sleep(HEALTHY_MS);
        long healthyEnd = nowSeconds() - t0;
        // Every feature is on and has run: the names the rules and the dashboard read are all exported.
        String exposition = MetricNames.scrape("http://" + target + "/prom");
        Files.write(out.resolve("prom.txt"), exposition.getBytes(StandardCharsets.UTF_8));
        assertNamesExported(prometheus, dashboard, exposition);

        disk.fill();
        Thread.sleep(DISK_FULL_MS);
        long fullEnd = nowSeconds() - t0;
        disk.free();
        Thread.sleep(RECOVERY_MS);

        broker.stop();
        Thread.sleep(OUTAGE_MS);
        long outageEnd = nowSeconds() - t0;
        long end = nowSeconds();
        System.out.println("PROMETHEUS ALERTS load: " + load.acked() + " acknowledged, " + load.failed()
            + " failed; " + logger.stats() + "; " + logger.pipeline().shipStats());

        // This NameNode's audit file only: a pipeline an earlier test of this JVM left registered is not ours.
        JsonNode recorded = prometheus.queryRange("{__name__=~\"nnaudit_logger_.+\",auditfile=\"" + auditFile + "\"}",
            t0, end, 1);
        Map<String, String> annotations = annotations(prometheus.rules());
        PromtoolTestFile test = new PromtoolTestFile(rules, t0).series(recorded, end);
        String instance = target;
        // The healthy phase: nothing fires.
        for (String a : ALERTS) {
          test.silent(healthyEnd - 1, a);
        }
        // The full disk: writes fail, operations are held, then refused after the 10 s wait for room.
        for (String a : Arrays.asList("NnauditSinkErrors", "NnauditHoldingOperations", "NnauditEventsAborted",
            "NnauditEventsDropped")) {
          test.fires(fullEnd - 1, a, instance, auditFile, annotations.get(a + "/severity"),
              annotationsOf(annotations, a));
        }
        for (String a : Arrays.asList("NnauditShipLagHigh", "NnauditShipLostFiles", "NnauditSealOverdue")) {
          test.silent(fullEnd - 1, a);
        }
        // The stopped broker: the lag and the failed sends fire; the disk works again, nothing is held.
        for (String a : Arrays.asList("NnauditShipLagHigh", "NnauditShipSendErrors")) {
          test.fires(outageEnd - 1, a, instance, auditFile, annotations.get(a + "/severity"),
              annotationsOf(annotations, a));
        }
        for (String a : Arrays.asList("NnauditHoldingOperations", "NnauditShipLostFiles", "NnauditSealOverdue",
            "NnauditQueueNearFull")) {
          test.silent(outageEnd - 1, a);
        }
        Path testFile = test.write(out.resolve("recorded.test.yml"));
        Set<String> drawn = new TreeSet<>();
        MetricNames.dashboardExpressions(dashboard).forEach(e -> drawn.addAll(MetricNames.in(e)));
        writeCsv(recorded, t0, drawn, out.resolve("series.csv"));
        Files.write(out.resolve("phases.csv"), ("phase,start_s,end_s\nhealthy,0," + healthyEnd + "\ndisk full,"
            + healthyEnd + "," + fullEnd + "\nbroker stopped," + (outageEnd - OUTAGE_MS / 1000) + "," + outageEnd
            + "\n").getBytes(StandardCharsets.UTF_8));
        Promtool.Result result = Promtool.testRules(testFile);
        assertTrue(test.seriesCount() > 20, "series were recorded: " + test.seriesCount());
        assertEquals(0, result.code, "promtool test rules on the series recorded from the NameNode ("
            + testFile + "): " + result);
      } finally {
        kafka.stopCluster(); // before the tmpfs goes
      }
    }
  }

  /** Waits until Prometheus has scraped the NameNode and seen nnaudit's metrics. */
  private static void awaitScraped(PrometheusServer prometheus) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (prometheus.query("nnaudit_logger_events_written").get("result").size() == 0) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("Prometheus did not scrape nnaudit's metrics: " + prometheus.targets() + "\n"
            + prometheus.log());
      }
      Thread.sleep(200); // polls Prometheus
    }
  }

  private static void assertNamesExported(PrometheusServer prometheus, Path dashboard, String exposition)
      throws Exception {
    Set<String> exported = MetricNames.exported(exposition);
    JsonNode loaded = prometheus.rules();
    List<String> ruleExprs = MetricNames.ruleExpressions(loaded);
    assertEquals(ALERTS.size(), ruleExprs.size(), "Prometheus loaded every rule: " + loaded);
    for (JsonNode g : loaded.get("groups")) {
      for (JsonNode r : g.get("rules")) {
        assertEquals("ok", r.get("health").asText(), "the rule evaluates: " + r);
      }
    }
    List<String> dashboardExprs = MetricNames.dashboardExpressions(dashboard);
    assertTrue(dashboardExprs.size() >= 6, "the dashboard has its panels: " + dashboardExprs);
    Set<String> missing = new TreeSet<>();
    List<String> all = new ArrayList<>(ruleExprs);
    all.addAll(dashboardExprs);
    for (String expr : all) {
      Set<String> names = MetricNames.in(expr);
      assertTrue(!names.isEmpty(), "reads an nnaudit metric: " + expr);
      for (String n : names) {
        if (!exported.contains(n)) {
          missing.add(n);
        }
      }
    }
    assertEquals(new TreeSet<String>(), missing, "read by the rules or the dashboard but not in /prom, which has "
        + exported);
    System.out.println("PROMETHEUS ALERTS /prom exports " + exported.size() + " nnaudit metrics: " + exported);
  }

  /**
   * Each alert's annotations, as the Prometheus server that loaded the rules reports them, by "alert/key", and its
   * severity label by "alert/severity".
   */
  private static Map<String, String> annotations(JsonNode rulesData) {
    Map<String, String> m = new LinkedHashMap<>();
    for (JsonNode g : rulesData.get("groups")) {
      for (JsonNode r : g.get("rules")) {
        r.get("annotations").fields().forEachRemaining(a -> m.put(r.get("name").asText() + "/" + a.getKey(),
            a.getValue().asText()));
        m.put(r.get("name").asText() + "/severity", r.get("labels").get("severity").asText());
      }
    }
    return m;
  }

  private static Map<String, String> annotationsOf(Map<String, String> all, String alert) {
    Map<String, String> m = new LinkedHashMap<>();
    all.forEach((k, v) -> {
      if (k.startsWith(alert + "/") && !k.endsWith("/severity")) {
        m.put(k.substring(alert.length() + 1), v);
      }
    });
    return m;
  }

  /**
   * The recorded series of the metrics {@code names} as seconds,metric,value rows (one audit file: one series per
   * metric), for docs/dashboard/draw.py.
   */
  private static void writeCsv(JsonNode recorded, long t0, Set<String> names, Path file) throws IOException {
    StringBuilder csv = new StringBuilder("seconds,metric,value\n");
    for (JsonNode s : recorded.get("result")) {
      String name = s.get("metric").get("__name__").asText();
      if (!names.contains(name)) {
        continue;
      }
      for (JsonNode v : s.get("values")) {
        csv.append(Math.round(v.get(0).asDouble()) - t0).append(',').append(name).append(',')
            .append(v.get(1).asText()).append('\n');
      }
    }
    Files.write(file, csv.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static long nowSeconds() {
    return System.currentTimeMillis() / 1000;
  }
}
