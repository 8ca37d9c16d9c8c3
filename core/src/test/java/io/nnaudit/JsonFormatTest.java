package io.nnaudit;

import static io.nnaudit.AuditTestSupport.awaitTrue;
import static io.nnaudit.AuditTestSupport.conf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.ipc.CallerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.nnaudit.config.NnauditConfigKeys;

/** nnaudit.record.format=json: every line parses back, with typed fields, whatever the input. */
class JsonFormatTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  private List<JsonNode> parseAll(File f) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : TestFiles.lines(f)) {
      assertTrue(line.chars().allMatch(ch -> ch >= 0x20 && ch <= 0x7f), "one line of ASCII, no control character: " + line);
      out.add(JSON.readTree(line));
    }
    return out;
  }

  private static List<String> names(JsonNode n) {
    List<String> out = new ArrayList<>();
    for (Iterator<String> it = n.fieldNames(); it.hasNext();) {
      out.add(it.next());
    }
    return out;
  }

  @Test
  void typedFieldsInAStableOrder() throws Exception {
    File f = audit.file("a.json");
    Configuration c = conf(f);
    c.set(NnauditConfigKeys.RECORD_FORMAT_KEY, "json");
    c.setBoolean("hadoop.caller.context.enabled", true);
    c.setBoolean("dfs.namenode.audit.log.token.tracking.id", true);
    QueuedAuditLogger logger = audit.start(c);
    long before = System.currentTimeMillis();
    CallerContext ctx = new CallerContext.Builder("job_1").setSignature("sig".getBytes(StandardCharsets.UTF_8))
        .build();
    logger.logAuditEvent(true, "root (auth:SIMPLE)", AuditTestSupport.localhost(), "mkdirs", "/a/b", null,
        AuditTestSupport.stat(), ctx, null, null);
    logger.logAuditEvent(false, "bob", null, "rename", "/x", "/y", null, null, null, null);
    assertTrue(logger.pipeline().awaitWritten(30_000));
    List<JsonNode> recs = parseAll(f);
    assertEquals(2, recs.size());
    JsonNode a = recs.get(0);
    assertEquals(Arrays.asList("time", "allowed", "ugi", "ip", "cmd", "src", "dst", "perm", "proto",
        "callerContext", "callerSignature", "trackingId"), names(a));
    long t = OffsetDateTime.parse(a.get("time").asText()).toInstant().toEpochMilli();
    assertTrue(t >= before && t <= System.currentTimeMillis(), a.get("time").asText());
    assertTrue(a.get("time").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)"));
    assertTrue(a.get("allowed").isBoolean() && a.get("allowed").asBoolean());
    assertEquals("root (auth:SIMPLE)", a.get("ugi").asText());
    assertEquals("127.0.0.1", a.get("ip").asText());
    assertEquals("mkdirs", a.get("cmd").asText());
    assertEquals("/a/b", a.get("src").asText());
    assertTrue(a.get("dst").isNull());
    assertEquals("alice", a.get("perm").get("owner").asText());
    assertEquals("staff", a.get("perm").get("group").asText());
    assertEquals("rw-r--r--", a.get("perm").get("mode").asText());
    assertTrue(a.get("proto").isNull(), "no RPC call here, so Server.getProtocol() is null");
    assertEquals("job_1", a.get("callerContext").asText());
    assertEquals("sig", a.get("callerSignature").asText());
    assertTrue(a.get("trackingId").isNull());
    JsonNode b = recs.get(1);
    assertFalse(b.get("allowed").asBoolean());
    assertTrue(b.get("perm").isNull());
    assertTrue(b.get("ip").isNull());
    assertEquals("/y", b.get("dst").asText());
    assertFalse(b.has("callerContext"));
    assertFalse(b.has("nnaudit"));
  }

  @Test
  void hostileValuesRoundTripExactly() throws Exception {
    File f = audit.file("h.json");
    Configuration c = conf(f);
    c.set(NnauditConfigKeys.RECORD_FORMAT_KEY, "json");
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "8g"); // one file, so that lines line up with events
    QueuedAuditLogger logger = audit.start(c);
    Random r = new Random(99);
    List<String[]> inputs = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      String[] v = new String[6];
      for (int k = 0; k < v.length; k++) {
        int len = r.nextInt(10) == 0 ? 64 * 1024 : r.nextInt(30);
        StringBuilder sb = new StringBuilder();
        for (int j = 0; j < len; j++) {
          sb.append(r.nextBoolean() ? (char) r.nextInt(0x10000) : "\n\r\t\u0000\"\\\ud800\u2028".charAt(r.nextInt(8)));
        }
        v[k] = r.nextInt(8) == 0 ? null : sb.toString();
      }
      inputs.add(v);
      FileStatus stat = new FileStatus(0, false, 1, 1, 1, 1, new FsPermission((short) 0600), v[4], v[5], null);
      logger.logAuditEvent(true, v[0], null, v[1], v[2], v[3], stat, null, null, null);
    }
    assertTrue(logger.pipeline().awaitWritten(60_000));
    List<JsonNode> recs = parseAll(f);
    assertEquals(inputs.size(), recs.size());
    for (int i = 0; i < inputs.size(); i++) {
      String[] v = inputs.get(i);
      JsonNode n = recs.get(i);
      assertEquals(v[0], n.get("ugi").isNull() ? null : n.get("ugi").asText(), "ugi " + i);
      assertEquals(v[1], n.get("cmd").isNull() ? null : n.get("cmd").asText(), "cmd " + i);
      assertEquals(v[2], n.get("src").isNull() ? null : n.get("src").asText(), "src " + i);
      assertEquals(v[3], n.get("dst").isNull() ? null : n.get("dst").asText(), "dst " + i);
      assertEquals(v[4] == null ? "" : v[4], n.get("perm").get("owner").asText(), "owner " + i);
      assertEquals(v[5] == null ? "" : v[5], n.get("perm").get("group").asText(), "group " + i);
    }
  }

  @Test
  void dropReportIsJsonAndNeverAnOperation() throws Exception {
    File f = audit.file("d.json");
    Configuration c = conf(f);
    c.set(NnauditConfigKeys.RECORD_FORMAT_KEY, "json");
    c.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "DROP");
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 1);
    QueuedAuditLogger logger = audit.start(c);
    audit.stallWriter(logger, "/held");
    for (int i = 0; i < 5; i++) {
      AuditTestSupport.logCreate(logger, "/d" + i);
    }
    audit.sink().resume();
    assertTrue(logger.pipeline().awaitWritten(30_000));
    awaitTrue("the drop record", 10_000, () -> {
      try {
        return parseAll(f).stream().anyMatch(n -> n.has("nnaudit"));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    JsonNode drop = parseAll(f).stream().filter(n -> n.has("nnaudit")).findFirst().get();
    assertEquals("dropped", drop.get("nnaudit").asText());
    assertEquals(4, drop.get("count").asLong());
    assertEquals(4, drop.get("total").asLong());
    assertTrue(drop.get("count").isIntegralNumber());
    OffsetDateTime.parse(drop.get("from").asText());
    OffsetDateTime.parse(drop.get("to").asText());
    assertFalse(drop.has("allowed"));
  }
}
