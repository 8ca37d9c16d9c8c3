package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.AuditTestSupport;
import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * A seal that cannot be written, for real: the live digest made immutable with {@code chattr +i} while the sink
 * has it open, so that its write(2) fails with EPERM while the audit file itself still takes records. Under
 * fail-open records go on being written unsealed and each failed seal is counted, and once the digest can be
 * written again the next seal covers them all. Under fail-closed the sink writes no record once the sealing
 * thread has failed to write a due seal (each refused write tries the seal again), and resumes once it can. Either way the trail then verifies.
 */
class SealFaultTest {
  private static final int INTERVAL = 10;
  private static final int CHUNK = 4;

  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  private final List<Path> immutable = new ArrayList<>();
  private RollingFileSink sink;
  private Path live;
  private int next;

  @AfterEach
  void clearAttributesAndClose() throws Exception {
    for (Path p : immutable) {
      chattr("-i", p); // so that the temp dir can be deleted
    }
    if (sink != null) {
      sink.close();
    }
  }

  private RollingFileSink open(String failurePolicy) throws Exception {
    live = dir.resolve("audit.log");
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, live.toString());
    c.set(NnauditConfigKeys.FAILURE_POLICY_KEY, failurePolicy);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, INTERVAL);
    c.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 86_400_000L); // seals due by records only
    SealKeys.enable(c, ec, dir);
    sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    return sink;
  }

  /** One chunk of {@link #CHUNK} records, as the writer hands the sink a batch. */
  private void writeChunk() throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < CHUNK; i++) {
      b.append(String.format("allowed=true\tugi=alice\tcmd=mkdirs\tsrc=/fault/%06d\tproto=rpc%n", next + i));
    }
    sink.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
    next += CHUNK; // only once written: a chunk that throws was not
  }

  private static boolean chattr(String change, Path p) throws Exception {
    try {
      Process proc = new ProcessBuilder("/usr/bin/chattr", change, p.toString()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return proc.waitFor(30, TimeUnit.SECONDS) && proc.exitValue() == 0;
    } catch (IOException noChattr) {
      return false;
    }
  }

  /** Makes the live digest immutable; skips the test where that cannot be done. */
  private void breakDigest() throws Exception {
    Path digest = TrailNames.digest(live);
    immutable.add(digest);
    assumeTrue(chattr("+i", digest), "chattr +i does not work here (no chattr, a file system without the "
        + "attribute, or no CAP_LINUX_IMMUTABLE); skipped");
  }

  private void mendDigest() throws Exception {
    assertTrue(chattr("-i", TrailNames.digest(live)));
  }

  private long digestLines() throws IOException {
    return Files.readAllLines(TrailNames.digest(live)).size();
  }

  @Test
  void failOpenKeepsWritingAndTheNextSealThatWorksCoversEverything() throws Exception {
    open("fail-open");
    for (int i = 0; i < 6; i++) {
      writeChunk();
    }
    // the sealing thread seals after 12 and 24 records (every 3 chunks), after the OPEN seal
    AuditTestSupport.awaitTrue("the OPEN seal and two interval seals", 10_000, () -> sink.sealsWritten() == 3);
    long sealsBefore = sink.sealsWritten();
    long sealedLines = digestLines();
    assertEquals(0, sink.sealFailures());

    breakDigest();
    int writtenBefore = next;
    for (int i = 0; i < 15; i++) {
      writeChunk(); // never throws: fail-open
    }
    assertEquals(next, TestFiles.lines(live.toFile()).size(), "every record was written");
    AuditTestSupport.awaitTrue("a due seal failed and was counted", 10_000, () -> sink.sealFailures() >= 1);
    assertEquals(sealsBefore, sink.sealsWritten(), "no seal was written");
    assertEquals(sealedLines, digestLines(), "the digest is as it was");
    VerifyReport unsealed = Verification.report(ec.checkingKey(), live);
    assertNull(unsealed.tampering(), String.join("\n", unsealed.lines()));
    assertEquals(VerifyReport.UNSEALED, unsealed.exitCode(), String.join("\n", unsealed.lines()));
    assertEquals(1, unsealed.unsealed().size(), String.join("\n", unsealed.lines()));
    assertTrue(unsealed.unsealed().get(0).records >= next - writtenBefore, String.join("\n", unsealed.lines()));

    mendDigest();
    // the sealing thread tries again (a second after a failure) and covers every record written unsealed
    AuditTestSupport.awaitTrue("the seal due works again", 10_000, () -> sink.sealsWritten() == sealsBefore + 1);
    Seal covering = Seal.parse(Files.readAllLines(TrailNames.digest(live)).get((int) sealedLines));
    assertTrue(covering.records >= next - writtenBefore, "one seal covers what was written unsealed: "
        + covering);
    sink.close();
    sink = null;
    VerifyReport after = Verification.report(ec.checkingKey(), live);
    assertEquals(VerifyReport.VERIFIED, after.exitCode(), String.join("\n", after.lines()));
    assertEquals(next, after.records(), String.join("\n", after.lines()));
  }

  @Test
  void failClosedWritesNothingOnceASealIsDueAndCannotBeWritten() throws Exception {
    open("fail-closed");
    for (int i = 0; i < 6; i++) {
      writeChunk();
    }
    AuditTestSupport.awaitTrue("the OPEN seal and two interval seals", 10_000, () -> sink.sealsWritten() == 3);
    long sealsBefore = sink.sealsWritten();
    breakDigest();
    for (int i = 0; i < 3; i++) {
      writeChunk(); // 12 records: a seal is due, which the sealing thread fails to write
    }
    AuditTestSupport.awaitTrue("the due seal failed", 10_000, () -> sink.sealFailures() >= 1);
    long size = Files.size(live);
    long failures = sink.sealFailures();
    for (int i = 0; i < 5; i++) {
      assertThrows(IOException.class, this::writeChunk, "no record while the seal cannot be written");
    }
    assertEquals(size, Files.size(live), "the refused writes left the audit file as it was");
    assertEquals(next, TestFiles.lines(live.toFile()).size());
    assertEquals(failures + 5, sink.sealFailures(), "each refused write is a failed seal, counted");
    assertEquals(sealsBefore, sink.sealsWritten());

    mendDigest();
    writeChunk(); // the retried write: sealed first, then written
    writeChunk();
    assertEquals(sealsBefore + 1, sink.sealsWritten());
    sink.close();
    sink = null;
    VerifyReport after = Verification.report(ec.checkingKey(), live);
    assertEquals(VerifyReport.VERIFIED, after.exitCode(), String.join("\n", after.lines()));
    assertEquals(next, after.records(), String.join("\n", after.lines()));
    assertEquals(next, TestFiles.lines(live.toFile()).size());
  }
}
