package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.Lstat;
import io.nnaudit.trail.RotatedFiles;
import io.nnaudit.trail.TrailNames;

/**
 * Rotation by size, the way log4j's RollingFileAppender rotates the stock RFAAUDIT: {@code file.N-1} becomes
 * {@code file.N} (those past what {@link Retention} keeps are deleted), {@code file} becomes {@code file.1} and a
 * new {@code file} is created. A rotation that fails (the live file made append-only or immutable with chattr,
 * say, cannot be renamed) deletes, shifts and loses nothing: the sink keeps appending to the live file, logs a
 * WARN, counts the failure ({@link #rotationFailures}) and tries again a minute later, not before every write.
 *
 * <p>Design note. Every field belongs to the sink's writing thread; {@link #rotationFailures} is volatile, for
 * the metrics, and written by that thread only. What blocks: the renames, the open of the new file, and with
 * sealing, the wait for the rotated file's last seal; with compression, the wait for the {@link TrailRenameLock}
 * that a compression holds while it names its file, at most {@link TrailRenameLock#ROTATION_WAIT_MS} (then no
 * rotation is tried for as long again, so the writes meanwhile do not wait). Nothing written is dropped: the open
 * channel follows the live file through the renames.
 */
final class Rotation {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);
  /** After a failed rotation the live file keeps growing, and rotation is tried again this much later. */
  static final long RETRY_INTERVAL_MS = 60_000;
  private static final long NEVER = Long.MIN_VALUE;

  private final Path path;
  private final AuditFileOpener opener;
  private final LiveFile live;
  private final Sealing sealing;
  private final Retention retention;
  /** Held from the plan to the last rename, so that no compression renames a file meanwhile. */
  private final TrailRenameLock names;
  /** Told after each rotation that worked (the compressor wakes). */
  private final Runnable rotated;
  /** The names of rotated files; null: numbered. */
  private final DatedNames dated;
  /** When the live file was last written, by the sink's wall clock: its records' period names it. */
  private final LongSupplier lastWrite;
  private long nextAttempt = NEVER;
  /** After a compression held the names past the bounded wait: no rotation is tried before this. */
  private long namesBusyUntil = NEVER;
  private volatile long rotationFailures;

  Rotation(Path path, AuditFileOpener opener, LiveFile live, Sealing sealing, Retention retention,
      TrailRenameLock names, Runnable rotated, DatedNames dated, LongSupplier lastWrite) {
    this.path = path;
    this.opener = opener;
    this.live = live;
    this.sealing = sealing;
    this.retention = retention;
    this.names = names;
    this.rotated = rotated;
    this.dated = dated;
    this.lastWrite = lastWrite;
  }

  /** Whether a rotation may be tried at {@code now}: not within a minute of one that failed. */
  boolean mayTry(long now) {
    return now >= nextAttempt && now >= namesBusyUntil;
  }

  /**
   * Rotates; if that fails, keeps appending to the live file and tries again a minute later. While a compression
   * names its file (longer than the lock's bounded wait), the rotation is left to a write a second later. Returns
   * whether the file was rotated.
   */
  boolean rotateOrKeepAppending(long now) {
    if (!names.lockForRotation()) { // not a failure: waited once, the writes meanwhile do not wait again
      namesBusyUntil = now + TrailRenameLock.ROTATION_WAIT_MS;
      return false;
    }
    try {
      rotate();
    } catch (IOException | RuntimeException e) { // a bug must not fail every write: it is a failed rotation too
      rotationFailures++;
      nextAttempt = now + RETRY_INTERVAL_MS;
      LOG.warn("nnaudit: could not rotate {} ({}); appending to it and trying again in {} s ({} failed rotations "
          + "since start-up)", path, e.toString(), RETRY_INTERVAL_MS / 1000, rotationFailures);
      return false;
    } finally {
      names.unlock();
    }
    rotated.run();
    if (nextAttempt != NEVER) { // the first success after failures
      nextAttempt = NEVER;
      LOG.info("nnaudit: rotated {} again, after {} failed rotations", path, rotationFailures);
    }
    return true;
  }

  /**
   * Moves the live file to file.1 and each backup up by one, deleting those past the number kept (see
   * {@link Retention#plan}), and opens a new live file.
   *
   * <p>The live file moves first, to a temporary name: if it cannot (chattr +a or +i, a sticky directory),
   * nothing has been touched. Every rename replaces nothing, and the backups that expire are moved aside and
   * deleted only once everything else has worked; a step that fails undoes the steps before it, in reverse, so
   * the backups keep their names and the live file its path. The open channel follows the live file through the
   * renames, so a record written meanwhile is never lost; the channel is closed only when the new file is open.
   */
  void rotate() throws IOException {
    String stamp = Long.toString(System.currentTimeMillis());
    Path staged = TrailNames.staged(path, stamp);
    Retention.Plan plan = retention.plan(live.fileKey(), live.size());
    List<Retention.Expired> expired = new ArrayList<>();
    RotationRenames renames = new RotationRenames(path);
    sealing.sealForRotation(plan.keptFilesIfAnyExpire());
    retention.renaming();
    AuditFileOpener.OpenFile next;
    try {
      renames.move(path, staged);
      renames.moveDigest(path, staged);
      // dated files keep their names: the rotated file takes the next name of its last record's period, named
      // before any file expires, so that no name of a file deleted now is given to another
      Path target = dated == null ? backup(1) : RotatedFiles.nextDated(path, dated, lastWrite.getAsLong());
      for (int i = plan.highest; i >= plan.keep; i--) {
        Path plain = dated == null ? backup(i) : plan.plainAt(i);
        if (plain == null) {
          continue;
        }
        Path aside = dated == null ? TrailNames.expired(path, i, stamp) : TrailNames.expiredMember(plain, stamp);
        expire(plain, aside, i, plan, expired, renames);
        expire(TrailNames.compressed(plain), dated == null ? TrailNames.expiredCompressed(path, i, stamp)
            : TrailNames.expiredMember(TrailNames.compressed(plain), stamp), i, plan, expired, renames);
        if (renames.moveDigest(plain, aside)) {
          expired.add(new Retention.Expired(TrailNames.digest(aside), null, -1));
        }
      }
      if (dated == null) {
        for (int i = Math.min(plan.keep - 1, plan.highest); i >= 1; i--) {
          shift(backup(i), backup(i + 1), renames);
          shift(TrailNames.compressed(backup(i)), TrailNames.compressed(backup(i + 1)), renames);
          renames.moveDigest(backup(i), backup(i + 1));
        }
      }
      renames.move(staged, target);
      renames.moveDigest(staged, target);
      next = opener.open();
    } catch (IOException | RuntimeException e) {
      renames.undo(e);
      throw e;
    } finally {
      retention.renamed();
    }
    live.switchToNewFile(next, sealing);
    retention.delete(expired);
  }

  /** Moves the expiring backup {@code file} (plain or compressed), if there, aside to be deleted. */
  private static void expire(Path file, Path aside, int index, Retention.Plan plan, List<Retention.Expired> expired,
      RotationRenames renames) throws IOException {
    BasicFileAttributes a = Lstat.basic(file);
    if (a != null) {
      renames.move(file, aside);
      expired.add(new Retention.Expired(aside, a.fileKey(), plan.unshippedBytes(index, a)));
    }
  }

  /** Moves a kept backup (plain or compressed), if there, up by one. */
  private static void shift(Path from, Path to, RotationRenames renames) throws IOException {
    if (Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
      renames.move(from, to);
    }
  }

  private Path backup(int i) {
    return TrailNames.backup(path, i);
  }

  /** Rotations that failed since start-up; each leaves every file as it was and is retried a minute later. */
  long rotationFailures() {
    return rotationFailures;
  }
}
