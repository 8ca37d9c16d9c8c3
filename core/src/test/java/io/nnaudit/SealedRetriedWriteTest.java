package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.verify.Verification;

/**
 * A sealed file written through a sink that overrides {@code write(ByteBuffer)} (the test's gated sink) and
 * refuses some writes: each refused chunk is retried whole, with the same records' ends, and the sealing thread,
 * which takes the lines from the writer's ends, must seal exactly what the file holds.
 */
class SealedRetriedWriteTest {
  @TempDir
  Path keys;

  @RegisterExtension
  final LoggerFixture loggers = new LoggerFixture();

  @Test
  void chunksRetriedAfterRefusedWritesAreSealedAsTheFileHoldsThem() throws Exception {
    SealKeys.KeyFiles key = SealKeys.ec(keys);
    Configuration c = loggers.conf();
    SealKeys.enable(c, key);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 50);
    c.setLong(NnauditConfigKeys.FAILURE_RETRY_INTERVAL_MS_KEY, 10);
    QueuedAuditLogger l = loggers.start(c);
    int events = 3000;
    for (int i = 0; i < events; i++) {
      if (i % 500 == 0) {
        loggers.sink().failNextWrites(2);
      }
      l.logAuditEvent(true, "u" + i, AuditTestSupport.localhost(), "mkdirs", "/d/" + i, null, null, null, null,
          null);
    }
    assertTrue(l.pipeline().close(60_000));
    assertEquals(events, l.stats().written, l.stats().toString());
    assertTrue(l.stats().sinkErrors >= 2, "writes were refused and retried: " + l.stats());
    assertEquals(events, LineEnds.records(loggers.file()).size());
    Verification.Run verified = Verification.withCert(key, loggers.file().getPath());
    assertEquals(0, verified.code, verified.toString());
  }
}
