package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.SinkFixtures;

class RollingFileSinkTest {
  @TempDir
  Path dir;

  /** The context of a sink of {@code f} with the default durability. */
  private static SinkContext context(File f, String maxSize, int backups) {
    return SinkFixtures.context(f.toPath(), maxSize, backups, NnauditConfigKeys.DURABILITY_DEFAULT);
  }

  @Test
  void createsParentsAppendsAndUsesOwnerGroupMode() throws Exception {
    File f = dir.resolve("a/b/audit.log").toFile();
    RollingFileSink sink = new RollingFileSink(context(f, "1m", 2));
    write(sink, "one\n");
    sink.close();
    assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.toPath())));
    RollingFileSink again = new RollingFileSink(context(f, "1m", 2));
    write(again, "two\n");
    again.close();
    assertEquals(List.of("one", "two"), TestFiles.lines(f), "reopening appends");
  }

  @Test
  void rotationKeepsNBackupsAndSplitsNoRecord() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    RollingFileSink sink = new RollingFileSink(context(f, "1k", 3));
    // 25 batches of 10 records of 50 bytes: a rotation after every 3rd batch (1500 bytes >= 1024).
    int n = 0;
    for (int b = 0; b < 25; b++) {
      StringBuilder batch = new StringBuilder();
      for (int i = 0; i < 10; i++) {
        batch.append(String.format("record %08d %s\n", n++, "x".repeat(33)));
      }
      write(sink, batch.toString());
    }
    sink.close();
    assertFalse(new File(f.getPath() + ".4").exists(), "only 3 backups are kept");
    List<String> kept = new ArrayList<>();
    for (int i = 3; i >= 1; i--) {
      File backup = new File(f.getPath() + "." + i);
      assertTrue(backup.exists(), backup.toString());
      assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(backup.toPath())));
      List<String> lines = TestFiles.lines(backup); // fails on a split record
      assertEquals(30, lines.size(), "each rotated file holds three whole batches");
      kept.addAll(lines);
    }
    kept.addAll(TestFiles.lines(f));
    // Oldest records rotate away; everything newer is present, in order, with no gap.
    int first = Integer.parseInt(kept.get(0).substring(7, 15));
    for (int i = 0; i < kept.size(); i++) {
      assertEquals(first + i, Integer.parseInt(kept.get(i).substring(7, 15)));
    }
    assertEquals(n - 1, first + kept.size() - 1);
  }

  @Test
  void aPartialLastRecordIsEndedBeforeAppending() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    Files.write(f.toPath(), "whole\nhalf a rec".getBytes(StandardCharsets.UTF_8));
    RollingFileSink sink = new RollingFileSink(context(f, "1m", 2));
    write(sink, "next\n");
    sink.close();
    assertEquals(List.of("whole", "half a rec", "next"), TestFiles.lines(f));
  }

  @Test
  void configuredModeIsAppliedToNewFiles() throws Exception {
    File f = dir.resolve("private.log").toFile();
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, f.getPath());
    c.set(NnauditConfigKeys.FILE_PERMISSIONS_KEY, "600");
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1k");
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    for (int i = 0; i < 30; i++) {
      write(sink, "x".repeat(99) + "\n");
    }
    sink.close();
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.toPath())));
    File rotated = new File(f.getPath() + ".1");
    assertTrue(rotated.exists());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(rotated.toPath())));
  }

  @Test
  void aFileMovedAwayIsNoticedAndANewOneStarted() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    File moved = dir.resolve("moved-by-logrotate.log").toFile();
    RollingFileSink sink = new RollingFileSink(context(f, "1m", 2));
    write(sink, "before\n");
    Files.move(f.toPath(), moved.toPath());
    Thread.sleep(1100); // the sink checks at most once a second
    write(sink, "after\n");
    sink.close();
    assertEquals(List.of("before"), TestFiles.lines(moved));
    assertEquals(List.of("after"), TestFiles.lines(f));
    assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(f.toPath())));
  }

  @Test
  void unwritablePathNamesTheKey() throws Exception {
    File blocker = dir.resolve("not-a-dir").toFile();
    Files.write(blocker.toPath(), new byte[] {1});
    File f = new File(blocker, "audit.log");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new RollingFileSink(context(f, "1m", 2)));
    assertTrue(e.getMessage().contains(NnauditConfigKeys.FILE_PATH_KEY), e.getMessage());
    assertTrue(e.getMessage().contains(f.getPath()), e.getMessage());
    assertTrue(e.getMessage().contains("Allowed: "), e.getMessage());
  }
}
