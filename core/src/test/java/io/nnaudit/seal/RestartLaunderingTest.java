package io.nnaudit.seal;

import static io.nnaudit.verify.Verification.withCert;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.sink.SinkFactory;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyCommand;
import io.nnaudit.verify.VerifyReport;

/**
 * The changes an attacker without the key makes to a sealed trail and then hides behind a start of the
 * NameNode's sink, or behind verify's directory mode, a huge digest or a re-encoded signature: each one, after
 * any number of starts and stops, is exit 1 or 2, never 0, and names the file it concerns. Trails are written
 * and restarted by the real file sink ({@link TamperPropertyTest#writeTrail}, {@link TamperPropertyTest#openSink});
 * verify is the command as an auditor runs it.
 */
class RestartLaunderingTest {
  @RegisterExtension
  static final SealKeyFixture key = new SealKeyFixture();

  @TempDir
  Path work;
  Path dir;

  @BeforeEach
  void keys() {
    TamperPropertyTest.work = work;
    TamperPropertyTest.key = key;
    dir = work.resolve("trail");
  }

  private void startAndStop(int times) throws Exception {
    for (int i = 0; i < times; i++) {
      TamperPropertyTest.openSink(dir).close();
    }
  }

  private static String records(int n) {
    StringBuilder b = new StringBuilder();
    Random rnd = new Random(n);
    for (int i = 0; i < n; i++) {
      b.append(TamperPropertyTest.record(700_000 + i, rnd));
    }
    return b.toString();
  }

