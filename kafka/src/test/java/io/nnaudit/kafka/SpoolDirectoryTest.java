package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files a shipper reads, as one look at the directory finds them. */
class SpoolDirectoryTest {
  @TempDir
  Path dir;

  @Test
  void listsTheBackupsOldestFirstThenTheLiveFileAndNothingElse() throws Exception {
    Path live = dir.resolve("audit.log");
    for (String name : new String[] {"audit.log", "audit.log.1", "audit.log.2", "audit.log.4", "audit.log.5",
        "audit.log.kafka-checkpoint", "audit.log.rotating-1700000000000", "audit.log.3.expired-1700000000000",
        "audit.log.01", "other.log.3"}) {
      Files.write(dir.resolve(name), name.getBytes(StandardCharsets.UTF_8));
    }
    Files.createDirectory(dir.resolve("audit.log.6"));
    Files.createSymbolicLink(dir.resolve("audit.log.7"), dir.resolve("audit.log.1"));

    List<String> names = new ArrayList<>();
    for (SpoolFile f : new SpoolDirectory(live, 4, new io.nnaudit.ship.SpoolGuard(4)).list()) {
      names.add(f.path.getFileName() + (f.live ? " live" : ""));
    }
    // .5 is past max backups; .3 is a hole; .6 is a directory, .7 a link; the rest are not backups' names.
    assertEquals(List.of("audit.log.4", "audit.log.2", "audit.log.1", "audit.log live"), names);
  }

  /**
   * A compressed rotated file is a file the shipper finished, under a new inode: listed, it would look like a
   * new file to ship. Its plain twin, there for a moment of a compression, is listed once.
   */
  @Test
  void compressedFilesAreNotListed() throws Exception {
    Path live = dir.resolve("audit.log");
    for (String name : new String[] {"audit.log", "audit.log.1", "audit.log.2", "audit.log.2.gz", "audit.log.3.gz",
        "audit.log.4", "audit.log.compressing-1700000000000", "audit.log.5.gz.expired-1700000000000"}) {
      Files.write(dir.resolve(name), name.getBytes(StandardCharsets.UTF_8));
    }
    List<String> names = new ArrayList<>();
    for (SpoolFile f : new SpoolDirectory(live, 10, new io.nnaudit.ship.SpoolGuard(10)).list()) {
      names.add(f.path.getFileName() + (f.live ? " live" : ""));
    }
    assertEquals(List.of("audit.log.4", "audit.log.2", "audit.log.1", "audit.log live"), names);
  }

  /**
   * A look costs what the directory holds, not the configured bound: the shipper looks at least once a poll,
   * and {@code nnaudit.file.max.backups} may be set high to keep a long history. Probing every possible name
   * (an exception each for the missing ones) made one look with 10,000 allowed backups take ~50 ms, an idle
   * shipper burn a third of a core, and a loaded one ship a few files a second.
   */
  @Test
  void datedFilesAreListedByPeriodAndSequenceAfterNumberedOnesLeftFromBefore() throws Exception {
    Path live = dir.resolve("audit.log");
    for (String name : new String[] {"audit.log", "audit.log.2026-11-25.2", "audit.log.2026-11-24.1",
        "audit.log.2026-11-25.10", "audit.log.2026-11-25.1", "audit.log.2026-11-23.1.gz", "audit.log.1",
        "audit.log.2026-11-31.1", "audit.log.2026-11-26.1.seals"}) {
      Files.write(dir.resolve(name), name.getBytes(StandardCharsets.UTF_8));
    }
    io.nnaudit.trail.DatedNames dated = new io.nnaudit.trail.DatedNames(
        io.nnaudit.trail.DatedNames.DAILY_PATTERN, false, java.time.ZoneId.of("UTC"));
    List<String> names = new ArrayList<>();
    for (SpoolFile f : new SpoolDirectory(live, dated, 10, new io.nnaudit.ship.SpoolGuard(10)).list()) {
      names.add(f.path.getFileName() + (f.live ? " live" : ""));
    }
    assertEquals(List.of("audit.log.1", "audit.log.2026-11-24.1", "audit.log.2026-11-25.1", "audit.log.2026-11-25.2",
        "audit.log.2026-11-25.10", "audit.log live"), names, "no .gz, no 31st of November, no digest");
  }

