package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.context;
import static io.nnaudit.sink.SinkFixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.TestFiles;
import io.nnaudit.sink.SinkFixtures.ManualClock;
import io.nnaudit.sink.file.RecordingChannels.Recorded;

/**
 * The file the sink stops writing to, because it was rotated or moved away, is fsynced before it is closed
 * unless durability is none: the records written to it since the last fsync are covered by no later fsync.
 */
class RollingFileSinkFsyncTest {
  @TempDir
  Path dir;

  private final RecordingChannels channels = new RecordingChannels();
  private final ManualClock clock = new ManualClock();

  private RollingFileSink sink(String durability) {
    return new RollingFileSink(context(dir.resolve("audit.log"), "1k", 3, durability), channels, clock);
  }

  private static final String BIG = "x".repeat(1100) + "\n"; // over 1k: the next write rotates first

  @Test
  void intervalFsyncsTheRotatedFileBeforeClosingIt() throws Exception {
    RollingFileSink sink = sink("interval");
    write(sink, BIG);
    write(sink, "after\n");
    sink.close();
    Recorded first = channels.opened.get(0);
    assertEquals(List.of("force", "close"), first.events, "the rotated file, fsynced then closed");
    assertEquals(List.of(BIG.trim()), TestFiles.lines(dir.resolve("audit.log.1").toFile()));
    assertEquals(List.of("after"), TestFiles.lines(dir.resolve("audit.log").toFile()));
  }

  @Test
  void intervalFsyncsAFileMovedAwayBeforeClosingIt() throws Exception {
    RollingFileSink sink = sink("interval");
    write(sink, "before\n");
    Files.move(dir.resolve("audit.log"), dir.resolve("moved.log"));
    clock.advance(1000);
    write(sink, "after\n");
    sink.close();
    assertEquals(List.of("force", "close"), channels.opened.get(0).events, "the moved file, fsynced then closed");
    assertEquals(List.of("before"), TestFiles.lines(dir.resolve("moved.log").toFile()));
    assertEquals(List.of("after"), TestFiles.lines(dir.resolve("audit.log").toFile()));
  }

  @Test
  void noneDoesNotFsyncTheRotatedFile() throws Exception {
    RollingFileSink sink = sink("none");
    write(sink, BIG);
    write(sink, "after\n");
    sink.close();
    assertEquals(List.of("close"), channels.opened.get(0).events);
  }

  @Test
  void aFailedFsyncOfTheRotatedFileIsReportedByTheNextForce() throws Exception {
    RollingFileSink sink = sink("interval");
    write(sink, BIG);
    channels.failForce = true;
    write(sink, "after\n"); // rotates; the write itself succeeds
    channels.failForce = false;
    IOException e = assertThrows(IOException.class, sink::force);
    assertTrue(e.getMessage().contains("may not survive a power cut"), e.getMessage());
    sink.force(); // reported once; the live file fsyncs fine
    sink.close();
    assertEquals(List.of("after"), TestFiles.lines(dir.resolve("audit.log").toFile()));
  }
}
