package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.UUID;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.trail.Lstat;

/**
 * Where a chain of seals stands: the trail, the live file's number in it, the oldest file it holds, the next
 * seal's number and the hash of the seal before; what of the live file is not yet sealed (a running
 * {@link SegmentDigest} from {@link #hashedFrom}); and the seal the file owes first, if any ({@link #owed}).
 * The next seal is drafted from it ({@link #draft}), and once written moves it on ({@link #sealed}).
 *
 * <p>What is hashed is always a prefix of what the chain accounts for: the bytes from {@link #hashedFrom} that
 * are in the segment, then a range still to be hashed from the file ({@link #unhashedTo}), if a read of the file
 * was cut short or failed. The segment is fed whole reads only, so a failure leaves it holding exactly the bytes
 * the file held up to where it stopped; {@link #catchUp} goes on from there, and bytes written meanwhile lengthen
 * the range, to be hashed from the file too (from the file, not the writer's copy: an edit of the file meanwhile
 * is sealed as if written; the range lasts until the next seal that works, a read failing at once). A seal is
 * drafted only once nothing is left to hash. A range the file can no longer give (moved, replaced, cut) is left
 * out of every seal, and the chain goes on after it: never a seal over bytes not hashed, nor a chain that stops.
 *
 * <p>Design note. Nothing blocks but reading the audit file in {@link #catchUp}. Every field belongs to the
 * thread that runs the {@link Sealer} (see there for the hand-over); {@link #owed} is volatile, read by the sink's
 * writing thread through {@link Sealer#startSealOwed}, and the latest seal's time and hash are volatile for the
 * metrics, each written by the owning thread only.
 */
final class SealChain {
  private static final Logger LOG = LoggerFactory.getLogger(Sealer.class);
  private final LongSupplier wallClock;
  private final LongSupplier nanoClock;
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
  /** The file {@link #unhashedTo} is in: the live audit file. */
  private Path unhashedFile;
  /** What was at {@link #unhashedFile} when the range began ({@link Lstat#key}); null if nothing was. */
  private String unhashedKey;
  /**
   * Where the range still to be hashed from {@link #unhashedFile} ends; at most {@link #hashedFrom} plus the
   * segment's bytes when nothing is left to hash.
   */
  private long unhashedTo;
  /** When the first byte not yet sealed was written (nanoTime); meaningless while segment is empty. */
  private long firstUnsealedNanos;
  /** The live file has no seal yet: the next one is its OPEN (or ADOPT, or a start's) seal, due at once. */
  private volatile Seal.Kind owed;
  private volatile long lastSealMillis;
  private volatile String latestHash = "";

  SealChain(LongSupplier wallClock, LongSupplier nanoClock) {
    this.wallClock = wallClock;
    this.nanoClock = nanoClock;
  }

  /** A new chain: a new trail, whose first file is 1. */
  void newChain() {
    trail = UUID.randomUUID().toString();
    fileNumber = 1;
    oldestFile = 1;
    nextSealNumber = 1;
    prev = Seal.GENESIS;
    sinceMillis = wallClock.getAsLong();
  }

  /** Goes on after {@code last}, in the file numbered {@code file}. */
  void continueAfter(Seal last, long file) {
    trail = last.trail;
    oldestFile = last.oldest;
    nextSealNumber = last.number + 1;
    prev = last.hash();
    sinceMillis = last.timeMillis;
    latestHash = prev;
    lastSealMillis = last.timeMillis;
    fileNumber = file;
  }

  /** The sink switched to a new file of {@code size} bytes: its first seal is owed (OPEN, or ADOPT if not empty). */
  void nextFile(long size) {
    fileNumber++;
    restartAt(0);
    owed = size > 0 ? Seal.Kind.ADOPT : Seal.Kind.OPEN;
  }

  /** Nothing is hashed: the bytes not yet sealed begin at {@code from}. */
  void restartAt(long from) {
    segment.reset();
    segmentStart = from;
    unhashedFile = null;
    unhashedKey = null;
    unhashedTo = from;
  }

  /**
   * The bytes of {@code file} from where the chain accounts to (the end of what is hashed, or of what is still to
   * be hashed) up to {@code to} are to be hashed from the file; {@link #catchUp} hashes them. The file is the one
   * at the path when the range begins (the sink has just opened it): its identity is taken then, and a range whose
   * identity cannot be taken is given up when it is caught up.
   */
  void toHashFromFile(Path file, long to) {
    if (to <= hashedTo()) {
      return;
    }
    boolean begins = !catchingUp();
    unhashedTo = to;
    if (begins) {
      unhashedFile = file;
      try {
        unhashedKey = Lstat.key(file);
      } catch (IOException e) {
        unhashedKey = null;
      }
    }
  }

