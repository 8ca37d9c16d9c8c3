package io.nnaudit.kafka;

import java.nio.file.Path;

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
  /** The owner's user id; {@link #ANYONE} where it is not known. */
  final int uid;
  /** No user id: for a file only named, not looked at (no real file is owned by (uid_t) -1). */
  static final int ANYONE = -1;

  SpoolFile(Path path, String key, long size, long modifiedNanos, boolean live, int uid) {
    this.path = path;
    this.key = key;
    this.size = size;
    this.modifiedNanos = modifiedNanos;
    this.live = live;
    this.uid = uid;
  }

  @Override
  public String toString() {
    return path + " " + key + " " + size + " bytes";
  }
}
