package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.sink.file.ForwardingFileChannel;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Problem;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * A start's own seal under faults, on the Sealer itself, with digest writes failing on purpose (the one thing
 * here that is not real: a wrapping channel that refuses writes, standing in for a full disk or a kill): a seal
 * a start still owes is written before a rotation's; a start killed between its RECOVER and FOUND seals leaves
 * nothing the next start may recover; the run's records wait while the start's seal is owed; a sealer that
 * finds the digest written by another does not cut it back. Each ends with verify's exit code.
 */
class SealerStartFaultTest {
  @TempDir
  static Path work;
  @RegisterExtension
  static final SealKeyFixture keyFiles = new SealKeyFixture();
  static SealKey signing;
  static SealKey checking;

  @BeforeAll
  static void keys() throws Exception {
    signing = keyFiles.signingKey();
    checking = keyFiles.checkingKey();
  }

  /** Digest writes fail while {@code failing} > 0 (each failure counts it down); -1: fail from the next write on. */
  static class Flaky extends ForwardingFileChannel {
    final AtomicInteger failing;

    Flaky(FileChannel d, AtomicInteger failing) {
      super(d);
      this.failing = failing;
    }

    @Override public int write(ByteBuffer src) throws IOException {
      if (failing.get() != 0) {
        if (failing.get() > 0) {
          failing.decrementAndGet();
        }
        throw new IOException("injected: digest write fails");
      }
      return delegate.write(src);
    }
  }

  static Sealer.DigestOpener opener(Path audit, AtomicInteger failing) {
    return () -> new Flaky(FileChannel.open(TrailNames.digest(audit), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.APPEND), failing);
  }

  static Sealer sealer(boolean failClosed) {
    return new Sealer(new SealSettings(signing, 5, 86_400_000L), false, failClosed);
  }

  static int n;

