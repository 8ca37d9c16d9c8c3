package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.AuditTestSupport;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.verify.Problem;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/** The file sink with sealing on, checked by the verifier: rotation, restart, a kill's unsealed tail. */
class SealedFileSinkTest {
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private SinkContext context(File f, String maxSize, int backups, int intervalRecords) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, f.getPath());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, maxSize);
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, backups);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, intervalRecords);
    c.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 3_600_000L); // seals by count only, so a test knows them
    SealKeys.enable(c, ec, dir);
    return NnauditSettings.fromConf(c).sinkContext();
  }

  private static int n;

  private static void write(RollingFileSink sink, int records) throws Exception {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < records; i++) {
      b.append(String.format("record %08d %s%n", n++, "x".repeat(33)));
    }
    sink.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void rotatedAndRestartedTrailVerifies() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    RollingFileSink sink = new RollingFileSink(context(f, "2k", 3, 7));
    for (int b = 0; b < 40; b++) {
      write(sink, 5);
    }
    sink.close();
    RollingFileSink again = new RollingFileSink(context(f, "2k", 3, 7));
    for (int b = 0; b < 10; b++) {
      write(again, 5);
    }
    again.close();
    VerifyReport r = Verification.report(ec.checkingKey(), f.toPath());
    assertNull(r.tampering(), String.join("\n", r.lines()));
    assertTrue(r.unsealed().isEmpty(), String.join("\n", r.lines()));
    assertEquals(4, r.files(), String.join("\n", r.lines()));
    assertTrue(Files.exists(dir.resolve("audit.log.3.seals")));
    assertTrue(!Files.exists(dir.resolve("audit.log.4.seals")), "digests expire with their files");
  }

  @Test
  void aKilledWritersTailIsUnsealedThenSealedAtTheNextStart() throws Exception {
    File f = dir.resolve("audit.log").toFile();
    RollingFileSink sink = new RollingFileSink(context(f, "1m", 3, 100));
    write(sink, 150); // the sealing thread seals these 150 (the interval is 100 records)...
    AuditTestSupport.awaitTrue("the open seal and one interval seal", 10_000, () -> sink.sealsWritten() == 2);
    write(sink, 30); // ...but not these 30
    // not closed: as if killed
    VerifyReport r = Verification.report(ec.checkingKey(), f.toPath());
    assertNull(r.tampering(), String.join("\n", r.lines()));
    assertEquals(1, r.unsealed().size(), String.join("\n", r.lines()));
    assertEquals(Problem.Kind.UNSEALED_TAIL, r.unsealed().get(0).kind);
    assertEquals(30, r.unsealed().get(0).records);
    assertEquals(VerifyReport.UNSEALED, r.exitCode());
    RollingFileSink next = new RollingFileSink(context(f, "1m", 3, 100));
    next.close();
    // sealed by the next start, not by the run that wrote them: exit 2 unless the reader accepts that
    VerifyReport after = Verification.report(ec.checkingKey(), f.toPath());
    assertEquals(VerifyReport.UNSEALED, after.exitCode(), String.join("\n", after.lines()));
    assertEquals(180, after.records());
    assertEquals(1, after.late().size(), after.lines().toString());
    assertEquals(30, after.late().get(0).records);
    assertEquals(Problem.Kind.SEALED_LATE, after.late().get(0).kind);
    assertTrue(after.lines().toString().contains("SEALED LATE: "), after.lines().toString());
    VerifyReport accepted = Verification.report(ec.checkingKey(), f.toPath(), true);
    assertEquals(VerifyReport.VERIFIED, accepted.exitCode(), String.join("\n", accepted.lines()));
    List<String> out = accepted.lines();
    assertTrue(out.get(0).startsWith("verified: 1 file, 180 records, from "), out.toString());
    assertTrue(out.toString().contains("SEALED LATE (accepted): "), out.toString());
    // and so across any number of later clean starts and stops
    new RollingFileSink(context(f, "1m", 3, 100)).close();
    new RollingFileSink(context(f, "1m", 3, 100)).close();
    VerifyReport last = Verification.report(ec.checkingKey(), f.toPath());
    assertEquals(VerifyReport.UNSEALED, last.exitCode(), String.join("\n", last.lines()));
  }
}
