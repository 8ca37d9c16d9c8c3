package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.trail.TrailNames;

/**
 * The renames of one rotation, so that they can be undone in reverse when a later step fails. Every rename
 * replaces nothing. Used by the sink's writing thread, one rotation at a time.
 */
final class RotationRenames {
  private static final Logger LOG = LoggerFactory.getLogger(RollingFileSink.class);

  /** The live file, for the log. */
  private final Path path;
  private final Deque<Path[]> done = new ArrayDeque<>();

  RotationRenames(Path path) {
    this.path = path;
  }

  /** Renames; fails if {@code to} exists rather than replace it. */
  void move(Path from, Path to) throws IOException {
    Files.move(from, to);
    done.push(new Path[] {from, to});
  }

  /**
   * Renames the digest of {@code from} to that of {@code to} if it exists; one already at the
   * target without its file, plain or compressed (left by hand or by a crash), is renamed aside first, kept as
   * evidence. Returns whether a digest was moved.
   */
  boolean moveDigest(Path from, Path to) throws IOException {
    if (!Files.exists(TrailNames.digest(from), LinkOption.NOFOLLOW_LINKS)) { // with sealing off too: kept paired
      return false;
    }
    Path target = TrailNames.digest(to);
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !Files.exists(to, LinkOption.NOFOLLOW_LINKS)
        && !Files.exists(TrailNames.compressed(to), LinkOption.NOFOLLOW_LINKS)) {
      move(target, TrailNames.orphan(target, System.currentTimeMillis()));
    }
    move(TrailNames.digest(from), target);
    return true;
  }

  /** Undoes every rename so far, the latest first; a rename that cannot be undone is added to {@code cause}. */
  void undo(Exception cause) {
    while (!done.isEmpty()) {
      Path[] step = done.pop();
      try {
        Files.move(step[1], step[0]);
      } catch (IOException e) {
        cause.addSuppressed(e);
        LOG.error("nnaudit: a failed rotation of {} could not be undone: {} is still named {} (no file was "
            + "deleted)", path, step[0], step[1], e);
      }
    }
  }
}
