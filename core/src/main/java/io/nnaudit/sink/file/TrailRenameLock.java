package io.nnaudit.sink.file;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Keeps the renames of a rotation and of a compression's commit apart: a rotation plans which file has which
 * index and then renames them, and a compression gives a rotated file its {@code .gz} name; neither may rename a
 * file while the other is between its look and its renames.
 *
 * <p>Design note. What blocks: the compressor's thread waits for the lock as long as a rotation holds it (a
 * rotation waits for its last seal while it holds it). The sink's writing thread, which may be a handler holding
 * the pipeline's write lock, waits at most {@link #ROTATION_WAIT_MS}: a commit holds the lock for a listing and
 * a rename, or a listing and a delete (its directory fsyncs are made without it), and if that takes longer the rotation is left to a write a second later
 * (nothing is dropped; the live file grows a little past its size meanwhile). The lock belongs to whichever of the two
 * threads holds it; nothing else is kept.
 */
final class TrailRenameLock {
  /** The longest a rotation waits for a compression to finish naming its file. */
  static final long ROTATION_WAIT_MS = 1000;

  private final ReentrantLock lock = new ReentrantLock();

  /**
   * For a rotation, on the sink's writing thread: false when a compression held the names longer than
   * {@link #ROTATION_WAIT_MS}, or the thread was interrupted (the interrupt is kept). Never throws.
   */
  boolean lockForRotation() {
    try {
      return lock.tryLock(ROTATION_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** For a compression's commit, on the compressor's thread: waits until no rotation holds the names. */
  void lockForCommit() throws InterruptedException {
    lock.lockInterruptibly();
  }

  void unlock() {
    lock.unlock();
  }
}
