package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.trail.TrailNames;

/**
 * Seals what the file sink writes: it keeps a running {@link SegmentDigest} of the bytes written since the last
 * seal and appends a signed {@link Seal} to the live file's digest when one is due (every
 * {@code nnaudit.seal.interval.records} records or {@code nnaudit.seal.interval.ms}), when the file is rotated
 * or moved away, when the sink closes, and on demand ({@link #seal}). The file sink owns it: it resumes the
 * chain on the thread that opens the sink, then a {@link SealingThread} runs it; the sink opens the digest
 * files (with the same refusal of links and FIFOs as the audit file) and renames them with their audit files.
 *
 * <p>Design note.
 * <ul>
 * <li>What blocks: hashing, signing (an ECDSA signature is well under a millisecond), the write of one seal
 * line, and, when durability is not none, an fsync of the audit file before the seal (a seal must never reach
 * the disk before the bytes it vouches for, or a power cut would leave a seal over bytes the file no longer
 * holds) and one of the digest after it. All on the thread that runs the Sealer, once per seal.</li>
 * <li>What drops: nothing. A seal that cannot be written (signing fails, the digest cannot be written) is
 * counted in {@link #sealFailures}; under fail-closed {@link #seal} and {@link #sealIfDue} then throw, and the
 * sink writes no record until sealing works again (the writer retries as for any failed write); under
 * fail-open records go on being written and the next seal that works covers them all. A seal half-written is
 * truncated away.</li>
 * <li>Shut-down order: the sink seals ({@link Seal.Kind#CLOSE}, written even with nothing left to seal: nothing
 * may follow it until a start's seal) before it closes the audit file, then closes the digest. A process killed
 * between seals leaves records after the last seal, at most what that seal's {@code tail} allows; the next
 * start seals them ({@link Seal.Kind#RECOVER}), and anything beyond the bound or after a close as
 * {@link Seal.Kind#FOUND}, before anything else is written; with nothing to recover it writes
 * {@link Seal.Kind#RESUME}. That start's seal is written before any record of the run, and before a rotation's
 * seal, under either failure policy ({@link #startSealOwed}).</li>
 * <li>Who owns what: every mutable field belongs to one thread at a time: the thread that opens the sink
 * while it resumes the chain, then the {@link SealingThread} (handed over by Thread.start). The counters and
 * the latest seal's hash are volatile for the metrics, written by that thread only.</li>
 * </ul>
 */
public final class Sealer {
  private static final Logger LOG = LoggerFactory.getLogger(Sealer.class);
  /**
   * The bytes a killed run may leave unsealed after its last seal, beyond the interval's records: the copies
   * queued for the sealing thread (at most {@link SealingThread#MAX_QUEUED_BYTES}), the copy it is hashing (taken
   * off the queue before its seal is written), the write in flight that waits for room in the queue, and the
   * rest of the copy whose records reached the interval: four writes of the writer, which are about 1 MiB each
   * (the writer ends a write at the first record end past 1 MiB), counted as 2 MiB each. A record longer than
   * 1 MiB is the one case this does not cover. Every seal records it ({@code tail}).
   */
  static final long TAIL_BYTES = SealingThread.MAX_QUEUED_BYTES + (8L << 20);
  private static final long FAILURE_LOG_INTERVAL_MS = 10_000;

  private final SealKey key;
  private final long intervalRecords;
  private final long intervalNanos;
  private final boolean durable;
  private final boolean failClosed;
  private final LongSupplier wallClock;
  private final LongSupplier nanoClock;

