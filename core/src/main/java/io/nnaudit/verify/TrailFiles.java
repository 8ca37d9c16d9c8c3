package io.nnaudit.verify;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.InterruptedRotation;
import io.nnaudit.trail.TrailNames;

/**
 * The files of one trail as verify reads them: the live file and its rotated files by index (a rotated file
 * plain, compressed as {@code file.N.gz}, or both), each with its digest (named after the plain file), read as if an interrupted rotation were finished (a name maps to the file that will have it,
 * {@link InterruptedRotation#finishedNames}, every other name to itself); and the digests set aside at a start.
 * Also the trails of a directory. The names are spelled by {@link TrailNames}, dated ones read by
 * {@link RotatedNaming}. Immutable; the order of dated files is read once, at {@link #of}; otherwise the directory is
 * listed again by each call that reads it.
 */
final class TrailFiles {
  /** The live file, absolute. */
  final Path live;
  /** The renames that would finish an interrupted rotation (none when none is there, or it is not one). */
  private final List<InterruptedRotation.Rename> renames;
  /** Name after the renames -> the file now there (null: renamed away); only the names the renames change. */
  private final Map<Path, Path> moved;
  /** The names of the rotated files; null: numbered. */
  private final DatedNames dated;
  /** With dated names: the plain name of each rotated file, newest (index 1) first, as the walk began. */
  private final List<Path> datedOrder;

  private TrailFiles(Path live, List<InterruptedRotation.Rename> renames, Map<Path, Path> moved, DatedNames dated)
      throws IOException {
    this.live = live.toAbsolutePath();
    this.renames = renames;
    this.moved = moved;
    this.dated = dated;
    this.datedOrder = dated == null ? Collections.<Path>emptyList() : datedOrder();
  }

  /** The trails in {@code dir}: the live path of every audit file that has a digest there, sorted. */
  static List<Path> trailsIn(Path dir) throws IOException {
    return trailsIn(dir, RotatedNaming.detect());
  }

