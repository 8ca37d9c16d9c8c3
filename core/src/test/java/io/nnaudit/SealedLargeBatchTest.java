package io.nnaudit;

import static io.nnaudit.AuditTestSupport.logCreate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collections;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * A sealed trail written by the whole pipeline in chunks of a megabyte, each handed to the sealing thread while
 * the writer formats the next into its reused buffer: queues filled behind a stalled write, drained, three times
 * over, with rotations; then the trail verifies and holds every record.
 */
class SealedLargeBatchTest {
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @RegisterExtension
  final LoggerFixture audit = new LoggerFixture();

  @Test
  void aTrailWrittenInMegabyteChunksVerifies() throws Exception {
    String pad = String.join("", Collections.nCopies(200, "p"));
    QueuedAuditLogger l = audit.start(c -> {
      c.setInt(NnauditConfigKeys.QUEUE_CAPACITY_KEY, 40_000);
      c.setInt(NnauditConfigKeys.WRITER_BATCH_MAX_EVENTS_KEY, 40_000);
      c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "16m");
      c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 20);
      try {
        SealKeys.enable(c, ec, audit.dir().toPath());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    int logged = 0;
    for (int round = 0; round < 3; round++) {
      audit.stallWriter(l, "/stall" + round);
      logged++;
      for (int i = 0; i < 30_000; i++) {
        logCreate(l, "/r" + round + "/" + i + "/" + pad);
        logged++;
      }
      audit.sink().resume();
      assertTrue(l.pipeline().awaitWritten(60_000));
    }
    int largest = Collections.max(audit.sink().recordsPerWrite());
    assertTrue(largest >= 1000, "chunks of a megabyte: " + largest + " records in the largest write");
    assertTrue(l.pipeline().close(30_000));
    VerifyReport r = Verification.report(ec.checkingKey(), audit.file().toPath());
    assertNull(r.tampering(), String.join("\n", r.lines()));
    assertTrue(r.unsealed().isEmpty(), String.join("\n", r.lines()));
    assertEquals(logged, r.records(), String.join("\n", r.lines()));
  }
}