  /** Appends {@code count} records to the file; returns them (for Sealer.written). */
  static ByteBuffer append(Path audit, int count) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < count; i++) {
      b.append("2026-01-01 00:00:00,000 INFO FSNamesystem.audit: allowed=true\tugi=u\tcmd=open\tsrc=/f").append(n++)
          .append('\n');
    }
    byte[] bytes = b.toString().getBytes(StandardCharsets.UTF_8);
    Files.write(audit, bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    return ByteBuffer.wrap(bytes);
  }

  /** A first run: OPEN, 12 records sealed (interval 5 -> sealed by seal()), then closed or left as a kill. */
  static void firstRun(Path audit, boolean close, int tailRecords) throws Exception {
    Files.createDirectories(audit.getParent());
    Sealer s = sealer(false);
    s.resume(audit, 0, opener(audit, new AtomicInteger()), null, 0, false);
    s.written(append(audit, 12));
    s.seal(Seal.Kind.INTERVAL);
    if (close) {
      s.seal(Seal.Kind.CLOSE);
    }
    s.closeDigest();
    if (tailRecords > 0) {
      append(audit, tailRecords); // written, never hashed: a kill
    }
  }

  static String digest(Path audit) throws IOException {
    return new String(Files.readAllBytes(TrailNames.digest(audit)), StandardCharsets.UTF_8);
  }

  static void appendBytes(Path audit, long mib, char c) throws IOException {
    StringBuilder line = new StringBuilder();
    while (line.length() < 1023) {
      line.append(c);
    }
    line.append('\n');
    byte[] l = line.toString().getBytes(StandardCharsets.US_ASCII);
    try (FileChannel out = FileChannel.open(audit, StandardOpenOption.APPEND)) {
      for (int i = 0; i < mib * 1024; i++) {
        out.write(ByteBuffer.wrap(l));
      }
    }
  }

  /**
   * The start-up thread may come with an interrupt pending. The start's seals go through it (the digest's opening
   * and write taken again, the interrupt cleared), the killed run's tail and what lies beyond its bound are hashed
   * and sealed, and the thread has its flag again once the start is done, not before (the hashing after the first
   * seal would fail on it).
   */
  @Test
  void anInterruptPendingOnTheStartingThreadIsGoneThroughAndGivenBack() throws Exception {
    Path audit = work.resolve("interrupted-start/audit.log");
    firstRun(audit, false, 3); // killed with 3 records after its last seal
    Sealer s = sealer(true);
    Thread.currentThread().interrupt();
    try {
      s.resume(audit, Files.size(audit), opener(audit, new AtomicInteger()), null, 0, false);
      assertTrue(Thread.currentThread().isInterrupted(), "the starting thread's flag, given back");
    } finally {
      Thread.interrupted();
    }
    assertFalse(s.startSealOwed(), "the start's seal is written");
    s.written(append(audit, 4));
    s.seal(Seal.Kind.CLOSE);
    s.closeDigest();
    assertTrue(digest(audit).contains("kind=recover"), digest(audit));
    VerifyReport r = Verification.report(checking, audit, true);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
    assertEquals(19, r.records(), r.lines().toString());
  }

  @Test
  void aResumeStillOwedIsWrittenBeforeARotationsSeal() throws Exception {
    Path audit = work.resolve("a/audit.log");
    firstRun(audit, true, 0);
    assertEquals(VerifyReport.VERIFIED, Verification.report(checking, audit, false).exitCode());
    Sealer s = sealer(false);
    s.resume(audit, Files.size(audit), opener(audit, new AtomicInteger(1)), null, 0, false); // RESUME fails once
    assertTrue(s.startSealOwed(), "the start's seal is owed: the run writes nothing until it is written");
    s.sealForRotation(0); // a rotation due before the retry
    assertFalse(s.startSealOwed());
    s.closeDigest();
    String d = digest(audit);
    assertTrue(d.contains("kind=resume"), d); // (the rotation seals nothing more: nothing else was written)
    VerifyReport r = Verification.report(checking, audit, false);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
  }

  @Test
  void aRecoverStillOwedIsWrittenBeforeARotationsSealAndStaysLate() throws Exception {
    Path audit = work.resolve("b/audit.log");
    firstRun(audit, false, 4); // killed: 4 records after the last seal
    assertEquals(VerifyReport.UNSEALED, Verification.report(checking, audit, false).exitCode());
    Sealer s = sealer(false);
    s.resume(audit, Files.size(audit), opener(audit, new AtomicInteger(1)), null, 0, false);
    s.sealForRotation(0);
    s.closeDigest();
    VerifyReport r = Verification.report(checking, audit, false);
    assertEquals(VerifyReport.UNSEALED, r.exitCode(), r.lines().toString());
    assertEquals(4, r.late().get(0).records, r.lines().toString());
  }

  @Test
  void recordsBeyondTheBoundStayInsertedThroughStartsKilledBeforeTheirFoundSeal() throws Exception {
    Path audit = work.resolve("c/audit.log");
    firstRun(audit, false, 0);
    appendBytes(audit, 50, 'x'); // 50 MiB after a seal that allows 5 records, then 24 MiB
    for (int start = 0; start < 3; start++) {
      AtomicInteger writes = new AtomicInteger();
      Sealer.DigestOpener killedAfterOneSeal = () -> new Flaky(FileChannel.open(TrailNames.digest(audit),
          StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND), new AtomicInteger()) {
        @Override
        public int write(ByteBuffer src) throws IOException {
          if (writes.getAndIncrement() >= 1) {
            throw new IOException("killed");
          }
          return super.write(src);
        }
      };
      sealer(true).resume(audit, Files.size(audit), killedAfterOneSeal, null, 0, false);
    }
    VerifyReport r = Verification.report(checking, audit, true);
    assertEquals(VerifyReport.TAMPERED, r.exitCode(), r.lines().toString());
    assertEquals(Problem.Kind.RECORDS_INSERTED, r.tampering().kind, r.lines().toString());
    Sealer s = sealer(false);
    s.resume(audit, Files.size(audit), opener(audit, new AtomicInteger()), null, 0, false);
    s.closeDigest();
    assertEquals(VerifyReport.TAMPERED, Verification.report(checking, audit, true).exitCode());
  }

  @Test
  void aFoundStillOwedIsWrittenBeforeARotationsSeal() throws Exception {
    Path audit = work.resolve("f/audit.log");
    firstRun(audit, false, 0);
    appendBytes(audit, 30, 'z'); // 30 MiB forged after a seal that did not close the file: beyond its bound
    Sealer s = sealer(false);
    s.resume(audit, Files.size(audit), opener(audit, new AtomicInteger(1)), null, 0, false); // the RECOVER fails
    assertTrue(s.startSealOwed());
    s.sealForRotation(0);
    s.closeDigest();
    VerifyReport r = Verification.report(checking, audit, true);
    assertEquals(VerifyReport.TAMPERED, r.exitCode(), r.lines().toString());
    assertEquals(Problem.Kind.RECORDS_INSERTED, r.tampering().kind, r.lines().toString());
  }

  @Test
  void aSealerDoesNotCutAwaySealsAnotherWroteAfterIt() throws Exception {
    Path audit = work.resolve("e/audit.log");
    Files.createDirectories(audit.getParent());
    Sealer old = sealer(false);
    old.resume(audit, 0, opener(audit, new AtomicInteger()), null, 0, false);
    old.written(append(audit, 3));
    old.seal(Seal.Kind.INTERVAL);
    Sealer next = sealer(false); // a replacement opened while the abandoned one still runs
    next.resume(audit, Files.size(audit), opener(audit, new AtomicInteger()), null, 0, false);
    old.seal(Seal.Kind.CLOSE); // the abandoned one's late close: refused, not written over the other's seals
    next.written(append(audit, 2));
    next.seal(Seal.Kind.INTERVAL);
    old.closeDigest();
    next.closeDigest();
    String d = digest(audit);
    assertTrue(d.contains("kind=resume") && !d.contains("kind=close"), d);
    assertEquals(1, old.sealFailures());
    VerifyReport r = Verification.report(checking, audit, false);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
  }
}
