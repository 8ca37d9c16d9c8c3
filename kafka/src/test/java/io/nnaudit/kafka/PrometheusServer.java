package io.nnaudit.kafka;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.nnaudit.ChildServer;

/**
 * A real Prometheus server (the {@code prometheus} binary on the PATH, Debian's package), in a process of its own,
 * scraping one NameNode's {@code /prom} every second with the scrape job that docs/alerts.md gives operators (the
 * label {@code latestsealhash} dropped), and evaluating a rules file every second. Its data lives under the
 * directory given, its log in {@code prometheus.log} there. Asked through its HTTP API.
 */
final class PrometheusServer implements AutoCloseable {
  private static final long START_TIMEOUT_MS = 60_000;

  private final Process process;
  private final Path dir;
  private final String base;

  private PrometheusServer(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.base = "http://127.0.0.1:" + port;
  }

  /** Starts Prometheus scraping {@code http://target/prom} and evaluating {@code rules}; returns once it is ready. */
  static PrometheusServer start(Path dir, String target, Path rules) throws Exception {
    Files.createDirectories(dir);
    Path config = dir.resolve("prometheus.yml");
    Files.write(config, ("global:\n"
        + "  scrape_interval: 1s\n"
        + "  evaluation_interval: 1s\n"
        + "rule_files:\n"
        + "  - " + rules.toAbsolutePath() + "\n"
        + "scrape_configs:\n"
        + "  - job_name: namenode\n"
        + "    metrics_path: /prom\n"
        + "    static_configs:\n"
        + "      - targets: ['" + target + "']\n"
        + "    metric_relabel_configs:\n"
        + "      - action: labeldrop\n"
        + "        regex: latestsealhash\n").getBytes(StandardCharsets.UTF_8));
    int port = ChildServer.freePort();
    File log = dir.resolve("prometheus.log").toFile();
    Process p = new ProcessBuilder("prometheus", "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
        .redirectErrorStream(true).redirectOutput(log).start();
    return ChildServer.readyOrClosed(new PrometheusServer(p, dir, port), PrometheusServer::awaitReady);
  }

  /** Until its readiness endpoint answers 200, asked every 100 ms. */
  private void awaitReady() throws Exception {
    ChildServer.awaitReady("prometheus", process, this::log, START_TIMEOUT_MS, 100, () -> {
      HttpURLConnection c = (HttpURLConnection) new URL(base + "/-/ready").openConnection();
      return c.getResponseCode() == 200;
    });
  }

  /** The {@code data} of an instant query at this moment. */
  JsonNode query(String promql) throws IOException {
    return get("/api/v1/query?query=" + encode(promql));
  }

  /** The {@code data} of a range query: one value per {@code stepSeconds} from {@code start} to {@code end}. */
  JsonNode queryRange(String promql, long startSeconds, long endSeconds, int stepSeconds) throws IOException {
    return get("/api/v1/query_range?query=" + encode(promql) + "&start=" + startSeconds + "&end=" + endSeconds
        + "&step=" + stepSeconds);
  }

  /** The {@code data} of {@code /api/v1/rules}: the rule groups as this server parsed and evaluates them. */
  JsonNode rules() throws IOException {
    return get("/api/v1/rules");
  }

  /** The {@code data} of {@code /api/v1/targets}. */
  JsonNode targets() throws IOException {
    return get("/api/v1/targets");
  }

  private JsonNode get(String pathAndQuery) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(base + pathAndQuery).openConnection();
    try (InputStream in = c.getResponseCode() < 400 ? c.getInputStream() : c.getErrorStream()) {
      JsonNode answer = new ObjectMapper().readTree(in);
      if (!"success".equals(answer.path("status").asText())) {
        throw new IOException("prometheus answered " + pathAndQuery + " with " + answer);
      }
      return answer.get("data");
    }
  }

  String log() {
    try {
      return new String(Files.readAllBytes(dir.resolve("prometheus.log")), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static String encode(String s) throws IOException {
    return URLEncoder.encode(s, "UTF-8");
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