  /** The audit file, read-only, for the fsync before a seal; null when durability is none. */
  private FileChannel audit;
  /** Where the live audit file is, for opening {@link #audit} again. */
  private Path fsyncPath;
  /** The live file's digest; null when it is yet to be opened by {@link #digestOpener}. */
  private FileChannel digest;
  private DigestOpener digestOpener;
  /** Where the live file's digest is. */
  private Path digestPath;
  /** The digest's size: a seal that fails half-way is truncated back to it. */
  private long digestSize;
  private String trail;
  private long fileNumber;
  /** The oldest file the trail holds (see {@link Seal#oldest}): raised only by rotation's own deletions. */
  private long oldestFile;
  private long nextSealNumber;
  private String prev;
  private long sinceMillis;
  /** Where the bytes not yet sealed begin in the live file. */
  private long segmentStart;
  private final SegmentDigest segment = new SegmentDigest();
  /** When the first byte not yet sealed was written (nanoTime); meaningless while segment is empty. */
  private long firstUnsealedNanos;
  /** The live file has no seal yet: the next one is its OPEN (or ADOPT) seal, due at once. */
  private volatile Seal.Kind pendingFirst;
  /** A seal line was left unfinished in the digest (its write failed, and so did cutting it back). */
  private boolean unfinishedLine;
  /** The seal being written allows no crash tail (a RECOVER that a FOUND follows). */
  private boolean tailOverride;
  private long nextFailureLog = Long.MIN_VALUE;
  private static final long NEVER = Long.MIN_VALUE;
  /** After a failed seal, the interval's seal is tried again this much later (a request tries at once). */
  private static final long RETRY_AFTER_FAILURE_NANOS = TimeUnit.SECONDS.toNanos(1);
  /**
   * When the latest seal failed (nanoTime), or NEVER once one works. Volatile: the writing thread reads it
   * ({@link SealingThread#checkBeforeWrite}); set before the failure is counted.
   */
  private volatile long failedAtNanos = NEVER;

  private volatile long sealsWritten;
  private volatile long sealFailures;
  private volatile long lastSealMillis;
  private volatile String latestHash = "";

  public Sealer(SealSettings settings, boolean durable, boolean failClosed) {
    this(settings, durable, failClosed, System::currentTimeMillis, System::nanoTime);
  }

  Sealer(SealSettings settings, boolean durable, boolean failClosed, LongSupplier wallClock, LongSupplier nanoClock) {
    this.key = settings.key();
    this.intervalRecords = settings.intervalRecords();
    this.intervalNanos = settings.intervalMs() * 1_000_000L;
    this.durable = durable;
    this.failClosed = failClosed;
    this.wallClock = wallClock;
    this.nanoClock = nanoClock;
  }

