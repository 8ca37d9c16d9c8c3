package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.trail.Lstat;
import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.RotatedFiles;
import io.nnaudit.trail.TrailNames;

/**
 * The short last step of a compression: the complete copy takes the name {@code <the plain file's name now>.gz}
 * and the plain file is deleted. The plain file is found again by its key, since a rotation may have moved it up
 * while it was compressed, and it must still be one the compressor may take (a shipper may have gone back to
 * it). The rename replaces nothing; the directory is fsynced after it, so that the {@code .gz} has its name on
 * disk before the plain file goes, and again after the delete. Between the two, both are there, as a kill there
 * leaves them (a rotation moves both, a shipper lists only the plain one, verify checks both, the next start
 * keeps the {@code .gz}). A delete or fsync that fails (an immutable file) takes the {@code .gz} back out, so the
 * plain file is the one copy, as before.
 *
 * <p>Design note. Run on the compressor's thread. The look and the rename, and later the second look and the
 * delete, each hold the {@link TrailRenameLock} that rotations hold, so that no rotation renames a file between a
 * look and what follows it; the directory fsyncs are made without it, so a rotation (which may be a handler's,
 * under the pipeline's write lock) waits for a listing and a rename at most, and never longer than
 * {@link TrailRenameLock#ROTATION_WAIT_MS}. The rename and the delete are each bracketed with the shipper's
 * {@link SpoolGuard#rotationStarting}/{@link SpoolGuard#rotationDone}, as a rotation's renames are (the lock
 * keeps the brackets from interleaving), so a shipper's listing is never taken half-way through one. Keeps
 * nothing.
 */
final class CompressionCommit {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);

  private CompressionCommit() {
  }

  /**
   * Names {@code copy}; returns the {@code .gz} path, or null when the plain file is gone or may no longer be
   * compressed (the copy is then deleted). Throws when a step fails; the plain file is then where it was.
   */
  static Path commit(Path live, DatedNames dated, GzipCopy.Copy copy, SpoolGuard spool, TrailRenameLock names)
      throws IOException, InterruptedException {
    String gzKey;
    names.lockForCommit();
    try {
      RotatedFiles.Backup now = CompressibleFiles.find(live, dated, spool, copy.key);
      if (now == null) {
        Files.deleteIfExists(copy.temp);
        return null;
      }
      renaming(spool);
      try {
        Files.move(copy.temp, TrailNames.compressed(now.path)); // fails if something is there
      } finally {
        renamed(spool);
      }
      gzKey = Lstat.key(TrailNames.compressed(now.path));
    } finally {
      names.unlock();
    }
    try {
      forceDirectory(live); // the .gz has its name on disk before the plain file goes; outside the lock
    } catch (IOException e) {
      takeBack(live, dated, gzKey, e, spool, names);
      throw e;
    }
    Path gz;
    names.lockForCommit();
    try { // a rotation may have moved both up meanwhile (it moves a file and its .gz together), or expired both
      RotatedFiles.Backup plain = find(live, dated, copy.key, false);
      RotatedFiles.Backup compressed = find(live, dated, gzKey, true);
      if (plain == null || compressed == null) {
        return compressed == null ? null : compressed.path; // expired meanwhile: nothing left to delete
      }
      if (!compressed.plain.equals(plain.path)) {
        IOException e = new IOException(compressed.path + " is no longer beside " + plain.path);
        takeBackLocked(compressed.path, gzKey, e, spool);
        throw e;
      }
      gz = compressed.path;
      IOException failed = null;
      renaming(spool);
      try {
        Files.delete(plain.path);
      } catch (IOException e) {
        failed = e;
      } finally {
        renamed(spool);
      }
      if (failed != null) { // brackets are not nested: the take-back has its own
        takeBackLocked(gz, gzKey, failed, spool);
        throw failed;
      }
    } finally {
      names.unlock();
    }
    try {
      forceDirectory(live);
    } catch (IOException e) { // the .gz is named for good; a plain file back after a power cut goes at the start
      LOG.warn("nnaudit: could not fsync the directory of {} after deleting its plain file", gz, e);
    }
    return gz;
  }

  /** The rotated file whose key is {@code key}, compressed or plain as asked; null when it is not there. */
  private static RotatedFiles.Backup find(Path live, DatedNames dated, String key, boolean compressed)
      throws IOException {
    return RotatedFiles.withKey(RotatedFiles.list(live, dated, Integer.MAX_VALUE), key, compressed);
  }

  /** The plain file stays: its {@code .gz}, wherever a rotation moved it, goes, so there is one copy as before. */
  private static void takeBack(Path live, DatedNames dated, String gzKey, IOException cause, SpoolGuard spool,
      TrailRenameLock names) throws InterruptedException {
    names.lockForCommit();
    try {
      RotatedFiles.Backup gz = find(live, dated, gzKey, true);
      if (gz != null) {
        takeBackLocked(gz.path, gzKey, cause, spool);
      }
    } catch (IOException e) {
      cause.addSuppressed(e);
    } finally {
      names.unlock();
    }
  }

  private static void takeBackLocked(Path gz, String gzKey, IOException cause, SpoolGuard spool) {
    renaming(spool);
    try {
      if (gzKey.equals(Lstat.key(gz))) {
        Files.delete(gz);
      }
    } catch (IOException e) {
      cause.addSuppressed(e);
      LOG.error("nnaudit: {} is complete but its plain file could not be deleted, nor it; the next start keeps the "
          + "compressed one", gz, e);
    } finally {
      renamed(spool);
    }
  }

  private static void renaming(SpoolGuard spool) {
    if (spool != null) {
      spool.rotationStarting();
    }
  }

  private static void renamed(SpoolGuard spool) {
    if (spool != null) {
      spool.rotationDone();
    }
  }

  static void forceDirectory(Path live) throws IOException {
    try (FileChannel d = FileChannel.open(live.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
