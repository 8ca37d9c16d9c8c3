package io.nnaudit.sink.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.GZIPOutputStream;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.AuditTestSupport;
import io.nnaudit.Closer;
import io.nnaudit.CompressedTrail;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeyFixture;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.SinkFixtures;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Verification;
import io.nnaudit.verify.VerifyReport;

/**
 * {@code nnaudit.file.compress=gzip} on real files: rotated files become {@code file.N.gz} holding their bytes,
 * shift and expire as members of the trail with their digests, wait for a shipper to finish them, are put right
 * at the next start after a kill, and stay plain when their compression fails.
 */
class RollingFileSinkCompressionTest {
  private static final long WAIT_MS = 60_000;

  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @RegisterExtension
  final Closer closer = new Closer();

  @TempDir
  Path dir;

  private final StringBuilder written = new StringBuilder();
  private int n;

  private Path live() {
    return dir.resolve("trail").resolve("audit.log");
  }

  private Configuration conf(String compress, int backups) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, live().toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, backups);
    c.set(NnauditConfigKeys.FILE_COMPRESS_KEY, compress);
    return c;
  }

  private final Set<RollingFileSink> open = new HashSet<>();

  /** A sink closed after the test unless {@link #close} closed it. */
  private RollingFileSink sink(Configuration c, SpoolGuard guard) {
    SinkContext context = NnauditSettings.fromConf(c).sinkContext();
    RollingFileSink s = new RollingFileSink(guard == null ? context : context.withSpoolGuard(guard));
    open.add(s);
    closer.add(() -> {
      if (open.remove(s)) {
        s.close();
      }
    });
    return s;
  }

  private void close(RollingFileSink s) throws IOException {
    open.remove(s);
    s.close();
  }

  /** A 1101-byte record: every write after the first rotates first. */
  private void fill(RollingFileSink sink) throws IOException {
    String line = String.format("record %04d %s\n", n++, String.join("", java.util.Collections.nCopies(1088, "x")));
    written.append(line);
    sink.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
  }

  private Path backup(int i) {
    return TrailNames.backup(live(), i);
  }

  private Path gz(int i) {
    return TrailNames.compressed(backup(i));
  }

  private void awaitCompressed(int from, int to) throws InterruptedException {
    for (int i = from; i <= to; i++) {
      int index = i;
      AuditTestSupport.awaitTrue(backup(i) + " compressed", WAIT_MS, 5,
          () -> CompressedTrail.exists(gz(index)) && !CompressedTrail.exists(backup(index)));
    }
  }

  private String[] names() {
    String[] names = live().getParent().toFile().list();
    Arrays.sort(names);
    return names;
  }

  private void assertNoTemporaryNames() {
    for (String name : names()) {
      assertFalse(name.contains(".compressing-") || name.contains(".expired-") || name.contains(".rotating-")
          || name.contains(".orphan-"), Arrays.toString(names()));
    }
  }

  private static String key(Path p) throws IOException {
    return String.valueOf(Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey());
  }

  @Test
  void rotatedFilesBecomeGzipFilesHoldingTheirBytes() throws Exception {
    RollingFileSink sink = sink(conf("gzip", 20), null);
    for (int i = 0; i < 12; i++) {
      fill(sink);
    }
    awaitCompressed(1, 11);
    assertEquals(written.toString(), CompressedTrail.text(live(), 20), "every record once, in order");
    byte[] last = String.format("record %04d %s\n", 10, String.join("", java.util.Collections.nCopies(1088, "x")))
        .getBytes(StandardCharsets.UTF_8);
    assertArrayEquals(last, CompressedTrail.gunzip(gz(1)), "byte for byte");
    AuditTestSupport.awaitTrue("the counters", WAIT_MS, () -> sink.filesCompressed() == 11);
    assertEquals(11 * 1101, sink.bytesBeforeCompression());
    long after = 0;
    for (int i = 1; i <= 11; i++) {
      after += Files.size(gz(i));
    }
    assertEquals(after, sink.bytesAfterCompression());
    assertTrue(after < 11 * 1101, "smaller");
    assertEquals(0, sink.compressionFailures());
    close(sink);
    assertNoTemporaryNames();
  }

  @Test
  void withoutTheKeyRotatedFilesStayPlain() throws Exception {
    RollingFileSink sink = sink(conf("none", 20), null);
    for (int i = 0; i < 4; i++) {
      fill(sink);
    }
    close(sink);
    assertEquals(Arrays.asList("audit.log", "audit.log.1", "audit.log.2", "audit.log.3"), Arrays.asList(names()));
    assertEquals(-1, sink.filesCompressed(), "no compression to count");
  }

  @Test
  void sealedGzipFilesShiftAndExpireWithTheirDigestsThroughManyRotations() throws Exception {
    Configuration c = conf("gzip", 4);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 3);
    c.setLong(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, 3_600_000L);
    SealKeys.enable(c, ec, dir);
    RollingFileSink sink = sink(c, null);
    for (int i = 0; i < 40; i++) {
      fill(sink);
      if (i % 3 == 2) {
        awaitCompressed(1, Math.min(i, 4)); // so that .gz files are shifted and expired by later rotations
      }
    }
    awaitCompressed(1, 4);
    close(sink);
    assertEquals(Arrays.asList("audit.log", "audit.log.1.gz", "audit.log.1.seals", "audit.log.2.gz",
        "audit.log.2.seals", "audit.log.3.gz", "audit.log.3.seals", "audit.log.4.gz", "audit.log.4.seals",
        "audit.log.seals"), Arrays.asList(names()), "each .gz with its digest under the plain name");
    String all = written.toString();
    int from = all.indexOf("record 0035");
    assertEquals(all.substring(from), CompressedTrail.text(live(), 10), "the four kept and the live one, in order");

    // the trail gunzipped to its plain names verifies against the digests as they are
    Path copy = CompressedTrail.plainCopy(live(), dir.resolve("gunzipped"));
    VerifyReport r = Verification.report(ec.checkingKey(), copy);
    assertEquals(VerifyReport.VERIFIED, r.exitCode(), String.join("\n", r.lines()));
  }

  @Test
  void aFileTheShipperHasNotFinishedIsNotCompressed() throws Exception {
    SpoolGuard guard = new SpoolGuard(10);
    RollingFileSink sink = sink(conf("gzip", 8), guard);
    for (int i = 0; i < 6; i++) {
      fill(sink); // file.5 record 0 ... file.1 record 4; every file held until the shipper says otherwise
    }
    assertEquals(0, sink.filesCompressed());
    guard.holdFrom(key(backup(4)), 500); // shipped file.5, half of file.4
    fill(sink); // the rotation wakes the compressor: file.6 (was file.5) is done, file.5 (was file.4) is not
    awaitCompressed(6, 6);
    assertTrue(CompressedTrail.exists(backup(5)), "the shipper's file stays plain");
    assertFalse(CompressedTrail.exists(gz(5)));
    for (int i = 1; i <= 4; i++) {
      assertTrue(CompressedTrail.exists(backup(i)) && !CompressedTrail.exists(gz(i)), "newer than it: plain");
    }
    AuditTestSupport.awaitTrue("the count", WAIT_MS, () -> sink.filesCompressed() == 1);

    guard.holdFrom(key(live()), 0); // caught up: in the live file, which this rotation makes file.1
    fill(sink);
    awaitCompressed(2, 7);
    assertTrue(CompressedTrail.exists(backup(1)), "the shipper's file is still file.1: plain");
    assertEquals(written.toString(), CompressedTrail.text(live(), 10));
    assertEquals(0, guard.lostFiles());
  }

  @Test
  void aStartDeletesAHalfWrittenCopyAndThePlainTwinOfACompleteGzip() throws Exception {
    Files.createDirectories(live().getParent());
    byte[] one = "record 0001\n".getBytes(StandardCharsets.UTF_8);
    byte[] two = "record 0000\n".getBytes(StandardCharsets.UTF_8);
    Files.write(TrailNames.compressing(live(), "123"), Arrays.copyOf(gzip(one), 7)); // a kill mid-copy
    Files.write(backup(1), one);
    Files.write(gz(1), gzip(one)); // a kill between the rename and the delete
    Files.write(backup(2), two);
    Files.write(gz(2), gzip("something else\n".getBytes(StandardCharsets.UTF_8))); // no copy of ours
    close(sink(conf("none", 20), null));
    String[] names = names();
    assertEquals(4, names.length, Arrays.toString(names));
    assertEquals(Arrays.asList("audit.log", "audit.log.1.gz", "audit.log.2"), Arrays.asList(names).subList(0, 3));
    assertTrue(names[3].startsWith("audit.log.2.gz.orphan-"), "not taken for the complete copy: set aside");
    assertArrayEquals(one, CompressedTrail.member(live(), 1));
    assertArrayEquals(two, CompressedTrail.member(live(), 2));
  }

  @Test
  void aStartWithCompressionOnCompressesWhatAnEarlierRunLeftPlain() throws Exception {
    RollingFileSink first = sink(conf("none", 20), null);
    for (int i = 0; i < 3; i++) {
      fill(first);
    }
    close(first);
    RollingFileSink second = sink(conf("gzip", 20), null);
    awaitCompressed(1, 2);
    fill(second);
    awaitCompressed(1, 3);
    assertEquals(written.toString(), CompressedTrail.text(live(), 20));
    close(second);
    assertNoTemporaryNames();
  }

  @Test
  void aFileThatCannotBeDeletedStaysPlainAndItsFailureIsCounted() throws Exception {
    Files.createDirectories(live().getParent());
    byte[] one = "record 0000\n".getBytes(StandardCharsets.UTF_8);
    Files.write(backup(1), one);
    chattr("+i", backup(1)); // read and gzipped, then cannot be deleted: the .gz is taken back
    RollingFileSink sink = sink(conf("gzip", 20), null);
    AuditTestSupport.awaitTrue("a failed compression", WAIT_MS, () -> sink.compressionFailures() > 0);
    close(sink);
    assertEquals(0, sink.filesCompressed());
    assertArrayEquals(one, Files.readAllBytes(backup(1)));
    assertFalse(CompressedTrail.exists(gz(1)), "one copy, the plain one");
    assertNoTemporaryNames();
  }

  @Test
  void aDirectoryThatCannotBeWrittenLeavesThePlainFile() throws Exception {
    assumeTrue(!"root".equals(System.getProperty("user.name")), "root writes a read-only directory; skipped");
    Files.createDirectories(live().getParent());
    byte[] one = "record 0000\n".getBytes(StandardCharsets.UTF_8);
    Files.write(backup(1), one);
    Files.write(live(), new byte[0]);
    Path d = live().getParent();
    closer.add(() -> d.toFile().setWritable(true));
    assertTrue(d.toFile().setWritable(false));
    RollingFileSink sink = sink(conf("gzip", 20), null);
    AuditTestSupport.awaitTrue("a failed compression", WAIT_MS, () -> sink.compressionFailures() > 0);
    close(sink);
    assertArrayEquals(one, Files.readAllBytes(backup(1)));
    assertEquals(Arrays.asList("audit.log", "audit.log.1"), Arrays.asList(names()));
  }

  private void chattr(String change, Path p) throws Exception {
    closer.add(() -> SinkFixtures.run("/usr/bin/chattr", "-ai", p.toString()));
    boolean done;
    try {
      done = SinkFixtures.run("/usr/bin/chattr", change, p.toString());
    } catch (IOException noChattr) {
      done = false;
    }
    assumeTrue(done, "chattr " + change + " does not work here (no chattr, a file system without the attribute, or "
        + "no CAP_LINUX_IMMUTABLE); skipped");
  }

  private static byte[] gzip(byte[] plain) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(plain);
    }
    return out.toByteArray();
  }
}
