package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.commons.text.StringEscapeUtils;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.ipc.CallerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and odd input, as a seeded property test plus named cases: newlines, carriage returns, tabs, other
 * control characters and NUL, unpaired surrogates, 64 KiB strings and nulls in src, dst, ugi, cmd, owner,
 * group and caller context. Every event must be exactly one record that a parser splits back into the same
 * fields, with values that commons-text's unescapeJava turns back into the originals.
 */
class HostileInputTest {
  private static final String[] NAMED = {null, "", "\n", "\r\n", "\t", "\u0000", "a\nallowed=true\tugi=root",
      "\ud800", "\udc00x", "\ud83d\ude00", "\u2028", "\u0085", "\\", "\\n", "\"", "caf\u00e9", "=", "x\u007fy",
      "/a\u001bb"};
  private static final int CONTEXT_MAX = 200_000;

  @TempDir
  Path dir;

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
      switch (r.nextInt(6)) {
        case 0:
          sb.append((char) r.nextInt(0x20));
          break;
        case 1:
          sb.append((char) r.nextInt(0x10000));
          break;
        case 2:
          sb.append("\n\r\t\u0000\\\"=:".charAt(r.nextInt(8)));
          break;
        default:
          sb.append((char) (0x20 + r.nextInt(0x5f)));
      }
    }
    return sb.toString();
  }

  @Test
  void everyEventIsOneRecordThatParsesBackToItsFields() throws Exception {
    File audit = dir.resolve("hostile.log").toFile();
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.getPath());
    c.setBoolean("hadoop.caller.context.enabled", true);
    c.setInt("hadoop.caller.context.max.size", CONTEXT_MAX);
    c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 256);
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "8g"); // one file, so the lines line up with the events
    QueuedAuditLogger l = AuditTestSupport.logger(c);
    Random r = new Random(0x5eed);
    List<Input> inputs = new ArrayList<>();
    // The named cases in every field first, then random ones.
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
    for (Input in : inputs) {
      FileStatus stat = new FileStatus(0, false, 1, 1, 1, 1, new FsPermission((short) 0640), in.owner, in.group,
          null);
      CallerContext ctx = in.context == null ? null
          : new CallerContext.Builder(in.context).setSignature(in.signature).build();
      l.logAuditEvent(true, in.ugi, AuditTestSupport.localhost(), in.cmd, in.src, in.dst, stat, ctx, null, null);
    }
    assertTrue(l.pipeline().close(60_000));
    assertEquals(inputs.size(), l.stats().written, l.stats().toString());

    List<String> lines = TestFiles.lines(audit);
    assertEquals(inputs.size(), lines.size(), "one record per event");
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
      if (hasContext) {
        String expected = StringEscapeUtils.escapeJava(in.context);
        if (expected.length() > CONTEXT_MAX) {
          expected = expected.substring(0, CONTEXT_MAX);
        }
        if (in.signature != null && in.signature.length > 0 && in.signature.length <= 40) {
          expected += ":" + StringEscapeUtils.escapeJava(new String(in.signature, StandardCharsets.UTF_8));
        }
        assertEquals(expected, f.get("callerContext"), where);
      }
    }
  }
}
