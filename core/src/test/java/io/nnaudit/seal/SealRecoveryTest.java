package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Problem;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * What a kill or an operator leaves between two runs, met by the next start: a rotation killed between two of
 * its renames, a file cut short while the NameNode was down, sealing turned off across a rotation, and a
 * write interrupted on a handler thread. None may make verify call nnaudit's own trail tampered.
 */
class SealRecoveryTest {
  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;
  private int n;

  private RollingFileSink open(boolean sealed, String durability) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, live().toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "2k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 5);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 6);
    c.set(NnauditConfigKeys.DURABILITY_KEY, durability);
    if (sealed) {
      SealKeys.enable(c, ec, dir.resolve("creds"));
    }
    return new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
  }

  private Path live() {
    return dir.resolve("logs/audit.log");
  }

  private Path backup(int i) {
    return live().resolveSibling("audit.log." + i);
  }

  private void write(RollingFileSink sink, int batches) throws Exception {
    for (int b = 0; b < batches; b++) {
      StringBuilder s = new StringBuilder();
      for (int i = 0; i < 3; i++) {
        s.append(String.format("record %08d %s%n", n++, "y".repeat(40)));
      }
      sink.write(ByteBuffer.wrap(s.toString().getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** A sealed trail of the live file and three rotated ones, closed. */
  private void trail() throws Exception {
    RollingFileSink sink = open(true, "none");
    write(sink, 60);
    sink.close();
    VerifyReport r = Verification.report(ec.checkingKey(), live());
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
    assertTrue(Files.exists(backup(3)), "rotated");
  }

  private void restartAndClose() throws Exception {
    RollingFileSink sink = open(true, "none");
    write(sink, 5);
    sink.close();
  }

  @Test
  void aRotationKilledAfterStagingTheLiveFileIsUndone() throws Exception {
    trail();
    Files.move(live(), live().resolveSibling("audit.log.rotating-1700000000000")); // its digest not yet moved
    restartAndClose();
    VerifyReport r = Verification.report(ec.checkingKey(), live());
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
  }

  @Test
  void aRotationKilledBeforeTheDigestFollowedItsFileIsFinished() throws Exception {
    trail();
    for (int i = 4; i >= 1; i--) { // the shifts, each file with its digest
      if (Files.exists(backup(i))) {
        Files.move(backup(i), backup(i + 1));
        Files.move(TrailNames.digest(backup(i)), TrailNames.digest(backup(i + 1)));
      }
    }
    Files.move(live(), backup(1)); // staged, then moved on; the digest was staged and stayed there
    Files.move(TrailNames.digest(live()), live().resolveSibling("audit.log.rotating-1700000000000.seals"));
    restartAndClose();
    VerifyReport r = Verification.report(ec.checkingKey(), live());
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
  }

  @Test
  void aFileCutShortWhileDownIsReportedAsChangedAcrossRestarts() throws Exception {
    trail();
    byte[] b = Files.readAllBytes(live());
    Files.write(live(), java.util.Arrays.copyOf(b, b.length - 30));
    Problem first = null;
    for (int start = 1; start <= 3; start++) {
      restartAndClose();
      VerifyReport r = Verification.report(ec.checkingKey(), live());
      assertEquals(VerifyReport.TAMPERED, r.exitCode(), "after start " + start + ": " + r.lines());
      // the first start ends the cut record's line: the cut then reads as fewer records, or other bytes, there
      assertTrue(java.util.EnumSet.of(Problem.Kind.TRUNCATED, Problem.Kind.RECORDS_DELETED, Problem.Kind.MODIFIED)
          .contains(r.tampering().kind), r.lines().toString());
      if (first == null) {
        first = r.tampering();
      }
      // (each start writes and rotates: the cut file moves up by one name, its place in it stays)
      assertEquals(first.offset, r.tampering().offset, "the same place after every start: " + r.lines());
      try (java.util.stream.Stream<Path> files = Files.list(live().getParent())) {
        assertTrue(files.noneMatch(p -> p.getFileName().toString().contains(".stale-")),
            "the digest is kept where it is, as evidence");
      }
    }
  }

  @Test
  void sealingTurnedOffAcrossARotationAndOnAgain() throws Exception {
    trail();
    RollingFileSink plain = open(false, "none");
    write(plain, 20); // rotates: the sealed live file moves on with its digest
    plain.close();
    restartAndClose();
    VerifyReport r = Verification.report(ec.checkingKey(), live());
    assertNull(r.tampering(), r.lines().toString());
    assertEquals(VerifyReport.UNSEALED, r.exitCode(), "records written while sealing was off: " + r.lines());
  }

  @Test
  void aWriteInterruptedOnAHandlerThreadIsSealedAsTheFileHoldsIt() throws Exception {
    RollingFileSink sink = open(true, "interval");
    write(sink, 4);
    Thread.currentThread().interrupt(); // as Server.stop() interrupts handlers: the channel closes under the write
    try {
      write(sink, 1);
    } catch (ClosedByInterruptException expected) {
      // the write failed and was taken back
    } finally {
      Thread.interrupted();
    }
    write(sink, 30); // reopens the file; the seals go on over what it holds
    sink.close();
    VerifyReport r = Verification.report(ec.checkingKey(), live());
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
    assertEquals(0, sink.sealFailures());
    assertFalse(r.lines().isEmpty());
  }
}
