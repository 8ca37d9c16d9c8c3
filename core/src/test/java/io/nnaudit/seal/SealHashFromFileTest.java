package io.nnaudit.seal;

import static io.nnaudit.seal.SealerStartFaultTest.append;
import static io.nnaudit.seal.SealerStartFaultTest.digest;
import static io.nnaudit.seal.SealerStartFaultTest.opener;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * Bytes the Sealer hashes from the audit file rather than from the writer (what a start finds, what a reopen
 * finds after a partial write, a file taken up with bytes in it), when reading them is cut short: by interrupts of
 * the thread (each read taken again from where the last stopped), by a file that ends before the range, or by
 * something else at the path; and records written while a range is still to be hashed. Real files, the Sealer
 * driven as the sealing thread drives it, or its chain alone.
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
   * An interrupt every 100 µs of the thread hashing 32 MiB that a reopen finds (this run's bytes beyond what was
   * hashed): each read an interrupt cuts short is taken again from where the last whole read stopped, and the
   * range is hashed whole.
   */
  @Test
  void aStormOfInterruptsWhileALongRangeIsHashedGoesOnFromWhereTheReadsStopped() throws Exception {
    Path audit = work.resolve("storm/audit.log");
    Sealer s = running(audit, 3);
    SealerStartFaultTest.appendBytes(audit, 32, 'p');
    Thread hashing = Thread.currentThread();
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger sent = new AtomicInteger();
    Thread storm = new Thread(() -> {
      while (!done.get()) {
        hashing.interrupt();
        sent.incrementAndGet();
        LockSupport.parkNanos(100_000);
      }
    });
    storm.start();
    try {
      s.reopened(audit, Files.size(audit), -1);
    } finally {
      done.set(true);
      while (storm.isAlive()) {
        try {
          storm.join();
        } catch (InterruptedException e) {
          // the storm's own, until it has ended
        }
      }
      Thread.interrupted();
    }
    assertTrue(sent.get() > 10, "interrupts sent while hashing: " + sent.get());
    s.written(append(audit, 2));
    s.seal(Seal.Kind.CLOSE);
    s.closeDigest();
    assertEquals(0, s.sealFailures());
    VerifyReport r = verify(audit);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
    assertEquals(3 + 32 * 1024 + 2, r.records(), r.lines().toString());
  }

  /**
   * A range the file does not hold (it ends before the range: cut) is left out of the seals rather than tried at
   * every seal: the chain goes on after it, no seal fails, and verify reports the seal after it as not
   * continuing the one before, never a trail that verifies.
   */
  @Test
  void aRangeTheFileDoesNotHoldIsLeftOutOfTheSealsAndVerifyReportsIt() throws Exception {
    Path audit = work.resolve("short/audit.log");
    Sealer s = running(audit, 5);
    s.reopened(audit, Files.size(audit) + 60, -1); // 60 bytes the file does not hold
    s.written(append(audit, 9));
    s.seal(Seal.Kind.CLOSE);
    s.closeDigest();
    assertEquals(0, s.sealFailures());
    VerifyReport r = verify(audit);
    assertEquals(VerifyReport.TAMPERED, r.exitCode(), r.lines().toString());
  }

  private static SealChain chain() {
    SealChain chain = new SealChain(System::currentTimeMillis, System::nanoTime);
    chain.newChain();
    chain.restartAt(0);
    return chain;
  }

  /**
   * Records written while a range is still to be hashed lengthen it and are hashed from the file after it: the
   * seal drafted then is the one a chain fed the same bytes as written drafts.
   */
  @Test
  void recordsWrittenWhileARangeIsToBeHashedAreHashedAfterItInTheFilesOrder() throws Exception {
    Path audit = work.resolve("pending/audit.log");
    Files.createDirectories(audit.getParent());
    ByteBuffer before = append(audit, 4);
    SealChain pending = chain();
    pending.toHashFromFile(audit, Files.size(audit)); // not yet hashed
    ByteBuffer after = append(audit, 6);
    pending.written(after.duplicate(), null);
    assertTrue(pending.catchingUp());
    pending.catchUp();
    assertFalse(pending.catchingUp());
    SealChain fed = chain();
    fed.written(before, null);
    fed.written(after, null);
    Seal a = pending.draft(Seal.Kind.INTERVAL, 0, 0, 0);
    Seal b = fed.draft(Seal.Kind.INTERVAL, 0, 0, 0);
    assertEquals(b.to, a.to);
    assertEquals(10, a.records);
    assertEquals(b.records, a.records);
    assertEquals(b.lineSum, a.lineSum);
    assertEquals(b.lastLine, a.lastLine);
    assertEquals(b.sha256, a.sha256);
  }

  /**
   * A range still to be hashed whose path holds something else than its file when it is caught up: another file
   * (moved away and replaced), nothing, a symlink to it, or a FIFO (which would block the open: not opened).
   * Nothing is hashed from what is there; the range is left out, and the chain goes on after it.
   */
  @Test
  void aRangeWhosePathHoldsSomethingElseIsLeftOutAndNothingThereIsHashed() throws Exception {
    Path dir = Files.createDirectories(work.resolve("replaced"));
    Path audit = dir.resolve("audit.log");
    for (String what : new String[] {"another file", "nothing", "a symlink", "a FIFO"}) {
      Files.deleteIfExists(audit);
      append(audit, 10);
      long size = Files.size(audit);
      SealChain chain = chain();
      chain.toHashFromFile(audit, size);
      Path moved = dir.resolve("moved-" + what.replace(' ', '-'));
      Files.move(audit, moved);
      switch (what) {
        case "another file":
          append(audit, 20); // longer: the range could be read from it
          break;
        case "a symlink":
          Files.createSymbolicLink(audit, moved);
          break;
        case "a FIFO":
          assertEquals(0, new ProcessBuilder("mkfifo", audit.toString()).inheritIO().start().waitFor());
          break;
        default:
          break;
      }
      chain.catchUp();
      assertFalse(chain.catchingUp(), what);
      assertEquals(size, chain.hashedFrom(), what + ": the chain goes on after the range");
      assertEquals(size, chain.hashedEnd(), what + ": nothing hashed");
    }
  }
}
