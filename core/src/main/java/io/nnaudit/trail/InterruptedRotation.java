package io.nnaudit.trail;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;


/**
 * What a rotation of an audit file left when a kill (or a power cut) interrupted it, and the renames that
 * finish it. The file sink does these renames at start-up; {@code nnaudit verify} reads the files as if they
 * had been done, so that a trail is judged by its seals, not by where a kill stopped a rotation. Immutable.
 *
 * <p>A rotation is a sequence of renames, each digest just after its file: the live file to
 * {@code file.rotating-T}; the backups that expire to {@code file.N.expired-T} ({@code file.N.gz.expired-T} when
 * compressed); each other backup up by one, from the highest down ({@code file.N.gz} to {@code file.N+1.gz}: a
 * compressed backup is the member at its index, and its digest keeps the plain name, {@code file.N.seals});
 * {@code file.rotating-T} to {@code file.1}; then a new live file is created. A kill leaves
 * the files as after some first steps of it, and the rest is found from what is there:
 * <ul>
 * <li>with {@code file.rotating-T} there and no live file: its digest is moved beside it if it is still at the
 * live file's name; the backups below the lowest missing index, which had not moved yet, move up by one (a
 * digest left at that index goes up to the file that moved before it, or, when that file has its own, is
 * renamed aside as an orphan); then {@code file.rotating-T} becomes {@code file.1};</li>
 * <li>a digest {@code file.rotating-T.seals} without its file (the file was renamed, its digest not yet) goes to
 * {@code file.1}, when that has none;</li>
 * <li>the {@code file.N.expired-T} files and digests, which the rotation had set aside to delete, are to be
 * deleted.</li>
 * </ul>
 * Anything else (two rotations' files, a live file beside {@code file.rotating-T}) is not what a rotation
 * leaves: nothing is renamed, and {@link #unexpected} says what was found.
 */
public final class InterruptedRotation {
  /** One rename of the plan. */
  public static final class Rename {
    public final Path from;
    public final Path to;

    Rename(Path from, Path to) {
      this.from = from;
      this.to = to;
    }

    @Override
    public String toString() {
      return from.getFileName() + " -> " + to.getFileName();
    }
  }

  private final List<Rename> renames;
  private final List<Path> expired;
  private final String unexpected;

  private InterruptedRotation(List<Rename> renames, List<Path> expired, String unexpected) {
    this.renames = Collections.unmodifiableList(renames);
    this.expired = Collections.unmodifiableList(expired);
    this.unexpected = unexpected;
  }

  /**
   * Looks beside {@code live} for what an interrupted rotation left. {@code withDigests}: whether digests
   * follow their files (sealing is on); a verifier always says true.
   */
  public static InterruptedRotation find(Path live, boolean withDigests) throws IOException {
    return find(live, null, withDigests);
  }

