package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file a stream could not open is "missing" (a checkpoint not yet written, a rotated file renamed away) only if
 * nothing is there: a path the system could not look at is an error to report, not a file to start over without.
 */
class OpenFailureTest {
  @TempDir
  Path dir;

  private static FileNotFoundException openFailure(Path p) {
    try (FileInputStream in = new FileInputStream(p.toFile())) {
      throw new AssertionError("opened " + p);
    } catch (FileNotFoundException e) {
      return e;
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aFileNotThereAndALinkToNothingAreMissing() throws Exception {
    Path none = dir.resolve("none");
    assertTrue(OpenFailure.missing(none, openFailure(none)));
    Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("gone"));
    assertTrue(OpenFailure.missing(dangling, openFailure(dangling)));
  }

  @Test
  void aPathThatCannotBeLookedAtIsNotMissing() throws Exception {
    Path file = Files.write(dir.resolve("file"), new byte[1]);
    Path under = file.resolve("checkpoint"); // a file where a directory should be: ENOTDIR, not ENOENT
    FileNotFoundException why = openFailure(under);
    assertFalse(OpenFailure.missing(under, why));
    assertEquals(1, why.getSuppressed().length, "the failed look is kept for the report");
    Path directory = Files.createDirectory(dir.resolve("directory")); // there, but not a file to read
    assertFalse(OpenFailure.missing(directory, openFailure(directory)));
  }
}
