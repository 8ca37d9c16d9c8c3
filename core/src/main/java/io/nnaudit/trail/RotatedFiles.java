package io.nnaudit.trail;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The backups rotation leaves beside an audit file: {@code file.1} (the newest) to {@code file.N}, each plain or
 * compressed ({@code file.N.gz}, which keeps its index). Shared by the sink, which rotates and compresses them, and
 * by a shipper, which reads the plain ones. Stateless.
 */
public final class RotatedFiles {
  /** Missing indices in a row after which no backup is looked for (rotation numbers them without gaps). */
  private static final int GAP_TOLERANCE = 8;

  private RotatedFiles() {
  }

  /**
   * One backup there is: its index, its path, whether it is compressed, the plain name its digest follows
   * ({@code file.N} for {@code file.N.gz} too) and what lstat said of it. Immutable.
   */
  public static final class Backup {
    public final int index;
    public final Path path;
    /** Whether {@link #path} is a compressed file, {@code file.N.gz}. */
    public final boolean compressed;
    /** {@code file.N}: the path itself when plain; the name the digest ({@code file.N.seals}) follows. */
    public final Path plain;
    public final PosixFileAttributes attributes;

    Backup(int index, Path plain, boolean compressed, PosixFileAttributes attributes) {
      this.index = index;
      this.path = compressed ? TrailNames.compressed(plain) : plain;
      this.compressed = compressed;
      this.plain = plain;
      this.attributes = attributes;
    }

    /** The backup's digest, {@code file.N.seals}, whether the file is compressed or not. */
    public Path digest() {
      return TrailNames.digest(plain);
    }
  }

  /**
   * The backups there are, newest ({@code file.1}) first, up to index {@code bound}: looked for upwards,
   * stopping after {@link #GAP_TOLERANCE} missing indices in a row (a backup deleted by hand), so that a look
   * costs the files there are, not every index a large {@code nnaudit.file.max.backups} allows. Not followed
   * through links: a link is listed as what it is. At an index, the plain file comes before the compressed one;
   * both are there only for a moment of a compression that failed half-way (the next start keeps the compressed
   * one), and then both are listed.
   */
  public static List<Backup> list(Path live, int bound) throws IOException {
    List<Backup> out = new ArrayList<>();
    for (int i = 1, last = 0; i <= bound && i - last <= GAP_TOLERANCE; i++) {
      Path p = TrailNames.backup(live, i);
      PosixFileAttributes a = Lstat.posix(p);
      PosixFileAttributes gz = Lstat.posix(TrailNames.compressed(p));
      if (a != null) {
        out.add(new Backup(i, p, false, a));
      }
      if (gz != null) {
        out.add(new Backup(i, p, true, gz));
      }
      if (a != null || gz != null) { // else not there: look a little further
        last = i;
      }
    }
    return out;
  }
}
