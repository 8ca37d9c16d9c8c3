package io.nnaudit.trail;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The backups rotation leaves beside an audit file: {@code file.1} (the newest) to {@code file.N}. Shared by the
 * sink, which rotates them, and by a shipper, which reads them. Stateless.
 */
public final class RotatedFiles {
  /** Missing indices in a row after which no backup is looked for (rotation numbers them without gaps). */
  private static final int GAP_TOLERANCE = 8;

  private RotatedFiles() {
  }

  /** One backup there is: its index, its path and what lstat said of it. Immutable. */
  public static final class Backup {
    public final int index;
    public final Path path;
    public final PosixFileAttributes attributes;

    Backup(int index, Path path, PosixFileAttributes attributes) {
      this.index = index;
      this.path = path;
      this.attributes = attributes;
    }
  }

  /**
   * The backups there are, newest ({@code file.1}) first, up to index {@code bound}: looked for upwards,
   * stopping after {@link #GAP_TOLERANCE} missing indices in a row (a backup deleted by hand), so that a look
   * costs the files there are, not every index a large {@code nnaudit.file.max.backups} allows. Not followed
   * through links: a link is listed as what it is.
   */
  public static List<Backup> list(Path live, int bound) throws IOException {
    List<Backup> out = new ArrayList<>();
    for (int i = 1, last = 0; i <= bound && i - last <= GAP_TOLERANCE; i++) {
      Path p = TrailNames.backup(live, i);
      PosixFileAttributes a = Lstat.posix(p);
      if (a != null) { // else not there: look a little further
        out.add(new Backup(i, p, a));
        last = i;
      }
    }
    return out;
  }
}
