package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Problem;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * Verify on trails whose rotated files are compressed ({@code file.N.gz}): the trail is written and sealed by
 * the real file sink, then its rotated files are compressed here as a compressor does, and changed as an
 * attacker (or an accident) would. Compressing, or compressing again with other settings, is not a change;
 * changing what a {@code .gz} decompresses to, cutting it, damaging it, deleting or renaming it is, named by the
 * {@code .gz}. A file there both plain and compressed is checked as both, and counted once.
 */
class CompressedTrailTamperTest {
  @TempDir
  static Path work;
  static SealKeys.KeyFiles key;
  static SealKey checking;
  /** A sealed trail of the live file and four rotated ones, copied for each case. */
  static Path template;
  /** What verify says of the template, all plain. */
  static VerifyReport plain;

  @BeforeAll
  static void writeTrail() throws Exception {
    key = SealKeys.ec(work.resolve("keys"));
    checking = key.checkingKey();
    template = work.resolve("template");
    Files.createDirectories(template);
    Random rnd = new Random(21);
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, template.resolve("audit.log").toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "3k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 4);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 5);
    c.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 86_400_000L);
    SealKeys.enable(c, key, work);
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    int n = 0;
    for (int b = 0; b < 100; b++) {
      StringBuilder batch = new StringBuilder();
      for (int i = 1 + rnd.nextInt(4); i > 0; i--) {
        batch.append(TamperPropertyTest.record(n++, rnd));
      }
      sink.write(ByteBuffer.wrap(batch.toString().getBytes(StandardCharsets.UTF_8)));
    }
    sink.close();
    for (int i = 1; i <= 4; i++) {
      assertTrue(Files.exists(template.resolve("audit.log." + i)), "rotated file " + i);
    }
    plain = Verification.report(checking, template.resolve("audit.log"));
    assertEquals(VerifyReport.VERIFIED, plain.exitCode(), plain.lines().toString());
  }

  /** A fresh copy of the template. */
  private static TamperPropertyTest.Trail copy(String name) throws Exception {
    Path dir = work.resolve(name);
    TamperPropertyTest.deleteTree(dir);
    TamperPropertyTest.copyTree(template, dir);
    return new TamperPropertyTest.Trail(dir.resolve("audit.log"));
  }

  private static Path gz(TamperPropertyTest.Trail t, int i) {
    return TrailNames.compressed(t.file(i));
  }

  private static void compressAll(TamperPropertyTest.Trail t) throws Exception {
    for (int i : t.rotated()) {
      if (Files.exists(t.file(i))) {
        GzipFiles.compress(t.file(i));
      }
    }
  }

  private static VerifyReport verify(TamperPropertyTest.Trail t) {
    return Verification.report(checking, t.live);
  }

  /** The first change verify reports: of a kind in {@code kinds}, in the file named {@code file}. */
  private static Problem assertChange(TamperPropertyTest.Trail t, Set<Problem.Kind> kinds, String file) {
    VerifyReport r = verify(t);
    Problem p = r.tampering();
    assertNotNull(p, "a change passed: " + r.lines());
    assertEquals(VerifyReport.TAMPERED, r.exitCode(), r.lines().toString());
    assertTrue(kinds.contains(p.kind), "kind " + p.kind + ", expected " + kinds + ": " + r.lines());
    assertEquals(file, p.file.getFileName().toString(), r.lines().toString());
    return p;
  }

  @Test
  void aMixOfPlainAndCompressedFilesVerifiesThroughTheCommand() throws Exception {
    TamperPropertyTest.Trail t = copy("mixed");
    GzipFiles.compress(t.file(2));
    GzipFiles.compress(t.file(4));
    Verification.Run run = Verification.withCert(key, t.live.getParent().toString());
    assertEquals(VerifyReport.VERIFIED, run.code, run.toString());
    assertTrue(run.output.startsWith("verified: 5 files, " + plain.records() + " records"), run.toString());
    assertFalse(run.output.contains("NOT VERIFIED"), run.toString());
    Verification.Run one = Verification.withCert(key, t.live.toString());
    assertEquals(VerifyReport.VERIFIED, one.code, one.toString());

    compressAll(t);
    VerifyReport all = verify(t);
    assertEquals(VerifyReport.VERIFIED, all.exitCode(), all.lines().toString());
    assertEquals(plain.files(), all.files());
    assertEquals(plain.records(), all.records());
    assertEquals(plain.lastSealHash(), all.lastSealHash());
  }

  @Test
  void recompressingWithOtherSettingsIsNotAChange() throws Exception {
    TamperPropertyTest.Trail t = copy("recompressed");
    byte[] one = Files.readAllBytes(t.file(1));
    byte[] three = Files.readAllBytes(t.file(3));
    Files.write(gz(t, 1), GzipFiles.gzipOtherwise(one, 1, 1));
    Files.write(gz(t, 3), GzipFiles.gzipOtherwise(three, 9, 3)); // three members, one after another
    Files.delete(t.file(1));
    Files.delete(t.file(3));
    GzipFiles.compress(t.file(2));
    assertTrue(Arrays.equals(one, GzipFiles.gunzip(gz(t, 1))));
    VerifyReport r = verify(t);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
    assertEquals(plain.records(), r.records());
    Verification.Run run = Verification.withCert(key, t.live.getParent().toString());
    assertEquals(VerifyReport.VERIFIED, run.code, run.toString());
  }

  @Test
  void aCompressedFileWithItsContentEditedIsNamed() throws Exception {
    TamperPropertyTest.Trail t = copy("edited");
    List<long[]> lines = t.sealedLines(2);
    long[] l = lines.get(lines.size() / 2);
    long at = l[0] + 30;
    long[] range = t.rangeOf(2, at);
    byte[] b = Files.readAllBytes(t.file(2));
    b[(int) at] = (byte) (b[(int) at] == 'x' ? 'y' : 'x');
    compressAll(t);
    Files.write(gz(t, 2), GzipFiles.gzipOtherwise(b, 6, 1));
    Problem p = assertChange(t, EnumSet.of(Problem.Kind.MODIFIED), "audit.log.2.gz");
    assertEquals(range[0], p.offset);
    assertEquals(range[1], p.line);

    TamperPropertyTest.Trail d = copy("line-deleted");
    l = d.sealedLines(3).get(4);
    range = d.rangeOf(3, l[0]);
    b = Files.readAllBytes(d.file(3));
    compressAll(d);
    Files.write(gz(d, 3), GzipFiles.gzip(TamperPropertyTest.concat(TamperPropertyTest.slice(b, 0, l[0]),
        TamperPropertyTest.slice(b, l[1], b.length))));
    p = assertChange(d, EnumSet.of(Problem.Kind.RECORDS_DELETED), "audit.log.3.gz");
    assertEquals(range[0], p.offset);
  }

  /**
   * The byte changes of {@link TamperPropertyTest} (a byte flipped, a record deleted, inserted or copied, two
   * swapped, the file cut), each made to the content of a rotated file that is then compressed (at a random
   * level, in one member or several), among other compressed files: each is found, of the same kind, at the
   * same byte and line of the uncompressed content, naming the .gz.
   */
  @Test
  void byteChangesInsideCompressedFilesAreFoundNamedAndPlaced() throws Exception {
    TamperPropertyTest.Change[] changes = {TamperPropertyTest.Change.FLIP_BYTE, TamperPropertyTest.Change.DELETE_LINE,
        TamperPropertyTest.Change.INSERT_LINE, TamperPropertyTest.Change.DUPLICATE_LINE,
        TamperPropertyTest.Change.SWAP_LINES, TamperPropertyTest.Change.TRUNCATE};
    int found = 0;
    for (int k = 0; k < 150; k++) {
      long seed = 0x6A2L + k;
      Random rnd = new Random(seed);
      TamperPropertyTest.Trail t = copy("property");
      TamperPropertyTest.Change change = changes[rnd.nextInt(changes.length)];
      TamperPropertyTest.Expected want = TamperPropertyTest.apply(change, t, rnd);
      if (want == null) {
        continue;
      }
      String changed = want.files.iterator().next();
      String expectedName = changed;
      for (int i : t.rotated()) {
        boolean isChanged = t.file(i).getFileName().toString().equals(changed);
        if (isChanged || rnd.nextInt(3) > 0) {
          byte[] b = Files.readAllBytes(t.file(i));
          Files.write(gz(t, i), rnd.nextBoolean() ? GzipFiles.gzip(b)
              : GzipFiles.gzipOtherwise(b, rnd.nextInt(10), 1 + rnd.nextInt(3)));
          Files.delete(t.file(i));
          expectedName = isChanged ? changed + TrailNames.COMPRESSED_SUFFIX : expectedName;
        }
      }
      String context = "case seed " + seed + ": " + change + " (" + want + ")";
      Problem p = assertChange(t, want.kinds, expectedName);
      if (want.offset >= 0) {
        assertEquals(want.offset, p.offset, context + ": " + p);
      }
      if (want.line > 0) {
        assertEquals(want.line, p.line, context + ": " + p);
      }
      found += expectedName.endsWith(TrailNames.COMPRESSED_SUFFIX) ? 1 : 0;
    }
    assertTrue(found >= 60, "changes in compressed files: " + found);
  }

  @Test
  void aDeletedMiddleFileIsMissingWhenTheFilesAreCompressed() throws Exception {
    TamperPropertyTest.Trail t = copy("deleted");
    compressAll(t);
    Files.delete(gz(t, 2));
    Files.delete(t.digest(2));
    assertChange(t, EnumSet.of(Problem.Kind.FILE_MISSING), "audit.log.2");

    TamperPropertyTest.Trail only = copy("deleted-file-only");
    compressAll(only);
    Files.delete(gz(only, 3));
    assertChange(only, EnumSet.of(Problem.Kind.FILE_MISSING), "audit.log.3");

    TamperPropertyTest.Trail digest = copy("deleted-digest-only");
    compressAll(digest);
    Files.delete(digest.digest(2));
    Problem p = assertChange(digest, EnumSet.of(Problem.Kind.DIGEST_MISSING), "audit.log.2.gz");
    assertTrue(p.detail.contains("(audit.log.2.seals)"), p.toString());
  }

  @Test
  void compressedFilesRenamedAcrossIndicesAreFound() throws Exception {
    TamperPropertyTest.Trail t = copy("swapped");
    compressAll(t);
    swap(gz(t, 2), gz(t, 3));
    assertChange(t, EnumSet.of(Problem.Kind.FILES_OUT_OF_ORDER), "audit.log.3.gz");

    TamperPropertyTest.Trail both = copy("swapped-with-digests");
    compressAll(both);
    swap(gz(both, 1), gz(both, 3));
    swap(both.digest(1), both.digest(3));
    VerifyReport swapped = verify(both);
    assertEquals(VerifyReport.TAMPERED, swapped.exitCode(), swapped.lines().toString());
    assertTrue(EnumSet.of(Problem.Kind.FILES_OUT_OF_ORDER, Problem.Kind.FILE_MISSING)
        .contains(swapped.tampering().kind), swapped.lines().toString());
    assertTrue(swapped.tampering().file.getFileName().toString().matches("audit\\.log\\.[0-9]+(\\.gz)?"),
        swapped.lines().toString());

    TamperPropertyTest.Trail up = copy("renamed-up");
    compressAll(up);
    Files.move(gz(up, 2), gz(up, 6));
    Files.move(up.digest(2), up.digest(6));
    VerifyReport r = verify(up);
    assertEquals(VerifyReport.TAMPERED, r.exitCode(), r.lines().toString());
    assertTrue(EnumSet.of(Problem.Kind.FILES_OUT_OF_ORDER, Problem.Kind.FILE_MISSING)
        .contains(r.tampering().kind), r.lines().toString());

    TamperPropertyTest.Trail mixed = copy("swapped-plain-and-compressed");
    GzipFiles.compress(mixed.file(2));
    Files.move(gz(mixed, 2), mixed.live.resolveSibling("tmp"));
    Files.move(mixed.file(4), mixed.file(2));
    GzipFiles.compress(mixed.file(2));
    Files.move(mixed.live.resolveSibling("tmp"), gz(mixed, 4));
    assertChange(mixed, EnumSet.of(Problem.Kind.FILES_OUT_OF_ORDER), "audit.log.4.gz");

    TamperPropertyTest.Trail unzipped = copy("gzip-under-a-plain-name");
    compressAll(unzipped);
    Files.move(gz(unzipped, 2), unzipped.file(2));
    assertChange(unzipped, EnumSet.of(Problem.Kind.MODIFIED, Problem.Kind.RECORDS_DELETED,
        Problem.Kind.RECORDS_INSERTED, Problem.Kind.TRUNCATED), "audit.log.2");
  }

  @Test
  void aCutOrDamagedCompressedFileIsAChangeNamedByIt() throws Exception {
    TamperPropertyTest.Trail t = copy("cut");
    compressAll(t);
    byte[] whole = Files.readAllBytes(gz(t, 2));
    for (int cut : new int[] {0, 5, 12, whole.length / 3, whole.length / 2, whole.length - 9, whole.length - 8,
        whole.length - 4, whole.length - 1}) {
      Files.write(gz(t, 2), TamperPropertyTest.slice(whole, 0, cut));
      Problem p = assertChange(t, EnumSet.of(Problem.Kind.TRUNCATED), "audit.log.2.gz");
      assertTrue(p.detail.contains("cut short"), p.toString());
    }
    Files.write(gz(t, 2), TamperPropertyTest.concat(whole, "x".getBytes(StandardCharsets.UTF_8)));
    assertChange(t, EnumSet.of(Problem.Kind.MODIFIED), "audit.log.2.gz");
    Files.write(gz(t, 2), TamperPropertyTest.concat(whole, new byte[] {0x1f, (byte) 0x8b}));
    assertChange(t, EnumSet.of(Problem.Kind.TRUNCATED), "audit.log.2.gz");
    Random rnd = new Random(5);
    for (int k = 0; k < 40; k++) {
      byte[] b = whole.clone();
      int at = 10 + rnd.nextInt(b.length - 10); // past the header's time and flags, which nothing covers
      b[at] ^= (byte) (1 + rnd.nextInt(255));
      Files.write(gz(t, 2), b);
      assertChange(t, EnumSet.of(Problem.Kind.MODIFIED, Problem.Kind.TRUNCATED), "audit.log.2.gz");
    }
    Files.write(gz(t, 2), whole);
    assertEquals(VerifyReport.VERIFIED, verify(t).exitCode());
  }

  @Test
  void aFileThereBothPlainAndCompressedIsCheckedAsBothAndCountedOnce() throws Exception {
    TamperPropertyTest.Trail t = copy("both");
    Files.write(gz(t, 2), GzipFiles.gzip(Files.readAllBytes(t.file(2))));
    VerifyReport r = verify(t);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), r.lines().toString());
    assertEquals(plain.records(), r.records());
    assertEquals(plain.files(), r.files());
    Verification.Run run = Verification.withCert(key, t.live.getParent().toString());
    assertEquals(VerifyReport.VERIFIED, run.code, run.toString());
    assertFalse(run.output.contains("NOT VERIFIED"), run.toString());

    byte[] b = Files.readAllBytes(t.file(2));
    long at = t.sealedLines(2).get(3)[0] + 20;
    long[] range = t.rangeOf(2, at);
    byte[] edited = b.clone();
    edited[(int) at] ^= 1;
    Files.write(gz(t, 2), GzipFiles.gzip(edited));
    Problem p = assertChange(t, EnumSet.of(Problem.Kind.MODIFIED), "audit.log.2.gz");
    assertEquals(range[0], p.offset);
    assertEquals(2, verify(t).files(), "verified before it: files 4 and 3, not the plain copy of 2");

    Files.write(gz(t, 2), GzipFiles.gzip(b));
    Files.write(t.file(2), edited);
    assertChange(t, EnumSet.of(Problem.Kind.MODIFIED), "audit.log.2");

    Files.write(t.file(2), b);
    byte[] z = GzipFiles.gzip(b);
    Files.write(gz(t, 2), TamperPropertyTest.slice(z, 0, z.length / 2));
    assertChange(t, EnumSet.of(Problem.Kind.TRUNCATED), "audit.log.2.gz");
  }

  @Test
  void aFileBeingCompressedBelongsToTheTrail() throws Exception {
    TamperPropertyTest.Trail t = copy("compressing");
    GzipFiles.compress(t.file(3));
    byte[] z = GzipFiles.gzip(Files.readAllBytes(t.file(2)));
    Files.write(TrailNames.compressing(t.live, "1764140000000"), TamperPropertyTest.slice(z, 0, z.length / 2));
    Verification.Run run = Verification.withCert(key, t.live.getParent().toString());
    // nothing seals what it holds, so the trail does not verify as a whole while it is there: records planted in
    // one must not pass as verified
    assertEquals(VerifyReport.UNSEALED, run.code, run.toString());
    assertFalse(run.output.contains("NOT VERIFIED"), run.toString());
    assertTrue(run.output.contains("audit.log.compressing-1764140000000") && run.output.contains("being compressed"),
        run.toString());
    Files.delete(TrailNames.compressing(t.live, "1764140000000"));
    assertEquals(VerifyReport.VERIFIED, Verification.withCert(key, t.live.getParent().toString()).code);

    // a .gz set aside under another name is looked at as it decompresses, and named
    Files.write(t.live.resolveSibling("audit.log.3.gz.orphan-9"),
        Files.readAllBytes(TrailNames.compressed(t.file(3))));
    run = Verification.withCert(key, t.live.getParent().toString());
    assertEquals(VerifyReport.UNSEALED, run.code, run.toString());
    assertTrue(run.output.contains("NOT VERIFIED: " + t.live.resolveSibling("audit.log.3.gz.orphan-9")),
        run.toString());
    Files.delete(t.live.resolveSibling("audit.log.3.gz.orphan-9"));

    // a compressed audit file of no trail here is named, as a plain one is
    Files.write(t.live.resolveSibling("other.log.gz"), GzipFiles.gzip(Files.readAllBytes(t.file(1))));
    run = Verification.withCert(key, t.live.getParent().toString());
    assertEquals(VerifyReport.UNSEALED, run.code, run.toString());
    assertTrue(run.output.contains("NOT VERIFIED: " + t.live.resolveSibling("other.log.gz")), run.toString());
  }

  private static void swap(Path a, Path b) throws Exception {
    Path tmp = a.resolveSibling("swap.tmp");
    Files.move(a, tmp);
    Files.move(b, a);
    Files.move(tmp, b);
  }
}
