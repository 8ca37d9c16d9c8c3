package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.function.LongSupplier;

import io.nnaudit.config.ConfigError;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.journal.JournalStart;
import io.nnaudit.journal.RecordJournal;
import io.nnaudit.seal.Seal;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.sink.RecordEnds;
import io.nnaudit.sink.RotationSettings;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.trail.DatedNames;

/**
 * The audit file, appended to and rotated by size the way log4j's RollingFileAppender does for the stock
 * RFAAUDIT: once the file has reached {@code nnaudit.file.max.size}, {@code file.N-1} becomes {@code file.N}
 * (the oldest is deleted), {@code file} becomes {@code file.1} and a new {@code file} is created.
 *
 * <ul>
 * <li>Rotation happens before a write, never inside one, so a chunk is never split between two files, and the
 * fsync that follows a write covers the file that holds its records.</li>
 * <li>A rotation that a kill or a power cut interrupted is finished at the next start, before the live file is
 * opened ({@link StartupRecovery}): no file stays under a temporary name, every backup gets its index back and
 * every digest its file.</li>
 * <li>A rotation that fails deletes, shifts and loses nothing ({@link Rotation}): the sink keeps appending to the
 * live file, counts the failure ({@link #rotationFailures}) and tries again a minute later.</li>
 * <li>A write that fails part-way is truncated away before the exception is thrown, so the file never ends in
 * half a record (a full disk, say); the next write appends whole records again ({@link FailedWriteUndo}).</li>
 * <li>Only a regular file owned by the user this process creates files as is opened: a symlink at the path, a
 * FIFO, a device, a directory or another user's file is refused (see {@link AuditFileOpener}). At start-up the
 * constructor then throws, naming what it found.</li>
 * <li>If the file is renamed, deleted or replaced behind our back, a new file is begun at the path, unless what
 * is there is refused: then the sink keeps appending to the file it has open and counts the refusal
 * ({@link #refusedReopens}); see {@link ReplacedFileFollower}.</li>
 * <li>New files get the mode of {@code nnaudit.file.permissions} (default 640). With a durability other than
 * none, the directory is fsynced after a new file is created, so the file's name survives a power cut.</li>
 * <li>With a durability other than none, a file the sink stops writing to (rotated, or moved away) is fsynced
 * before it is closed, since no later fsync covers it; if that fails, the next {@link #force} throws
 * ({@link LiveFile}).</li>
 * <li>When a shipper forwards the file (to Kafka), rotation keeps the files it has not finished, within a bound
 * ({@link Retention}).</li>
 * <li>With {@code nnaudit.seal.enabled}, what is written is sealed into a digest beside the file
 * ({@link DigestSealing}); rotation waits for the file's last seal and renames each digest with its file.
 * Without it, {@link Sealing#disabled} does nothing.</li>
 * <li>With {@code nnaudit.file.compress=gzip}, rotated files are compressed to {@code file.N.gz} by a thread of
 * its own ({@link GzipCompressor}), woken after each rotation; what a kill left of a compression is cleaned at
 * the next start ({@link CompressionRecovery}).</li>
 * </ul>
 *
 * <p>Design note. Used by one writing thread at a time (the pipeline's writer thread, or a handler holding its
 * write lock), which owns every part; not thread-safe, except that the counters may be read from any thread.
 * What blocks: the write(2), the fsyncs, a rotation's renames, and with sealing the waits for the sealing
 * thread ({@link DigestSealing}). Nothing is dropped: a write that fails throws, after it was taken back out.
 * Shut-down: {@link #close} stops the compressor, seals what is unsealed and stops sealing, then closes the
 * file.
 */
