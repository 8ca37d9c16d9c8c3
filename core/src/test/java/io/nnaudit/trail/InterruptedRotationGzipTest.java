package io.nnaudit.trail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a kill leaves of a rotation among compressed files: {@code file.i.gz} is the member at index i, so the
 * hole is looked for above it, it moves up to {@code file.i+1.gz} with its digest under the plain name, and a
 * compressed file set aside to expire is deleted. Also how the trail's names parse with {@code .gz}.
 */
class InterruptedRotationGzipTest {
  @TempDir
  Path dir;

  private void touch(String... names) throws Exception {
    for (String n : names) {
      Files.write(dir.resolve(n), n.getBytes());
    }
  }

  private List<String> renames() throws Exception {
    InterruptedRotation r = InterruptedRotation.find(dir.resolve("audit.log"), true);
    assertNull(r.unexpected());
    return r.renames().stream().map(Object::toString).collect(Collectors.toList());
  }

  @Test
  void aCompressedFileBelowTheHoleMovesUpWithItsDigest() throws Exception {
    // the live file staged, file.2.gz already moved to file.3.gz: file.1.gz has not moved yet
    touch("audit.log.rotating-7", "audit.log.rotating-7.seals", "audit.log.1.gz", "audit.log.1.seals",
        "audit.log.3.gz", "audit.log.3.seals", "audit.log.4", "audit.log.4.seals");
    assertEquals(Arrays.asList("audit.log.1.gz -> audit.log.2.gz", "audit.log.1.seals -> audit.log.2.seals",
        "audit.log.rotating-7 -> audit.log.1", "audit.log.rotating-7.seals -> audit.log.1.seals"), renames());
  }

  @Test
  void aCompressedFileIsNoHole() throws Exception {
    // file.2.gz is there: the hole is at 3, and file.2.gz and the plain file.1 below it move up
    touch("audit.log.rotating-7", "audit.log.1", "audit.log.1.seals", "audit.log.2.gz", "audit.log.2.seals",
        "audit.log.4.gz", "audit.log.4.seals");
    assertEquals(Arrays.asList("audit.log.2.gz -> audit.log.3.gz", "audit.log.2.seals -> audit.log.3.seals",
        "audit.log.1 -> audit.log.2", "audit.log.1.seals -> audit.log.2.seals",
        "audit.log.rotating-7 -> audit.log.1"), renames());
  }

  @Test
  void aDigestLeftAtTheHoleGoesUpToTheCompressedFileThatMovedBeforeIt() throws Exception {
    // file.2.gz moved to file.3.gz, its digest not yet
    touch("audit.log.rotating-7", "audit.log.1", "audit.log.1.seals", "audit.log.2.seals", "audit.log.3.gz");
    assertEquals(Arrays.asList("audit.log.2.seals -> audit.log.3.seals", "audit.log.1 -> audit.log.2",
        "audit.log.1.seals -> audit.log.2.seals", "audit.log.rotating-7 -> audit.log.1"), renames());
  }

  @Test
  void aCompressedFileSetAsideToExpireIsDeleted() throws Exception {
    touch("audit.log.5.gz.expired-7", "audit.log.5.expired-7.seals", "audit.log.1.gz");
    InterruptedRotation r = InterruptedRotation.find(dir.resolve("audit.log"), true);
    assertEquals(Arrays.asList(dir.resolve("audit.log.5.expired-7.seals"), dir.resolve("audit.log.5.gz.expired-7")),
        r.expired());
    assertTrue(r.renames().isEmpty());
  }

  @Test
  void namesOfCompressedFilesParse() throws Exception {
    Path live = dir.resolve("audit.log");
    assertEquals("audit.log", TrailNames.liveNameOf("audit.log.3.gz"));
    assertEquals("audit.log", TrailNames.liveNameOf("audit.log.3.gz.expired-12"));
    assertEquals("audit.log", TrailNames.liveNameOf("audit.log.compressing-12"));
    assertEquals(dir.resolve("audit.log.3.gz.expired-12"), TrailNames.expiredCompressed(live, 3, "12"));
    assertTrue(TrailNames.isTrailName(live, "audit.log.3.gz.expired-12"));
    assertTrue(TrailNames.expiredPattern("audit.log").matcher("audit.log.3.gz.expired-12").matches());

    touch("audit.log.1", "audit.log.2.gz", "audit.log.3", "audit.log.3.gz");
    List<RotatedFiles.Backup> b = RotatedFiles.list(live, 100);
    assertEquals(Arrays.asList("audit.log.1", "audit.log.2.gz", "audit.log.3", "audit.log.3.gz"),
        b.stream().map(x -> x.path.getFileName().toString()).collect(Collectors.toList()));
    assertTrue(b.get(1).compressed);
    assertEquals(dir.resolve("audit.log.2"), b.get(1).plain);
    assertEquals(dir.resolve("audit.log.2.seals"), b.get(1).digest());
  }
}
