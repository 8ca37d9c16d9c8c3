package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seals what the file sink writes: it keeps a running {@link SegmentDigest} of the bytes written since the last
 * seal and appends a signed {@link Seal} to the live file's digest when one is due (every
 * {@code nnaudit.seal.interval.records} records or {@code nnaudit.seal.interval.ms}), when the file is rotated
 * or moved away, when the sink closes, and on demand ({@link #seal}). The file sink owns it: it resumes the
 * chain on the thread that opens the sink, then a {@link SealingThread} runs it; the sink opens the digest
 * files (with the same refusal of links and FIFOs as the audit file) and renames them with their audit files.
 * Its parts: where the chain stands and what is not yet sealed ({@link SealChain}), the start's seal
 * ({@link StartSeal}), the digest's lines ({@link DigestWriter}), the audit file's fsync before a seal
 * ({@link AuditFsync}) and what a failed seal costs ({@link SealBackoff}).
 *
 * <p>Design note.
 * <ul>
 * <li>What blocks: hashing, signing (an ECDSA signature is well under a millisecond), the write of one seal
 * line, and, when durability is not none, an fsync of the audit file before the seal (a seal must never reach
 * the disk before the bytes it vouches for, or a power cut would leave a seal over bytes the file no longer
 * holds) and one of the digest after it. All on the thread that runs the Sealer, once per seal (each tried
 * again when an interrupt cut it short, see below).</li>
 * <li>What drops: nothing. A seal that cannot be written (signing fails, the digest cannot be written) is
 * counted in {@link #sealFailures}; under fail-closed {@link #seal} and {@link #sealIfDue} then throw, and the
 * sink writes no record until sealing works again (the writer retries as for any failed write); under
 * fail-open records go on being written and the next seal that works covers them all. A seal half-written is
 * truncated away. An interrupt of the thread making a seal (a stray one of the sealing thread, or the building
 * thread's during the start's seal) closes the channel under the step it lands in (the audit file's fsync, the
 * digest's opening, write and fsync); the step is taken again at once, the interrupt cleared just before, up to
 * {@link #INTERRUPTED_TRIES} times, so a seal goes through as long as one try of each step takes less time than
 * there is between two interrupts. Hashing a range from the file (what a start or a reopen finds) is such a
 * step too, read by read, and goes on as long as reads get through between interrupts; a read that fails
 * otherwise (an I/O error) fails the piece of work and leaves the rest of the range to hash before the next seal
 * ({@link SealChain}); a range the file no longer holds is left out of the seals, which verify reports. The
 * building thread gets its flag back once the
 * start is done ({@link #interruptCleared}).</li>
 * <li>Shut-down order: the sink seals ({@link Seal.Kind#CLOSE}, written even with nothing left to seal: nothing
 * may follow it until a start's seal) before it closes the audit file, then closes the digest. A process killed
 * between seals leaves records after the last seal, at most what that seal's {@code tail} allows; the next
 * start seals them ({@link Seal.Kind#RECOVER}), and anything beyond the bound or after a close as
 * {@link Seal.Kind#FOUND}, before anything else is written; with nothing to recover it writes
 * {@link Seal.Kind#RESUME}. That start's seal is written before any record of the run, and before a rotation's
 * seal, under either failure policy ({@link #startSealOwed}).</li>
 * <li>Who owns what: every mutable field, here and in its parts, belongs to one thread at a time: the thread
 * that builds the Sealer and resumes the chain, then the {@link SealingThread}, handed over by {@link #handTo}
 * before Thread.start, and back to the closing thread once the sealing thread has ended (to the builder if the
 * thread could not be started). Every method that changes it asserts that its caller is the owner (tests run
 * with assertions on). The owed seal and the
 * failure's time are volatile, read by the sink's writing thread ({@link #startSealOwed}, {@link #failing});
 * the counters and the latest seal's hash are volatile for the metrics, written by the owner only.</li>
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
  /**
   * The tries of each step of a seal on a channel (the audit file's fsync, the digest's opening, write and fsync) that
   * an interrupt of the thread taking it cuts short (it closes the channel under it): each next try clears the
   * interrupt just before and opens the channel again. Nothing in nnaudit or Hadoop interrupts the sealing
   * thread; this is for one from elsewhere, or the building thread's at start-up.
   */
  static final int INTERRUPTED_TRIES = 10;

  private final SealKey key;
  private final long intervalRecords;
  private final long intervalNanos;
  private final boolean durable;
  private final boolean failClosed;
  private final LongSupplier wallClock;
  private final LongSupplier nanoClock;
  private final SealChain chain;
  private final DigestWriter digest;
  private final AuditFsync fsync;
  private final SealBackoff backoff;
  /** Volatile for the metrics; written by the owning thread only. */
  private volatile long sealsWritten;
  /**
   * An interrupt was cleared for a try of a seal's step ({@link #throughInterrupts}). Not given back at once: the
   * rest of the same piece of work (a range hashed after the seal) would fail on it. The building thread gets it
   * back at the end of {@link #resume}; on the sealing thread, whose interrupts are stray, it is set and never
   * read. The owner's.
   */
  private boolean interruptCleared;
  /** The thread every mutable part belongs to: the one that built the Sealer, until {@link #handTo}. */
  private volatile Thread owner = Thread.currentThread();

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
    this.chain = new SealChain(wallClock, nanoClock);
    this.digest = new DigestWriter(durable);
    this.fsync = new AuditFsync(durable);
    this.backoff = new SealBackoff(failClosed, nanoClock);
  }

  /**
   * From now on the Sealer belongs to {@code next}: called by its owner before it lets go (before the thread's
   * start, which publishes what the owner did), or once the owner has ended (after a join).
   */
  void handTo(Thread next) {
    owner = next;
  }

  /** Whether the calling thread owns the Sealer; asserted by every method that changes it. */
  private boolean ownedByCaller() {
    return owner == Thread.currentThread();
  }

  private String notOwned() {
    return "the Sealer belongs to " + owner + ", not to " + Thread.currentThread();
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
    assert ownedByCaller() : notOwned();
    try {
      fsync.open(auditPath);
      digest.moveTo(auditPath, opener);
      throughInterrupts(digest::open); // the start-up thread may come with an interrupt pending
      new StartSeal(this, chain, digest, key).resume(auditPath, size, newestBackupSeal, newestBackupIndex,
          rotationFinished);
    } finally {
      if (interruptCleared) { // the building thread's (the NameNode's start-up): its flag again, once all is done
        interruptCleared = false;
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Writes the owed seal (a start's, or a file's first); a failure is counted and logged, and it stays owed. */
  void sealOwed() {
    assert ownedByCaller() : notOwned();
    try {
      sealNow(chain.owed(), true);
    } catch (IOException e) {
      // owed: the writer waits for it (startSealOwed)
    }
  }

  /** Seals {@code [from, to)} of the file as {@link Seal.Kind#FOUND}; this run's records follow it. */
  void sealFound(Path auditPath, long from, long to) throws IOException {
    assert ownedByCaller() : notOwned();
    chain.restartAt(from);
    chain.owe(Seal.Kind.FOUND); // first: should the hashing fail, nothing is written until the range is sealed
    hashFromFile(auditPath, to);
    sealOwed();
  }

  /**
   * Whether the seal a start (or the switch to someone else's file) owes, which says what the file held before
   * this run wrote, is still to be written. Until it is, nothing may be written: its range must hold the file's
   * bytes as found, and none of this run's. Read by the writing thread.
   */
  public boolean startSealOwed() {
    Seal.Kind owed = chain.owed();
    return owed != null && owed != Seal.Kind.OPEN;
  }

  /** nnaudit.seal.interval.ms, in nanoseconds. */
  public long intervalNanos() {
    return intervalNanos;
  }

  /**
   * Seals if a seal is due: the interval in records or time is reached, or the file's first seal is still
   * owed. Under fail-closed, throws when the seal cannot be written, so that the caller writes nothing more.
   */
  public void sealIfDue() throws IOException {
    assert ownedByCaller() : notOwned();
    long now = nanoClock.getAsLong();
    if (backoff.waiting(now)) {
      return; // a seal failed a moment ago: not again at every chunk (each try may fsync the audit file)
    }
    if (chain.due(now, intervalRecords, intervalNanos)) {
      Seal.Kind owed = chain.owed();
      seal(owed != null ? owed : Seal.Kind.INTERVAL);
    }
  }

  /** After a write: {@code written}'s remaining bytes are in the file now. Does not move its position. */
  public void written(ByteBuffer written) {
    written(written, null);
  }

  /**
   * After a write: {@code written}'s remaining bytes are in the file now, its records ending at {@code ends}
   * (offsets from its position, each just past a newline; null when not known: the bytes are searched for them).
   * Does not move its position.
   */
  public void written(ByteBuffer written, int[] ends) {
    assert ownedByCaller() : notOwned();
    chain.written(written, ends);
  }

  /**
   * Seals what is not yet sealed, if anything is (a seal owed for the file's start is written even when
   * nothing is, and so is a CLOSE seal: it says that nothing follows in this file until a start's seal). Under
   * fail-closed, throws when the seal cannot be written; under fail-open counts and logs
   * the failure and returns, the bytes staying unsealed for the next seal.
   */
  public void seal(Seal.Kind kind) throws IOException {
    assert ownedByCaller() : notOwned();
    if (!chain.hasUnsealed() && chain.owed() == null && kind != Seal.Kind.CLOSE) {
      backoff.worked(); // nothing is unsealed: nothing is failing
      return;
    }
    try {
      Seal.Kind owed = chain.owed();
      if (owed != null) { // the file's first seal (or a start's) says what its bytes are; then the one asked for
        sealNow(owed, true);
        if (kind == Seal.Kind.INTERVAL || kind == owed) {
          return;
        }
      }
      sealNow(kind, true);
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
    assert ownedByCaller() : notOwned();
    if (chain.owed() != null) {
      sealNow(chain.owed(), true); // what the file's first seal (or a start's) owes comes first, or no rotation
    }
    // files older than the ones kept may be gone from now on, whatever becomes of this seal
    boolean raised = chain.raiseOldest(keptFiles);
    if (!chain.hasUnsealed() && chain.owed() == null && !raised) {
      return;
    }
    sealNow(Seal.Kind.ROTATE, true);
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
    assert ownedByCaller() : notOwned();
    long hashed = chain.hashedTo();
    long ours = owned < 0 ? size : Math.max(hashed, Math.min(size, owned));
    try {
      hashFromFile(auditPath, ours);
    } catch (IOException e) {
      if (size > ours) { // the found bytes can no longer be sealed apart from this run's: all of it as found
        LOG.error("nnaudit: {} holds {} bytes after what this NameNode wrote, written by something else while the "
            + "file was reopened; with this run's last bytes, which could not be hashed yet, they are recorded as "
            + "found (verify reports them as inserted)", auditPath, size - ours);
        chain.toHashFromFile(auditPath, size);
        chain.owe(Seal.Kind.FOUND);
      }
      throw e;
    }
    if (size <= ours) {
      return;
    }
    LOG.error("nnaudit: {} holds {} bytes after what this NameNode wrote, written by something else while the file "
        + "was reopened; they are recorded as found (verify reports them as inserted)", auditPath, size - ours);
    if (chain.hasUnsealed() || chain.owed() != null) {
      try {
        seal(Seal.Kind.INTERVAL); // this run's bytes (or an owed first seal) first
      } catch (IOException e) {
        // fail-closed: owed, with what follows
      }
    }
    if (chain.hasUnsealed() || chain.owed() != null) { // that seal failed: all of it is owed, as found
      chain.owe(Seal.Kind.FOUND);
      hashFromFile(auditPath, size);
      return;
    }
    sealFound(auditPath, ours, size);
  }

  /**
   * Writes the seal, with the crash tail the interval allows unless {@code tailAllowed} is false; counts and
   * logs a failure, and throws it (the caller decides what the policy does).
   */
  void sealNow(Seal.Kind kind, boolean tailAllowed) throws IOException {
    assert ownedByCaller() : notOwned();
    long now = wallClock.getAsLong();
    Seal s;
    try {
      if (chain.hasUnsealed()) {
        catchUp(); // what a read left to hash from the file
        throughInterrupts(fsync::force); // the bytes before the seal that vouches for them
      }
      // the segment is reset only once the seal is written: a failed seal leaves its bytes for the next one
      s = chain.draft(kind, now, tailAllowed ? intervalRecords : 0, tailAllowed ? TAIL_BYTES : 0).signedWith(key);
      Seal sealed = s;
      throughInterrupts(() -> digest.append(sealed.line()));
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw backoff.failed(now, e);
    }
    chain.sealed(s, now);
    sealsWritten++;
    backoff.worked();
    if (durable) {
      try {
        throughInterrupts(digest::force); // the seal is in the digest, and the chain goes on
      } catch (IOException e) {
        throw backoff.failed(now, e);
      }
    }
    chain.published(now);
  }

  /**
   * Hashes the file's bytes from where the chain accounts to, up to {@code to}, read from the file (what a start
   * or a reopen finds, or a new file holds). Read by read, taken again through interrupts; what a failure leaves
   * unhashed stays to be hashed, before the next seal.
   */
  void hashFromFile(Path auditPath, long to) throws IOException {
    assert ownedByCaller() : notOwned();
    chain.toHashFromFile(auditPath, to);
    catchUp();
  }

  /**
   * Hashes what is still to be hashed from the file, through interrupts: again while a try of
   * {@link #throughInterrupts} got some bytes through, so a long range goes on under interrupts as long as reads
   * get through between them.
   */
  private void catchUp() throws IOException {
    while (true) {
      long before = chain.hashedEnd();
      try {
        throughInterrupts(chain::catchUp);
        return;
      } catch (ClosedByInterruptException e) {
        if (chain.hashedEnd() == before) {
          throw e;
        }
      }
    }
  }

  /** A step of a seal on a channel, which an interrupt of the thread taking it closes under it. */
  @FunctionalInterface
  private interface ChannelStep {
    void run() throws IOException;
  }

  /**
   * Takes {@code step}, and again at once while an interrupt closes its channel under it, up to
   * {@link #INTERRUPTED_TRIES}, the interrupt cleared just before each try (the step opens what was closed) and
   * remembered in {@link #interruptCleared}, whatever the step's outcome; throws the last try's failure.
   */
  private void throughInterrupts(ChannelStep step) throws IOException {
    for (int tries = 1; ; tries++) {
      if (Thread.interrupted()) {
        interruptCleared = true;
      }
      try {
        step.run();
        return;
      } catch (ClosedByInterruptException e) {
        if (tries >= INTERRUPTED_TRIES) {
          throw e;
        }
      }
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
    assert ownedByCaller() : notOwned();
    closeDigest();
    // the new file's state first: whatever fails below, its bytes are never sealed as the old file's
    digest.moveTo(auditPath, opener);
    chain.nextFile(size);
    chain.toHashFromFile(auditPath, size); // before anything that may fail: a later seal hashes it
    fsync.open(auditPath);
    catchUp();
    seal(chain.owed());
  }

  /** Whether the latest seal tried failed, and none has worked since. Read by the writing thread. */
  boolean failing() {
    return backoff.failing();
  }

  /** Closes the digest (fsynced first unless durability is none) and the file; the sealer is done with them. */
  public void closeDigest() {
    assert ownedByCaller() : notOwned();
    fsync.close();
    digest.close();
  }

  /** Seals written since start-up. */
  public long sealsWritten() {
    return sealsWritten;
  }

  /** Seals that could not be written (signing or writing failed) since start-up. */
  public long sealFailures() {
    return backoff.failures();
  }

  /** When the latest seal of the chain was written (wall clock, ms), or 0 before the first. */
  public long lastSealMillis() {
    return chain.lastSealMillis();
  }

  /** The SHA-256 of the latest seal's line, hex, or empty before the first: anchor it off the host. */
  public String latestSealHash() {
    return chain.latestHash();
  }
}
