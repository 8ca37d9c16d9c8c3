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
 * disk before the plain file goes, and again after the delete. A delete or fsync that fails (an immutable file)
 * takes the {@code .gz} back out, so the plain file is the one copy, as before.
 *
 * <p>Design note. Run on the compressor's thread, holding the {@link TrailRenameLock} that rotations hold, so
 * that no rotation renames a file between the look and the renames; a rotation waits for it at most
 * {@link TrailRenameLock#ROTATION_WAIT_MS}. The rename and the delete are each bracketed with the shipper's
 * {@link SpoolGuard#rotationStarting}/{@link SpoolGuard#rotationDone}, as a rotation's renames are (the lock
 * keeps the two brackets from interleaving), so a shipper's listing is never taken half-way through one. Keeps
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
    names.lockForCommit();
    try {
      RotatedFiles.Backup now = CompressibleFiles.find(live, dated, spool, copy.key);
      if (now == null) {
        Files.deleteIfExists(copy.temp);
        return null;
      }
      Path gz = TrailNames.compressed(now.path);
      renaming(spool);
      try {
        Files.move(copy.temp, gz); // fails if something is there
      } finally {
        renamed(spool);
      }
      try {
        forceDirectory(live);
        renaming(spool);
        try {
          if (!copy.key.equals(Lstat.key(now.path))) {
            throw new IOException(now.path + " is no longer the file that was compressed");
          }
          Files.delete(now.path);
        } finally {
          renamed(spool);
        }
      } catch (IOException e) {
        takeBack(gz, e, spool);
        throw e;
      }
      try {
        forceDirectory(live);
      } catch (IOException e) { // the .gz is named for good; a plain file back after a power cut goes at the start
        LOG.warn("nnaudit: could not fsync the directory of {} after deleting {}", gz, now.path, e);
      }
      return gz;
    } finally {
      names.unlock();
    }
  }

  /** The plain file stays: its {@code .gz} goes, so that there is one copy, plain, as before. */
  private static void takeBack(Path gz, IOException cause, SpoolGuard spool) {
    renaming(spool);
    try {
      Files.delete(gz);
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
