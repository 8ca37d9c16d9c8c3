package io.nnaudit.ship;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the audit file's rotation must keep for a shipper: the rotated files it has not finished. The local
 * audit file is the shipper's spool, so a rotation that would delete a backup the shipper still needs keeps
 * it instead, beyond {@code nnaudit.file.max.backups}, up to {@code nnaudit.kafka.spool.max.backups} rotated
 * files in all. Past that bound retention wins: the file is deleted and the loss is counted here, for the
 * shipper to report (metric, WARN, and a gap record in the stream).
 *
 * <p>Design note. Thread-safe; nothing blocks. The shipper's thread sets the oldest file it has not finished
 * ({@link #holdFrom}); the sink's writing thread reads it when it rotates and counts what it had to delete
 * ({@link #countLoss}); the metrics read the counts. Until the shipper has read its checkpoint, every file is
 * held, so that a rotation in the first moments after start-up cannot delete what the last run left unshipped.
 * Files are named by the text of their {@code BasicFileAttributes#fileKey} (device and inode), which a
 * rotation's renames do not change and a checkpoint can keep.
 */
public final class SpoolGuard {
  /** The held-file value before the shipper has said which file it needs: hold them all. */
  private static final Object EVERY_FILE = new Object();

  private final int maxHeldBackups;
  /** The shipper's thread writes; the sink's writing thread reads. */
  private volatile Object heldKey = EVERY_FILE;
  /** Bytes of {@link #heldKey} already shipped; written with it. */
  private volatile long heldOffset;
  /** Written by the sink's writing thread; read by the shipper and the metrics. */
  private final AtomicLong lostFiles = new AtomicLong();
  private final AtomicLong lostBytes = new AtomicLong();
  private final AtomicLong lostRecords = new AtomicLong();

  /** @param maxHeldBackups rotated files kept at most, shipped or not ({@code nnaudit.kafka.spool.max.backups}) */
  public SpoolGuard(int maxHeldBackups) {
    this.maxHeldBackups = maxHeldBackups;
  }

  /**
   * The shipper needs the file {@code fileKey} from {@code shippedOffset} on, and every newer file; older files
   * may go. Null: it needs nothing (it has stopped and left its checkpoint).
   */
  public void holdFrom(Object fileKey, long shippedOffset) {
    heldOffset = shippedOffset;
    heldKey = fileKey == null ? null : fileKey.toString();
  }

  /** Whether every file is held (the shipper has not yet said which it needs). */
  public boolean holdsEveryFile() {
    return heldKey == EVERY_FILE;
  }

  /** The oldest file the shipper needs, or null for none; meaningless while {@link #holdsEveryFile}. */
  public String heldFileKey() {
    Object k = heldKey;
    return k == EVERY_FILE ? null : (String) k;
  }

  /** The bytes of {@code fileKey} the shipper has shipped, if it is the held file; else 0. */
  public long shippedBytesOf(Object fileKey) {
    Object k = heldKey;
    long offset = heldOffset;
    return fileKey != null && fileKey.toString().equals(k) ? offset : 0;
  }

  /** Rotated files kept at most while the shipper needs them. */
  public int maxHeldBackups() {
    return maxHeldBackups;
  }

  /**
   * The sink deleted a file the shipper had not finished: {@code bytes} of it, holding {@code records} records,
   * were never shipped.
   */
  public void countLoss(long bytes, long records) {
    lostFiles.incrementAndGet();
    lostBytes.addAndGet(Math.max(0, bytes));
    lostRecords.addAndGet(Math.max(0, records));
  }

  /** Unshipped records deleted by retention since start-up. */
  public long lostRecords() {
    return lostRecords.get();
  }

  /** Unshipped files deleted by retention since start-up. */
  public long lostFiles() {
    return lostFiles.get();
  }

  /** Unshipped bytes deleted by retention since start-up. */
  public long lostBytes() {
    return lostBytes.get();
  }
}