  /** As {@link #trailsIn(Path)}, with dated rotated names told by {@code naming}. */
  static List<Path> trailsIn(Path dir, RotatedNaming naming) throws IOException {
    Set<Path> bases = new TreeSet<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        if (TrailNames.isDigest(name) && name.length() > TrailNames.DIGEST_SUFFIX.length()) {
          String audit = TrailNames.auditFileOf(name);
          // a rotated file's digest, or one a rotation left under a temporary name, belongs to the live file's trail
          String unexpired = TrailNames.unexpired(audit); // a dated file's digest left to expire by a kill
          String dated = naming.liveNameOf(unexpired != null ? unexpired : audit);
          bases.add(dir.resolve(dated != null ? dated : TrailNames.liveNameOf(audit)));
        }
      }
    }
    return new ArrayList<>(bases);
  }

  /**
   * The trail whose live file is {@code live}, read as an interrupted rotation there would leave it once finished
   * (as it is, when what is there is not what a rotation leaves).
   */
  static TrailFiles of(Path live) throws IOException {
    return of(live, RotatedNaming.detect());
  }

  /** As {@link #of(Path)}, with dated rotated names told by {@code naming}. */
  static TrailFiles of(Path live, RotatedNaming naming) throws IOException {
    DatedNames dated = naming.of(live);
    InterruptedRotation left = InterruptedRotation.find(live, dated, true);
    Map<Path, Path> moved = Collections.emptyMap();
    if (left.unexpected() == null) {
      moved = new HashMap<>(left.finishedNames());
      for (Path e : left.expired()) {
        moved.put(e.toAbsolutePath(), null); // to be deleted: as if it were
      }
    }
    return new TrailFiles(live, left.renames(), moved, dated);
  }

  /** The renames that finish an interrupted rotation, in order; empty when none is half done. */
  List<InterruptedRotation.Rename> renames() {
    return renames;
  }

  /** The live file (0) or the rotated file {@code i} (by its plain name). */
  Path file(int i) {
    if (dated == null || i == 0) {
      return TrailNames.file(live, i);
    }
    return i <= datedOrder.size() ? datedOrder.get(i - 1) : TrailNames.backup(live, i); // none: a name not there
  }

  /**
   * The files there are at index {@code i} as verify names them: the plain file, its compressed copy
   * ({@code file.N.gz}, rotated files only), or both (a kill between the compressor's rename and its delete
   * leaves both); plain first.
   */
  List<Path> members(int i) {
    List<Path> out = new ArrayList<>(2);
    Path plain = file(i);
    if (isFile(plain)) {
      out.add(plain);
    }
    if (i > 0 && isFile(TrailNames.compressed(plain))) {
      out.add(TrailNames.compressed(plain));
    }
    return out;
  }

  /** The name file {@code i} is reported by: the compressed copy when only it is there, else the plain name. */
  Path name(int i) {
    List<Path> m = members(i);
    return m.size() == 1 ? m.get(0) : file(i);
  }

  /** Whether {@code p} is the name of file {@code i}, plain or compressed. */
  boolean isFileOf(int i, Path p) {
    return p.equals(file(i)) || i > 0 && p.equals(TrailNames.compressed(file(i)));
  }

  /** The file that has (or, once the rotation is finished, will have) the name {@code p}; null for none. */
  Path at(Path p) {
    Path a = p.toAbsolutePath();
    return moved.containsKey(a) ? moved.get(a) : a;
  }

  /** Whether the file at name {@code p} ({@link #at}) is a regular file, not followed through a link. */
  boolean isFile(Path p) {
    Path a = at(p);
    return a != null && Files.isRegularFile(a, LinkOption.NOFOLLOW_LINKS);
  }

  /** The indices of the trail's files and digests there are, oldest (highest) first; 0 is the live file. */
  List<Integer> indices() throws IOException {
    if (dated != null) {
      List<Integer> out = new ArrayList<>();
      for (int i = datedOrder.size(); i >= 1; i--) {
        out.add(i);
      }
      if (isFile(live) || isFile(TrailNames.digest(live))) {
        out.add(0);
      }
      return out;
    }
    Pattern p = TrailNames.numberedPattern(live);
    Set<Path> present = present();
    Set<Integer> found = new TreeSet<>((a, b) -> Integer.compare(b, a));
    for (Path f : present) {
      Matcher m = p.matcher(f.getFileName().toString());
      if (m.matches()) {
        found.add(TrailNames.indexOf(m));
      }
    }
    return new ArrayList<>(found);
  }

  /**
   * The plain names of the rotated files that dated names, their {@code .gz} or their digests place, newest
   * first; then any numbered ones left from before the names changed, as older.
   */
  private List<Path> datedOrder() throws IOException {
    String liveName = live.getFileName().toString();
    TreeMap<DatedNames.Place, Path> byPlace = new TreeMap<>(Collections.reverseOrder());
    Pattern numbered = TrailNames.numberedPattern(live);
    TreeSet<Integer> leftovers = new TreeSet<>();
    for (Path f : present()) {
      String plain = TrailNames.memberOf(f.getFileName().toString());
      DatedNames.Place place = dated.place(liveName, plain);
      if (place != null) {
        byPlace.put(place, live.resolveSibling(plain));
        continue;
      }
      Matcher m = numbered.matcher(f.getFileName().toString());
      if (m.matches() && TrailNames.indexOf(m) > 0) {
        leftovers.add(TrailNames.indexOf(m));
      }
    }
    List<Path> out = new ArrayList<>(byPlace.values());
    List<Path> numberedFiles = new ArrayList<>();
    for (int i : leftovers) {
      numberedFiles.add(TrailNames.backup(live, i));
    }
    // Files of the other scheme were left by a change of nnaudit.file.rotated.names, and are older than those of
    // the scheme in use, which verify does not know: the group whose newest file was written last is the newer.
    if (!numberedFiles.isEmpty() && !out.isEmpty() && lastWritten(numberedFiles.get(0)) > lastWritten(out.get(0))) {
      numberedFiles.addAll(out);
      out = numberedFiles;
    } else {
      out.addAll(numberedFiles);
    }
    for (InterruptedRotation.Rename r : renames) {
      // the file a half-done rotation names is the newest, whatever verify's reading of its date (in UTC) says
      if (TrailNames.stagedPattern(liveName).matcher(r.from.getFileName().toString()).matches()) {
        Path newest = r.to.toAbsolutePath();
        out.remove(newest);
        out.add(0, newest);
      }
    }
    return out;
  }

  /** When the rotated file of plain name {@code plain} (or its .gz) was last written; MIN_VALUE if not there. */
  private long lastWritten(Path plain) throws IOException {
    for (Path p : new Path[] {plain, TrailNames.compressed(plain)}) {
      Path a = at(p);
      if (a != null && Files.exists(a, LinkOption.NOFOLLOW_LINKS)) {
        return Files.getLastModifiedTime(a, LinkOption.NOFOLLOW_LINKS).toMillis();
      }
    }
    return Long.MIN_VALUE;
  }

  /** Every name in the live file's directory, as it is once an interrupted rotation is finished. */
  private Set<Path> present() throws IOException {
    Set<Path> present = new HashSet<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(live.getParent())) {
      for (Path f : ds) {
        present.add(live.resolveSibling(f.getFileName().toString()));
      }
    }
    for (Map.Entry<Path, Path> e : moved.entrySet()) {
      if (e.getValue() == null) {
        present.remove(e.getKey());
      } else {
        present.add(e.getKey());
      }
    }
    return present;
  }

  /** Rotated files being compressed ({@code file.compressing-T}), or left by a kill while they were; sorted. */
  List<Path> compressing() throws IOException {
    List<Path> out = new ArrayList<>();
    Pattern p = TrailNames.compressingPattern(live.getFileName().toString());
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(live.getParent())) {
      for (Path f : ds) {
        if (p.matcher(f.getFileName().toString()).matches()) {
          out.add(f.toAbsolutePath());
        }
      }
    }
    Collections.sort(out);
    return out;
  }

  /** Digests of the trail's files set aside at a start ({@code <digest>.stale-<time>}), sorted. */
  List<Path> setAside() throws IOException {
    List<Path> out = new ArrayList<>();
    Pattern p = TrailNames.staleDigestPattern(live);
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(live.getParent())) {
      for (Path f : ds) {
        if (p.matcher(f.getFileName().toString()).matches()) {
          out.add(f);
        }
      }
    }
    Collections.sort(out);
    return out;
  }
}