  @Test
  void recordsAppendedAfterACleanStopAreInsertedBeforeAndAfterAnyNumberOfStarts() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 2, 31);
    Path live = dir.resolve("audit.log");
    long end = Files.size(live);
    Files.write(live, records(500).getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
    for (int starts = 0; starts <= 3; starts++) {
      Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
      assertEquals(VerifyReport.TAMPERED, r.code, "after " + starts + " starts: " + r);
      assertTrue(r.output.contains("audit.log at byte " + end + " ") && r.output.contains("records inserted"),
          r.toString());
      assertTrue(r.output.contains("500 records"), r.toString());
      startAndStop(1);
    }
  }

  /**
   * A journal left by a run under ack.policy=journal is written out by a sealed start: those records were sealed by
   * no run that acknowledged them, and verify says so, as for any records appended after a clean stop.
   */
  @Test
  void recordsAJournalLeftAreWrittenByASealedStartAndReportedAsInserted() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 2, 33);
    Path live = dir.resolve("audit.log");
    long end = Files.size(live);
    Configuration journaled = new Configuration(false);
    journaled.set(NnauditConfigKeys.FILE_PATH_KEY, live.toString());
    journaled.set(NnauditConfigKeys.ACK_POLICY_KEY, "journal");
    QueuedAuditLogger l = new QueuedAuditLogger(SinkFactory.of("held", context -> new RollingFileSink(context) {
      @Override
      public void write(java.nio.ByteBuffer chunk) throws java.io.IOException {
        throw new java.io.IOException("held: the records stay in the journal alone");
      }
    }));
    journaled.setLong(NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY, 1);
    l.initialize(journaled);
    io.nnaudit.AuditTestSupport.logCreate(l, "/journaled/0"); // journaled: acknowledged at once
    assertEquals(1, l.stats().journaled, l.stats().toString());
    l.pipeline().close(100); // given up on: the records stay past the journal's mark
    TamperPropertyTest.openSink(dir).close(); // the sealed start writes them out
    assertTrue(new String(Files.readAllBytes(live), StandardCharsets.UTF_8).contains("src=/journaled/0\t"));
    Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, r.code, r.toString());
    assertTrue(r.output.contains("audit.log at byte " + end + " ") && r.output.contains("records inserted"),
        r.toString());
  }

  @Test
  void aOneFileTrailEditedWithItsDigestDeletedIsNeverVerified() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 32, "1m");
    Path live = dir.resolve("audit.log");
    byte[] b = Files.readAllBytes(live);
    b[100] = (byte) (b[100] == 'x' ? 'y' : 'x');
    Files.write(live, b);
    Files.delete(TrailNames.digest(live));
    for (int starts = 0; starts <= 2; starts++) {
      Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
      assertEquals(VerifyReport.UNSEALED, r.code, "after " + starts + " starts: " + r);
      startAndStop(1);
    }
    Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
    assertTrue(r.output.contains("SEALED LATE: ") && r.output.contains("adopt"), r.toString());
    Verification.Run accepted = withCert(TamperPropertyTest.key, "--accept-late", dir.toString());
    assertEquals(VerifyReport.VERIFIED, accepted.code, accepted.toString());
    assertTrue(accepted.output.contains("SEALED LATE (accepted): "), accepted.toString());
  }

  @Test
  void editingTheLastSealedRangeAcrossAStartIsTamperedAndLeavesNoDigestToDelete() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 33, "1m");
    Path live = dir.resolve("audit.log");
    byte[] b = Files.readAllBytes(live);
    b[b.length - 20] = (byte) (b[b.length - 20] == 'x' ? 'y' : 'x');
    Files.write(live, b);
    startAndStop(2);
    Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, r.code, r.toString());
    try (Stream<Path> s = Files.list(dir)) {
      assertFalse(s.anyMatch(p -> p.getFileName().toString().contains(".stale-")), "nothing set aside");
    }
  }

  @Test
  void aDecoyTrailOrFilesRenamedAwayDoNotMakeADirectoryVerify() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 34);
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        if (p.getFileName().toString().endsWith(".seals")) {
          Files.delete(p);
        }
      }
    }
    Files.write(dir.resolve("zz"), new byte[0]);
    Files.write(dir.resolve("zz.seals"), new byte[0]);
    Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.UNSEALED, r.code, r.toString());
    assertTrue(r.output.contains("NOT VERIFIED: " + dir.resolve("audit.log")), r.toString());
    assertTrue(r.output.contains("holds no seal"), r.toString());

    Path other = work.resolve("renamed");
    TamperPropertyTest.writeTrail(other, 7, 0, 1, 35);
    try (Stream<Path> s = Files.list(other)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Files.move(p, p.resolveSibling(p.getFileName() + ".expired-1"));
      }
    }
    dir = other;
    Verification.Run renamed = withCert(TamperPropertyTest.key, dir.toString());
    assertNotEquals(VerifyReport.VERIFIED, renamed.code, renamed.toString());
  }

  @Test
  void aHugeOrGarbageDigestGivesAMessageNotAStackTrace() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 36, "1m");
    Path digest = TrailNames.digest(dir.resolve("audit.log"));
    try (RandomAccessFile f = new RandomAccessFile(digest.toFile(), "rw")) {
      f.setLength(f.length() + 2200L * 1024 * 1024); // sparse: 2.2 GB of zeros after the seals
    }
    Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, r.code, r.toString());
    assertTrue(r.output.contains("altered seal") && !r.output.contains("Exception") && !r.output.contains("\tat "),
        r.toString());
    Files.delete(digest);
    byte[] junk = new byte[1 << 20];
    new Random(1).nextBytes(junk);
    Files.write(digest, junk);
    Verification.Run binary = withCert(TamperPropertyTest.key, dir.toString());
    assertTrue(binary.code == VerifyReport.TAMPERED || binary.code == VerifyReport.UNSEALED
        || binary.code == VerifyCommand.USAGE, binary.toString());
    assertFalse(binary.output.contains("Exception") || binary.output.contains("\tat "), binary.toString());
  }

  @Test
  void aSignatureReencodedWithTheOtherSIsRejected() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 37, "1m");
    Path digest = TrailNames.digest(dir.resolve("audit.log"));
    List<String> lines = Files.readAllLines(digest);
    String lastLine = lines.get(lines.size() - 1);
    Seal s = Seal.parse(lastLine);
    byte[] der = Base64.getDecoder().decode(s.signature);
    BigInteger n = new BigInteger("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551", 16);
    // DER: 30 len 02 rlen r 02 slen s
    int rlen = der[3];
    int sAt = 4 + rlen + 2;
    BigInteger sv = new BigInteger(1, java.util.Arrays.copyOfRange(der, sAt, der.length));
    assertTrue(sv.compareTo(n.shiftRight(1)) <= 0, "seals are written with the low s");
    byte[] other = EcdsaForm.encode(new BigInteger(1, java.util.Arrays.copyOfRange(der, 4, 4 + rlen)),
        n.subtract(sv));
    String forged = lastLine.replace("sig=" + s.signature, "sig=" + Base64.getEncoder().encodeToString(other));
    lines.set(lines.size() - 1, forged);
    Files.write(digest, lines);
    Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, r.code, r.toString());
    assertTrue(r.output.contains("bad signature"), r.toString());
  }

  @Test
  void renamedSwappedAndReplacedFilesAreNamedForWhatTheyHold() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 38);
    Path foreign = TamperPropertyTest.writeTrail(work.resolve("foreign"), 7, 0, 1, 39);
    Path clean = work.resolve("clean");
    TamperPropertyTest.copyTree(dir, clean);

    swap(dir.resolve("audit.log.2"), dir.resolve("audit.log.3"));
    swap(dir.resolve("audit.log.2.seals"), dir.resolve("audit.log.3.seals"));
    Verification.Run both = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, both.code, both.toString());
    assertTrue(both.output.contains("files out of order") && !both.output.contains("audit.log.4"), both.toString());

    TamperPropertyTest.deleteTree(dir);
    TamperPropertyTest.copyTree(clean, dir);
    swap(dir.resolve("audit.log.2.seals"), dir.resolve("audit.log.3.seals"));
    Verification.Run digests = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, digests.code, digests.toString());
    assertTrue(digests.output.contains("audit.log.3.seals")
        && digests.output.contains("digests were renamed or swapped"), digests.toString());

    TamperPropertyTest.deleteTree(dir);
    TamperPropertyTest.copyTree(clean, dir);
    Files.copy(foreign.resolve("audit.log"), dir.resolve("audit.log"), StandardCopyOption.REPLACE_EXISTING);
    Files.copy(foreign.resolve("audit.log.seals"), dir.resolve("audit.log.seals"), StandardCopyOption.REPLACE_EXISTING);
    Verification.Run replaced = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, replaced.code, replaced.toString());
    assertTrue(replaced.output.contains("TAMPERED: " + dir.resolve("audit.log") + " ")
        && replaced.output.contains("file from another trail"), replaced.toString());
  }

  @Test
  void rotatedFilesDeletedWithinRetentionStayMissingThroughLaterRotations() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 40); // 3k files, 4 kept: live and .1 to .4
    Files.delete(dir.resolve("audit.log.2"));
    Files.delete(dir.resolve("audit.log.2.seals"));
    Files.delete(dir.resolve("audit.log.3"));
    Files.delete(dir.resolve("audit.log.3.seals"));
    Verification.Run before = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, before.code, before.toString());
    RollingFileSink sink = TamperPropertyTest.openSink(dir);
    Random rnd = new Random(41);
    for (int i = 0; i < 60; i++) { // several rotations: the gap moves up, and must not be forgotten
      sink.write(java.nio.ByteBuffer.wrap(TamperPropertyTest.record(600_000 + i, rnd).getBytes(StandardCharsets.UTF_8)));
    }
    sink.close();
    Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, r.code, r.toString());
    assertTrue(r.output.contains("missing file"), r.toString());
  }

  @Test
  void aSealWhoseTimeOverflowsIsAnAlteredSealNotAnError() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 42, "1m");
    Path digest = TrailNames.digest(dir.resolve("audit.log"));
    List<String> lines = Files.readAllLines(digest);
    String last = lines.get(lines.size() - 1);
    lines.add(last.replaceFirst(" since=[^ ]+ ", " since=+1000000000-01-01T00:00:00.000Z "));
    Files.write(digest, lines);
    Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, r.code, r.toString());
    assertTrue(r.output.contains("altered seal"), r.toString());
    startAndStop(1); // a start keeps the digest and records what it found, and does not fail
    Verification.Run restarted = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.TAMPERED, restarted.code, restarted.toString());
  }

  @Test
  void filesUnderNamesVerifyDoesNotReadAreNamedNotPassedOver() throws Exception {
    TamperPropertyTest.writeTrail(dir, 7, 0, 1, 43);
    // what else lives beside a trail (a shipper's checkpoint) is no audit file: not named
    Files.write(dir.resolve("audit.log.kafka-checkpoint"), "file=3\noffset=100\n".getBytes(StandardCharsets.UTF_8));
    Verification.Run clean = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.VERIFIED, clean.code, clean.toString());
    Path forged = work.resolve("forged");
    Files.write(forged, records(3).getBytes(StandardCharsets.UTF_8));
    for (String name : new String[] {"audit.log.01", "audit.log.0", "audit.log.2.rotating-1", "audit.log.1.seals.moved-5",
        "audit.log.7.expired-3"}) {
      Files.copy(forged, dir.resolve(name));
      Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
      assertEquals(VerifyReport.UNSEALED, r.code, name + ": " + r);
      assertTrue(r.output.contains("NOT VERIFIED: " + dir.resolve(name)), name + ": " + r);
      Files.delete(dir.resolve(name));
    }
    Files.createSymbolicLink(dir.resolve("audit.log.9"), forged);
    Verification.Run link = withCert(TamperPropertyTest.key, dir.toString());
    assertEquals(VerifyReport.UNSEALED, link.code, link.toString());
    assertTrue(link.output.contains("NOT VERIFIED: " + dir.resolve("audit.log.9")), link.toString());
    Files.delete(dir.resolve("audit.log.9"));
    Files.write(forged, ("\n" + records(3)).getBytes(StandardCharsets.UTF_8)); // an empty first line
    Files.copy(forged, dir.resolve("other.log"));
    Verification.Run blank = withCert(TamperPropertyTest.key, dir.toString());
    assertTrue(blank.output.contains("NOT VERIFIED: " + dir.resolve("other.log")), blank.toString());
    assertEquals(VerifyReport.UNSEALED, blank.code, blank.toString());
  }

  @Test
  void theLiveFileDeletedWithItsDigestIsNeverVerifiedAfterStarts() throws Exception {
    for (String how : new String[] {"deleted", "emptied", "newest two deleted"}) {
      TamperPropertyTest.deleteTree(dir);
      TamperPropertyTest.writeTrail(dir, 7, 0, 1, 44);
      Path live = dir.resolve("audit.log");
      if (how.equals("emptied")) {
        Files.write(live, new byte[0]);
      } else {
        Files.delete(live);
      }
      Files.delete(TrailNames.digest(live));
      if (how.equals("newest two deleted")) { // and the rest renamed down, as if they were the newest
        Files.delete(dir.resolve("audit.log.1"));
        Files.delete(dir.resolve("audit.log.1.seals"));
        for (int k = 2; Files.exists(dir.resolve("audit.log." + k)); k++) {
          Files.move(dir.resolve("audit.log." + k), dir.resolve("audit.log." + (k - 1)));
          Files.move(dir.resolve("audit.log." + k + ".seals"), dir.resolve("audit.log." + (k - 1) + ".seals"));
        }
      }
      for (int starts = 0; starts <= 2; starts++) {
        Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
        assertNotEquals(VerifyReport.VERIFIED, r.code, how + ", after " + starts + " starts: " + r);
        startAndStop(1);
      }
      Verification.Run r = withCert(TamperPropertyTest.key, dir.toString());
      assertTrue(r.output.contains("was begun by the start at"), how + ": " + r);
    }
  }

  private static void swap(Path a, Path b) throws Exception {
    Path tmp = a.resolveSibling("swap.tmp");
    Files.move(a, tmp);
    Files.move(b, a);
    Files.move(tmp, b);
  }
}
