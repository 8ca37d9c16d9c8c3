package io.nnaudit;

import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.sink.MovableClock;
import io.nnaudit.sink.SinkFactory;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * Through the running pipeline: a daily file that no record reaches after 23:00 is closed at midnight by the
 * writer's idle loop, and the next record of the day after opens the new file.
 */
class IdleRotationTest {
  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  @Test
  void theWritersIdleLoopClosesAQuietDayAtMidnight() throws Exception {
    MovableClock clock = new MovableClock("2026-11-25T23:00:00Z");
    SinkFactory sinks = SinkFactory.of("file-on-a-moved-clock",
        context -> new RollingFileSink(context.withWallClock(clock)));
    Configuration c = audit.conf();
    c.set(NnauditConfigKeys.FILE_ROTATE_PERIOD_KEY, "daily");
    QueuedAuditLogger l = audit.start(sinks, c);
    logCreate(l, "/on/the/25th");
    assertTrue(l.pipeline().awaitWritten(10_000));
    File rotated = new File(audit.file().getPath() + ".1");
    clock.set("2026-11-26T00:00:00.001Z");
    long deadline = System.nanoTime() + 10_000_000_000L; // the idle loop polls every 50 ms; a bound, not a target
    while (!rotated.exists() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(rotated.exists(), "closed by the idle loop, with no record to write");
    logCreate(l, "/on/the/26th");
    assertTrue(l.pipeline().awaitWritten(10_000));
    List<String> before = TestFiles.operationRecords(rotated);
    List<String> after = TestFiles.operationRecords(audit.file());
    assertEquals(1, before.size());
    assertTrue(before.get(0).contains("src=/on/the/25th"), before.get(0));
    assertEquals(1, after.size());
    assertTrue(after.get(0).contains("src=/on/the/26th"), after.get(0));
  }
}
