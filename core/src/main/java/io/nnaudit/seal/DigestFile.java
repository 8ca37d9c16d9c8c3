package io.nnaudit.seal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import io.nnaudit.trail.TrailNames;

/**
 * The digest file of an audit file: its seals, one per line, beside it as {@code <audit file>.seals}
 * ({@code hdfs-audit.log.seals}, {@code hdfs-audit.log.1.seals}; named by {@link TrailNames#digest}); rotation
 * renames it with its file. Stateless.
 */
public final class DigestFile {
  /** A seal line is a few hundred bytes; anything longer at the end of a digest is not one. */
  public static final int MAX_LINE = 8192;

  private DigestFile() {
  }

  /**
   * Removes a last line that has no newline (a seal half-written when the process was killed: it was never
   * complete, so nothing vouched for is lost), and returns the digest's size afterwards. A digest that ends in
   * more than a seal's length without a newline is not cut: that is not a seal cut short, and it stays as
   * evidence ({@link #lastCompleteSeal} reports it).
   */
  static long dropUnfinishedLine(Path path, FileChannel digest) throws IOException {
    long size = digest.size();
    if (size == 0) {
      return 0;
    }
    long end;
    try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      end = lastNewlineBefore(in, size);
    }
    if (end < 0 && size > MAX_LINE) {
      return size;
    }
    long keep = end < 0 ? 0 : end + 1;
    if (keep < size) {
      digest.truncate(keep);
    }
    return keep;
  }

  /** As {@link #lastCompleteSeal(FileChannel)}, reading the digest at {@code path}. */
  static Seal lastCompleteSeal(Path path) throws IOException {
    try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return lastCompleteSeal(in);
    }
  }

  /**
   * The last complete seal line of a digest (an unfinished line after it is passed over), or null when it has
   * none. Throws {@link IllegalArgumentException} when that line is not a seal.
   */
  public static Seal lastCompleteSeal(FileChannel digest) throws IOException {
    long size = digest.size();
    long lastNl = lastNewlineBefore(digest, size); // the newline ending the last complete line
    if (lastNl < 0) {
      if (size > MAX_LINE) {
        throw new IllegalArgumentException("the digest ends in " + MAX_LINE + " bytes or more without a newline");
      }
      return null;
    }
    long start = lastNewlineBefore(digest, lastNl) + 1;
    int len = (int) Math.min(MAX_LINE, lastNl - start);
    ByteBuffer b = ByteBuffer.allocate(len);
    while (b.hasRemaining() && digest.read(b, start + b.position()) > 0) {
      // read on
    }
    return Seal.parse(new String(b.array(), 0, b.position(), StandardCharsets.UTF_8));
  }

  /** The offset of the last newline before {@code end} (looking back at most MAX_LINE bytes), or -1. */
  private static long lastNewlineBefore(FileChannel ch, long end) throws IOException {
    long from = Math.max(0, end - MAX_LINE);
    ByteBuffer b = ByteBuffer.allocate((int) (end - from));
    while (b.hasRemaining() && ch.read(b, from + b.position()) > 0) {
      // read on
    }
    for (int i = b.position() - 1; i >= 0; i--) {
      if (b.get(i) == '\n') {
        return from + i;
      }
    }
    return -1;
  }
}