  /**
   * At start-up: picks up the chain where the live file's digest left it, or, for a file without seals, where
   * the newest rotated file with a digest did ({@code newestBackupSeal}, the last seal of {@code file.N} for
   * {@code newestBackupIndex} N; null when there is none: a new chain). Whatever it finds, it writes one seal
   * that says so, and the records this run writes follow it:
   * <ul>
   * <li>the file holds its last seal's range as sealed and nothing after it: {@link Seal.Kind#RESUME};</li>
   * <li>records after a last seal that did not close the file (the run was killed): {@link Seal.Kind#RECOVER},
   * for at most what that seal's {@code tail} allows; anything beyond is {@link Seal.Kind#FOUND};</li>
   * <li>records after a close seal, or a file that does not hold what its seals cover (changed or cut while the
   * NameNode was down), or a digest whose last line is not a seal: {@link Seal.Kind#FOUND}, which vouches for
   * nothing. The digest is kept as it is: its seals are the evidence of the change, which verify reports;</li>
   * <li>a file without seals: {@link Seal.Kind#ADOPT}, which verify reports as sealed late; an empty one that
   * follows a rotated file's seals too (the rotation that made it did not begin it: it was killed after its last
   * rename, or the file and its digest were deleted), unless this start has just finished that rotation
   * ({@code rotationFinished}); OPEN for an empty file of a new chain.</li>
   * </ul>
   * If that seal cannot be written it stays owed, under either failure policy, and no record is written until
   * it is ({@link #startSealOwed}): this run's records never share a seal with what the start found. Throws
   * IOException when the file cannot be read.
   */
  public void resume(Path auditPath, long size, DigestOpener opener, Seal newestBackupSeal, int newestBackupIndex,
      boolean rotationFinished) throws IOException {
    openForFsync(auditPath);
    this.digestOpener = opener;
    this.digestPath = TrailNames.digest(auditPath);
    this.digest = opener.open();
    this.digestSize = DigestFile.dropUnfinishedLine(digestPath, digest);
    Seal last;
    try {
      last = DigestFile.lastCompleteSeal(digestPath);
    } catch (IllegalArgumentException e) {
      LOG.error("nnaudit: the last line of the digest of {} is not a seal ({}); the digest is kept as evidence, "
          + "and the file as found is recorded in a new chain (verify reports the trail as changed)", auditPath,
          e.getMessage());
      newChain();
      endLastLine();
      startFound(auditPath, 0, size);
      return;
    }
    if (last != null && last.keyId.equals(key.keyId()) && !last.signatureValid(key)) {
      LOG.error("nnaudit: the last seal of the digest of {} does not match its signature (it was changed); the "
          + "digest is kept as evidence, and the file as found is recorded in a new chain (verify reports the "
          + "trail as changed)", auditPath);
      newChain();
      startFound(auditPath, 0, size);
      return;
    }
    if (last != null) {
      startAfter(last);
      fileNumber = last.file;
      if (!holds(auditPath, size, last)) {
        LOG.error("nnaudit: {} does not hold the bytes its digest's last seal covers (it was changed or cut while "
            + "the NameNode was down, or lost bytes in a power cut with durability none); the digest is kept as "
            + "evidence, the file as found is recorded (verify reports the trail as changed)", auditPath);
        startFound(auditPath, 0, size);
        return;
      }
      segmentStart = last.to;
      if (size == last.to) {
        pendingFirst = Seal.Kind.RESUME;
        startSeal();
        return;
      }
      if (last.kind == Seal.Kind.CLOSE) {
        LOG.error("nnaudit: {} holds {} bytes after its close seal: nothing writes there after a close; the bytes "
            + "are recorded as found (verify reports them as inserted)", auditPath, size - last.to);
        startFound(auditPath, last.to, size);
        return;
      }
      long allowed = crashTailEnd(auditPath, last, size);
      hashRange(auditPath, last.to, allowed);
      LOG.warn("nnaudit: {} holds {} records ({} bytes) after its last seal (the NameNode was killed?); sealing "
          + "them now as recovered", auditPath, segment.records(), allowed - last.to);
      if (allowed < size) {
        LOG.error("nnaudit: {} holds {} bytes after its last seal beyond what a killed run can leave unsealed "
            + "({} records, then {} bytes); they are recorded as found (verify reports them as inserted)",
            auditPath, size - allowed, last.tailRecords, last.tailBytes);
        // the RECOVER allows no tail: a kill before the FOUND seal must not let the next start recover more
        tailOverride = true;
        pendingFirst = Seal.Kind.RECOVER;
        try {
          sealNow(Seal.Kind.RECOVER);
        } catch (IOException e) { // fail-open or not: what is left is owed, all of it as found
          hashRange(auditPath, allowed, size);
          pendingFirst = Seal.Kind.FOUND;
          return;
        } finally {
          tailOverride = false;
        }
        startFound(auditPath, allowed, size);
        return;
      }
      pendingFirst = Seal.Kind.RECOVER;
      startSeal();
      return;
    }
    if (newestBackupSeal != null) {
      startAfter(newestBackupSeal);
      // the rotated files after that one (none, unless sealing was off meanwhile) keep their numbers: verify
      // takes them for files written unsealed, which this signed seal vouches for
      fileNumber = newestBackupSeal.file + newestBackupIndex;
    } else {
      newChain();
    }
    segmentStart = 0;
    if (size > 0) {
      hashRange(auditPath, 0, size);
      LOG.info("nnaudit: {} has no seals; sealing its {} records as they are (verify reports them as sealed "
          + "late)", auditPath, segment.records());
    }
    // a file the chain already had (it follows a rotated file's last seal) but without a seal: even empty, it is
    // not the rotation's own new file, which the rotation's OPEN seal would have begun (verify says so)
    pendingFirst = size > 0 || newestBackupSeal != null && !rotationFinished ? Seal.Kind.ADOPT : Seal.Kind.OPEN;
    startSeal();
  }

  /** Writes the start's owed seal; a failure is counted and logged, and the seal stays owed. */
  private void startSeal() {
    try {
      sealNow(pendingFirst);
    } catch (IOException e) {
      // owed: the writer waits for it (startSealOwed)
    }
  }

  /**
   * Whether the seal a start (or the switch to someone else's file) owes, which says what the file held before
   * this run wrote, is still to be written. Until it is, nothing may be written: its range must hold the file's
   * bytes as found, and none of this run's. Read by the writing thread.
   */
  public boolean startSealOwed() {
    Seal.Kind owed = pendingFirst;
    return owed != null && owed != Seal.Kind.OPEN;
  }

