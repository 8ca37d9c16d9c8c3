package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.trail.FileStat;
import io.nnaudit.trail.Lstat;
import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.RotatedFiles;

/**
 * Which rotated files may be compressed now: the plain ones ({@code file.N}, not {@code file.N.gz}) that are
 * regular files of the live file's owner, not the live file itself, and, when a shipper forwards the file, that
 * the shipper has finished: those older than the one it holds ({@link SpoolGuard#held}); none while it holds
 * every file or its file is not found. Every rotated file is sealed to its end at rotation, so a rotated file is
 * complete. Stateless; the compressor's thread asks, before it compresses and again as it names the result.
 */
final class CompressibleFiles {
  private CompressibleFiles() {
  }

  /** The rotated files of {@code live} that may be compressed now, oldest (highest index) first. */
  static List<RotatedFiles.Backup> oldestFirst(Path live, DatedNames dated, SpoolGuard spool) throws IOException {
    List<RotatedFiles.Backup> out = new ArrayList<>();
    FileStat l = Lstat.stat(live);
    if (l == null) { // between two renames of a rotation, or moved away: looked at again later
      return out;
    }
    String liveKey = Lstat.key(l);
    List<RotatedFiles.Backup> backups = RotatedFiles.list(live, dated, Integer.MAX_VALUE);
    int finishedAbove = finishedAbove(spool, liveKey, backups);
    for (int i = backups.size() - 1; i >= 0; i--) {
      RotatedFiles.Backup b = backups.get(i);
      if (!b.compressed && b.index > finishedAbove && b.attributes.isRegularFile()
          && b.attributes.sameOwner(l) && !Lstat.key(b.attributes).equals(liveKey)) {
        out.add(b);
      }
    }
    return out;
  }

  /** The rotated file {@code key} as it is now (its current name), if it may be compressed now; else null. */
  static RotatedFiles.Backup find(Path live, DatedNames dated, SpoolGuard spool, String key) throws IOException {
    return RotatedFiles.withKey(oldestFirst(live, dated, spool), key, false); // every one listed is plain
  }

  /** The shipper has finished the backups above this index; MAX_VALUE: none of them. */
  private static int finishedAbove(SpoolGuard spool, String liveKey, List<RotatedFiles.Backup> backups) {
    if (spool == null) {
      return 0;
    }
    SpoolGuard.Hold hold = spool.held();
    if (hold.everyFile()) {
      return Integer.MAX_VALUE;
    }
    String key = hold.fileKey();
    if (key == null || key.equals(liveKey)) { // no shipper runs, or it is in the live file
      return 0;
    }
    for (RotatedFiles.Backup b : backups) {
      if (key.equals(Lstat.key(b.attributes))) {
        return b.index;
      }
    }
    return Integer.MAX_VALUE; // its file is gone: as retention does, take every file as unshipped
  }
}
