package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.AuditTestSupport;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * A seal due by time while the writer is idle: the sealing thread, napping between looks, writes it once the
 * record has waited nnaudit.seal.interval.ms, and no later than a nap (a tenth of the interval, at most 100 ms)
 * after that, with room here for a loaded machine but not for a nap as long as the interval.
 */
class SealDueByTimeTest {
  private static final long INTERVAL_MS = 2_000;

  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  @Test
  void anIdleWritersRecordIsSealedOnceItHasWaitedTheInterval() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, f.getPath());
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 1_000_000); // by time only
    c.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, INTERVAL_MS);
    SealKeys.enable(c, ec, dir);
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    try {
      AuditTestSupport.awaitTrue("the file's open seal", 10_000, () -> sink.sealsWritten() == 1);
      long start = System.nanoTime();
      sink.write(ByteBuffer.wrap("one record\n".getBytes(StandardCharsets.UTF_8)));
      AuditTestSupport.awaitTrue("the seal due by time", 10_000, () -> sink.sealsWritten() == 2);
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(waited >= INTERVAL_MS - 5, "sealed after " + waited + " ms, before the interval");
      assertTrue(waited <= INTERVAL_MS + 1_200, "sealed after " + waited + " ms: later than the interval and a nap "
          + "allow, even on a loaded machine");
      assertEquals(2, sink.sealsWritten());
    } finally {
      sink.close();
    }
  }
}
