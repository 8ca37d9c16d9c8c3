package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.InterruptedRotation;

/**
 * At start-up, before the live file is opened: finishes a rotation that a kill or a power cut interrupted
 * ({@link InterruptedRotation}), so that no record is left under a temporary name, every backup has its index
 * and every digest is beside its file; the files the rotation had set aside to delete are deleted. Stateless;
 * called by the thread that opens the sink.
 */
final class StartupRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);

  private StartupRecovery() {
  }

  /**
   * Finishes what a rotation of {@code path} left; {@code dated}: the names of rotated files (null: numbered); {@code withDigests}: digests follow their files. Returns
   * whether it finished a rotation (the live file it was to begin is then begun by this start).
   */
  static boolean finishInterruptedRotation(Path path, DatedNames dated, boolean withDigests) throws IOException {
    InterruptedRotation left = InterruptedRotation.find(path, dated, withDigests);
    if (left.unexpected() != null) {
      LOG.error("nnaudit: {}; leaving them as they are", left.unexpected());
      return false;
    }
    for (InterruptedRotation.Rename r : left.renames()) {
      Files.move(r.from, r.to);
    }
    if (!left.renames().isEmpty()) {
      LOG.warn("nnaudit: finished a rotation of {} that was interrupted (the process was killed while rotating): "
          + "{}", path, left.renames());
    }
    for (Path e : left.expired()) {
      Files.deleteIfExists(e);
      LOG.info("nnaudit: deleted {}, which an interrupted rotation had set aside to delete", e.getFileName());
    }
    return !left.renames().isEmpty();
  }
}
