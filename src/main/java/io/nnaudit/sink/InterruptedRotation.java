package io.nnaudit.sink;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.nnaudit.seal.DigestFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At start-up, puts back what a rotation killed half-way (kill -9, a power cut) left, before the sink opens
 * the file: a rotation moves the live file to {@code file.rotating-<time>} first and then to {@code file.1},
 * and moves each digest ({@code .seals}) right after its file, so a kill between two renames can leave
 * <ul>
 * <li>the live file staged, and no live file: the staged file (and its digest) go back to the live path, as
 * the undo of a failed rotation would have put them (the next rotation moves it on);</li>
 * <li>a digest staged whose file already reached {@code file.1}: the digest follows it;</li>
 * <li>a backup moved up one place without its digest: the digest follows it.</li>
 * </ul>
 * Anything else is left as it is and logged. Stateless; called once, before the sink writes.
 */
final class InterruptedRotation {
  private static final Logger LOG = LoggerFactory.getLogger(InterruptedRotation.class);

  private InterruptedRotation() {
  }

  static void finish(Path live) throws IOException {
    Path dir = live.toAbsolutePath().getParent();
    String staging = live.getFileName() + ".rotating-";
    List<Path> staged = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, glob(staging) + "*")) {
      for (Path p : ds) {
        staged.add(p);
      }
    }
    for (Path p : staged) {
      String name = p.getFileName().toString();
      if (name.endsWith(DigestFile.SUFFIX) || !exists(p)) {
        continue;
      }
      if (!exists(live)) {
        move(p, live, "a rotation was killed after staging the live file; it is the live file again");
        if (exists(DigestFile.of(p)) && !exists(DigestFile.of(live))) {
          move(DigestFile.of(p), DigestFile.of(live), "its digest too");
        }
      } else {
        LOG.warn("nnaudit: {} is left from a rotation killed half-way, and {} exists; it is left as it is", p, live);
      }
    }
    for (Path p : staged) {
      String name = p.getFileName().toString();
      if (!name.endsWith(DigestFile.SUFFIX) || !exists(p)) {
        continue;
      }
      Path file = p.resolveSibling(name.substring(0, name.length() - DigestFile.SUFFIX.length()));
      Path first = RotatedFiles.backup(live, 1);
      if (!exists(file) && exists(first) && !exists(DigestFile.of(first))) {
        move(p, DigestFile.of(first), "a rotation was killed after moving the live file to " + first.getFileName()
            + "; its digest follows it");
      }
    }
    // A backup moved up (i -> i+1) whose digest was not: the digest is at i without its file, i+1 without one.
    for (RotatedFiles.Backup b : RotatedFiles.list(live, Integer.MAX_VALUE)) {
      Path below = b.index == 1 ? null : RotatedFiles.backup(live, b.index - 1);
      if (below != null && !exists(DigestFile.of(b.path)) && !exists(below) && exists(DigestFile.of(below))) {
        move(DigestFile.of(below), DigestFile.of(b.path), "a rotation was killed between moving "
            + b.path.getFileName() + " and its digest");
      }
    }
  }

  private static boolean exists(Path p) {
    return Files.exists(p, LinkOption.NOFOLLOW_LINKS);
  }

  private static void move(Path from, Path to, String why) throws IOException {
    Files.move(from, to);
    LOG.warn("nnaudit: {} renamed to {}: {}", from, to, why);
  }

  /** {@code text} with the glob's special characters escaped. */
  private static String glob(String text) {
    return text.replaceAll("([\\\\*?\\[\\]{}])", "\\\\$1");
  }
}
