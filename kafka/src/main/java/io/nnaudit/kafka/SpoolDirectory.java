package io.nnaudit.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The audit files a shipper reads, oldest first: {@code file.N}, ..., {@code file.1}, then the live {@code file}
 * (the rotation of {@code RollingFileSink}). Files are told apart by device and inode, which rotation's renames
 * keep, never by name, which every rotation changes. Only regular files are listed (no links). Used by the
 * shipper's thread only.
 */
final class SpoolDirectory {
  private final Path live;
  private final int maxBackups;

  SpoolDirectory(Path live, int maxBackups) {
    this.live = live;
    this.maxBackups = maxBackups;
  }

  Path live() {
    return live;
  }

  /** Missing indices in a row after which no backup is looked for (rotation numbers them without gaps). */
  private static final int GAP_TOLERANCE = 8;

  /**
   * The files there now, oldest first; the live file last, if it exists. Backups are looked for upwards from
   * {@code file.1}, up to {@link #GAP_TOLERANCE} missing indices in a row (one deleted by hand), so a look costs
   * the files there are, not every index a large {@code nnaudit.file.max.backups} allows.
   */
  List<SpoolFile> list() throws IOException {
    List<SpoolFile> out = new ArrayList<>();
    for (int i = 1, last = 0; i <= maxBackups && i - last <= GAP_TOLERANCE; i++) {
      SpoolFile f = look(live.resolveSibling(live.getFileName() + "." + i), false);
      if (f != null) {
        out.add(0, f);
        last = i;
      }
    }
    SpoolFile l = look(live, true);
    if (l != null) {
      out.add(l);
    }
    return out;
  }

  /** The live file now, or null if there is none. */
  SpoolFile liveFile() throws IOException {
    return look(live, true);
  }

  private static SpoolFile look(Path p, boolean isLive) throws IOException {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
    if (!a.isRegularFile()) {
      return null;
    }
    return new SpoolFile(p, String.valueOf(a.fileKey()), a.size(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS), isLive);
  }

  /** Index in {@code files} of the file {@code key}, or -1. */
  static int indexOf(List<SpoolFile> files, String key) {
    for (int i = 0; i < files.size(); i++) {
      if (files.get(i).key.equals(key)) {
        return i;
      }
    }
    return -1;
  }
}
