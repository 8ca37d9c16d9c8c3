package io.nnaudit.trail;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.TreeMap;
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
    public final FileStat attributes;

    Backup(int index, Path plain, boolean compressed, FileStat attributes) {
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
    return list(live, null, bound);
  }

  /**
   * The backups there are, newest first, up to the {@code bound}th: with {@code dated} null, numbered as
   * {@link #list(Path, int)} lists them; else the files {@code dated} names, by period and sequence, each given
   * its rank as its index ({@code 1} the newest), then any numbered files left from before the names changed,
   * as older ones. The directory is read once.
   */
  public static List<Backup> list(Path live, DatedNames dated, int bound) throws IOException {
    if (dated == null) {
      return numbered(live, bound);
    }
    String liveName = live.getFileName().toString();
    TreeMap<DatedNames.Place, List<Path>> byPlace = new TreeMap<>(Collections.reverseOrder());
    Path dir = live.toAbsolutePath().getParent();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        DatedNames.Place place = dated.place(liveName, TrailNames.uncompressed(name));
        if (place != null) {
          byPlace.computeIfAbsent(place, k -> new ArrayList<>()).add(live.resolveSibling(name));
        }
      }
    }
    List<Backup> out = new ArrayList<>();
    int index = 0;
    for (List<Path> names : byPlace.values()) {
      Collections.sort(names); // the plain name before its .gz
      Path lastPlain = null;
      for (Path p : names) {
        Path plain = TrailNames.uncompressed(p);
        if (!plain.equals(lastPlain)) {
          index++;
          lastPlain = plain;
        }
        if (index > bound) {
          return out;
        }
        FileStat a = Lstat.stat(p);
        if (a != null) {
          out.add(new Backup(index, plain, !p.equals(plain), a));
        }
      }
    }
    for (Backup b : numbered(live, bound - index)) { // left from before: older than every dated file
      out.add(new Backup(index + b.index, b.plain, b.compressed, b.attributes));
    }
    return out;
  }

  /**
   * The first of {@code backups} whose file is {@code key} ({@link Lstat#key}), compressed or plain as asked; null
   * when none is: a file found again by its key, wherever renames moved it.
   */
  public static Backup withKey(List<Backup> backups, String key, boolean compressed) {
    for (Backup b : backups) {
      if (b.compressed == compressed && Lstat.key(b.attributes).equals(key)) {
        return b;
      }
    }
    return null;
  }

  /**
   * Where {@code dated} puts the file being rotated, last written at {@code lastWrite}: its period's name with the
   * next sequence of that period, after every name of the period there (a file, its {@code .gz}, or a digest left
   * without its file, so that no name is given twice). Never before the newest dated file there: if the clock
   * went back (or the zone changed), the file continues the newest period, so that names keep the order files
   * were rotated in.
   */
  public static Path nextDated(Path live, DatedNames dated, long lastWrite) throws IOException {
    String liveName = live.getFileName().toString();
    // by the label read back, which the two files of an hour a daylight-saving change repeats share
    DatedNames.Place wanted = dated.place(liveName, dated.name(liveName, lastWrite, 1));
    List<DatedNames.Place> there = new ArrayList<>();
    DatedNames.Place newest = null;
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(live.toAbsolutePath().getParent())) {
      for (Path p : ds) {
        DatedNames.Place place = dated.place(liveName, TrailNames.memberOf(p.getFileName().toString()));
        if (place != null) {
          there.add(place);
          newest = newest == null || place.compareTo(newest) > 0 ? place : newest;
        }
      }
    }
    long period = newest != null && newest.periodStart > wanted.periodStart ? newest.periodStart
        : wanted.periodStart;
    int seq = 0;
    for (DatedNames.Place place : there) {
      if (place.periodStart == period) {
        seq = Math.max(seq, place.seq);
      }
    }
    return live.resolveSibling(dated.name(liveName, period == wanted.periodStart ? lastWrite : period, seq + 1));
  }

  /**
   * The numbered backups there are, up to index {@code bound}, stopping after {@link #GAP_TOLERANCE} missing
   * indices in a row. The directory is read once for the names there are, and only those are looked at: an lstat
   * of a missing name costs an exception, which with thousands of backups (each one's {@code .gz} missing) was
   * most of what a listing cost.
   */
  private static List<Backup> numbered(Path live, int bound) throws IOException {
    Set<Integer> plain = new HashSet<>();
    Set<Integer> compressed = new HashSet<>();
    Matcher m = TrailNames.numberedPattern(live).matcher("");
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(live.toAbsolutePath().getParent())) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        if (!TrailNames.isDigest(name) && m.reset(name).matches()) {
          int i = TrailNames.indexOf(m); // a name with leading zeros is not lstat'ed: the canonical one is
          if (i > 0 && i <= bound) {
            (TrailNames.isCompressed(name) ? compressed : plain).add(i);
          }
        }
      }
    }
    List<Backup> out = new ArrayList<>();
    for (int i = 1, last = 0; i <= bound && i - last <= GAP_TOLERANCE; i++) {
      Path p = TrailNames.backup(live, i);
      FileStat a = plain.contains(i) ? Lstat.stat(p) : null; // null too if renamed since the directory was read
      FileStat gz = compressed.contains(i) ? Lstat.stat(TrailNames.compressed(p)) : null;
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
