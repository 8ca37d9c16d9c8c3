package io.nnaudit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The repository's root, for tests that read its files (the documentation, conf/): the working directory, or
 * the nearest directory above it that holds {@code conf/nnaudit-default.xml}. Maven runs a module's tests in
 * the module's directory, so the root may be one or more levels up.
 */
public final class RepoRoot {
  private static final String MARKER = "conf/nnaudit-default.xml";

  private RepoRoot() {
  }

  /** The root, absolute; fails naming the directory it started from when no directory above holds the marker. */
  public static Path get() {
    Path start = Paths.get("").toAbsolutePath().normalize();
    for (Path d = start; d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve(MARKER))) {
        return d;
      }
    }
    throw new IllegalStateException("no directory from " + start + " upwards holds " + MARKER);
  }

  /** A path relative to the root, such as {@code "docs/configuration.md"}. */
  public static Path resolve(String relative) {
    return get().resolve(relative);
  }
}
