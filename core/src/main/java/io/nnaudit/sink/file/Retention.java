package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.trail.FileLines;
import io.nnaudit.trail.RotatedFiles;

/**
 * Which rotated files a rotation keeps, and the deletion of the rest. Without a shipper,
 * {@code nnaudit.file.max.backups}. When a shipper forwards the file, its {@link SpoolGuard} says which files it
 * has not finished: rotation keeps those beyond {@code nnaudit.file.max.backups}, up to
 * {@code nnaudit.kafka.spool.max.backups} rotated files, and deletes the rest. A file deleted before it was
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
  /** The shipper's hold on unshipped files, or null when nothing ships from this file. */
  private final SpoolGuard spool;

  Retention(Path path, int maxBackups, SpoolGuard spool) {
    this.path = path;
    this.maxBackups = maxBackups;
    this.spool = spool;
  }

  /** Which backups one rotation keeps: those now below {@code keep} (each moves up by one). Immutable. */
  static final class Plan {
    /** Backups now at an index of keep or above expire. */
    final int keep;
    /** The highest index that holds a backup ({@link RotatedFiles#list}). */
    final int highest;
    /** Backups at an index up to this one are not yet shipped (-1: none; 0 is the live file). */
    private final int held;
    /** The shipper's hold, read again as each file expires; null without a shipper. */
    private final SpoolGuard spool;

    Plan(int keep, List<RotatedFiles.Backup> backups, int held, SpoolGuard spool) {
      this.keep = keep;
      this.highest = backups.isEmpty() ? 0 : backups.get(backups.size() - 1).index;
      this.held = held;
      this.spool = spool;
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
  Plan plan(Object liveFileKey) throws IOException {
    // Listed past the bound, so that backups above a bound lowered since expire too.
    List<RotatedFiles.Backup> backups = RotatedFiles.list(path, Integer.MAX_VALUE);
    if (spool == null) {
      return new Plan(maxBackups, backups, -1, null);
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
    return new Plan(Math.min(bound, Math.max(maxBackups, held + 1)), backups, Math.min(held, bound), spool);
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