  /**
   * Hashes from the file what is still to be hashed, read by whole read: when a read fails (an interrupt closing
   * the channel, an I/O error) the segment holds the bytes up to where it stopped, and a next call goes on from
   * there. A range the file can no longer give is given up ({@link #giveUp}): when the path holds something else
   * than the range's file (nothing, another file, a link or a FIFO: it is looked at before the open, so a FIFO is
   * not opened, and after it, or after an open that failed), or the file ends before the range does (it was cut).
   * As for the sink's own opens, a FIFO swapped in between the look and the open still blocks the open: the look
   * narrows that race to microseconds, Java cannot open without waiting.
   */
  void catchUp() throws IOException {
    long from = hashedEnd();
    if (from >= unhashedTo) {
      return;
    }
    if (segment.bytes() == 0) {
      firstUnsealedNanos = nanoClock.getAsLong();
    }
    if (!stillTheFile()) {
      giveUp(NOT_THE_FILE);
      return;
    }
    FileChannel opened;
    try {
      opened = FileChannel.open(unhashedFile, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      if (!stillTheFile()) { // swapped since the look (a link put there fails the open): not the file's error
        giveUp(NOT_THE_FILE);
        return;
      }
      throw e;
    }
    try (FileChannel in = opened) {
      if (!stillTheFile()) { // the open may have followed a swap since the look
        giveUp(NOT_THE_FILE);
        return;
      }
      long reached = segment.update(in, from, unhashedTo);
      if (reached < unhashedTo) {
        giveUp("ends at byte " + reached + " (it was cut)");
      }
    }
  }

  /** Why a range is given up when the path no longer holds its file ({@link #stillTheFile}). */
  private static final String NOT_THE_FILE =
      "holds another file than the one written, or none (it was moved or replaced)";

  /** Whether the path holds the range's file: a regular file, the one it held when the range began. */
  private boolean stillTheFile() throws IOException {
    BasicFileAttributes a = Lstat.basic(unhashedFile);
    return a != null && a.isRegularFile() && unhashedKey != null && unhashedKey.equals(Lstat.key(a));
  }

  /**
   * The range cannot be hashed: nothing of it is sealed, neither what was hashed of it nor the rest, and the chain
   * goes on from its end, where the writer's next bytes are. The next seal then does not continue the one before,
   * which verify reports, rather than a seal that covers bytes never hashed or a chain that stops sealing.
   */
  private void giveUp(String why) {
    LOG.error("nnaudit: {} {}: its bytes {} to {} cannot be hashed, and are left out of the seals (verify reports "
        + "the next seal as not continuing the one before)", unhashedFile, why, segmentStart, unhashedTo);
    restartAt(unhashedTo);
  }

  /** Whether bytes the chain accounts for are still to be hashed from the file. */
  boolean catchingUp() {
    return unhashedTo > hashedEnd();
  }

  /** Where the bytes in the segment end. */
  long hashedEnd() {
    return segmentStart + segment.bytes();
  }

  /**
   * After a write: {@code written}'s remaining bytes are in the file now, its records ending at {@code ends}
   * (null: not known). Does not move its position. While a range is still to be hashed from the file, they
   * lengthen it: the segment takes bytes in the file's order.
   */
  void written(ByteBuffer written, int[] ends) {
    if (catchingUp()) {
      unhashedTo += written.remaining();
      return;
    }
    if (segment.bytes() == 0) {
      firstUnsealedNanos = nanoClock.getAsLong();
    }
    segment.update(written, ends);
    unhashedTo = segmentStart + segment.bytes();
  }

  /** Whether a seal is due at {@code nanoNow}: one is owed, or the interval in records or time is reached. */
  boolean due(long nanoNow, long intervalRecords, long intervalNanos) {
    return owed != null || catchingUp() || (segment.bytes() > 0 && (segment.records() >= intervalRecords
        || nanoNow - firstUnsealedNanos >= intervalNanos));
  }

  /** Whether the file holds bytes not yet sealed. */
  boolean hasUnsealed() {
    return segment.bytes() > 0 || catchingUp();
  }

  /** Records not yet sealed. */
  long unsealedRecords() {
    return segment.records();
  }

  /** Where the bytes not yet sealed begin. */
  long hashedFrom() {
    return segmentStart;
  }

  /** Where the bytes the chain accounts for end: those hashed, then those still to be hashed from the file. */
  long hashedTo() {
    return Math.max(segmentStart + segment.bytes(), unhashedTo);
  }

  /** The seal the file owes first (its OPEN or ADOPT, or a start's), or null. */
  Seal.Kind owed() {
    return owed;
  }

  void owe(Seal.Kind kind) {
    owed = kind;
  }

  /**
   * Raises the oldest file to the oldest of {@code keptFiles} files up to the live one (0: none is deleted);
   * returns whether it rose.
   */
  boolean raiseOldest(int keptFiles) {
    long oldest = keptFiles > 0 ? Math.max(oldestFile, fileNumber - keptFiles + 1) : oldestFile;
    boolean raised = oldest != oldestFile;
    oldestFile = oldest;
    return raised;
  }

  /** The next seal, unsigned, over what is not yet sealed, allowing a crash tail as given. */
  Seal draft(Seal.Kind kind, long nowMillis, long tailRecords, long tailBytes) {
    if (catchingUp()) {
      throw new IllegalStateException("bytes up to " + unhashedTo + " are still to be hashed");
    }
    return Seal.unsigned(trail, fileNumber, oldestFile, nextSealNumber, kind, segmentStart,
        segmentStart + segment.bytes(), segment.records(), segment.lineSum(), segment.lastLineHash(),
        segment.peekSha256(), sinceMillis, nowMillis, tailRecords, tailBytes, prev);
  }

  /** {@code s} is in the digest: the chain goes on from it, and nothing is owed. */
  void sealed(Seal s, long nowMillis) {
    restartAt(s.to);
    prev = s.hash();
    sinceMillis = nowMillis;
    nextSealNumber++;
    owed = null;
  }

  /**
   * The latest seal is on disk: the metrics may name it (an anchor taken from it must not name a seal a power
   * cut loses). The time first, so that a reader who sees this hash sees its time or a later one.
   */
  void published(long nowMillis) {
    lastSealMillis = nowMillis;
    latestHash = prev;
  }

  /** When the latest seal of the chain was written (wall clock, ms), or 0 before the first. */
  long lastSealMillis() {
    return lastSealMillis;
  }

  /** The SHA-256 of the latest seal's line, hex, or empty before the first. */
  String latestHash() {
    return latestHash;
  }
}
