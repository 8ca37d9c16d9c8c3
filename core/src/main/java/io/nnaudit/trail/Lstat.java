package io.nnaudit.trail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What lstat(2) says of a trail's file: the path itself, never a link's target; null when nothing is there. A
 * file is known by its device and inode ({@code BasicFileAttributes#fileKey}), which rotation's renames keep;
 * {@link #key} is the text of it that the shipper, its checkpoint and the spool guard name a file by. Shared by
 * the file sink, which opens and rotates the files, and the shipper, which follows them. Stateless.
 */
public final class Lstat {
  private Lstat() {
  }

  /** The attributes of {@code p} itself; null if nothing is there. */
  public static BasicFileAttributes basic(Path p) throws IOException {
    return of(p, BasicFileAttributes.class);
  }

  /** The attributes of {@code p} itself with its owner's user id ({@link FileStat}); null if nothing is there. */
  public static FileStat stat(Path p) throws IOException {
    try {
      return new FileStat(Files.readAttributes(p, FileStat.ATTRIBUTES, LinkOption.NOFOLLOW_LINKS));
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** The key (device and inode, as text) of what is at {@code p} now; null if nothing is. */
  public static String key(Path p) throws IOException {
    BasicFileAttributes a = basic(p);
    return a == null ? null : key(a);
  }

  /** The key (device and inode, as text) of the file {@code a} describes. */
  public static String key(BasicFileAttributes a) {
    return String.valueOf(a.fileKey());
  }

  private static <A extends BasicFileAttributes> A of(Path p, Class<A> type) throws IOException {
    try {
      return Files.readAttributes(p, type, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
