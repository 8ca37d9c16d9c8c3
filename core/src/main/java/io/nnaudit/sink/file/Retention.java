package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.sink.RotationSettings;
import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.FileLines;
import io.nnaudit.trail.RotatedFiles;

/**
 * Which rotated files a rotation keeps, and the deletion of the rest. Without a shipper, the newest files
 * within every bound set: {@code nnaudit.file.max.backups} files, {@code nnaudit.file.max.age} of age (by the
 * time a file was last written) and {@code nnaudit.file.max.total.size} bytes together (the file being rotated
 * counts, the new live file does not). When a shipper forwards the file, its {@link SpoolGuard} says which
 * files it has not finished: rotation keeps those beyond those bounds, up to
 * {@code nnaudit.kafka.spool.max.backups} rotated files, and deletes the rest. Retention is applied at each
 * rotation, as log4j2's Delete action and logback's maxHistory are: each deletion is announced by the rotated
 * file's last seal before it happens. A file deleted before it was
 * shipped (the spool bound reached) is counted in the guard and logged at WARN.
 *
 * <p>Design note. Used by the sink's writing thread only; nothing blocks but the listing, reading and deleting
 * of files. The shipper's hold is read as one {@link SpoolGuard.Hold}, so that the file it needs and the bytes
 * of it shipped belong together: when the rotation is planned, to choose what expires, and again as each
 * expiring file is deleted, to count the bytes lost (the shipper may have moved on while the rotation waited
 * for its seal).
 */
