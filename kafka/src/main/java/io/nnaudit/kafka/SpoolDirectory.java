package io.nnaudit.kafka;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
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

  /**
   * The files there now, oldest first; the live file last, if it exists. One read of the directory finds the
   * backups' numbers, so a look costs what the directory holds, not {@code maxBackups}: the shipper looks at least
   * once a poll, and probing every allowed name (10,000 is a valid bound) cost ~50 ms a look.
   */
  List<SpoolFile> list() throws IOException {
    List<SpoolFile> out = new ArrayList<>();
    List<Integer> numbers = backupNumbers();
    int highest = numbers.isEmpty() ? 0 : numbers.get(0);
    if (highest < maxBackups) {
      numbers.add(0, highest + 1); // a rotation between the read and the looks moved the oldest up by one
    }
    for (int i : numbers) {
      SpoolFile f = look(live.resolveSibling(live.getFileName() + "." + i), false);
      if (f != null) {
        out.add(f);
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

  /** The N of every {@code <live>.N} in the directory (1 to maxBackups, no leading zero), highest first. */
  private List<Integer> backupNumbers() throws IOException {
    String prefix = live.getFileName() + ".";
    List<Integer> numbers = new ArrayList<>();
    Path parent = live.toAbsolutePath().getParent();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent,
        p -> p.getFileName().toString().startsWith(prefix))) {
      for (Path p : entries) {
        String suffix = p.getFileName().toString().substring(prefix.length());
        if (isBackupNumber(suffix)) {
          int n = Integer.parseInt(suffix);
          if (n <= maxBackups) {
            numbers.add(n);
          }
        }
      }
    } catch (NoSuchFileException e) {
      return numbers;
    }
    numbers.sort(Collections.reverseOrder());
    return numbers;
  }

  private static boolean isBackupNumber(String s) {
    if (s.isEmpty() || s.length() > 9 || s.charAt(0) == '0') {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
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