  /** Ends the digest's last line if it has no newline (garbage kept as evidence), so that a seal starts a line. */
  private void endLastLine() throws IOException {
    digestSize = digest.size();
    ByteBuffer last = ByteBuffer.allocate(1);
    try (FileChannel in = FileChannel.open(digestPath, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      if (digestSize > 0 && in.read(last, digestSize - 1) == 1 && last.get(0) != '\n') {
        writeLine("");
      }
    }
  }

  private void newChain() {
    trail = UUID.randomUUID().toString();
    fileNumber = 1;
    oldestFile = 1;
    nextSealNumber = 1;
    prev = Seal.GENESIS;
    sinceMillis = wallClock.getAsLong();
  }

  /** Seals {@code [from, to)} of the file as {@link Seal.Kind#FOUND}; this run's records follow it. */
  private void startFound(Path auditPath, long from, long to) throws IOException {
    segment.reset();
    segmentStart = from;
    if (to > from) {
      hashRange(auditPath, from, to);
    }
    pendingFirst = Seal.Kind.FOUND;
    startSeal();
  }

  /**
   * Where the tail a killed run may have left after {@code last} ends in the file: after at most
   * {@code last.tailRecords} records, then at most {@code last.tailBytes} bytes more, at a record's end (or the
   * file's end).
   */
  private static long crashTailEnd(Path file, Seal last, long size) throws IOException {
    if (last.tailRecords == Seal.UNBOUNDED) {
      return size;
    }
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return CrashTail.end(in, last, size);
    }
  }

