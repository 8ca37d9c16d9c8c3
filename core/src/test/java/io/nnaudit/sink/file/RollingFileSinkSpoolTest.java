package io.nnaudit.sink.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.SinkFixtures;

/** Rotation keeps what a shipper has not finished, up to the spool's bound, and counts what it must delete. */
class RollingFileSinkSpoolTest {
  @TempDir
  Path dir;

  private RollingFileSink sink(File f, int backups, SpoolGuard guard) {
    SinkContext context = SinkFixtures.context(f.toPath(), "1k", backups, NnauditConfigKeys.DURABILITY_DEFAULT);
    return new RollingFileSink(context.withSpoolGuard(guard));
  }

  /** Writes a 1101-byte record: every call after the first rotates first. */
  private static void fill(RollingFileSink sink, int n) throws Exception {
    String line = String.format("record %04d %s\n", n, "x".repeat(1088));
    sink.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
  }

  private static String key(File f) throws Exception {
    return String.valueOf(Files.readAttributes(f.toPath(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey());
  }

  private File backup(File f, int i) {
    return new File(f.getPath() + "." + i);
  }

  @Test
  void untilTheShipperHasSaidWhatItNeedsEveryFileIsKeptUpToTheBound() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    SpoolGuard guard = new SpoolGuard(5);
    RollingFileSink sink = sink(f, 2, guard);
    for (int i = 0; i < 6; i++) {
      fill(sink, i); // 5 rotations
    }
    assertTrue(backup(f, 5).exists(), "held beyond nnaudit.file.max.backups=2");
    assertEquals(0, guard.lostFiles());
    fill(sink, 6); // a 6th rotation: the bound is reached and the oldest goes, counted
    assertFalse(backup(f, 6).exists());
    assertEquals(1, guard.lostFiles());
    assertEquals(1101, guard.lostBytes(), "the whole file: nothing of it was shipped");
    assertEquals(1, guard.nextUnseenLoss().records, "the loss counts its records, for the gap record to say");
    assertTrue(Files.readString(backup(f, 5).toPath()).startsWith("record 0001"), "the oldest, record 0, went");
    sink.close();
  }

  @Test
  void keepsFromTheFileTheShipperIsInAndDeletesWhatItFinished() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    SpoolGuard guard = new SpoolGuard(10);
    RollingFileSink sink = sink(f, 2, guard);
    for (int i = 0; i < 6; i++) {
      fill(sink, i); // file.5 holds record 0 ... file.1 record 4, the live file record 5
    }
    guard.holdFrom(key(backup(f, 4)), 500); // shipped file.5 and half of file.4
    fill(sink, 6);
    assertTrue(backup(f, 5).exists(), "the shipper's file, now file.5, is kept");
    assertTrue(Files.readString(backup(f, 5).toPath()).startsWith("record 0001"));
    assertFalse(backup(f, 6).exists(), "the shipped file went without a loss");
    assertEquals(0, guard.lostFiles());

    guard.holdFrom(key(f), 0); // caught up: the live file
    fill(sink, 7);
    assertTrue(backup(f, 2).exists());
    assertFalse(backup(f, 3).exists(), "back to nnaudit.file.max.backups once everything is shipped");
    assertFalse(backup(f, 4).exists());
    assertEquals(0, guard.lostFiles());
    sink.close();
  }

  @Test
  void aFileDeletedAtTheBoundCountsOnlyItsUnshippedBytes() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    SpoolGuard guard = new SpoolGuard(3);
    RollingFileSink sink = sink(f, 1, guard);
    for (int i = 0; i < 4; i++) {
      fill(sink, i); // file.3 record 0
    }
    guard.holdFrom(key(backup(f, 3)), 100);
    fill(sink, 4);
    assertEquals(1, guard.lostFiles());
    assertEquals(1001, guard.lostBytes(), "its 1101 bytes less the 100 shipped");
    fill(sink, 5); // the shipper's file is gone, so every file left is unshipped: still kept up to the bound
    assertTrue(backup(f, 3).exists());
    assertEquals(2, guard.lostFiles(), "the next oldest goes at the bound, counted whole");
    assertEquals(1001 + 1101, guard.lostBytes());
    sink.close();
  }
}
