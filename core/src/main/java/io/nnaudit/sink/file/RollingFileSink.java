package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.config.ConfigError;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.DigestFile;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.Sealer;
import io.nnaudit.seal.SealingThread;
import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.trail.InterruptedRotation;
import io.nnaudit.trail.Lstat;
import io.nnaudit.trail.RotatedFiles;
import io.nnaudit.trail.TrailNames;

/**
 * The audit file, appended to and rotated by size the way log4j's RollingFileAppender does for the stock
 * RFAAUDIT: once the file has reached {@code nnaudit.file.max.size}, {@code file.N-1} becomes {@code file.N}
 * (the oldest is deleted), {@code file} becomes {@code file.1} and a new {@code file} is created.
 *
 * <ul>
 * <li>Rotation happens before a write, never inside one, so a chunk is never split between two files, and the
 * fsync that follows a write covers the file that holds its records.</li>
 * <li>A rotation that a kill or a power cut interrupts is finished at the next start, before the live file is
 * opened ({@link InterruptedRotation}): no file stays under a temporary name, every backup gets its index back
 * and every digest its file.</li>
 * <li>A rotation that fails (the live file made append-only or immutable with chattr, say, cannot be renamed)
 * deletes, shifts and loses nothing: see {@link #rotate}. The sink keeps appending to the live file, logs a WARN,
 * counts the failure ({@link #rotationFailures}) and tries again a minute later, not before every write.</li>
 * <li>A write that fails part-way is truncated away before the exception is thrown, so the file never ends in
 * half a record (a full disk, say); the next write appends whole records again.</li>
 * <li>Only a regular file owned by the user this process creates files as is opened: a symlink at the path, a
 * FIFO, a device, a directory or another user's file is refused (see {@link AuditFileOpener}). At start-up the
 * constructor then throws, naming what it found.</li>
 * <li>If the file is renamed, deleted or replaced behind our back (logrotate, an operator), the change is
 * noticed within a second and a new file is created at the configured path. If what is at the path then is
 * refused, the sink does not follow it: it keeps appending to the file it has open (the moved one), logs an
 * ERROR at most once a minute, counts the refusal ({@link #refusedReopens}), does not rotate, and looks at the
 * path again a second later.</li>
 * <li>New files get the mode of {@code nnaudit.file.permissions} (default 640). With a durability other than
 * none, the directory is fsynced after a new file is created, so the file's name survives a power cut.</li>
 * <li>With a durability other than none, a file the sink stops writing to (rotated, or moved away) is fsynced
 * before it is closed, since no later fsync covers it; if that fails, the next {@link #force} throws.</li>
 * <li>When a shipper forwards the file (to Kafka), its {@link SpoolGuard} says which files it has not finished:
 * rotation keeps those beyond {@code nnaudit.file.max.backups}, up to {@code nnaudit.kafka.spool.max.backups}
 * rotated files, and deletes the rest. A file deleted before it was shipped (the spool bound reached) is
 * counted in the guard and logged at WARN.</li>
 * <li>With {@code nnaudit.seal.enabled}, a {@link Sealer} seals what is written into a digest file beside the
 * file ({@code file.seals}), opened with the same refusals. It runs on a thread of its own
 * ({@link SealingThread}), to which each write hands a copy of its bytes; rotation waits for the file's last
 * seal and renames each digest with its file, and a file moved away by something else is sealed and its
 * digest renamed to {@code file.seals.moved-<time>} before a new file is started.</li>
 * </ul>
 * Used by one writing thread at a time (the pipeline's writer thread, or a handler holding its write lock);
 * not thread-safe, except that the counters may be read from any thread.
 */
