package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.throttle.IntervalGate;

/**
 * Keeps the sink writing to the file at its path: if the file is renamed, deleted or replaced behind the sink's
 * back (logrotate, an operator), the change is noticed within a second and a new file is begun at the path;
 * if what is at the path then is refused, the sink keeps appending to the file it has open (the moved one),
 * logs an ERROR at most once a minute, counts the refusal ({@link #refusedReopens}), does not rotate, and looks
 * at the path again a second later. A channel closed under a write (an interrupt) is reopened here too.
 *
 * <p>Design note. Nothing blocks beyond the lstat and open(2) of a look, and the seal of a file moved away.
 * Every field belongs to the sink's writing thread; {@link #refusedReopens} is volatile, for the metrics, and
 * written by that thread only.
 */
final class ReplacedFileFollower {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);
  private static final long CHECK_INTERVAL_MS = 1000;
  /** While what is at the path is refused, the ERROR that says so is logged at most this often. */
  private static final long REFUSAL_LOG_INTERVAL_MS = 60_000;

  private final Path path;
  private final AuditFileOpener opener;
  private final LiveFile live;
  private final Sealing sealing;
  private final IntervalGate refusalLog = new IntervalGate(REFUSAL_LOG_INTERVAL_MS);
  private volatile long refusedReopens;

  ReplacedFileFollower(Path path, AuditFileOpener opener, LiveFile live, Sealing sealing) {
    this.path = path;
    this.opener = opener;
    this.live = live;
    this.sealing = sealing;
  }

  /** Looks at the path if a second has passed since the last look (or switch); see {@link #follow}. */
  void lookIfDue(long now) throws IOException {
    if (live.pathCheckDue(now, CHECK_INTERVAL_MS)) {
      follow(now);
    }
  }

  /**
   * If the path no longer holds the file we write, switches to a new file there, or, if what is there is
   * refused, keeps writing to the file we have open (wherever it was moved) and looks again a second later.
   */
  void follow(long now) throws IOException {
    live.pathChecked(now);
    if (live.holdsPath()) {
      live.stranded(false);
      return;
    }
    AuditFileOpener.OpenFile next;
    try {
      next = opener.open();
    } catch (IOException e) {
      refusedReopens++;
      live.stranded(true);
      if (refusalLog.tryOpen(now)) {
        LOG.error("nnaudit: {} was moved, deleted or replaced, and what is there now is not opened ({}). Records "
            + "keep going to the file that was there (lost if it was deleted), which is not rotated; the path is "
            + "looked at again every second ({} refusals since start-up)", path, AuditFileOpener.describe(e),
            refusedReopens);
      }
      return;
    }
    LOG.warn("nnaudit: {} was moved, deleted or replaced; continuing in a new file at that path", path);
    sealMovedAway(next);
    live.switchToNewFile(next, sealing);
  }

  /**
   * The channel was closed under a write or an fsync (an interrupt of the writing thread:
   * ClosedByInterruptException), or after a write that could not be undone: opens the file at the path again.
   * With sealing the sealing thread hashes what the same file holds beyond what it hashed; a different file
   * there (ours was moved meanwhile) is taken up as {@link #follow} does: our file's last seal, its digest set
   * aside, the new file's first seal.
   */
  void reopen() throws IOException {
    Object before = live.fileKey();
    AuditFileOpener.OpenFile next = opener.open();
    if (before != null && !Objects.equals(before, next.fileKey)) {
      sealMovedAway(next);
      live.switchToNewFile(next, sealing);
      return;
    }
    try {
      live.switchTo(next);
    } finally {
      if (live.writesTo(next)) { // switched, even if ending a partial line then failed
        // bytes not hashed: a partial write kept, or someone else's
        sealing.reopened(live.size(), live.ownedSize());
        live.forgetOwnedSize();
      }
    }
  }

  /** Seals the file moved away from the path; if that fails, {@code next} is closed (opened again next time). */
  private void sealMovedAway(AuditFileOpener.OpenFile next) throws IOException {
    try {
      sealing.movedAway();
    } catch (IOException e) {
      live.closeQuietly(next.channel);
      throw e;
    }
  }

  /**
   * Times the file was found moved or replaced and the sink did not switch to what was at the path (refused,
   * or it could not be opened); it is looked at again every second while that lasts.
   */
  long refusedReopens() {
    return refusedReopens;
  }
}
