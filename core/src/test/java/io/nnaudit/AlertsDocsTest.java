package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * The shipped alerting rules and dashboard against the docs: every alert links its own runbook section of
 * docs/alerts.md, which exists, and every runbook section is an alert; the dashboard asks for its Prometheus data
 * source and every panel uses it. (Whether the rules fire, and whether the metrics they read exist, is
 * PrometheusAlertsTest's, in the kafka module, against a real NameNode and Prometheus.)
 */
class AlertsDocsTest {
  private static final Pattern ALERT = Pattern.compile("^\\s*- alert: (\\w+)\\s*$");
  private static final Pattern RUNBOOK = Pattern.compile("^\\s*runbook_url: (\\S+)\\s*$");
  private static final Pattern SECTION = Pattern.compile("^### (\\w+)\\s*$");

  @Test
  void everyAlertLinksItsOwnRunbookSectionAndEverySectionIsAnAlert() throws Exception {
    Map<String, String> runbooks = new LinkedHashMap<>();
    String alert = null;
    for (String line : Files.readAllLines(RepoRoot.resolve("conf/prometheus/nnaudit-alerts.yml"),
        StandardCharsets.UTF_8)) {
      Matcher a = ALERT.matcher(line);
      Matcher r = RUNBOOK.matcher(line);
      if (a.matches()) {
        alert = a.group(1);
      } else if (r.matches()) {
        runbooks.put(alert, r.group(1));
      }
    }
    List<String> sections = new ArrayList<>();
    for (String line : Files.readAllLines(RepoRoot.resolve("docs/alerts.md"), StandardCharsets.UTF_8)) {
      Matcher s = SECTION.matcher(line);
      if (s.matches()) {
        sections.add(s.group(1));
      }
    }
    assertTrue(runbooks.size() >= 10, "the rules were read: " + runbooks);
    assertEquals(new ArrayList<>(runbooks.keySet()), sections, "one runbook section per alert, in the same order");
    runbooks.forEach((name, url) -> assertEquals("docs/alerts.md#" + name.toLowerCase(), url,
        name + " links its section"));
  }

  @Test
  void theDashboardAsksForItsPrometheusDataSourceAndEveryPanelUsesIt() throws Exception {
    JsonNode d = new ObjectMapper().readTree(RepoRoot.resolve("conf/grafana/nnaudit-dashboard.json").toFile());
    JsonNode source = null;
    for (JsonNode v : d.get("templating").get("list")) {
      if (v.get("type").asText().equals("datasource")) {
        source = v;
      }
    }
    assertTrue(source != null, "a data source variable");
    assertEquals("prometheus", source.get("query").asText());
    String uid = "${" + source.get("name").asText() + "}";
    assertTrue(d.get("panels").size() >= 6, "at least six panels");
    for (JsonNode p : d.get("panels")) {
      assertEquals(uid, p.get("datasource").get("uid").asText(), p.get("title").asText());
      assertTrue(p.get("targets").size() > 0, p.get("title").asText());
      for (JsonNode t : p.get("targets")) {
        assertEquals(uid, t.get("datasource").get("uid").asText(), p.get("title").asText());
      }
    }
  }
}