  /** Whether the file holds the range {@code last} covers, as it was sealed. */
  private static boolean holds(Path file, long size, Seal last) throws IOException {
    if (size < last.to) {
      return false;
    }
    SegmentDigest d = new SegmentDigest();
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      if (d.update(in, last.from, last.to) < last.to) {
        return false;
      }
    }
    return d.records() == last.records && Seal.hex(d.peekSha256()).equals(last.sha256);
  }

  private void startAfter(Seal last) {
    trail = last.trail;
    oldestFile = last.oldest;
    nextSealNumber = last.number + 1;
    prev = last.hash();
    sinceMillis = last.timeMillis;
    latestHash = prev;
    lastSealMillis = last.timeMillis;
  }

  /** Feeds the unsealed bytes [from, to) of the file into the segment. */
  private void hashRange(Path file, long from, long to) throws IOException {
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      long reached = segment.update(in, from, to);
      if (reached < to) {
        throw new IOException(file + " ended at byte " + reached + " while " + to + " were expected");
      }
    }
    firstUnsealedNanos = nanoClock.getAsLong();
  }

  /**
   * Seals if a seal is due: the interval in records or time is reached, or the file's first seal is still
   * owed. Under fail-closed, throws when the seal cannot be written, so that the caller writes nothing more.
   */
  public void sealIfDue() throws IOException {
    long now = nanoClock.getAsLong();
    if (failedAtNanos != NEVER && now - failedAtNanos < RETRY_AFTER_FAILURE_NANOS) {
      return; // a seal failed a moment ago: not again at every chunk (each try may fsync the audit file)
    }
    if (pendingFirst != null || (segment.bytes() > 0 && (segment.records() >= intervalRecords
        || now - firstUnsealedNanos >= intervalNanos))) {
      seal(pendingFirst != null ? pendingFirst : Seal.Kind.INTERVAL);
    }
  }

  /** After a write: {@code written}'s remaining bytes are in the file now. Does not move its position. */
  public void written(ByteBuffer written) {
    if (segment.bytes() == 0) {
      firstUnsealedNanos = nanoClock.getAsLong();
    }
    segment.update(written);
  }

  /**
   * Seals what is not yet sealed, if anything is (a seal owed for the file's start is written even when
   * nothing is, and so is a CLOSE seal: it says that nothing follows in this file until a start's seal). Under
   * fail-closed, throws when the seal cannot be written; under fail-open counts and logs
   * the failure and returns, the bytes staying unsealed for the next seal.
   */
  public void seal(Seal.Kind kind) throws IOException {
    if (segment.bytes() == 0 && pendingFirst == null && kind != Seal.Kind.CLOSE) {
      failedAtNanos = NEVER; // nothing is unsealed: nothing is failing
      return;
    }
    try {
      Seal.Kind owed = pendingFirst;
      if (owed != null) { // the file's first seal (or a start's) says what its bytes are; then the one asked for
        sealNow(owed);
        if (kind == Seal.Kind.INTERVAL || kind == owed) {
          return;
        }
      }
      sealNow(kind);
    } catch (IOException e) {
      if (failClosed) {
        throw e;
      }
    }
  }

  /**
   * Before a rotation: the live file's last seal ({@link Seal.Kind#ROTATE}), which also raises the trail's
   * oldest file to the oldest the rotation keeps: {@code keptFiles} files, the one being rotated and the
   * {@code keptFiles - 1} before it (0: the rotation deletes nothing). It says so before the rotation deletes
   * anything, so that a kill between the deletion and the next file's first seal leaves no seal that still
   * promises the deleted files; it is written even with nothing unsealed when it raises the oldest file.
   * Throws when it cannot be written, whatever the failure policy: the rotation then does not happen, so that a
   * rotated file is always sealed to its end.
   */
  public void sealForRotation(int keptFiles) throws IOException {
    if (pendingFirst != null) {
      sealNow(pendingFirst); // what the file's first seal (or a start's) owes comes first, or no rotation
    }
    long oldest = keptFiles > 0 ? Math.max(oldestFile, fileNumber - keptFiles + 1) : oldestFile;
    boolean raised = oldest != oldestFile;
    oldestFile = oldest; // files older than the ones kept may be gone from now on, whatever becomes of this seal
    if (segment.bytes() == 0 && pendingFirst == null && !raised) {
      return;
    }
    sealNow(Seal.Kind.ROTATE);
  }

  /**
   * The sink reopened the same file through a new channel (the old one was closed by an interrupt, or after a
   * failed write): the channel is replaced, and bytes the file holds beyond those hashed are hashed from the file,
   * so that seals cover exactly what the file holds: as this run's when the sink wrote them (a partial record it
   * could not take back, or the line end it added; {@code owned} is -1 then), but bytes beyond {@code owned}, the
   * size the sink left the file at, were written by something else while the file was closed to the sink: they
   * are sealed as {@link Seal.Kind#FOUND}, after a seal of this run's bytes.
   */
  public void reopened(Path auditPath, long size, long owned) throws IOException {
    long hashed = segmentStart + segment.bytes();
    long ours = owned < 0 ? size : Math.max(hashed, Math.min(size, owned));
    if (ours > hashed) {
      hashRange(auditPath, hashed, ours);
    }
    if (size <= ours) {
      return;
    }
    LOG.error("nnaudit: {} holds {} bytes after what this NameNode wrote, written by something else while the file "
        + "was reopened; they are recorded as found (verify reports them as inserted)", auditPath, size - ours);
    if (segment.bytes() > 0 || pendingFirst != null) {
      try {
        seal(Seal.Kind.INTERVAL); // this run's bytes (or an owed first seal) first
      } catch (IOException e) {
        // fail-closed: owed, with what follows
      }
    }
    if (segment.bytes() > 0 || pendingFirst != null) { // that seal failed: all of it is owed, as found
      hashRange(auditPath, ours, size);
      pendingFirst = Seal.Kind.FOUND;
      return;
    }
    startFound(auditPath, ours, size);
  }

  /** Writes the seal; counts and logs a failure, and throws it (the caller decides what the policy does). */
  private void sealNow(Seal.Kind kind) throws IOException {
    long now = wallClock.getAsLong();
    Seal s;
    try {
      if (durable && segment.bytes() > 0) {
        if (audit == null || !audit.isOpen()) { // not opened, or closed by a stray interrupt: opened again
          Thread.interrupted();
          openForFsync(fsyncPath);
        }
        audit.force(false); // the bytes before the seal that vouches for them
      }
      // the segment is reset only once the seal is written: a failed seal leaves its bytes for the next one
      s = Seal.unsigned(trail, fileNumber, oldestFile, nextSealNumber, kind, segmentStart,
          segmentStart + segment.bytes(), segment.records(), segment.lineSum(), segment.lastLineHash(),
          segment.peekSha256(), sinceMillis, now, tailOverride ? 0 : intervalRecords, tailOverride ? 0 : TAIL_BYTES,
          prev).signedWith(key);
      if (digest == null || !digest.isOpen()) { // not yet opened, or closed under a failed write
        digest = digestOpener.open();
        digestSize = DigestFile.dropUnfinishedLine(digestPath, digest); // a seal cut short there
      }
      writeLine(s.line());
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw failed(now, e);
    }
    segment.reset();
    segmentStart = s.to;
    prev = s.hash();
    sinceMillis = now;
    nextSealNumber++;
    pendingFirst = null;
    sealsWritten++;
    failedAtNanos = NEVER;
    if (durable) {
      try {
        digest.force(false); // the seal is in the digest now, and the chain goes on from it whatever happens here
      } catch (IOException e) {
        throw failed(now, e);
      }
    }
    // only once it is on disk (an anchor taken from it must not name a seal a power cut loses); the time first,
    // so that a reader who sees this hash sees its time or a later one
    lastSealMillis = now;
    latestHash = prev;
  }

  /** Counts and logs (at most every 10 s) a seal that failed; returns the failure to throw. */
  private IOException failed(long now, Exception e) {
    failedAtNanos = nanoClock.getAsLong();
    sealFailures++;
    if (now >= nextFailureLog) {
      nextFailureLog = now + FAILURE_LOG_INTERVAL_MS;
      LOG.error("nnaudit: could not write a seal of the audit file, or fsync it ({} failures since start-up); {}",
          sealFailures, failClosed ? "fail-closed: no record is written until a seal can be"
              : "fail-open: records go on, sealed by the next seal that works", e);
    }
    return e instanceof IOException ? (IOException) e : new IOException("could not seal the audit file: " + e, e);
  }

  private void writeLine(String line) throws IOException {
    ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
    long size = digest.size();
    if (size != digestSize) {
      if (!unfinishedLine || size < digestSize) {
        // not our own cut line: something else wrote the digest (a replacement pipeline's sealer, after this
        // one was abandoned): its seals are not cut away; this seal fails
        throw new IOException("the digest " + digestPath + " is " + size + " bytes, not the " + digestSize
            + " this sealer wrote: it was written by something else");
      }
      digest.truncate(digestSize); // part of a line an earlier failed write left, which could not be cut then
    }
    unfinishedLine = false;
    try {
      while (b.hasRemaining()) {
        digestSize += digest.write(b);
      }
    } catch (IOException e) {
      long keep = digestSize - b.position();
      digestSize = keep;
      try {
        digest.truncate(keep);
      } catch (IOException t) {
        unfinishedLine = true; // cut before the next seal
        e.addSuppressed(t);
      }
      throw e;
    }
  }

  /** Opens the digest file of the live audit file (creating it), refusing links and FIFOs as the sink does. */
  @FunctionalInterface
  public interface DigestOpener {
    FileChannel open() throws IOException;
  }

  /**
   * The sink switched to a new file (after a rotation, or after its file was moved away): the old digest is
   * closed and the new file's first seal, chained to the old file's last, is written: OPEN for an empty file,
   * ADOPT for one that already holds {@code size} bytes (someone else's file at the path). The new digest is
   * opened by {@code opener} when that seal is written; if it cannot be, the seal stays owed (see
   * {@link #seal}) and the digest is opened again with the next one.
   */
  public void startFile(Path auditPath, long size, DigestOpener opener) throws IOException {
    closeDigest();
    // the new file's state first: whatever fails below, its bytes are never sealed as the old file's
    digestPath = TrailNames.digest(auditPath);
    fsyncPath = auditPath;
    digestOpener = opener;
    fileNumber++;
    segment.reset();
    segmentStart = 0;
    pendingFirst = size > 0 ? Seal.Kind.ADOPT : Seal.Kind.OPEN;
    openForFsync(auditPath);
    if (size > 0) {
      hashRange(auditPath, 0, size);
    }
    seal(pendingFirst);
  }

  /** Whether the latest seal tried failed, and none has worked since. */
  boolean failing() {
    return failedAtNanos != NEVER;
  }

  /**
   * Opens the audit file for reading, for the fsync before each seal: a channel of the Sealer's own, which no
   * interrupt of a handler thread can close (fsync covers the file, whichever descriptor asks).
   */
  private void openForFsync(Path auditPath) throws IOException {
    closeQuietly(audit);
    audit = null;
    fsyncPath = auditPath;
    if (durable) {
      audit = FileChannel.open(auditPath, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    }
  }

  private static void closeQuietly(FileChannel ch) {
    try {
      if (ch != null) {
        ch.close();
      }
    } catch (IOException e) {
      LOG.debug("nnaudit: closing a channel failed", e);
    }
  }

  /** Closes the digest (fsynced first unless durability is none) and the file; the sealer is done with them. */
  public void closeDigest() {
    closeQuietly(audit);
    audit = null;
    if (digest == null) {
      return;
    }
    try {
      if (durable) {
        digest.force(false);
      }
      digest.close();
    } catch (IOException e) {
      LOG.warn("nnaudit: could not close a digest file cleanly", e);
    }
    digest = null;
  }

  /** Seals written since start-up. */
  public long sealsWritten() {
    return sealsWritten;
  }

  /** Seals that could not be written (signing or writing failed) since start-up. */
  public long sealFailures() {
    return sealFailures;
  }

  /** When the latest seal of the chain was written (wall clock, ms), or 0 before the first. */
  public long lastSealMillis() {
    return lastSealMillis;
  }

  /** The SHA-256 of the latest seal's line, hex, or empty before the first: anchor it off the host. */
  public String latestSealHash() {
    return latestHash;
  }
}
