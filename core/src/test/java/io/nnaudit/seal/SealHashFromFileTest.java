package io.nnaudit.seal;

import static io.nnaudit.seal.SealerStartFaultTest.append;
import static io.nnaudit.seal.SealerStartFaultTest.digest;
import static io.nnaudit.seal.SealerStartFaultTest.opener;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * Bytes the Sealer hashes from the audit file rather than from the writer (what a start finds, what a reopen
 * finds after a partial write, a file taken up with bytes in it), when reading them is cut short: by an interrupt
 * of the thread (taken again), or by a read that ends early (the rest hashed before the next seal, records
 * written meanwhile after it). Real files, the Sealer driven as the sealing thread drives it; each ends with
 * verify's exit code.
 */
class SealHashFromFileTest {
  @TempDir
  Path work;
  @RegisterExtension
  static final SealKeyFixture keyFiles = new SealKeyFixture();
  static SealKey signing;
  static SealKey checking;

  @BeforeAll
  static void keys() throws Exception {
    signing = keyFiles.signingKey();
    checking = keyFiles.checkingKey();
  }

  /** A sealed file of {@code records} records, its sealer still running (a live file). */
  private Sealer running(Path audit, int records) throws Exception {
    Files.createDirectories(audit.getParent());
    Sealer s = new Sealer(new SealSettings(signing, 5, 86_400_000L), false, true);
    s.resume(audit, 0, opener(audit, new AtomicInteger()), null, 0, false);
    s.written(append(audit, records));
    s.seal(Seal.Kind.INTERVAL);
    return s;
  }

  private static void appendPartialLine(Path audit) throws IOException {
    Files.write(audit, "2026-01-01 00:00:00,000 INFO FSNamesystem.audit: allowed=true\tugi=u\tcmd=open\tsrc=/cut"
        .getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
  }

  private static VerifyReport verify(Path audit) throws Exception {
    return Verification.report(checking, audit, true);
  }

  @Test
  void aReopenWithAnInterruptPendingHashesWhatTheFileHolds() throws Exception {
    Path audit = work.resolve("reopen/audit.log");
    Sealer s = running(audit, 7);
    appendPartialLine(audit); // a write cut short that the sink could not take back: this run's bytes
    Thread.currentThread().interrupt();
    try {
      s.reopened(audit, Files.size(audit), -1);
    } finally {
      Thread.interrupted();
    }
    s.written(append(audit, 3));
    s.seal(Seal.Kind.CLOSE);
    s.closeDigest();
    assertEquals(0, s.sealFailures());
    VerifyReport r = verify(audit);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
  }

  @Test
  void aNewFileTakenUpWithAnInterruptPendingIsAdoptedWhole() throws Exception {
    Path first = work.resolve("adopt/audit.log");
    Sealer s = running(first, 4);
    Path next = work.resolve("adopt/audit.log.new");
    append(next, 6); // someone else's file, taken up
    Thread.currentThread().interrupt();
    try {
      s.startFile(next, Files.size(next), opener(next, new AtomicInteger()));
    } finally {
      Thread.interrupted();
    }
    assertFalse(s.startSealOwed(), "the ADOPT seal is written");
    s.written(append(next, 2));
    s.seal(Seal.Kind.CLOSE);
    s.closeDigest();
    assertTrue(digest(next).contains("kind=adopt"), digest(next));
    VerifyReport r = verify(next);
    assertEquals(8, r.records(), r.lines().toString());
  }

  /**
   * A read of the file that ends before the range (the file shorter than the sink said) fails the reopen; the
   * records written after go on. Before the next seal the rest of the range is hashed from the file, then the
   * records, in the file's order: the seals cover the file as it is, and verify finds it unchanged.
   */
  @Test
  void aRangeCutShortIsHashedBeforeTheNextSealAndTheRecordsAfterItFollow() throws Exception {
    Path audit = work.resolve("short/audit.log");
    Sealer s = running(audit, 5);
    long size = Files.size(audit);
    int partial = 60;
    assertThrows(IOException.class, () -> s.reopened(audit, size + partial, -1)); // the bytes are not there yet
    Files.write(audit, new byte[partial], StandardOpenOption.APPEND); // now they are
    Files.write(audit, new byte[] {'\n'}, StandardOpenOption.APPEND);
    s.written(ByteBuffer.wrap(new byte[] {'\n'})); // as the sink ends a partial line
    s.written(append(audit, 9));
    s.seal(Seal.Kind.INTERVAL);
    assertEquals(0, s.sealFailures());
    s.written(append(audit, 2));
    s.seal(Seal.Kind.CLOSE);
    s.closeDigest();
    VerifyReport r = verify(audit);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
    assertEquals(5 + 1 + 9 + 2, r.records(), r.lines().toString());
  }
}