  /**
   * A listing waits for a rotation's renames to end, an interrupt pending notwithstanding: with the flag set, each
   * park returned at once and the listing took the rotation half done within a millisecond (a file missing between
   * two renames, which the shipper announced as deleted, then shipped again under a new number). Here a rotation
   * is half done, on disk and by the guard's mark, for 300 ms while an interrupted thread lists: the listing comes
   * after the rotation, whole, and the interrupt is still set for the caller.
   */
  @Test
  void anInterruptDoesNotCutTheWaitForARotationShort() throws Exception {
    Path live = dir.resolve("audit.log");
    Files.write(live, "b\n".getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("audit.log.1"), "a\n".getBytes(StandardCharsets.UTF_8));
    io.nnaudit.ship.SpoolGuard guard = new io.nnaudit.ship.SpoolGuard(10);
    SpoolDirectory files = new SpoolDirectory(live, 10, guard);
    guard.rotationStarting();
    Files.move(dir.resolve("audit.log.1"), dir.resolve("audit.log.2")); // the first of the rotation's renames
    java.util.concurrent.atomic.AtomicReference<Object> result = new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicBoolean stillInterrupted = new java.util.concurrent.atomic.AtomicBoolean();
    Thread lister = new Thread(() -> {
      Thread.currentThread().interrupt();
      try {
        long t0 = System.nanoTime();
        List<String> names = new ArrayList<>();
        for (SpoolFile f : files.list()) {
          names.add(f.path.getFileName() + (f.live ? " live" : ""));
        }
        result.set(names + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
      } catch (Exception e) {
        result.set(e);
      }
      stillInterrupted.set(Thread.currentThread().isInterrupted());
    });
    lister.start();
    Thread.sleep(300);
    Files.move(live, dir.resolve("audit.log.1")); // the rest of the rotation
    Files.write(live, new byte[0]);
    guard.rotationDone();
    lister.join(10_000);
    String got = String.valueOf(result.get());
    assertTrue(got.startsWith("[audit.log.2, audit.log.1, audit.log live] after "), got);
    assertTrue(stillInterrupted.get(), "the interrupt is set again for the caller");
  }

  /**
   * After an interrupt closed a digest's channel, the digest is opened again only if it is the one opened at
   * first: found again after a rotation renamed it along with its file, not taken when another file (another
   * inode) was put at its name.
   */
  @Test
  void aDigestIsOpenedAgainOnlyIfItIsTheSameInode() throws Exception {
    Path live = dir.resolve("audit.log");
    Files.write(live, "a\n".getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("audit.log.seals"), "first\n".getBytes(StandardCharsets.UTF_8));
    io.nnaudit.ship.SpoolGuard guard = new io.nnaudit.ship.SpoolGuard(10);
    SpoolDirectory files = new SpoolDirectory(live, 10, guard);
    String fileKey = files.liveFile().key;
    SpoolDirectory.DigestLookup first = files.openDigest(fileKey);
    first.channel.close();
    try (java.nio.channels.FileChannel again = files.reopenDigest(fileKey, first.key)) {
      assertTrue(again != null, "the same digest, at the same name");
    }
    guard.rotationStarting(); // the file and its digest renamed together
    Files.move(dir.resolve("audit.log.seals"), dir.resolve("audit.log.1.seals"));
    Files.move(live, dir.resolve("audit.log.1"));
    Files.write(live, new byte[0]);
    guard.rotationDone();
    try (java.nio.channels.FileChannel again = files.reopenDigest(fileKey, first.key)) {
      assertTrue(again != null, "the same digest, at its file's new name");
    }
    Path tmp = dir.resolve("planted");
    Files.write(tmp, "other\n".getBytes(StandardCharsets.UTF_8));
    Files.move(tmp, dir.resolve("audit.log.1.seals"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertTrue(files.reopenDigest(fileKey, first.key) == null, "another inode at its name is not taken for it");
  }

  @Test
  void aLookCostsTheFilesThereNotTheBoundOnBackups() throws Exception {
    Path live = dir.resolve("audit.log");
    Files.write(live, new byte[10]);
    Files.write(dir.resolve("audit.log.1"), new byte[10]);
    SpoolDirectory files = new SpoolDirectory(live, 1_000_000, new io.nnaudit.ship.SpoolGuard(4));
    long t0 = System.nanoTime();
    assertEquals(2, files.list().size());
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertTrue(ms < 1000, "one look at 2 files with up to 1,000,000 backups allowed took " + ms + " ms");
  }

  /**
   * Only files of the live file's owner are the trail: a rotated file or a digest another user planted beside it
   * is neither listed nor read as a digest, whatever the owners' ids (here one above 2^31, which Java sees as a
   * negative int). Owners are compared by uid; giving files away needs root, so elsewhere this is skipped.
   */
  @Test
  void filesOfAnotherOwnerAreNeitherListedNorReadAsDigests() throws Exception {
    Path live = dir.resolve("audit.log");
    for (String name : new String[] {"audit.log", "audit.log.1", "audit.log.2", "audit.log.3", "audit.log.seals",
        "audit.log.1.seals"}) {
      Files.write(dir.resolve(name), name.getBytes(StandardCharsets.UTF_8));
    }
    int owner = (int) 4_294_967_294L; // uid 4294967294, an int of -2
    int other = 1234;
    for (String name : new String[] {"audit.log", "audit.log.1", "audit.log.3", "audit.log.1.seals"}) {
      giveTo(dir.resolve(name), owner);
    }
    giveTo(dir.resolve("audit.log.2"), other);
    giveTo(dir.resolve("audit.log.seals"), other);
    SpoolDirectory files = new SpoolDirectory(live, 10, new io.nnaudit.ship.SpoolGuard(10));
    List<SpoolFile> listed = files.list();
    List<String> names = new ArrayList<>();
    for (SpoolFile f : listed) {
      names.add(f.path.getFileName() + (f.live ? " live" : ""));
    }
    assertEquals(List.of("audit.log.3", "audit.log.1", "audit.log live"), names, "audit.log.2 is another user's");
    SpoolFile liveFile = listed.get(2);
    assertEquals(owner, liveFile.uid);
    SpoolDirectory.DigestLookup planted = files.openDigest(liveFile.key);
    assertTrue(planted.settled && planted.channel == null, "another user's digest of the live file is not read");
    SpoolDirectory.DigestLookup own = files.openDigest(listed.get(1).key);
    assertTrue(own.channel != null, "the owner's digest of audit.log.1 is read");
    own.channel.close();
  }

  private static void giveTo(Path p, int uid) {
    try {
      Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    } catch (java.io.IOException | RuntimeException e) {
      assumeTrue(false, "cannot give a file to uid " + Integer.toUnsignedString(uid) + " (not root?): " + e);
    }
  }

  /**
   * A hard link of the live file under a rotated file's name, made by hand: no rotation explains it, so one look
   * takes each file once, the live file as the live file (not the link's name, which would make the shipper take
   * the file being written for a finished one), without retrying as while a rotation renames files.
   */
  @Test
  void aHardLinkOfTheLiveFileIsTakenOnceAsTheLiveFile() throws Exception {
    Path live = dir.resolve("audit.log");
    Files.write(live, "live\n".getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("audit.log.1"), "one\n".getBytes(StandardCharsets.UTF_8));
    Files.createLink(dir.resolve("audit.log.2"), live);
    List<String> names = new ArrayList<>();
    for (SpoolFile f : new SpoolDirectory(live, 10, new io.nnaudit.ship.SpoolGuard(10)).list()) {
      names.add(f.path.getFileName() + (f.live ? " live" : ""));
    }
    assertEquals(List.of("audit.log.1", "audit.log live"), names);
  }
}
