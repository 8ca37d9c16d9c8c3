package io.nnaudit.kafka;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.ClosedByInterruptException;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ship.SpoolGuard;

/**
 * Where the shipper starts, and the checkpoint it keeps ({@link ShipCheckpoint}): the acknowledged position,
 * the highest file number given and the gaps not yet acknowledged, written every
 * {@code nnaudit.kafka.checkpoint.interval.ms}, at each new file number (before any record carries it), at each
 * gap noted and at the stop. After each write it tells the {@link SpoolGuard} to keep every file from the
 * written position on, so that rotation never deletes what a restart would need; until a position with a file
 * has been written, the guard holds every file.
 *
 * <p>Design note. Used by the shipper's thread only (checked by {@code assert} in {@link #write}): the saved
 * position, the saved highest number, the head of the saved file and the time of the last write are its. It
 * blocks that thread on the disk (a write is fsynced, renamed, and the directory fsynced). No interrupt from
 * outside fails a write: the files are read and written through streams, which it does not close, and the
 * directory's fsync, which needs a channel, is made again at once ({@link #syncDirectory}). A write that
 * fails otherwise is warned about and tried again at the next occasion; the guard then keeps holding from the
 * last position written.
 */
final class Checkpointer {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class); // the shipper's one logger name
  /** The tries of the directory's fsync after a checkpoint's rename, when an interrupt from outside closes it. */
  private static final int INTERRUPTED_SYNC_TRIES = 10;

  private final Thread owner;
  private final ShipperSettings settings;
  private final SpoolDirectory dir;
  private final SpoolGuard guard;
  private final FileNumbers numbers;
  private final GapLedger gaps;
  private final Acknowledgements acks;
  private final ShipWarnings warnings;
  private final StopSignal stop;

  private long lastWriteMillis;
  /** The position of the last checkpoint written (the start position at first): the guard holds from here. */
  private ShipPosition saved;
  private long savedMaxFileSeq;
  private String headKey;
  private int headLength = -1;
  private String headHash;

  Checkpointer(Thread owner, ShipperSettings settings, SpoolDirectory dir, SpoolGuard guard, FileNumbers numbers,
      GapLedger gaps, Acknowledgements acks, ShipWarnings warnings, StopSignal stop) {
    this.owner = owner;
    this.settings = settings;
    this.dir = dir;
    this.guard = guard;
    this.numbers = numbers;
    this.gaps = gaps;
    this.acks = acks;
    this.warnings = warnings;
    this.stop = stop;
  }

  /**
   * Where the last run stopped, or the oldest file when there was none (see the README on a lost checkpoint).
   * A file that is gone or shorter than was shipped of it is announced by a gap (written with the checkpoint
   * of {@link #begin}).
   */
  ShipPosition startPosition(ShipCheckpoint cp) throws IOException {
    List<SpoolFile> files = dir.list();
    if (cp == null) {
      return files.isEmpty() ? new ShipPosition(0, null, 0, Long.MIN_VALUE)
          : new ShipPosition(0, files.get(0).key, 0, files.get(0).modifiedNanos);
    }
    int i = SpoolDirectory.indexOf(files, cp.position.fileKey);
    if (i >= 0) {
      SpoolFile f = files.get(i);
      try (InputStream in = new FileInputStream(f.path.toFile())) { // a stream: no interrupt closes it
        if (cp.sameHead(in)) {
          if (f.size >= cp.position.offset) {
            headKey = cp.position.fileKey;
            headLength = cp.headLength;
            headHash = cp.headHash;
            return cp.position;
          }
          gaps.noteLostFile("the audit file " + cp.position.fileSeq + " is shorter (" + f.size + " bytes) than was "
              + "shipped (" + cp.position.offset + " bytes): it was truncated; it is shipped again from its start as "
              + "file " + (cp.maxFileSeq + 1), cp.position);
          return numbers.renumber(cp.position, new ShipPosition(cp.maxFileSeq + 1, f.key, 0, f.modifiedNanos));
        }
      }
    }
    gaps.noteLostFile("the audit file " + cp.position.fileSeq + " (" + cp.position.fileKey + ") was gone at start-up "
        + "from byte " + cp.position.offset + " on; what it held past that byte was never shipped", cp.position);
    return numbers.renumber(cp.position, new ShipPosition(cp.maxFileSeq + 1, null, 0, cp.position.modifiedNanos));
  }

  /**
   * Starts from {@code start}, found by {@link #startPosition} from {@code cp}: restores the numbering and the
   * gaps, and writes the checkpoint (which records a renumbering at start-up, and sets the guard's hold).
   */
  void begin(ShipCheckpoint cp, ShipPosition start) {
    numbers.start(cp == null ? start.fileSeq : Math.max(cp.maxFileSeq, start.fileSeq));
    this.saved = cp == null ? start : cp.position;
    this.savedMaxFileSeq = cp == null ? -1 : cp.maxFileSeq;
    if (cp != null) { // the gaps the last run had not got acknowledged go first, as they were
      gaps.restore(cp.gaps);
    }
    write(start, System.currentTimeMillis(), false);
  }

  /** A gap was noted: written at once, with the acknowledged position (once there is one to write). */
  void gapNoted() {
    if (saved != null) {
      ShipPosition a = acks.acknowledged();
      write(a != null ? a : saved, System.currentTimeMillis(), true);
    }
  }

  /** The position at the start of {@code f}, numbered {@code seq}; a number above any before is written first. */
  ShipPosition newFile(long seq, SpoolFile f) {
    ShipPosition p = numbers.number(seq, f);
    if (numbers.max() > savedMaxFileSeq) {
      write(acks.acknowledged(), System.currentTimeMillis(), true); // before any record carries the number
    }
    return p;
  }

  /** Whether the acknowledged position {@code a} is due to be written: the interval passed, or a new file. */
  boolean due(ShipPosition a, long now) {
    return now - lastWriteMillis >= settings.checkpointIntervalMs
        || !String.valueOf(a.fileKey).equals(String.valueOf(saved.fileKey));
  }

  /**
   * Writes the acknowledged position {@code a} (when it moved, or {@code force}: a new file number; a position
   * without a file keeps the last one written, with the new number), then lets the guard release what is older.
   */
  void write(ShipPosition a, long now, boolean force) {
    assert Thread.currentThread() == owner;
    lastWriteMillis = now;
    ShipPosition p = a.fileKey != null ? a : saved;
    if (p.fileKey != null && (force || gaps.changed() || p.global() != saved.global()
        || numbers.max() != savedMaxFileSeq)) {
      try {
        if (refreshHead(p)) {
          new ShipCheckpoint(p, numbers.max(), headLength, headHash, now, gaps.pending()).save(settings.checkpoint,
              settings.source);
          syncDirectory();
          gaps.saved();
          if (!p.fileKey.equals(saved.fileKey)) {
            numbers.forgetFinished();
          }
          saved = p;
          savedMaxFileSeq = numbers.max();
        }
      } catch (IOException e) {
        warnings.warn("could not write the checkpoint " + settings.checkpoint + "; a restart would resend more", e);
      }
    }
    if (saved.fileKey == null) {
      guard.holdEveryFile();
    } else {
      guard.holdFrom(saved.fileKey, saved.offset);
    }
  }

  /**
   * Fsyncs the checkpoint's directory after its rename. The fsync needs a channel, which an interrupt from outside
   * closes: it is made again at once, the interrupt cleared just before, up to {@link #INTERRUPTED_SYNC_TRIES}
   * tries or until a stop's time is up. Past those, the checkpoint stands as written and renamed, visible to a
   * restart, and only a crash of the machine before the next write's fsync (or, after the stop's write, before the
   * kernel writes the directory back) could bring the one before back: a restart from it sends again what came
   * after it, with the same identities.
   */
  private void syncDirectory() {
    for (int tries = 1; ; tries++) {
      stop.clearStrayInterrupt();
      try {
        ShipCheckpoint.syncDirectory(settings.checkpoint);
        return;
      } catch (ClosedByInterruptException e) {
        if (!stop.mayTryAgain(tries, INTERRUPTED_SYNC_TRIES)) {
          LOG.debug("nnaudit: the fsync of the checkpoint's directory was interrupted {} times", tries, e);
          return;
        }
      }
    }
  }

  /** The file being read was truncated: its first bytes may differ now. */
  void forgetHead() {
    headKey = null;
  }

  /**
   * The hash of the acknowledged file's first bytes (up to {@link ShipCheckpoint#HEAD_BYTES}; the files only
   * grow, so they stay as hashed); false if the file is not to be found now.
   */
  private boolean refreshHead(ShipPosition a) throws IOException {
    if (a.fileKey.equals(headKey) && headLength >= ShipCheckpoint.HEAD_BYTES) {
      return true;
    }
    List<SpoolFile> files = dir.list();
    int i = SpoolDirectory.indexOf(files, a.fileKey);
    if (i < 0) {
      return false;
    }
    int want = (int) Math.min(ShipCheckpoint.HEAD_BYTES, files.get(i).size);
    if (a.fileKey.equals(headKey) && headLength >= want) {
      return true;
    }
    try (InputStream in = new FileInputStream(files.get(i).path.toFile())) { // a stream: no interrupt closes it
      headHash = FileHead.sha256(in, want);
    } catch (FileNotFoundException e) {
      if (OpenFailure.missing(files.get(i).path, e)) {
        return false; // gone since the listing
      }
      throw e;
    }
    headKey = a.fileKey;
    headLength = want;
    return true;
  }
}