public class RollingFileSink implements AuditSink {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);
  private static final long REPLACEMENT_CHECK_INTERVAL_MS = 1000;
  /** After a failed rotation the live file keeps growing, and rotation is tried again this much later. */
  static final long ROTATION_RETRY_INTERVAL_MS = 60_000;
  /** While what is at the path is refused, the ERROR that says so is logged at most this often. */
  private static final long REFUSAL_LOG_INTERVAL_MS = 60_000;
  private static final long NEVER = Long.MIN_VALUE;

  private final Path path;
  private final long maxSize;
  private final int maxBackups;
  /** Durability is not none: fsync a file before closing it, and the directory after creating one. */
  private final boolean durable;
  private final AuditFileOpener opener;
  /** Opens the live file's digest, or null when the file is not sealed. */
  private final AuditFileOpener digestOpener;
  /** Seals what is written, or null; it resumes the chain in the constructor, then {@link #sealing} runs it. */
  private final Sealer sealer;
  /** The thread that hashes what is written and seals it, or null when the file is not sealed. */
  private SealingThread sealing;
  /** The shipper's hold on unshipped files, or null when nothing ships from this file. */
  private final SpoolGuard spool;
  /** Milliseconds from a monotonic source, for the intervals between checks. */
  private final LongSupplier clock;
  private FileChannel channel;
  private Object fileKey;
  private long size;
  /**
   * After a failed write was taken back out of a file whose channel an interrupt closed: the bytes the file
   * holds that the sink wrote (what the reopened file holds beyond them, someone else wrote meanwhile); -1 when
   * not known (the write could not be taken back).
   */
  private long ownedSize = -1;
  private long lastReplacementCheck;
  /** The path no longer holds the file we write, and what it holds was refused: no rotation until it does. */
  private boolean stranded;
  private long lastRefusalLog = NEVER;
  /** The fsync of a file closed on rotation or replacement failed; the next {@link #force} reports it. */
  private IOException unreportedForceFailure;
  private long nextRotationAttempt = NEVER;
  /** Written by the writing thread only; volatile for the metrics. */
  private volatile long rotationFailures;
  private volatile long refusedReopens;

  /**
   * Opens (or creates) the file {@code nnaudit.file.path} of {@code context} for appending; refuses, naming that
   * key, what cannot be written or is not a regular file of this user.
   */
  public RollingFileSink(SinkContext context) {
    this(context, FileChannel::open, () -> System.nanoTime() / 1_000_000);
  }

  /** With the way channels are opened and the clock given: tests watch fsyncs and move time. */
  public RollingFileSink(SinkContext context, ChannelFactory channels, LongSupplier clock) {
    this.clock = clock;
    this.path = context.file().toPath();
    this.maxSize = context.maxFileSize();
    this.maxBackups = context.maxBackups();
    this.durable = context.durable();
    this.spool = context.spoolGuard();
    this.opener = new AuditFileOpener(path,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(context.filePermissions())), channels);
    this.sealer = context.sealing() == null ? null
        : new Sealer(context.sealing(), durable, context.failClosed());
    this.digestOpener = sealer == null ? null : new AuditFileOpener(TrailNames.digest(path),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(context.filePermissions())), channels);
    try {
      Path parent = path.getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      boolean rotationFinished = finishInterruptedRotation();
      switchTo(opener.open());
      if (sealer != null) {
        resumeSealing(rotationFinished);
        sealing = new SealingThread(sealer, context.failClosed(), "nnaudit-sealer " + path.getFileName());
      }
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      if (sealer != null) {
        sealer.closeDigest();
      }
      throw ConfigError.invalid(NnauditConfigKeys.FILE_PATH_KEY, context.file(), "a path to a regular file (not a "
          + "symlink, FIFO or directory) that the NameNode user owns and can append to, or where it can create one ("
          + AuditFileOpener.describe(e) + ")", e);
    }
  }

  /**
   * At start-up, before the live file is opened: finishes a rotation that a kill or a power cut interrupted
   * ({@link InterruptedRotation}), so that no record is left under a temporary name, every backup has its index
   * and every digest is beside its file; the files the rotation had set aside to delete are deleted. Returns
   * whether it finished a rotation (the live file it was to begin is then begun by this start).
   */
  private boolean finishInterruptedRotation() throws IOException {
    InterruptedRotation left = InterruptedRotation.find(path, sealer != null);
    if (left.unexpected() != null) {
      LOG.error("nnaudit: {}; leaving them as they are", left.unexpected());
      return false;
    }
    for (InterruptedRotation.Rename r : left.renames()) {
      Files.move(r.from, r.to);
    }
    if (!left.renames().isEmpty()) {
      LOG.warn("nnaudit: finished a rotation of {} that was interrupted (the process was killed while rotating): "
          + "{}", path, left.renames());
    }
    for (Path e : left.expired()) {
      Files.deleteIfExists(e);
      LOG.info("nnaudit: deleted {}, which an interrupted rotation had set aside to delete", e.getFileName());
    }
    return !left.renames().isEmpty();
  }

  /**
   * Picks up the chain of seals from the live file's digest, or from the newest rotated file's when the live
   * file has none (see {@link Sealer#resume}).
   */
  private void resumeSealing(boolean rotationFinished) throws IOException {
    Seal newestBackup = null;
    int index = 0;
    for (RotatedFiles.Backup b : RotatedFiles.list(path, Integer.MAX_VALUE)) { // the newest with a digest
      if (Files.exists(TrailNames.digest(b.path), LinkOption.NOFOLLOW_LINKS)) {
        newestBackup = lastSealOf(TrailNames.digest(b.path));
        index = b.index;
        break;
      }
    }
    sealer.resume(path, size, () -> digestOpener.open().channel, newestBackup, index, rotationFinished);
  }

  private static Seal lastSealOf(Path digest) {
    try (FileChannel ch = FileChannel.open(digest, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return DigestFile.lastCompleteSeal(ch);
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    } catch (IOException | IllegalArgumentException e) {
      LOG.warn("nnaudit: could not read the last seal of {} ({}); the live file's seals start a new chain", digest,
          e.toString());
      return null;
    }
  }

  /**
   * The sink has switched to a new file at the path: its first seal chains it to the file before. If that seal
   * cannot be written it stays owed: the sealing thread writes it with the next seal, and under fail-closed the
   * next write waits for it.
   */
  private void startSealing() {
    if (sealing != null) {
      try {
        sealing.startFile(path, size, () -> digestOpener.open().channel);
      } catch (IOException e) {
        LOG.error("nnaudit: could not write the first seal of the new {} ({}); it is written with the next seal",
            path, e.toString());
      }
    }
  }

  /**
   * Makes {@code next} the file we write; the one it replaces is fsynced (unless durability is none) and closed.
   * A file that ends in part of a record has that line ended, so that the records we append stay whole; the
   * fragment is kept as evidence.
   */
  private void switchTo(AuditFileOpener.OpenFile next) throws IOException {
    long length;
    try {
      length = next.channel.size();
    } catch (IOException e) {
      closeQuietly(next.channel);
      throw e;
    }
    FileChannel old = channel;
    channel = next.channel;
    fileKey = next.fileKey;
    size = length;
    lastReplacementCheck = clock.getAsLong();
    stranded = false;
    if (old != null && old.isOpen()) {
      retire(old);
    }
    if (next.endsInPartialRecord) {
      LOG.warn("nnaudit: {} ends in a partial record (the process was killed in the middle of a write?); "
          + "ending that line before appending", path);
      ByteBuffer nl = ByteBuffer.wrap(new byte[] {'\n'});
      while (nl.hasRemaining()) {
        size += channel.write(nl);
      }
    }
    if (next.created && durable) {
      forceDirectory();
    }
  }

  /** Whether the path still holds the file we write (not a symlink to it). */
  private boolean pathHoldsOurFile() throws IOException {
    BasicFileAttributes a = Lstat.basic(path);
    return a != null && Objects.equals(a.fileKey(), fileKey);
  }

  private void forceDirectory() {
    Path dir = path.toAbsolutePath().getParent();
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      LOG.warn("nnaudit: could not fsync directory {} after creating {}", dir, path, e);
    }
  }

  @Override
  public void write(ByteBuffer chunk) throws IOException {
    if (channel == null || !channel.isOpen()) {
      reopen();
    }
    long now = clock.getAsLong();
    if (now - lastReplacementCheck >= REPLACEMENT_CHECK_INTERVAL_MS) {
      followIfReplaced(now);
    }
    if (size >= maxSize && !stranded && now >= nextRotationAttempt) {
      if (pathHoldsOurFile()) {
        rotateOrKeepAppending(now);
      } else {
        followIfReplaced(now); // replaced within the last second
      }
    }
    if (sealing != null) {
      sealing.checkBeforeWrite(); // under fail-closed a seal that cannot be written stops the write
    }
    long before = size;
    int start = chunk.position();
    try {
      while (chunk.hasRemaining()) {
        size += channel.write(chunk);
      }
    } catch (IOException e) {
      undoPartialWrite(before, e);
      throw e;
    }
    if (sealing != null) {
      ByteBuffer written = chunk.duplicate();
      written.position(start);
      sealing.written(written);
    }
  }

  /**
   * The channel was closed under a write or an fsync (an interrupt of the writing thread:
   * ClosedByInterruptException), or after a write that could not be undone: opens the file at the path again.
   * With sealing the sealing thread hashes what the same file holds beyond what it hashed; a different file
   * there (ours was moved meanwhile) is taken up as {@link #followIfReplaced} does: our file's last seal, its
   * digest set aside, the new file's first seal.
   */
  private void reopen() throws IOException {
    Object before = fileKey;
    AuditFileOpener.OpenFile next = opener.open();
    boolean sameFile = before == null || Objects.equals(before, next.fileKey);
    if (sealing != null && !sameFile) {
      try {
        sealing.seal(Seal.Kind.MOVED);
      } catch (IOException e) {
        closeQuietly(next.channel);
        throw e;
      }
      moveDigestAside();
    }
    try {
      switchTo(next);
    } finally {
      if (sealing != null && channel == next.channel) { // switched, even if ending a partial line then failed
        if (sameFile) {
          sealing.reopened(path, size, ownedSize); // bytes not hashed: a partial write kept, or someone else's
          ownedSize = -1;
        } else {
          startSealing();
        }
      }
    }
  }

  /** Seals everything written so far (the shutdown hook's hand-over, each direct write after it). */
  @Override
  public void seal() throws IOException {
    if (sealing != null) {
      sealing.seal(Seal.Kind.FLUSH);
    }
  }

  private void undoPartialWrite(long before, IOException cause) {
    // An interrupt closes a FileChannel in the middle of a write (ClosedByInterruptException), and an
    // interrupted thread cannot use a channel at all: clear the flag while the bytes are taken back out.
    boolean interrupted = Thread.interrupted();
    try {
      if (channel.isOpen()) {
        if (channel.size() > before) {
          channel.truncate(before);
        }
      } else {
        truncateClosedFile(before);
      }
      size = before;
      ownedSize = before;
    } catch (IOException t) {
      cause.addSuppressed(t);
      ownedSize = -1;
      closeQuietly(channel); // reopened on the next write; the size is read afresh then
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The channel was closed under the write: truncates the same file (the same inode still at the path, checked
   * before and after opening it) through a channel of its own, so that the retried chunk does not follow part
   * of itself. The next write reopens the file as usual.
   */
  private void truncateClosedFile(long before) throws IOException {
    if (!pathHoldsOurFile()) {
      return;
    }
    try (FileChannel t = FileChannel.open(path, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      if (pathHoldsOurFile() && t.size() > before) {
        t.truncate(before);
      }
    }
  }

  /**
   * If the path no longer holds the file we write, switches to a new file there, or, if what is there is
   * refused, keeps writing to the file we have open (wherever it was moved) and looks again a second later.
   */
  private void followIfReplaced(long now) throws IOException {
    lastReplacementCheck = now;
    if (pathHoldsOurFile()) {
      stranded = false;
      return;
    }
    AuditFileOpener.OpenFile next;
    try {
      next = opener.open();
    } catch (IOException e) {
      refusedReopens++;
      stranded = true;
      if (lastRefusalLog == NEVER || now - lastRefusalLog >= REFUSAL_LOG_INTERVAL_MS) {
        lastRefusalLog = now;
        LOG.error("nnaudit: {} was moved, deleted or replaced, and what is there now is not opened ({}). Records "
            + "keep going to the file that was there (lost if it was deleted), which is not rotated; the path is "
            + "looked at again every second ({} refusals since start-up)", path, AuditFileOpener.describe(e),
            refusedReopens);
      }
      return;
    }
    LOG.warn("nnaudit: {} was moved, deleted or replaced; continuing in a new file at that path", path);
    if (sealing != null) {
      try {
        sealing.seal(Seal.Kind.MOVED); // its digest is closed when the new file's is opened
      } catch (IOException e) {
        closeQuietly(next.channel); // opened again at the next look
        throw e;
      }
      moveDigestAside();
    }
    try {
      switchTo(next);
    } finally {
      if (channel == next.channel) { // switched, even if ending a partial line then failed
        startSealing();
      }
    }
  }

  /**
   * The live file was moved away by something else: its digest, still at the live file's digest name, is
   * renamed to {@code file.seals.moved-<time>} so that the new file gets a digest of its own.
   */
  private void moveDigestAside() {
    Path digest = TrailNames.digest(path);
    Path aside = TrailNames.movedDigest(digest, System.currentTimeMillis());
    try {
      if (Files.exists(digest, LinkOption.NOFOLLOW_LINKS)) {
        Files.move(digest, aside);
        LOG.warn("nnaudit: the digest of the file that was moved away from {} is now {}", path, aside);
      }
    } catch (IOException e) {
      LOG.error("nnaudit: could not rename {} to {}; the new file's seals will follow the old file's in it", digest,
          aside, e);
    }
  }

  /**
   * A failed write is truncated away, so the file is as it was before the call; when the truncation itself
   * fails (or the path was replaced meanwhile) the file keeps the partial record, whoever retries.
   */
  @Override
  public boolean undoesFailedWrites() {
    return true;
  }

  @Override
  public void force() throws IOException {
    channel.force(false);
    IOException earlier = unreportedForceFailure;
    if (earlier != null) {
      unreportedForceFailure = null;
      throw earlier;
    }
  }

  /**
   * Closes a file we stop writing to (rotated, or moved away), fsyncing it first unless durability is none: no
   * later fsync covers it. A failed fsync is kept for the next {@link #force} to throw, so that it is reported
   * and counted like the failure of any other fsync.
   */
  private void retire(FileChannel old) {
    if (durable) {
      try {
        old.force(false);
      } catch (IOException e) {
        IOException failure = new IOException("could not fsync the audit file that was at " + path
            + " (rotated or moved away) before closing it; its last records may not survive a power cut", e);
        if (unreportedForceFailure == null) {
          unreportedForceFailure = failure;
        } else {
          unreportedForceFailure.addSuppressed(failure);
        }
      }
    }
    try {
      old.close();
    } catch (IOException e) {
      LOG.debug("nnaudit: closing {} failed", path, e);
    }
  }

  private void rotateOrKeepAppending(long now) {
    try {
      rotate();
    } catch (IOException e) {
      rotationFailures++;
      nextRotationAttempt = now + ROTATION_RETRY_INTERVAL_MS;
      LOG.warn("nnaudit: could not rotate {} ({}); appending to it and trying again in {} s ({} failed rotations "
          + "since start-up)", path, e.toString(), ROTATION_RETRY_INTERVAL_MS / 1000, rotationFailures);
      return;
    }
    if (nextRotationAttempt != NEVER) { // the first success after failures
      nextRotationAttempt = NEVER;
      LOG.info("nnaudit: rotated {} again, after {} failed rotations", path, rotationFailures);
    }
  }

  /**
   * Moves the live file to file.1 and each backup up by one, deleting those past the number kept (see
   * {@link #backupsToKeep}), and opens a new live file.
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
    Retention retention = backupsToKeep();
    List<Expired> expired = new ArrayList<>();
    Renames renames = new Renames();
    if (sealing != null) {
      // the file's last seal, with the files this rotation keeps: the rotated one and the keep - 1 before it in
      // the trail's numbering, wherever files are missing (a deleted file must not move the oldest kept past it);
      // if it fails the rotation fails, whatever the failure policy, so that a rotated file is always sealed to
      // its end
      sealing.sealForRotation(retention.highest >= retention.keep ? retention.keep : 0);
    }
    if (spool != null) {
      spool.rotationStarting(); // a shipper listing the files meanwhile looks again
    }
    AuditFileOpener.OpenFile next;
    try {
      renames.move(path, staged);
      renames.moveDigest(path, staged);
      for (int i = retention.highest; i >= retention.keep; i--) {
        BasicFileAttributes a = Lstat.basic(backup(i));
        Path aside = TrailNames.expired(path, i, stamp);
        if (a != null) {
          renames.move(backup(i), aside);
          expired.add(new Expired(aside, a.fileKey(),
              i <= retention.held ? a.size() - spool.shippedBytesOf(a.fileKey()) : -1));
        }
        if (renames.moveDigest(backup(i), aside)) {
          expired.add(new Expired(TrailNames.digest(aside), null, -1));
        }
      }
      for (int i = Math.min(retention.keep - 1, retention.highest); i >= 1; i--) {
        if (Files.exists(backup(i), LinkOption.NOFOLLOW_LINKS)) {
          renames.move(backup(i), backup(i + 1));
        }
        renames.moveDigest(backup(i), backup(i + 1));
      }
      renames.move(staged, backup(1));
      renames.moveDigest(staged, backup(1));
      next = opener.open();
    } catch (IOException | RuntimeException e) {
      renames.undo(e);
      throw e;
    } finally {
      if (spool != null) {
        spool.rotationDone();
      }
    }
    try {
      switchTo(next);
    } finally {
      if (channel == next.channel) { // switched, even if ending a partial line then failed
        startSealing();
      }
    }
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
    long lines = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(1 << 16);
      long pos = Math.max(0, ch.size() - bytes);
      int n;
      while ((n = ch.read(b, pos)) > 0) {
        for (int i = 0; i < n; i++) {
          if (b.get(i) == '\n') {
            lines++;
          }
        }
        pos += n;
        b.clear();
      }
    } catch (IOException e) {
      LOG.warn("nnaudit: could not count the records of {} before deleting it", file, e);
    }
    return lines;
  }

  /** A backup moved aside to be deleted, and the bytes of it not yet shipped (-1: the shipper is done with it). */
  private static final class Expired {
    final Path file;
    final Object fileKey;
    final long unshippedBytes;

    Expired(Path file, Object fileKey, long unshippedBytes) {
      this.file = file;
      this.fileKey = fileKey;
      this.unshippedBytes = unshippedBytes;
    }
  }

  /** Which backups a rotation keeps: those now below {@code keep} (each moves up by one). */
  private static final class Retention {
    /** Backups now at an index of keep or above expire. */
    final int keep;
    /** The highest index that holds a backup ({@link RotatedFiles#list}). */
    final int highest;
    /** Backups at an index up to this one are not yet shipped (-1: none; 0 is the live file). */
    final int held;
    /** The backups there are below {@link #keep}: those the rotation keeps, besides the file it rotates. */
    final int kept;

    Retention(int keep, List<RotatedFiles.Backup> backups, int held) {
      this.keep = keep;
      this.highest = lastIndex(backups);
      this.held = held;
      int below = 0;
      for (RotatedFiles.Backup b : backups) {
        if (b.index < keep) {
          below++;
        }
      }
      this.kept = below;
    }
  }

  /**
   * Without a shipper, {@code nnaudit.file.max.backups}. With one, also every file from the oldest it has not
   * finished on (the backup at index {@code held}; every file until it has read its checkpoint, or once the file
   * it was in has been deleted), up to
   * {@code nnaudit.kafka.spool.max.backups} rotated files; backups left from an earlier run past both bounds
   * are deleted.
   */
  private Retention backupsToKeep() throws IOException {
    // Listed past the bound, so that backups above a bound lowered since expire too.
    if (spool == null) {
      return new Retention(maxBackups, RotatedFiles.list(path, Integer.MAX_VALUE), -1);
    }
    int bound = Math.max(maxBackups, spool.maxHeldBackups());
    List<RotatedFiles.Backup> backups = RotatedFiles.list(path, Integer.MAX_VALUE);
    int held = -1;
    String key = spool.heldFileKey();
    if (spool.holdsEveryFile()) {
      held = bound;
    } else if (key != null) {
      if (key.equals(String.valueOf(fileKey))) {
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
    return new Retention(Math.min(bound, Math.max(maxBackups, held + 1)), backups, Math.min(held, bound));
  }

  /** The highest index of {@code backups} (newest first), 0 for none. */
  private static int lastIndex(List<RotatedFiles.Backup> backups) {
    return backups.isEmpty() ? 0 : backups.get(backups.size() - 1).index;
  }

  /** The renames of one rotation, so that they can be undone in reverse when a later step fails. */
  private final class Renames {
    private final Deque<Path[]> done = new ArrayDeque<>();

    /** Renames; fails if {@code to} exists rather than replace it. */
    void move(Path from, Path to) throws IOException {
      Files.move(from, to);
      done.push(new Path[] {from, to});
    }

    /**
     * Renames the digest of {@code from} to that of {@code to} if it exists; one already at the
     * target without its file (left by hand or by a crash) is renamed aside first, kept as evidence. Returns
     * whether a digest was moved.
     */
    boolean moveDigest(Path from, Path to) throws IOException {
      if (!Files.exists(TrailNames.digest(from), LinkOption.NOFOLLOW_LINKS)) { // with sealing off too: kept paired
        return false;
      }
      Path target = TrailNames.digest(to);
      if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !Files.exists(to, LinkOption.NOFOLLOW_LINKS)) {
        move(target, TrailNames.orphan(target, System.currentTimeMillis()));
      }
      move(TrailNames.digest(from), target);
      return true;
    }

    void undo(Exception cause) {
      while (!done.isEmpty()) {
        Path[] step = done.pop();
        try {
          Files.move(step[1], step[0]);
        } catch (IOException e) {
          cause.addSuppressed(e);
          LOG.error("nnaudit: a failed rotation of {} could not be undone: {} is still named {} (no file was "
              + "deleted)", path, step[0], step[1], e);
        }
      }
    }
  }

  private Path backup(int i) {
    return TrailNames.backup(path, i);
  }

  private void closeQuietly(FileChannel ch) {
    try {
      if (ch != null) {
        ch.close();
      }
    } catch (IOException e) {
      LOG.debug("nnaudit: closing {} failed", path, e);
    }
  }

  /** Rotations that failed since start-up; each leaves every file as it was and is retried a minute later. */
  public long rotationFailures() {
    return rotationFailures;
  }

  /**
   * Times the file was found moved or replaced and the sink did not switch to what was at the path (refused,
   * or it could not be opened); it is looked at again every second while that lasts.
   */
  public long refusedReopens() {
    return refusedReopens;
  }

  /** Seals written since start-up, or -1 when the file is not sealed. */
  public long sealsWritten() {
    return sealer == null ? -1 : sealer.sealsWritten();
  }

  /** Seals that could not be written since start-up, or -1 when the file is not sealed. */
  public long sealFailures() {
    return sealer == null ? -1 : sealer.sealFailures();
  }

  /** When the latest seal was written (ms since the epoch; 0 before the first), or -1 when not sealed. */
  public long lastSealMillis() {
    return sealer == null ? -1 : sealer.lastSealMillis();
  }

  /** The hash of the latest seal (hex), or null when the file is not sealed. */
  public String latestSealHash() {
    return sealer == null ? null : sealer.latestSealHash();
  }

  /** Seals what is not yet sealed ({@link Seal.Kind#CLOSE}), then closes the digest and the file. */
  @Override
  public void close() throws IOException {
    try {
      if (sealing != null) {
        sealing.close();
      }
    } finally {
      if (channel != null) {
        channel.close();
      }
    }
  }
}
