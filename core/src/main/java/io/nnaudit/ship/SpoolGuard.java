package io.nnaudit.ship;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the audit file's rotation must keep for a shipper: the rotated files it has not finished. The local
 * audit file is the shipper's spool, so a rotation that would delete a backup the shipper still needs keeps
 * it instead, beyond {@code nnaudit.file.max.backups}, up to {@code nnaudit.kafka.spool.max.backups} rotated
 * files in all. Past that bound retention wins: the file is deleted and the loss is counted here, for the
 * shipper to report (metric, WARN, and a gap record in the stream).
 *
 * <p>Design note. Thread-safe; nothing blocks. The shipper's thread says which file it needs from
 * ({@link #holdFrom}, {@link #holdEveryFile}), the file's key and the bytes of it shipped set together as one
 * immutable {@link Hold} in one volatile field; the sink's writing thread reads that pair once per rotation
 * ({@link #held}), so it never pairs a key with another file's offset, and it counts what
 * it had to delete ({@link #countLoss}) and brackets each rotation ({@link #rotationStarting},
 * {@link #rotationDone}) so that the shipper can tell a listing of the files taken in the middle of one from a
 * whole one ({@link #rotationMark}); the metrics read the counts. Until the shipper has said which file it
 * needs, and whenever it does not know (the file it was in is gone), every file is held, so that a rotation
 * cannot delete what it has not shipped. Files are named by the text of their
 * {@code BasicFileAttributes#fileKey} (device and inode), which a rotation's renames do not change and a
 * checkpoint can keep.
 */
public final class SpoolGuard {
  private final int maxHeldBackups;
  /** The shipper's thread writes; the sink's writing thread reads: key and offset always as one pair. */
  private volatile Hold held = Hold.EVERY_FILE;
  /** Written by the sink's writing thread (and by the shipper when it forgives); read by anyone. */
  private final AtomicLong lostFiles = new AtomicLong();
  private final AtomicLong lostBytes = new AtomicLong();
  /** Losses the shipper has not yet looked at: the sink adds, the shipper takes. */
  private final ConcurrentLinkedQueue<Loss> unseenLosses = new ConcurrentLinkedQueue<>();
  /** Odd while a rotation renames files; the sink's writing thread increments it. */
  private final AtomicLong rotations = new AtomicLong();

  /** @param maxHeldBackups rotated files kept at most, shipped or not ({@code nnaudit.kafka.spool.max.backups}) */
  public SpoolGuard(int maxHeldBackups) {
    this.maxHeldBackups = maxHeldBackups;
  }

  /** One file deleted before it was shipped. Immutable. */
  public static final class Loss {
    public final String fileKey;
    public final long bytes;
    public final long records;

    Loss(String fileKey, long bytes, long records) {
      this.fileKey = fileKey;
      this.bytes = bytes;
      this.records = records;
    }
  }

  /**
   * What the shipper holds: the oldest file it needs and the bytes of it already shipped, taken together, so
   * that an offset is never read with another file's key. Immutable.
   */
  public static final class Hold {
    /** Holds every file: the shipper has not said which it needs, or does not know. */
    static final Hold EVERY_FILE = new Hold(null, 0);
    /** Holds nothing: no shipper runs. */
    static final Hold NO_FILE = new Hold(null, 0);

    private final String fileKey;
    private final long shippedOffset;

    private Hold(String fileKey, long shippedOffset) {
      this.fileKey = fileKey;
      this.shippedOffset = shippedOffset;
    }

    /** Whether every file is held. */
    public boolean everyFile() {
      return this == EVERY_FILE;
    }

    /** The oldest file the shipper needs, or null when it holds every file or none. */
    public String fileKey() {
      return fileKey;
    }

    /** The bytes of {@code key} the shipper has shipped, if it is the held file; else 0. */
    public long shippedBytesOf(Object key) {
      return key != null && fileKey != null && key.toString().equals(fileKey) ? shippedOffset : 0;
    }
  }

  /** The shipper needs the file {@code fileKey} from {@code shippedOffset} on, and every newer file. */
  public void holdFrom(String fileKey, long shippedOffset) {
    held = fileKey == null ? Hold.EVERY_FILE : new Hold(fileKey, shippedOffset);
  }

  /** The shipper does not know which file it needs (the one it was in is gone): hold them all. */
  public void holdEveryFile() {
    held = Hold.EVERY_FILE;
  }

  /** No shipper runs (it could not be made): rotation keeps what nnaudit.file.max.backups says. */
  public void release() {
    held = Hold.NO_FILE;
  }

  /** What the shipper holds now: one read, whose key and offset belong together. */
  public Hold held() {
    return held;
  }

  /** Rotated files kept at most while the shipper needs them. */
  public int maxHeldBackups() {
    return maxHeldBackups;
  }

  /**
   * The sink deleted the file {@code fileKey} before the shipper had finished it: {@code bytes} of it, holding
   * {@code records} records, were not shipped.
   */
  public void countLoss(Object fileKey, long bytes, long records) {
    lostFiles.incrementAndGet();
    lostBytes.addAndGet(Math.max(0, bytes));
    unseenLosses.add(new Loss(String.valueOf(fileKey), Math.max(0, bytes), Math.max(0, records)));
  }

  /** The next loss the shipper has not looked at, or null. */
  public Loss nextUnseenLoss() {
    return unseenLosses.poll();
  }

  /**
   * The shipper had the deleted file open and ships it whole after all: the loss is taken back out of the
   * counts.
   */
  public void forgive(Loss loss) {
    lostFiles.decrementAndGet();
    lostBytes.addAndGet(-loss.bytes);
  }

  /** Unshipped files deleted by retention since start-up. */
  public long lostFiles() {
    return lostFiles.get();
  }

  /** Unshipped bytes deleted by retention since start-up. */
  public long lostBytes() {
    return lostBytes.get();
  }

  /** The sink is about to rename files. */
  public void rotationStarting() {
    rotations.incrementAndGet();
  }

  /** The sink has finished renaming (whether the rotation worked or was undone). */
  public void rotationDone() {
    rotations.incrementAndGet();
  }

  /**
   * A mark to take before and after listing the files: odd while a rotation renames them; a listing taken
   * between two equal even marks saw no rename.
   */
  public long rotationMark() {
    return rotations.get();
  }
}
