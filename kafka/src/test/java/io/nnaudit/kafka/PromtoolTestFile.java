package io.nnaudit.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A promtool unit-test file ({@code promtool test rules}) whose input series are series recorded from a real
 * scrape: the result of a Prometheus range query, one value per second from {@code start}, so that the test's
 * time 0 is {@code start} and time {@code t} its second {@code t}. Each check says, at one time, whether one
 * alert fires, and for a firing alert its one instance: the labels the rules keep ({@code instance},
 * {@code auditfile}, {@code severity}) and the annotations, rendered from the rules' templates, which may use
 * only {@code $labels.instance} and {@code $labels.auditfile}.
 */
final class PromtoolTestFile {
  private final Path rules;
  private final long start;
  private final StringBuilder series = new StringBuilder();
  private final List<String> checks = new ArrayList<>();
  private int seriesCount;

  PromtoolTestFile(Path rules, long startSeconds) {
    this.rules = rules;
    this.start = startSeconds;
  }

  /**
   * Adds the series of a range query's {@code data} (a matrix at a step of 1 s from this file's start). A second
   * without a value is written {@code _}, as is a NaN (an average of nothing), which no rule reads.
   */
  PromtoolTestFile series(JsonNode matrix, long endSeconds) {
    for (JsonNode s : matrix.get("result")) {
      Map<Long, String> byTime = new LinkedHashMap<>();
      for (JsonNode v : s.get("values")) {
        byTime.put(Math.round(v.get(0).asDouble()), v.get(1).asText());
      }
      StringBuilder values = new StringBuilder();
      for (long t = start; t <= endSeconds; t++) {
        String v = byTime.get(t);
        values.append(values.length() == 0 ? "" : " ").append(v == null || v.equals("NaN") ? "_" : v);
      }
      series.append("      - series: ").append(quote(selector(s.get("metric")))).append('\n')
          .append("        values: ").append(quote(values.toString())).append('\n');
      seriesCount++;
    }
    return this;
  }

  int seriesCount() {
    return seriesCount;
  }

  /** At {@code evalSeconds}, {@code alert} does not fire. */
  PromtoolTestFile silent(long evalSeconds, String alert) {
    checks.add("      - eval_time: " + evalSeconds + "s\n        alertname: " + alert + "\n        exp_alerts: []\n");
    return this;
  }

  /**
   * At {@code evalSeconds}, {@code alert} fires once, for {@code instance} and {@code auditfile}, with its
   * {@code severity} and {@code annotations} (the rule's templates, as the Prometheus that loaded it reports them).
   */
  PromtoolTestFile fires(long evalSeconds, String alert, String instance, String auditfile, String severity,
      Map<String, String> annotations) {
    StringBuilder c = new StringBuilder();
    c.append("      - eval_time: ").append(evalSeconds).append("s\n")
        .append("        alertname: ").append(alert).append('\n')
        .append("        exp_alerts:\n")
        .append("          - exp_labels:\n")
        .append("              severity: ").append(quote(severity)).append('\n')
        .append("              instance: ").append(quote(instance)).append('\n')
        .append("              auditfile: ").append(quote(auditfile)).append('\n')
        .append("            exp_annotations:\n");
    for (Map.Entry<String, String> a : annotations.entrySet()) {
      c.append("              ").append(a.getKey()).append(": ")
          .append(quote(render(a.getValue(), instance, auditfile))).append('\n');
    }
    checks.add(c.toString());
    return this;
  }

  /** Writes the file; promtool reads the rules from where they are. */
  Path write(Path file) throws IOException {
    StringBuilder y = new StringBuilder();
    y.append("rule_files:\n  - ").append(quote(rules.toAbsolutePath().toString())).append('\n')
        .append("evaluation_interval: 1s\n")
        .append("tests:\n")
        .append("  - interval: 1s\n")
        .append("    input_series:\n").append(series)
        .append("    alert_rule_test:\n");
    for (String c : checks) {
      y.append(c);
    }
    Files.write(file, y.toString().getBytes(StandardCharsets.UTF_8));
    return file;
  }

  /** A rule's annotation template with the two labels it may use filled in. */
  static String render(String template, String instance, String auditfile) {
    String r = template.replace("{{ $labels.instance }}", instance).replace("{{ $labels.auditfile }}", auditfile);
    if (r.contains("{{")) {
      throw new AssertionError("an annotation uses a template this test cannot render: " + template);
    }
    return r;
  }

  private static String selector(JsonNode metric) {
    StringBuilder s = new StringBuilder(metric.get("__name__").asText()).append('{');
    String sep = "";
    for (Iterator<Map.Entry<String, JsonNode>> it = metric.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> l = it.next();
      if (!l.getKey().equals("__name__")) {
        s.append(sep).append(l.getKey()).append("=\"")
            .append(l.getValue().asText().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        sep = ",";
      }
    }
    return s.append('}').toString();
  }

  /** A YAML double-quoted scalar. */
  private static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
  }
}