public class RollingFileSink implements AuditSink {
  private final long maxSize;
  /** Milliseconds from a monotonic source, for the intervals between checks. */
  private final LongSupplier clock;
  private final LiveFile live;
  private final Sealing sealing;
  private final ReplacedFileFollower follower;
  private final Rotation rotation;
  private final TimeTrigger time;
  /** The wall clock, read at each write only when rotated files are named by their period. */
  private final java.time.Clock wall;
  /** With dated names: when the live file was last written, by {@link #wall} (its mtime for a file found). */
  private long lastWriteMillis;
  /**
   * Where the records of the chunk being written end, for the sealing thread, during a {@link #write(ByteBuffer,
   * RecordEnds)}; null otherwise. Handed through fields so that {@link #write(ByteBuffer)} stays the one way in
   * for a subclass that overrides it; they hold only for that chunk, from that position (a subclass's own
   * writes of other bytes are searched).
   */
  private RecordEnds chunkEnds;
  private ByteBuffer chunkEndsFor;
  private int chunkEndsFrom;
  private final boolean dated;
  private final CompressionCounters compression = new CompressionCounters();
  /** Null unless {@code nnaudit.file.compress=gzip}. */
  private final GzipCompressor compressor;
  /**
   * The crash journal under {@code nnaudit.ack.policy=journal}, else null: written once by the constructor, after
   * it replayed what the last run left in it. Each write that holds journaled records is marked in it.
   */
  private RecordJournal journal;

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
    Path path = context.file().toPath();
    this.maxSize = context.maxFileSize();
    FileAttribute<Set<PosixFilePermission>> mode =
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(context.filePermissions()));
    AuditFileOpener opener = new AuditFileOpener(path, mode, channels);
    this.live = new LiveFile(path, context.durable(), clock);
    this.sealing = Sealing.forSink(context, path, mode, channels);
    this.follower = new ReplacedFileFollower(path, opener, live, sealing);
    DatedNames datedNames = context.rotation().datedNames(); // null: numbered names
    TrailRenameLock names = new TrailRenameLock();
    this.compressor = context.rotation().compression() == RotationSettings.Compression.GZIP
        ? new GzipCompressor(path, datedNames, mode, context.spoolGuard(), names, compression) : null;
    this.rotation = new Rotation(path, opener, live, sealing,
        new Retention(path, context.rotation(), context.spoolGuard(), context.wallClock()), names,
        compressor == null ? () -> { } : compressor::wake, datedNames, () -> lastWriteMillis);
    this.wall = context.wallClock();
    this.dated = datedNames != null;
    this.time = new TimeTrigger(context.rotation(), context.wallClock());
    try {
      Path parent = path.getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      // The journal first: a write the last run was making when it died is settled (a part taken back out)
      // before the file is opened, which would end a cut line.
      // Under another policy, a journal a journaled run left is still written out, then removed.
      JournalStart journalStart = context.journalBytes() > 0 ? openJournal(path, context) : leftJournal(path);
      boolean rotationFinished = StartupRecovery.finishInterruptedRotation(path, datedNames,
          sealing.digestsFollowFiles());
      CompressionRecovery.finishInterruptedCompression(path, datedNames);
      live.switchTo(opener.open());
      // Before the replay, which makes the file look written now: a file of an earlier period is still rotated.
      lastWriteMillis = live.size() > 0 ? Files.getLastModifiedTime(path, LinkOption.NOFOLLOW_LINKS).toMillis()
          : context.wallClock().millis();
      if (journalStart != null) {
        journal = replayJournal(journalStart, path);
        if (context.journalBytes() == 0) {
          journalStart.retire();
          journal = null;
        }
      }
      time.fileBegan(lastWriteMillis); // a file of an earlier period is rotated before the first write
      sealing.start(live.size(), rotationFinished);
    } catch (Error e) { // the sealing thread could not start (no native thread): give back what was opened
      live.closeQuietly();
      sealing.abandon();
      throw e;
    } catch (JournalRefused e) {
      live.closeQuietly();
      sealing.abandon();
      throw e.error;
    } catch (IOException | RuntimeException e) {
      live.closeQuietly();
      sealing.abandon();
      throw ConfigError.invalid(NnauditConfigKeys.FILE_PATH_KEY, context.file(), "a path to a regular file (not a "
          + "symlink, FIFO or directory) that the NameNode user owns and can append to, or where it can create one ("
          + AuditFileOpener.describe(e) + ")", e);
    }
    if (compressor != null) { // once the rotated files are as the start left them
      compressor.start();
    }
  }

  /** As {@link #write(ByteBuffer)}; the sealing thread takes the records' ends from {@code ends} (may be null). */
  @Override
  public void write(ByteBuffer chunk, RecordEnds ends) throws IOException {
    chunkEnds = ends;
    chunkEndsFor = chunk;
    chunkEndsFrom = chunk.position();
    try {
      write(chunk);
    } finally {
      chunkEnds = null;
      chunkEndsFor = null;
    }
  }

  @Override
  public void write(ByteBuffer chunk) throws IOException {
    if (!live.isOpen()) {
      follower.reopen();
    }
    long now = clock.getAsLong();
    follower.lookIfDue(now);
    rotateIfDue(now);
    sealing.checkBeforeWrite(); // under fail-closed a seal that cannot be written stops the write
    int start = chunk.position();
    appendMarked(journal, chunk);
    if (dated) {
      lastWriteMillis = wall.millis();
    }
    sealing.written(chunk, start, chunk == chunkEndsFor && start == chunkEndsFrom ? chunkEnds : null);
  }

  /** The journal cannot be used where the file is: the start fails naming {@code nnaudit.ack.policy}. */
  private static final class JournalRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final IllegalArgumentException error;

    JournalRefused(IllegalArgumentException error) {
      super(error.getMessage(), error);
      this.error = error;
    }
  }

  private static JournalStart openJournal(Path path, SinkContext context) {
    try {
      return JournalStart.open(path, context.journalBytes(), PosixFilePermissions.fromString(context.filePermissions()));
    } catch (IOException | RuntimeException e) {
      throw new JournalRefused(ConfigError.invalid(NnauditConfigKeys.ACK_POLICY_KEY, "journal", "write or queue, "
          + "or journal where its journal can be kept beside the audit file (" + e.getMessage() + ")", e));
    }
  }

  /** Under another ack policy: a journal left beside the file, or null; the start fails naming it if unreadable. */
  private static JournalStart leftJournal(Path path) {
    try {
      return JournalStart.leftBehind(path);
    } catch (IOException | RuntimeException e) {
      throw new JournalRefused(ConfigError.invalid(NnauditConfigKeys.FILE_PATH_KEY, path, "a file whose journal, "
          + "left by a run under nnaudit.ack.policy=journal, can be read and written out (" + e + ")", e));
    }
  }

  /** Writes what the journal holds past its mark; the start fails, saying so, when the file refuses it. */
  private RecordJournal replayJournal(JournalStart start, Path path) {
    try {
      return start.replay(chunk -> appendMarked(start.replaying(), chunk));
    } catch (IOException | RuntimeException e) {
      throw new JournalRefused(ConfigError.invalid(NnauditConfigKeys.FILE_PATH_KEY, path, "a file that takes the "
          + "records its journal " + start.path() + " holds (" + e + "); they stay in the journal until a start "
          + "can write them", e));
    }
  }

  /** Appends {@code chunk}, its write named in {@code j}'s mark first when it holds journaled records. */
  private void appendMarked(RecordJournal j, ByteBuffer chunk) throws IOException {
    if (j == null) {
      live.append(chunk);
      return;
    }
    j.beforeAppend(live.fileKey(), live.size(), chunk.remaining());
    live.append(chunk);
    j.afterAppend();
  }

  @Override
  public RecordJournal journal() {
    return journal;
  }

  /**
   * Rotates when the file has reached {@code nnaudit.file.max.size} or its period has ended, unless a rotation
   * failed within the last minute; a file replaced behind our back is followed instead.
   */
  private void rotateIfDue(long now) throws IOException {
    if ((live.size() >= maxSize || time.due(live.size())) && !live.stranded() && rotation.mayTry(now)) {
      if (live.holdsPath()) {
        if (rotation.rotateOrKeepAppending(now)) {
          time.rotated();
        }
      } else {
        follower.follow(now); // replaced within the last second
      }
    }
  }

  /** The writer is idle: a file whose period ended closes now rather than at the next write. */
  @Override
  public void idle() throws IOException {
    if (live.isOpen()) {
      rotateIfDue(clock.getAsLong());
    }
  }

  /** Seals everything written so far (the shutdown hook's hand-over, each direct write after it). */
  @Override
  public void seal() throws IOException {
    sealing.flush();
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
    live.force();
  }

  /** Rotations that failed since start-up; each leaves every file as it was and is retried a minute later. */
  public long rotationFailures() {
    return rotation.rotationFailures();
  }

  /**
   * Times the file was found moved or replaced and the sink did not switch to what was at the path (refused,
   * or it could not be opened); it is looked at again every second while that lasts.
   */
  public long refusedReopens() {
    return follower.refusedReopens();
  }

  /** Rotated files compressed since start-up, or -1 when rotated files are not compressed. */
  public long filesCompressed() {
    return compressor == null ? -1 : compression.files();
  }

  /** The bytes of the rotated files compressed since start-up, before compression; -1 as for the files. */
  public long bytesBeforeCompression() {
    return compressor == null ? -1 : compression.bytesBefore();
  }

  /** The bytes of the rotated files compressed since start-up, compressed; -1 as for the files. */
  public long bytesAfterCompression() {
    return compressor == null ? -1 : compression.bytesAfter();
  }

  /**
   * Compressions that failed since start-up, each of which left its plain file as it was and is tried again
   * later; -1 as for the files.
   */
  public long compressionFailures() {
    return compressor == null ? -1 : compression.failures();
  }

  /** Seals written since start-up, or -1 when the file is not sealed. */
  public long sealsWritten() {
    return sealing.sealsWritten();
  }

  /** Seals that could not be written since start-up, or -1 when the file is not sealed. */
  public long sealFailures() {
    return sealing.sealFailures();
  }

  /** When the latest seal was written (ms since the epoch; 0 before the first), or -1 when not sealed. */
  public long lastSealMillis() {
    return sealing.lastSealMillis();
  }

  /** The hash of the latest seal (hex), or null when the file is not sealed. */
  public String latestSealHash() {
    return sealing.latestSealHash();
  }

  /**
   * Stops the compressor (a bounded wait), seals what is not yet sealed ({@link Seal.Kind#CLOSE}), then closes
   * the digest and the file.
   */
  @Override
  public void close() throws IOException {
    if (journal != null) {
      journal.close();
    }
    if (compressor != null) {
      compressor.stop();
    }
    try {
      sealing.close();
    } finally {
      live.close();
    }
  }
}
