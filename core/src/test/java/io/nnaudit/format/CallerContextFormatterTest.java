package io.nnaudit.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.commons.text.StringEscapeUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.server.namenode.StockAuditMessage;
import org.apache.hadoop.ipc.CallerContext;
import org.junit.jupiter.api.Test;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.settings.NnauditSettings;

/**
 * The caller context in both formats against Hadoop's own {@code FSNamesystemAuditLogger}: the stock format
 * equals its message byte for byte at every cut, including cuts inside an escape and between the two escapes
 * of a surrogate pair; JSON holds exactly the characters the stock line shows in full; and a huge context
 * costs its limit, not its length.
 */
class CallerContextFormatterTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long T = 1795340252947L;
  private static final String[] CONTEXTS = {"job_1", "a\tb", "\ud83d\ude00", "x\ud83d\ude00y", "caf\u00e9",
      "q\"\\", "\u0000\u0085\u2028", "\ud800", "\udc00\ud800", "mr_\u65e5\u672c_\ud83d\ude00\tend", "\u007f"};
  private static final byte[][] SIGNATURES = {null, new byte[0], "sig".getBytes(StandardCharsets.UTF_8),
      "s\u00e9\n".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xff, 'x'}, new byte[41]};

  private static Configuration conf(int max) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, "/tmp/nnaudit-caller-context-test.log");
    c.set(NnauditConfigKeys.RECORD_PREFIX_KEY, "none");
    c.setBoolean("hadoop.caller.context.enabled", true);
    c.setInt("hadoop.caller.context.max.size", max);
    return c;
  }

  private static AuditEvent event(CallerContext ctx) {
    return new AuditEvent(T, true, "u", null, "open", "/f", null, false, null, null, null, null, null, ctx);
  }

  private static String stockFormat(Configuration c, CallerContext ctx) {
    RecordBuffer out = new RecordBuffer();
    new HdfsRecordFormatter(NnauditSettings.fromConf(c).formatOptions(), new Log4jTimestamp(ZoneId.of("UTC")))
        .appendMessage(out, event(ctx));
    return out.toString();
  }

  private static JsonNode json(Configuration c, CallerContext ctx) throws Exception {
    RecordBuffer out = new RecordBuffer();
    new JsonRecordFormatter(NnauditSettings.fromConf(c).formatOptions(), new IsoTimestamp(ZoneId.of("UTC")))
        .appendRecord(out, event(ctx));
    return JSON.readTree(out.toString());
  }

  private static String stock(Configuration c, CallerContext ctx) {
    return StockAuditMessage.of(c, true, "u", null, "open", "/f", null, null, ctx);
  }

  /** The longest prefix of {@code context} whose escapeJava fits in {@code max}, found the slow way. */
  private static String wholeEscapesWithin(String context, int max) {
    int keep = 0;
    while (keep < context.length()
        && StringEscapeUtils.escapeJava(context.substring(0, keep + 1)).length() <= max) {
      keep++;
    }
    return context.substring(0, keep);
  }

  private static void assertBothFormats(String context, byte[] signature, int max) throws Exception {
    Configuration c = conf(max);
    CallerContext ctx = new CallerContext.Builder(context).setSignature(signature).build();
    String where = "context " + StringEscapeUtils.escapeJava(context) + ", max " + max;
    String stock = stock(c, ctx);
    assertEquals(stock, stockFormat(c, ctx), where);

    JsonNode n = json(c, ctx);
    String expected = wholeEscapesWithin(context, max);
    assertEquals(expected, n.get("callerContext").asText(), where);
    String field = stock.substring(stock.indexOf("\tcallerContext=") + "\tcallerContext=".length());
    assertTrue(field.startsWith(StringEscapeUtils.escapeJava(expected)), "what JSON keeps, the stock line shows");
    boolean signed = signature != null && signature.length > 0 && signature.length <= 40;
    assertEquals(signed ? new String(signature, StandardCharsets.UTF_8) : null,
        n.has("callerSignature") ? n.get("callerSignature").asText() : null, where);
  }

  @Test
  void everyCutMatchesTheStockLogger() throws Exception {
    for (String context : CONTEXTS) {
      int escaped = StringEscapeUtils.escapeJava(context).length();
      for (int max = 0; max <= escaped + 1; max++) {
        for (byte[] signature : SIGNATURES) {
          assertBothFormats(context, signature, max);
        }
      }
    }
  }

  @Test
  void aCutBetweenTheEscapesOfASurrogatePair() throws Exception {
    // "x" then U+1F600 as \uD83D\uDE00: at 7 the stock line ends with the high half's escape.
    Configuration c = conf(7);
    CallerContext ctx = new CallerContext.Builder("x\ud83d\ude00y").build();
    assertTrue(stockFormat(c, ctx).endsWith("\tcallerContext=x\\uD83D"));
    assertEquals("x\ud83d", json(c, ctx).get("callerContext").asText());
    // At 10 the cut falls inside the low half's escape: the stock line keeps the fragment, JSON drops it.
    c = conf(10);
    assertTrue(stockFormat(c, ctx).endsWith("\tcallerContext=x\\uD83D\\uD"));
    assertEquals("x\ud83d", json(c, ctx).get("callerContext").asText());
    // A lone backslash at the end, as the stock line has it.
    c = conf(2);
    ctx = new CallerContext.Builder("a\tb").build();
    assertTrue(stockFormat(c, ctx).endsWith("\tcallerContext=a\\"));
    assertEquals("a", json(c, ctx).get("callerContext").asText());
    assertEquals(stock(c, ctx), stockFormat(c, ctx));
  }

  @Test
  void randomContextsAndLimitsMatchTheStockLogger() throws Exception {
    Random r = new Random(0xca11e5);
    char[] alphabet = {'a', 'Z', '_', ':', '\t', '\n', '\r', '\u0000', '\u007f', '\u0085', '\u009f', '\u00e9',
        '\u2028', '\u2029', '"', '\\', '\ud83d', '\ude00', '\uffff'};
    for (int i = 0; i < 3000; i++) {
      StringBuilder sb = new StringBuilder();
      int len = 1 + r.nextInt(30);
      for (int j = 0; j < len; j++) {
        sb.append(r.nextBoolean() ? alphabet[r.nextInt(alphabet.length)] : (char) r.nextInt(0x10000));
      }
      byte[] signature = SIGNATURES[r.nextInt(SIGNATURES.length)];
      assertBothFormats(sb.toString(), signature, r.nextInt(8 * len));
    }
  }

  @Test
  void aHugeContextCostsItsLimitNotItsLength() throws Exception {
    // 4M chars that escape to 6 each: escaping it whole would take 24 MB.
    char[] huge = new char[4 << 20];
    java.util.Arrays.fill(huge, '\u00e9');
    CallerContext ctx = new CallerContext.Builder(new String(huge)).build();
    Configuration c = conf(128);
    RecordBuffer out = new RecordBuffer(1024);
    new HdfsRecordFormatter(NnauditSettings.fromConf(c).formatOptions(), new Log4jTimestamp(ZoneId.of("UTC")))
        .appendRecord(out, event(ctx));
    assertTrue(out.capacity() <= 2048, "the record buffer grew to " + out.capacity() + " bytes");
    List<String> fields = new ArrayList<>();
    for (String f : out.toString().split("\t")) {
      fields.add(f);
    }
    assertEquals("callerContext=" + "\\u00E9".repeat(21) + "\\u\n", fields.get(fields.size() - 1));

    RecordBuffer jsonOut = new RecordBuffer(1024);
    new JsonRecordFormatter(NnauditSettings.fromConf(c).formatOptions(), new IsoTimestamp(ZoneId.of("UTC")))
        .appendRecord(jsonOut, event(ctx));
    assertTrue(jsonOut.capacity() <= 2048, "the JSON buffer grew to " + jsonOut.capacity() + " bytes");
    assertEquals("\u00e9".repeat(21), JSON.readTree(jsonOut.toString()).get("callerContext").asText());
  }
}