  /**
   * As {@link #find(Path, boolean)}, for rotated files named by {@code dated} (null: numbered). Dated files keep
   * their names, so nothing shifts: {@code file.rotating-T} takes the next name of the period of its last record
   * ({@link RotatedFiles#nextDated}), and a digest left at {@code file.rotating-T.seals} goes to the newest
   * rotated file when that has none.
   */
  public static InterruptedRotation find(Path live, DatedNames dated, boolean withDigests) throws IOException {
    Path dir = live.toAbsolutePath().getParent();
    live = dir.resolve(live.getFileName());
    String base = live.getFileName().toString();
    Pattern stagedName = TrailNames.stagedPattern(base);
    Pattern expiredName = TrailNames.expiredPattern(base);
    List<Path> staged = new ArrayList<>();
    List<Path> stagedDigests = new ArrayList<>();
    List<Path> expired = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        boolean digest = name.endsWith(TrailNames.DIGEST_SUFFIX);
        String n = digest ? name.substring(0, name.length() - TrailNames.DIGEST_SUFFIX.length()) : name;
        if (stagedName.matcher(n).matches()) {
          (digest ? stagedDigests : staged).add(dir.resolve(name));
        } else if (expiredName.matcher(n).matches()) {
          expired.add(dir.resolve(name));
        }
      }
    }
    Collections.sort(expired);
    List<Rename> renames = new ArrayList<>();
    if (staged.size() > 1 || (staged.size() == 1 && exists(live))) {
      return new InterruptedRotation(renames, expired, "found " + staged + " beside " + live + ", which no "
          + "interrupted rotation leaves");
    }
    Names names = new Names();
    if (staged.size() == 1) {
      Path s = staged.get(0);
      if (withDigests && !names.exists(TrailNames.digest(s)) && names.exists(TrailNames.digest(live))) {
        names.move(TrailNames.digest(live), TrailNames.digest(s), renames);
      }
      if (dated != null) {
        expired.addAll(digestsLeftByExpiry(expired, names));
        Path target = RotatedFiles.nextDated(live, dated,
            Files.getLastModifiedTime(s, LinkOption.NOFOLLOW_LINKS).toMillis());
        names.move(s, target, renames);
        if (withDigests && names.exists(TrailNames.digest(s))) {
          names.move(TrailNames.digest(s), TrailNames.digest(target), renames);
        }
        return new InterruptedRotation(renames, expired, null);
      }
      int hole = 1;
      while (names.memberAt(live, hole)) {
        hole++;
      }
      Path leftDigest = TrailNames.digest(TrailNames.backup(live, hole));
      if (withDigests && names.exists(leftDigest)) {
        Path above = TrailNames.backup(live, hole + 1);
        names.move(leftDigest, names.memberAt(live, hole + 1) && !names.exists(TrailNames.digest(above))
            ? TrailNames.digest(above) : TrailNames.orphan(leftDigest, System.currentTimeMillis()), renames);
      }
      for (int i = hole - 1; i >= 1; i--) {
        names.moveIfThere(TrailNames.backup(live, i), TrailNames.backup(live, i + 1), renames);
        names.moveIfThere(TrailNames.compressed(TrailNames.backup(live, i)),
            TrailNames.compressed(TrailNames.backup(live, i + 1)), renames);
        if (withDigests && names.exists(TrailNames.digest(TrailNames.backup(live, i)))) {
          names.move(TrailNames.digest(TrailNames.backup(live, i)), TrailNames.digest(TrailNames.backup(live, i + 1)),
              renames);
        }
      }
      names.move(s, TrailNames.backup(live, 1), renames);
      if (withDigests && names.exists(TrailNames.digest(s))) {
        names.move(TrailNames.digest(s), TrailNames.digest(TrailNames.backup(live, 1)), renames);
      }
    }
    for (Path d : stagedDigests) {
      Path first = TrailNames.backup(live, 1);
      if (dated != null) {
        List<RotatedFiles.Backup> newest = RotatedFiles.list(live, dated, 1);
        first = newest.isEmpty() ? first : newest.get(0).plain;
        if (withDigests && names.exists(d) && !names.exists(TrailNames.digest(first))
            && (names.exists(first) || names.exists(TrailNames.compressed(first)))) {
          names.move(d, TrailNames.digest(first), renames);
        }
        continue;
      }
      if (withDigests && names.exists(d) && names.exists(first) && !names.exists(TrailNames.digest(first))) {
        names.move(d, TrailNames.digest(first), renames);
      }
    }
    return new InterruptedRotation(renames, expired, null);
  }

  /**
   * The digests of dated files a kill left behind them: the file was moved aside to expire ({@code X.expired-T},
   * or its {@code .gz}), its digest not yet ({@code X.seals}, with neither {@code X} nor {@code X.gz} there). The
   * rotation's seal announced the file's deletion, so its digest goes with it.
   */
  private static List<Path> digestsLeftByExpiry(List<Path> expired, Names names) {
    List<Path> out = new ArrayList<>();
    for (Path e : expired) {
      String member = TrailNames.unexpired(e.getFileName().toString());
      if (member == null || TrailNames.isDigest(member)) {
        continue;
      }
      Path plain = TrailNames.uncompressed(e.resolveSibling(member));
      Path digest = TrailNames.digest(plain);
      if (names.exists(digest) && !names.exists(plain) && !names.exists(TrailNames.compressed(plain))
          && !out.contains(digest)) {
        out.add(digest);
      }
    }
    return out;
  }

  /** The renames that finish the rotation, in order; each renames to a name that is free by then. */
  public List<Rename> renames() {
    return renames;
  }

  /** The files and digests the rotation had set aside to delete. */
  public List<Path> expired() {
    return expired;
  }

  /** Whether nothing of an interrupted rotation is there. */
  public boolean isEmpty() {
    return renames.isEmpty() && expired.isEmpty() && unexpected == null;
  }

  /** What was found that no rotation leaves (nothing is renamed then), or null. */
  public String unexpected() {
    return unexpected;
  }

  /**
   * Where each name is once the renames are done: a map from the name after the renames to the file that is
   * now at the name before them, for the names the renames change (a name renamed away maps to null).
   */
  public Map<Path, Path> finishedNames() {
    Map<Path, Path> m = new HashMap<>();
    for (Rename r : renames) {
      Path now = m.containsKey(r.from) ? m.get(r.from) : r.from;
      m.put(r.from, null);
      m.put(r.to, now);
    }
    return m;
  }

  private static boolean exists(Path p) {
    return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
  }

  /** The names there are as the plan's renames are made one by one (the files themselves are not touched). */
  private static final class Names {
    private final Map<Path, Boolean> changed = new HashMap<>();

    boolean exists(Path p) {
      Boolean b = changed.get(p);
      return b != null ? b : InterruptedRotation.exists(p);
    }

    /** Whether rotated file {@code i} is there, plain ({@code file.i}) or compressed ({@code file.i.gz}). */
    boolean memberAt(Path live, int i) {
      Path plain = TrailNames.backup(live, i);
      return exists(plain) || exists(TrailNames.compressed(plain));
    }

    void moveIfThere(Path from, Path to, List<Rename> renames) {
      if (exists(from)) {
        move(from, to, renames);
      }
    }

    void move(Path from, Path to, List<Rename> renames) {
      renames.add(new Rename(from, to));
      changed.put(from, false);
      changed.put(to, true);
    }
  }
}
