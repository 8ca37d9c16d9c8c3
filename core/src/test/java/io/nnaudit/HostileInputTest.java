package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.commons.text.StringEscapeUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.ipc.CallerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.verify.Verification;

/**
 * Hostile and odd input, as a seeded property test plus named cases, in both record formats: every character
 * some reader ends a line at ({@code \n}, {@code \r}, {@code \v}, {@code \f}, {@code \x1c}-{@code \x1e},
 * U+0085, U+2028, U+2029, NUL), the other C0 and C1 controls, DEL, tabs, unpaired surrogates, 64 KiB strings
 * and nulls in src, dst, ugi, cmd, owner, group and caller context. The file is split at every line end a
 * reader might honour ({@link LineEnds}), and each event must be exactly one record however it is split.
 * A stock-format record splits on tabs back into the stock fields, with values that commons-text's
 * unescapeJava turns back into the originals; a JSON record is one line of ASCII that parses back to exactly
 * the original values. The file is sealed, and verify must find every record sealed and unchanged: the sealing
 * thread takes the records' ends from the writer, so a record holding a newline of its own would be one record to
 * the seal and two to verify, which would then report the trail changed.
 */
class HostileInputTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] NAMED = {null, "", "\n", "\r", "\r\n", "\t", "\u0000", "\u000b", "\u000c",
      "\u001c", "\u001d", "\u001e", "\u0085", "\u2028", "\u2029", "\u007f", "\u0080", "\u009b", "\u009f",
      "a\nallowed=true\tugi=root", "a\rallowed=true\tugi=root", "a\u0085allowed=true\tugi=root",
      "a\u2028allowed=true\tugi=root", "a\u2029allowed=true\tugi=root", "a\u0000allowed=true\tugi=root",
      "\ud800", "\udc00x", "\ud83d\ude00", "\\", "\\n", "\"", "caf\u00e9", "=", "x\u007fy", "/a\u001bb",
      "\u001b[2J\u009b2J"};
  /** Characters that end lines or records for some reader, or that a terminal acts on. */
  private static final String LINE_ENDS_AND_CONTROLS = LineEnds.TERMINATORS + "\t\\\"=:\u007f\u001b\u009b";
  private static final int CONTEXT_MAX = 200_000;
  private static final int SIGNATURE_MAX = 40;

  @TempDir
  Path dir;

  @RegisterExtension
  final LoggerFixture loggers = new LoggerFixture();

  /** One event's inputs. */
  private static final class Input {
    String ugi;
    String cmd;
    String src;
    String dst;
    String owner;
    String group;
    String context;
    byte[] signature;
  }

  private static String randomValue(Random r, boolean nullable) {
    int roll = r.nextInt(100);
    if (roll < 10 && nullable) {
      return null;
    }
    if (roll < 30) {
      return NAMED[1 + r.nextInt(NAMED.length - 1)];
    }
    int len = roll < 32 ? 64 * 1024 : r.nextInt(40);
    StringBuilder sb = new StringBuilder(len);
    for (int i = 0; i < len; i++) {
      switch (r.nextInt(7)) {
        case 0:
          sb.append((char) r.nextInt(0x20));
          break;
        case 1:
          sb.append((char) r.nextInt(0x10000));
          break;
        case 2:
          sb.append(LINE_ENDS_AND_CONTROLS.charAt(r.nextInt(LINE_ENDS_AND_CONTROLS.length())));
          break;
        case 3:
          sb.append((char) (0x7f + r.nextInt(0x21))); // DEL and the C1 controls
          break;
        default:
          sb.append((char) (0x20 + r.nextInt(0x5f)));
      }
    }
    return sb.toString();
  }

  /** The named cases in every field first, then 3000 seeded random events. */
  private static List<Input> inputs() {
    List<Input> inputs = new ArrayList<>();
    for (String named : NAMED) {
      Input in = new Input();
      in.ugi = named;
      in.cmd = named;
      in.src = named;
      in.dst = named;
      in.owner = named;
      in.group = named;
      in.context = named;
      in.signature = named == null ? null : named.getBytes(StandardCharsets.UTF_8);
      inputs.add(in);
    }
    Random r = new Random(0x5eed);
    for (int i = 0; i < 3000; i++) {
      Input in = new Input();
      in.ugi = randomValue(r, true);
      in.cmd = randomValue(r, true);
      in.src = randomValue(r, true);
      in.dst = randomValue(r, true);
      in.owner = randomValue(r, true);
      in.group = randomValue(r, true);
      in.context = randomValue(r, true);
      in.signature = r.nextBoolean() ? null : randomValue(r, false).getBytes(StandardCharsets.UTF_8);
      inputs.add(in);
    }
    return inputs;
  }

  /** Logs every input to {@code audit} in {@code format} and returns the records, split every way. */
  private List<String> logAll(List<Input> inputs, File audit, String format) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.getPath());
    c.set(NnauditConfigKeys.RECORD_FORMAT_KEY, format);
    c.setBoolean("hadoop.caller.context.enabled", true);
    c.setInt("hadoop.caller.context.max.size", CONTEXT_MAX);
    c.setInt("hadoop.caller.context.signature.max.size", SIGNATURE_MAX);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 256);
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "8g"); // one file, so the lines line up with the events
    SealKeys.KeyFiles key = SealKeys.ec(dir);
    SealKeys.enable(c, key);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 100);
    QueuedAuditLogger l = loggers.startWithNamedSink(c);
    for (Input in : inputs) {
      FileStatus stat = new FileStatus(0, false, 1, 1, 1, 1, new FsPermission((short) 0640), in.owner, in.group,
          null);
      CallerContext ctx = in.context == null ? null
          : new CallerContext.Builder(in.context).setSignature(in.signature).build();
      l.logAuditEvent(true, in.ugi, AuditTestSupport.localhost(), in.cmd, in.src, in.dst, stat, ctx, null, null);
    }
    assertTrue(l.pipeline().close(60_000));
    assertEquals(inputs.size(), l.stats().written, l.stats().toString());
    Verification.Run verified = Verification.withCert(key, audit.getPath());
    assertEquals(0, verified.code, verified.toString());
    List<String> records = LineEnds.records(audit);
    assertEquals(inputs.size(), records.size(), "one record per event");
    for (int i = 0; i < records.size(); i++) {
      int at = LineEnds.firstControl(records.get(i));
      assertEquals(-1, at, "event " + i + ": a raw control character in the record");
    }
    return records;
  }

  private static String signatureText(Input in) {
    boolean shown = in.signature != null && in.signature.length > 0 && in.signature.length <= SIGNATURE_MAX;
    return shown ? new String(in.signature, StandardCharsets.UTF_8) : null;
  }

  @Test
  void everyEventIsOneRecordThatParsesBackToItsFields() throws Exception {
    List<Input> inputs = inputs();
    List<String> lines = logAll(inputs, dir.resolve("hostile.log").toFile(), "hdfs");
    for (int i = 0; i < inputs.size(); i++) {
      Input in = inputs.get(i);
      Map<String, String> f = AuditRecordParser.parse(lines.get(i));
      boolean hasContext = in.context != null && !in.context.isEmpty();
      List<String> expectedKeys = new ArrayList<>(Arrays.asList("allowed", "ugi", "ip", "cmd", "src", "dst",
          "perm", "proto"));
      if (hasContext) {
        expectedKeys.add("callerContext");
      }
      String where = "event " + i;
      assertEquals(expectedKeys, new ArrayList<>(f.keySet()), where);
      assertEquals(String.valueOf(in.ugi), StringEscapeUtils.unescapeJava(f.get("ugi")), where);
      assertEquals(String.valueOf(in.cmd), StringEscapeUtils.unescapeJava(f.get("cmd")), where);
      assertEquals(String.valueOf(in.src), StringEscapeUtils.unescapeJava(f.get("src")), where);
      assertEquals(String.valueOf(in.dst), StringEscapeUtils.unescapeJava(f.get("dst")), where);
      // FileStatus itself turns a null owner or group into "".
      String owner = in.owner == null ? "" : in.owner;
      String group = in.group == null ? "" : in.group;
      assertEquals(owner + ":" + group + ":rw-r-----", StringEscapeUtils.unescapeJava(f.get("perm")), where);
      // src and dst are exactly the stock escaping.
      assertEquals(String.valueOf(StringEscapeUtils.escapeJava(in.src)), f.get("src"), where);
      assertEquals(String.valueOf(StringEscapeUtils.escapeJava(in.dst)), f.get("dst"), where);
      if (hasContext) {
        String expected = StringEscapeUtils.escapeJava(in.context);
        if (expected.length() > CONTEXT_MAX) {
          expected = expected.substring(0, CONTEXT_MAX);
        }
        String signature = signatureText(in);
        if (signature != null) {
          expected += ":" + StringEscapeUtils.escapeJava(signature);
        }
        assertEquals(expected, f.get("callerContext"), where);
      }
    }
  }

  @Test
  void everyEventIsOneJsonLineThatParsesBackToItsValues() throws Exception {
    List<Input> inputs = inputs();
    List<String> lines = logAll(inputs, dir.resolve("hostile.json").toFile(), "json");
    for (int i = 0; i < inputs.size(); i++) {
      Input in = inputs.get(i);
      String line = lines.get(i);
      String where = "event " + i;
      assertTrue(line.chars().allMatch(ch -> ch >= 0x20 && ch <= 0x7f), where + ": one line of ASCII");
      JsonNode n = JSON.readTree(line);
      boolean hasContext = in.context != null && !in.context.isEmpty();
      String signature = hasContext ? signatureText(in) : null;
      List<String> expectedKeys = new ArrayList<>(Arrays.asList("time", "allowed", "ugi", "ip", "cmd", "src",
          "dst", "perm", "proto"));
      if (hasContext) {
        expectedKeys.add("callerContext");
      }
      if (signature != null) {
        expectedKeys.add("callerSignature");
      }
      assertEquals(expectedKeys, names(n), where);
      assertEquals(in.ugi, text(n.get("ugi")), where);
      assertEquals("127.0.0.1", text(n.get("ip")), where);
      assertEquals(in.cmd, text(n.get("cmd")), where);
      assertEquals(in.src, text(n.get("src")), where);
      assertEquals(in.dst, text(n.get("dst")), where);
      assertEquals(in.owner == null ? "" : in.owner, text(n.get("perm").get("owner")), where);
      assertEquals(in.group == null ? "" : in.group, text(n.get("perm").get("group")), where);
      assertEquals("rw-r-----", text(n.get("perm").get("mode")), where);
      if (hasContext) {
        assertEquals(keptWhole(in.context, CONTEXT_MAX), text(n.get("callerContext")), where);
        assertEquals(signature, signature == null ? null : text(n.get("callerSignature")), where);
      }
    }
  }

  private static String text(JsonNode n) {
    return n.isNull() ? null : n.textValue();
  }

  private static List<String> names(JsonNode n) {
    List<String> out = new ArrayList<>();
    for (Iterator<String> it = n.fieldNames(); it.hasNext();) {
      out.add(it.next());
    }
    return out;
  }

  /** The leading characters of {@code context} whose escapeJava fits in {@code max} characters. */
  private static String keptWhole(String context, int max) {
    int used = 0;
    for (int i = 0; i < context.length(); i++) {
      used += StringEscapeUtils.escapeJava(String.valueOf(context.charAt(i))).length();
      if (used > max) {
        return context.substring(0, i);
      }
    }
    return context;
  }
}
