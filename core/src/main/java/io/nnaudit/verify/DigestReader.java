package io.nnaudit.verify;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import io.nnaudit.seal.DigestFile;
import io.nnaudit.seal.Seal;

/**
 * Reading the seals of a digest where verify needs one out of the walk's order: a digest's first seal, its last
 * complete one, the seals after a given one. Digests are read through {@link DigestLines} (constant memory) or
 * {@link DigestFile}, never followed through a link. Stateless.
 */
final class DigestReader {
  /** Later seals read when placing a change, at most: enough to find where the records shifted to. */
  private static final int MAX_LATER_SEALS = 10_000;

  private DigestReader() {
  }

  /**
   * The first seal of a digest, or with {@code withBytes} the first that covers bytes; null when there is none,
   * or a line that is not a seal comes first.
   */
  static Seal firstSeal(Path digest, boolean withBytes) throws IOException {
    if (digest == null || !Files.isRegularFile(digest, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    try (DigestLines lines = new DigestLines(digest)) {
      String line;
      while ((line = lines.next()) != null) {
        Seal s = Seal.parse(line);
        if (!withBytes || s.to > 0) {
          return s;
        }
      }
    } catch (IllegalArgumentException e) {
      return null;
    }
    return null;
  }

  /**
   * The last complete seal of a digest ({@link DigestFile#lastCompleteSeal}), or null.
   *
   * @throws IllegalArgumentException when the digest is damaged
   */
  static Seal lastSeal(Path digest) throws IOException {
    try (FileChannel ch = FileChannel.open(digest, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return DigestFile.lastCompleteSeal(ch);
    }
  }

  /**
   * The seals of digest {@code d} after {@code s} that parse and continue the ranges before them, in order,
   * stopping at the first that does not (a start's FOUND seal over the whole file as it found it starts again at
   * byte 0: the ranges sealed before are what tells where records shifted).
   */
  static List<Seal> laterSeals(Path d, Seal s) throws IOException {
    List<Seal> out = new ArrayList<>();
    long end = s.to;
    boolean after = false;
    String wanted = s.line();
    try (DigestLines lines = new DigestLines(d)) {
      String line;
      while ((line = lines.next()) != null && out.size() < MAX_LATER_SEALS) {
        if (after) {
          Seal next;
          try {
            next = Seal.parse(line);
          } catch (IllegalArgumentException e) {
            break;
          }
          if (next.from != end || next.kind == Seal.Kind.FOUND) { // FOUND: what a start found, not what was written
            break;
          }
          out.add(next);
          end = next.to;
        } else if (line.equals(wanted)) {
          after = true;
        }
      }
    }
    return out;
  }
}
