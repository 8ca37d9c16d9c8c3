package io.nnaudit.kafka;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * nnaudit's metric names as Prometheus sees them: in a NameNode's {@code /prom} text, and in PromQL expressions
 * (the rules as a Prometheus server loaded them, the targets of a Grafana dashboard).
 */
final class MetricNames {
  /** A name of nnaudit's metrics2 record, as Hadoop's PrometheusMetricsSink spells it. */
  private static final Pattern NNAUDIT = Pattern.compile("\\bnnaudit_[a-z0-9_]+\\b");

  private MetricNames() {
  }

  /** The body of {@code GET url} (a NameNode's {@code /prom}). */
  static String scrape(String url) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(url).openConnection();
    try (InputStream in = c.getInputStream()) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      byte[] b = new byte[8192];
      for (int n; (n = in.read(b)) > 0; ) {
        out.write(b, 0, n);
      }
      return new String(out.toByteArray(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /** The names of nnaudit's samples in a Prometheus text exposition. */
  static Set<String> exported(String exposition) {
    Set<String> names = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (!line.startsWith("#")) {
        Matcher m = NNAUDIT.matcher(line);
        if (m.lookingAt()) {
          names.add(m.group());
        }
      }
    }
    return names;
  }

  /** The nnaudit metric names an expression reads. */
  static Set<String> in(String promql) {
    Set<String> names = new TreeSet<>();
    Matcher m = NNAUDIT.matcher(promql);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  /** The expressions of every rule in a Prometheus server's {@code /api/v1/rules} data. */
  static List<String> ruleExpressions(JsonNode rulesData) {
    List<String> exprs = new ArrayList<>();
    for (JsonNode g : rulesData.get("groups")) {
      for (JsonNode r : g.get("rules")) {
        exprs.add(r.get("query").asText());
      }
    }
    return exprs;
  }

  /**
   * The expressions of a Grafana dashboard: each panel's targets, and the queries of its template variables.
   */
  static List<String> dashboardExpressions(Path dashboard) throws IOException {
    JsonNode d = new ObjectMapper().readTree(dashboard.toFile());
    List<String> exprs = new ArrayList<>();
    for (JsonNode panel : d.get("panels")) {
      for (JsonNode t : panel.path("targets")) {
        exprs.add(t.get("expr").asText());
      }
    }
    for (JsonNode v : d.path("templating").path("list")) {
      JsonNode q = v.path("query");
      String text = q.isObject() ? q.path("query").asText() : q.asText();
      if (v.path("type").asText().equals("query")) {
        exprs.add(text);
      }
    }
    return exprs;
  }
}
