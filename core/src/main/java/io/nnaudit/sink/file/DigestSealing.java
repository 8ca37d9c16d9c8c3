package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.seal.DigestFile;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealSettings;
import io.nnaudit.seal.Sealer;
import io.nnaudit.seal.SealingThread;
import io.nnaudit.sink.RecordEnds;
import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.RotatedFiles;
import io.nnaudit.trail.TrailNames;

/**
 * The sealing of a sealed audit file ({@code nnaudit.seal.enabled}): a {@link Sealer} seals what is written
 * into a digest beside the file ({@code file.seals}), opened with the same refusals as the file. It runs on a
 * thread of its own ({@link SealingThread}), to which each write hands a copy of its bytes; a file moved away by
 * something else is sealed and its digest renamed to {@code file.seals.moved-<time>} before a new file is
 * started.
 *
 * <p>Design note. What blocks: the sink's writing thread waits in the calls that are requests to the sealing
 * thread (a rotation's seal, a flush, a move, a reopen, the close) until it has done them, and in
 * {@link #written} while too much waits to be hashed (see {@link SealingThread}). What drops: nothing; a first
 * seal of a new file that cannot be written is logged here and stays owed. Shut-down: {@link #close} seals what
 * is left and stops the thread, before the sink closes the file. Who owns what: the {@link Sealer} belongs to
 * the thread that builds the sink until {@link #start} starts the sealing thread, then to that thread, and back
 * to the closing thread once the sealing thread has ended (or to the builder, if the thread could not start);
 * the fields here belong to the sink's writing thread.
 */
final class DigestSealing implements Sealing {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);

  private final Path path;
  /** The names of rotated files; null: numbered. */
  private final DatedNames dated;
  private final boolean failClosed;
  /** Seals what is written; it resumes the chain in {@link #start}, then {@link #thread} runs it. */
  private final Sealer sealer;
  /** Opens the live file's digest. */
  private final AuditFileOpener digestOpener;
  /** The thread that hashes what is written and seals it, from {@link #start} on. */
  private SealingThread thread;

  DigestSealing(SealSettings settings, boolean durable, boolean failClosed, Path path, DatedNames dated,
      FileAttribute<Set<PosixFilePermission>> mode, ChannelFactory channels) {
    this.path = path;
    this.dated = dated;
    this.failClosed = failClosed;
    this.sealer = new Sealer(settings, durable, failClosed);
    this.digestOpener = new AuditFileOpener(TrailNames.digest(path), mode, channels);
  }

  @Override
  public boolean digestsFollowFiles() {
    return true;
  }

  /**
   * Picks up the chain of seals from the live file's digest, or from the newest rotated file's when the live
   * file has none (see {@link Sealer#resume}), then starts the sealing thread.
   */
  @Override
  public void start(long size, boolean rotationFinished) throws IOException {
    Seal newestBackup = null;
    int index = 0;
    for (RotatedFiles.Backup b : RotatedFiles.list(path, dated, Integer.MAX_VALUE)) { // the newest with a digest
      if (Files.exists(b.digest(), LinkOption.NOFOLLOW_LINKS)) { // file.N.seals, for file.N.gz too
        newestBackup = lastSealOf(b.digest());
        index = b.index;
        break;
      }
    }
    sealer.resume(path, size, this::openDigest, newestBackup, index, rotationFinished);
    thread = new SealingThread(sealer, failClosed, "nnaudit-sealer " + path.getFileName());
  }

  private static Seal lastSealOf(Path digest) {
    try (FileChannel ch = FileChannel.open(digest, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return DigestFile.lastCompleteSeal(ch);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException | IllegalArgumentException e) {
      LOG.warn("nnaudit: could not read the last seal of {} ({}); the live file's seals start a new chain", digest,
          e.toString());
      return null;
    }
  }

  private FileChannel openDigest() throws IOException {
    return digestOpener.open().channel;
  }

  @Override
  public void abandon() {
    sealer.closeDigest();
  }

  /** Under fail-closed a seal that cannot be written stops the write. */
  @Override
  public void checkBeforeWrite() throws IOException {
    thread.checkBeforeWrite();
  }

  @Override
  public void written(ByteBuffer chunk, int start, RecordEnds ends) {
    ByteBuffer written = chunk.duplicate();
    written.position(start);
    thread.written(written, ends == null || ends.count() == 0 ? null : ends.copy());
  }

  @Override
  public void flush() throws IOException {
    thread.seal(Seal.Kind.FLUSH);
  }

  /**
   * The file's last seal, with the files the rotation keeps: the rotated one and the keep - 1 before it in the
   * trail's numbering, wherever files are missing (a deleted file must not move the oldest kept past it); if it
   * fails the rotation fails, whatever the failure policy, so that a rotated file is always sealed to its end.
   */
  @Override
  public void sealForRotation(int keptFiles) throws IOException {
    thread.sealForRotation(keptFiles);
  }

  /** Its digest is closed when the new file's is opened. */
  @Override
  public void movedAway() throws IOException {
    thread.seal(Seal.Kind.MOVED);
    moveDigestAside();
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
   * The new file's first seal chains it to the file before. If that seal cannot be written it stays owed: the
   * sealing thread writes it with the next seal, and under fail-closed the next write waits for it.
   */
  @Override
  public void startFile(long size) {
    try {
      thread.startFile(path, size, this::openDigest);
    } catch (IOException e) {
      LOG.error("nnaudit: could not write the first seal of the new {} ({}); it is written with the next seal",
          path, e.toString());
    }
  }

  /** The bytes not hashed (a partial write kept, or someone else's) are hashed from the file. */
  @Override
  public void reopened(long size, long owned) throws IOException {
    thread.reopened(path, size, owned);
  }

  @Override
  public void close() throws IOException {
    thread.close();
  }

  @Override
  public long sealsWritten() {
    return sealer.sealsWritten();
  }

  @Override
  public long sealFailures() {
    return sealer.sealFailures();
  }

  @Override
  public long lastSealMillis() {
    return sealer.lastSealMillis();
  }

  @Override
  public String latestSealHash() {
    return sealer.latestSealHash();
  }
}
