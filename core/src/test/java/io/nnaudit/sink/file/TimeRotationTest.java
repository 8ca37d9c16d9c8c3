package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.MovableClock;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * Rotation at hour and day boundaries, moved across by a clock the test sets: at the first write after a
 * boundary, in the idle loop for a file idle across one, across daylight-saving changes, at the start of a run
 * for a file of an earlier period, never for an empty file; and a sealed trail rotated by time verifies.
 */
class TimeRotationTest {
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private Path audit;

  private SinkContext context(String period, String zone, MovableClock clock, boolean sealed) throws Exception {
    audit = dir.resolve("audit.log");
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.toString());
    c.set(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, period);
    c.set(NnauditConfigKeys.FILE_ROTATE_ZONE_KEY, zone);
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 50);
    if (sealed) {
      SealKeys.enable(c, ec, dir);
    }
    return NnauditSettings.fromConf(c).sinkContext().withWallClock(clock);
  }

  private Path backup(int i) {
    return audit.resolveSibling(audit.getFileName() + "." + i);
  }

  @Test
  void anHourlyFileRotatesAtTheFirstWriteAfterTheHour() throws Exception {
    MovableClock clock = new MovableClock("2026-11-25T10:15:00Z");
    RollingFileSink sink = new RollingFileSink(context("hourly", "UTC", clock, false));
    write(sink, "a 10:15\n");
    clock.set("2026-11-25T10:59:59.999Z");
    write(sink, "b 10:59\n");
    assertFalse(Files.exists(backup(1)), "not before the hour");
    clock.set("2026-11-25T11:00:00.000Z");
    write(sink, "c 11:00\n");
    clock.set("2026-11-25T13:30:00Z"); // two hours without a record: one rotation, not three
    write(sink, "d 13:30\n");
    sink.close();
    assertEquals(List.of("a 10:15", "b 10:59"), TestFiles.lines(backup(2).toFile()));
    assertEquals(List.of("c 11:00"), TestFiles.lines(backup(1).toFile()));
    assertEquals(List.of("d 13:30"), TestFiles.lines(audit.toFile()));
    assertFalse(Files.exists(backup(3)), "no empty file for the hours without records");
  }

  @Test
  void aDailyFileIdleAcrossMidnightClosesWithoutAWrite() throws Exception {
    MovableClock clock = new MovableClock("2026-11-25T23:10:00Z");
    RollingFileSink sink = new RollingFileSink(context("daily", "UTC", clock, false));
    write(sink, "late on the 25th\n");
    sink.idle();
    assertFalse(Files.exists(backup(1)), "not before midnight");
    clock.set("2026-11-26T00:00:00.300Z");
    sink.idle(); // the writer's idle loop, about every 50 ms
    assertEquals(List.of("late on the 25th"), TestFiles.lines(backup(1).toFile()), "closed at midnight");
    assertEquals(0, Files.size(audit));
    clock.set("2026-11-27T00:00:01Z");
    sink.idle();
    assertFalse(Files.exists(backup(2)), "an empty file is not rotated");
    clock.set("2026-11-27T08:00:00Z");
    write(sink, "on the 27th\n");
    sink.close();
    assertEquals(List.of("on the 27th"), TestFiles.lines(audit.toFile()));
  }

  @Test
  void daysFollowTheZonesMidnightsAcrossDaylightSavingChanges() throws Exception {
    // Europe/Berlin: 2026-03-29 has 23 hours (02:00 CET -> 03:00 CEST), 2026-10-25 has 25.
    MovableClock clock = new MovableClock("2026-03-28T22:30:00Z"); // 23:30 CET on the 28th
    RollingFileSink sink = new RollingFileSink(context("daily", "Europe/Berlin", clock, false));
    write(sink, "28th 23:30 CET\n");
    clock.set("2026-03-28T23:00:00Z"); // midnight CET: the 29th begins
    write(sink, "29th 00:00 CET\n");
    clock.set("2026-03-29T21:59:59Z"); // 23:59:59 CEST, 23 hours later
    write(sink, "29th 23:59 CEST\n");
    clock.set("2026-03-29T22:00:00Z"); // midnight CEST: the 30th begins
    write(sink, "30th 00:00 CEST\n");
    clock.set("2026-10-24T22:00:00Z"); // midnight CEST: the 25th of October begins
    write(sink, "25 Oct 00:00 CEST\n");
    clock.set("2026-10-25T22:59:59Z"); // 23:59:59 CET, 25 hours later
    write(sink, "25 Oct 23:59 CET\n");
    clock.set("2026-10-25T23:00:00Z");
    write(sink, "26 Oct 00:00 CET\n");
    sink.close();
    assertEquals(List.of("28th 23:30 CET"), TestFiles.lines(backup(4).toFile()));
    assertEquals(List.of("29th 00:00 CET", "29th 23:59 CEST"), TestFiles.lines(backup(3).toFile()));
    assertEquals(List.of("30th 00:00 CEST"), TestFiles.lines(backup(2).toFile()));
    assertEquals(List.of("25 Oct 00:00 CEST", "25 Oct 23:59 CET"), TestFiles.lines(backup(1).toFile()));
    assertEquals(List.of("26 Oct 00:00 CET"), TestFiles.lines(audit.toFile()));
  }

  @Test
  void hoursAreHoursOfElapsedTimeAcrossAChange() throws Exception {
    // 2026-10-25 in Europe/Berlin: 02:00-03:00 happens twice (CEST, then CET); each is an hour of its own.
    MovableClock clock = new MovableClock("2026-10-25T00:30:00Z"); // 02:30 CEST
    RollingFileSink sink = new RollingFileSink(context("hourly", "Europe/Berlin", clock, false));
    write(sink, "02:30 CEST\n");
    clock.set("2026-10-25T01:30:00Z"); // 02:30 CET
    write(sink, "02:30 CET\n");
    clock.set("2026-10-25T02:30:00Z"); // 03:30 CET
    write(sink, "03:30 CET\n");
    sink.close();
    assertEquals(List.of("02:30 CEST"), TestFiles.lines(backup(2).toFile()));
    assertEquals(List.of("02:30 CET"), TestFiles.lines(backup(1).toFile()));
    assertEquals(List.of("03:30 CET"), TestFiles.lines(audit.toFile()));
  }

  @Test
  void aFileLastWrittenInAnEarlierPeriodIsRotatedBeforeTheFirstWriteOfARun() throws Exception {
    MovableClock clock = new MovableClock("2026-11-25T09:00:00Z");
    RollingFileSink first = new RollingFileSink(context("daily", "UTC", clock, false));
    write(first, "yesterday\n");
    first.close();
    Files.setLastModifiedTime(audit, FileTime.from(Instant.parse("2026-11-25T09:00:00Z")));
    clock.set("2026-11-26T07:00:00Z");
    RollingFileSink next = new RollingFileSink(context("daily", "UTC", clock, false));
    write(next, "today\n");
    next.close();
    assertEquals(List.of("yesterday"), TestFiles.lines(backup(1).toFile()));
    assertEquals(List.of("today"), TestFiles.lines(audit.toFile()));

    clock.set("2026-11-26T08:00:00Z");
    Files.setLastModifiedTime(audit, FileTime.from(Instant.parse("2026-11-26T07:00:00Z")));
    RollingFileSink same = new RollingFileSink(context("daily", "UTC", clock, false));
    write(same, "today again\n");
    same.close();
    assertEquals(List.of("today", "today again"), TestFiles.lines(audit.toFile()), "same day: appended");
  }

  @Test
  void sizeAndTimeTogetherRotateAtWhicheverComesFirst() throws Exception {
    MovableClock clock = new MovableClock("2026-11-25T10:00:00Z");
    Configuration c = new Configuration(false);
    audit = dir.resolve("audit.log");
    c.set(NnauditConfigKeys.FILE_PATH_KEY, audit.toString());
    c.set(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, "hourly");
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 50);
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext().withWallClock(clock));
    String line = "x".repeat(299) + "\n";
    for (int i = 0; i < 5; i++) {
      write(sink, line); // 1200 bytes at the 5th: one rotation by size
    }
    clock.set("2026-11-25T11:00:01Z");
    write(sink, "next hour\n");
    sink.close();
    assertEquals(4, TestFiles.lines(backup(2).toFile()).size(), "rotated by size at 1200 bytes");
    assertEquals(1, TestFiles.lines(backup(1).toFile()).size(), "rotated by time with one record");
    assertEquals(List.of("next hour"), TestFiles.lines(audit.toFile()));
  }

  @Test
  void aSealedTrailRotatedByTimeAndInTheIdleLoopVerifies() throws Exception {
    MovableClock clock = new MovableClock("2026-11-25T22:00:00Z");
    RollingFileSink sink = new RollingFileSink(context("hourly", "UTC", clock, true));
    for (int h = 0; h < 5; h++) {
      write(sink, "record of hour " + h + "\n");
      clock.advanceMillis(3_600_000L);
      if (h % 2 == 0) {
        sink.idle();
      }
    }
    sink.close();
    for (int i = 1; i <= 4; i++) {
      assertTrue(Files.exists(backup(i)), "hour " + (4 - i));
    }
    VerifyReport r = Verification.report(ec.checkingKey(), audit);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.toString());
  }
}
