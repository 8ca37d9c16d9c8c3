package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;

/**
 * kill -9 of a process whose file sink compresses its rotated files (1 MB each, rotated about ten times a
 * second), at a random moment while a compression is under way, several times. Each time a sink started on the
 * files cleans what the kill left (a temporary copy, a file there both plain and compressed) before it opens the
 * live file, compresses the rest, and then: no temporary copy is left, no file is there twice, and every record
 * is there once, in order, across the plain and the gunzipped files.
 */
class GzipCompressionCrashTest {
  private static final int RUNS = 5;
  private static final Pattern RECORD = Pattern.compile("record (\\d{9}) x+");

  @TempDir
  Path dir;

  @Test
  void aKillMidCompressionLeavesEveryRecordOnceAfterTheNextStart() throws Exception {
    Random random = new Random();
    for (int run = 0; run < RUNS; run++) {
      File audit = dir.resolve("run-" + run).resolve("audit.log").toFile();
      Path live = audit.toPath();
      try (ChildJvm writer = new ChildJvm(GzipSinkWriterMain.class, audit.getPath())) {
        writer.awaitLine("READY", 60_000);
        AuditTestSupport.awaitTrue("a few compressed files", 60_000, 5,
            () -> CompressedTrail.exists(TrailNames.compressed(TrailNames.backup(live, 3))));
        AuditTestSupport.awaitTrue("a compression under way", 60_000, 1, () -> compressing(audit));
        Thread.sleep(random.nextInt(40)); // then a random moment of it: the kill is the fault
        writer.kill();
      }
      String killed = Arrays.toString(sorted(audit));
      System.out.println("run " + run + ", killed with " + killed);

      RollingFileSink restarted = new RollingFileSink(NnauditSettings.fromConf(GzipSinkWriterMain.conf(
          audit.getPath())).sinkContext());
      try {
        AuditTestSupport.awaitTrue("every rotated file compressed", 60_000, 5, () -> allCompressed(live));
      } finally {
        restarted.close();
      }
      String after = "killed with " + killed + "\nafter a start: " + Arrays.toString(sorted(audit));
      assertFalse(compressing(audit), after);
      List<Long> numbers = recordNumbers(live, after);
      assertTrue(numbers.size() > 10_000, after);
      for (int i = 1; i < numbers.size(); i++) {
        assertEquals(numbers.get(i - 1) + 1, (long) numbers.get(i), "records in order, none missing or twice: "
            + after);
      }
      assertEquals(0, numbers.get(0) % 100, "the oldest file begins with a write: " + after);
    }
  }

  private static String[] sorted(File audit) {
    String[] names = audit.getParentFile().list();
    Arrays.sort(names);
    return names;
  }

  private static boolean compressing(File audit) {
    for (String name : audit.getParentFile().list()) {
      if (name.contains(".compressing-")) {
        return true;
      }
    }
    return false;
  }

  /** Whether every rotated file is compressed, and only once. */
  private static boolean allCompressed(Path live) {
    for (int i = 1; i <= 40; i++) {
      Path plain = TrailNames.backup(live, i);
      if (CompressedTrail.exists(plain)) {
        return false;
      }
    }
    return true;
  }

  /** The record numbers of the trail, oldest first; only the live file's last line may be cut by the kill. */
  private static List<Long> recordNumbers(Path live, String context) throws Exception {
    List<Long> out = new ArrayList<>();
    for (int i = 40; i >= 0; i--) {
      byte[] member = CompressedTrail.member(live, i); // fails if a file is there twice
      if (member == null) {
        continue;
      }
      String[] lines = new String(member, StandardCharsets.UTF_8).split("\n", -1);
      for (int k = 0; k < lines.length; k++) {
        Matcher m = RECORD.matcher(lines[k]);
        if (m.matches()) {
          out.add(Long.parseLong(m.group(1)));
        } else {
          assertTrue(k == lines.length - 1 && (i == 0 || lines[k].isEmpty()), "only the live file's last line may "
              + "be cut short: '" + lines[k] + "' in member " + i + "; " + context);
        }
      }
    }
    return out;
  }
}
