package io.nnaudit.kafka;

import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;

/** One audit file of the spool, as seen by one look at the directory: where it is, what it is, how long. */
final class SpoolFile {
  final Path path;
  /** Device and inode ({@code BasicFileAttributes#fileKey}): unchanged by the renames of rotation. */
  final String key;
  final long size;
  /** Last modification, in nanoseconds since the epoch. */
  final long modifiedNanos;
  /** Whether this is the live file, the one being written. */
  final boolean live;
  final UserPrincipal owner;

  SpoolFile(Path path, String key, long size, long modifiedNanos, boolean live, UserPrincipal owner) {
    this.path = path;
    this.key = key;
    this.size = size;
    this.modifiedNanos = modifiedNanos;
    this.live = live;
    this.owner = owner;
  }

  @Override
  public String toString() {
    return path + " " + key + " " + size + " bytes";
  }
}