final class Retention {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);

  private final Path path;
  private final int maxBackups;
  /** {@code nnaudit.file.max.age} in ms; 0: no bound. */
  private final long maxAgeMs;
  /** {@code nnaudit.file.max.total.size}; 0: no bound. */
  private final long maxTotalBytes;
  /** The shipper's hold on unshipped files, or null when nothing ships from this file. */
  private final SpoolGuard spool;
  /** For the age of files. */
  private final Clock wall;
  /** The names of rotated files; null: numbered. */
  private final DatedNames dated;

  Retention(Path path, RotationSettings settings, SpoolGuard spool, Clock wall) {
    this.path = path;
    this.maxBackups = settings.maxBackups();
    this.maxAgeMs = settings.maxAgeMs();
    this.maxTotalBytes = settings.maxTotalBytes();
    this.spool = spool;
    this.wall = wall;
    this.dated = settings.datedNames();
  }

  /**
   * Which backups one rotation keeps: those now below {@code keep} (numbered, each moves up by one; dated, each
   * keeps its name and its rank rises by one). Immutable.
   */
  static final class Plan {
    /** Backups now at an index of keep or above expire. */
    final int keep;
    /** The highest index that holds a backup ({@link RotatedFiles#list}). */
    final int highest;
    /** Backups at an index up to this one are not yet shipped (-1: none; 0 is the live file). */
    private final int held;
    /** The shipper's hold, read again as each file expires; null without a shipper. */
    private final SpoolGuard spool;

    /** The plain name of the backup at each index (its digest follows it). */
    private final Map<Integer, Path> plainNames = new HashMap<>();

    Plan(int keep, List<RotatedFiles.Backup> backups, int held, SpoolGuard spool) {
      for (RotatedFiles.Backup b : backups) {
        plainNames.put(b.index, b.plain);
      }
      this.keep = keep;
      this.highest = backups.isEmpty() ? 0 : backups.get(backups.size() - 1).index;
      this.held = held;
      this.spool = spool;
    }

    /** The plain name of the backup at {@code index} (0 < index <= highest), or null when none is there. */
    Path plainAt(int index) {
      return plainNames.get(index);
    }

    /** The files the rotation keeps, for its seal: {@link #keep}, or 0 when it deletes none. */
    int keptFilesIfAnyExpire() {
      return highest >= keep ? keep : 0;
    }

    /**
     * The bytes of the backup at {@code index}, about to expire, not yet shipped; -1: the shipper is done. The
     * shipper's offset is read now, as one pair with its file (it may have moved on since the plan, while the
     * rotation waited for its seal): an offset is only taken for the file it belongs to.
     */
    long unshippedBytes(int index, BasicFileAttributes a) {
      return index <= held ? a.size() - spool.held().shippedBytesOf(a.fileKey()) : -1;
    }
  }

  /**
   * Without a shipper, {@code nnaudit.file.max.backups}. With one, also every file from the oldest it has not
   * finished on (the backup at index {@code held}; every file until it has read its checkpoint, or once the file
   * it was in has been deleted), up to {@code nnaudit.kafka.spool.max.backups} rotated files; backups left from an
   * earlier run past both bounds are deleted. {@code liveFileKey}: the file the sink writes.
   */
  Plan plan(Object liveFileKey, long liveSize) throws IOException {
    // Listed past the bound, so that backups above a bound lowered since expire too.
    List<RotatedFiles.Backup> backups = RotatedFiles.list(path, dated, Integer.MAX_VALUE);
    int kept = keptByBounds(backups, liveSize);
    if (spool == null) {
      return new Plan(kept, backups, -1, null);
    }
    int bound = Math.max(maxBackups, spool.maxHeldBackups());
    SpoolGuard.Hold hold = spool.held();
    int held = -1;
    String key = hold.fileKey();
    if (hold.everyFile()) {
      held = bound;
    } else if (key != null) {
      if (key.equals(String.valueOf(liveFileKey))) {
        held = 0;
      }
      for (int i = 0; held < 0 && i < backups.size(); i++) {
        if (key.equals(String.valueOf(backups.get(i).attributes.fileKey()))) {
          held = backups.get(i).index;
        }
      }
      if (held < 0) {
        held = bound; // the shipper's file is gone (lost to the bound): every file left is unshipped
      }
    }
    return new Plan(Math.min(bound, Math.max(kept, held + 1)), backups, Math.min(held, bound), spool);
  }

  /**
   * The {@code keep} of a rotation by the bounds alone: backups at an index of it or above expire. The first
   * (newest) backup last written before the age bound expires with every older one; so does the first that
   * takes the rotated files past the total size, counting the live file about to become {@code file.1}.
   */
  private int keptByBounds(List<RotatedFiles.Backup> backups, long liveSize) {
    long cutoff = maxAgeMs > 0 ? wall.millis() - maxAgeMs : Long.MIN_VALUE;
    long total = liveSize;
    for (RotatedFiles.Backup b : backups) {
      if (b.index >= maxBackups) {
        break;
      }
      total += b.attributes.size();
      if (b.attributes.lastModifiedTime().toMillis() < cutoff || (maxTotalBytes > 0 && total > maxTotalBytes)) {
        return b.index;
      }
    }
    return maxBackups;
  }

  /** The sink is about to rename files: a shipper listing them meanwhile looks again. */
  void renaming() {
    if (spool != null) {
      spool.rotationStarting();
    }
  }

  /** The sink has finished renaming (whether the rotation worked or was undone). */
  void renamed() {
    if (spool != null) {
      spool.rotationDone();
    }
  }

  /** A backup moved aside to be deleted, and the bytes of it not yet shipped (-1: the shipper is done with it). */
  static final class Expired {
    final Path file;
    final Object fileKey;
    final long unshippedBytes;

    Expired(Path file, Object fileKey, long unshippedBytes) {
      this.file = file;
      this.fileKey = fileKey;
      this.unshippedBytes = unshippedBytes;
    }
  }

  /** Deletes what a rotation moved aside, counting in the guard what was not shipped. */
  void delete(List<Expired> expired) {
    for (Expired e : expired) {
      if (e.unshippedBytes >= 0) {
        spool.countLoss(e.fileKey, e.unshippedBytes, linesAtTheEnd(e.file, e.unshippedBytes));
        LOG.warn("nnaudit: deleting {}, a rotated audit file the shipper has not finished ({} bytes not shipped): "
            + "the spool keeps at most {} rotated files ({} files lost to retention since start-up)", e.file,
            e.unshippedBytes, spool.maxHeldBackups(), spool.lostFiles());
      }
      try {
        Files.delete(e.file);
      } catch (IOException ex) {
        LOG.warn("nnaudit: could not delete {}, the oldest backup of {}", e.file, path, ex);
      }
    }
  }

  /**
   * The records in the last {@code bytes} of {@code file}: what a loss to the spool bound costs, counted once,
   * before the file goes (a file of nnaudit.file.max.size at most, read only when a loss happens).
   */
  private static long linesAtTheEnd(Path file, long bytes) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return FileLines.count(ch, Math.max(0, ch.size() - bytes));
    } catch (IOException e) {
      LOG.warn("nnaudit: could not count the records of {} before deleting it", file, e);
      return 0;
    }
  }
}
