package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.ship.SpoolGuard;

/**
 * A look at the spool while the sink rotates (the renames of RollingFileSink.rotate, in its order): every
 * listing should name each file once, in the order written, with none missing between two it names.
 */
class SpoolListingRaceTest {
  @TempDir
  Path dir;

  private final Map<String, Integer> order = new ConcurrentHashMap<>();
  private int created;

  private Path newFile(Path at) throws Exception {
    Path tmp = dir.resolve("new.tmp");
    Files.write(tmp, ("file " + created + "\n").getBytes(StandardCharsets.UTF_8));
    order.put(String.valueOf(Files.readAttributes(tmp, BasicFileAttributes.class).fileKey()), created++);
    Files.move(tmp, at);
    return at;
  }

  @Test
  void aListingDuringARotationIsConsistent() throws Exception {
    Path live = dir.resolve("audit.log");
    int backups = 20;
    for (int i = backups; i >= 1; i--) {
      newFile(dir.resolve("audit.log." + i));
    }
    newFile(live);
    AtomicBoolean stop = new AtomicBoolean();
    SpoolGuard guard = new SpoolGuard(backups + 5);
    Thread rotator = new Thread(() -> {
      try {
        int n = 0;
        while (!stop.get()) {
          Path staged = dir.resolve("audit.log.rotating-" + n);
          guard.rotationStarting(); // as RollingFileSink brackets its renames
          Files.move(live, staged);
          Path aside = dir.resolve("audit.log.expired-" + n++);
          Files.move(dir.resolve("audit.log." + backups), aside);
          for (int i = backups - 1; i >= 1; i--) {
            Files.move(dir.resolve("audit.log." + i), dir.resolve("audit.log." + (i + 1)));
          }
          Files.move(staged, dir.resolve("audit.log.1"));
          newFile(live);
          // Deleting inside the bracket too (the sink deletes after it) keeps this test's own map of inodes to
          // creation order true while a listing is checked: a freed inode is reused by the next new file.
          Files.delete(aside);
          guard.rotationDone();
          // Rotations are far apart in a NameNode (one per nnaudit.file.max.size); a listing needs a quiet moment.
          java.util.concurrent.locks.LockSupport.parkNanos(300_000);
        }
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    rotator.start();
    SpoolDirectory spool = new SpoolDirectory(live, backups + 5, guard);
    int looks = 0;
    int duplicated = 0;
    int skipped = 0;
    String example = null;
    long end = System.nanoTime() + 5_000_000_000L;
    while (System.nanoTime() < end) {
      List<SpoolFile> files = spool.list();
      // This test's map of inodes to creation order changes at the next rotation (a freed inode is reused):
      // read it while no rotation has happened since the listing, and skip the sample otherwise.
      Map<String, Integer> orderNow = new HashMap<>();
      long mark = guard.rotationMark();
      for (SpoolFile f : files) {
        orderNow.put(f.key, order.get(f.key));
      }
      List<SpoolFile> again = spool.list();
      if (guard.rotationMark() != mark || !keys(again).equals(keys(files))) {
        continue;
      }
      looks++;
      for (int j = 1; j < files.size(); j++) {
        Integer a = orderNow.get(files.get(j - 1).key);
        Integer b = orderNow.get(files.get(j).key);
        if (a == null || b == null) {
          continue;
        }
        if (b <= a) {
          duplicated++;
          example = example == null ? "out of order or twice: " + a + " then " + b : example;
          break;
        }
        if (b > a + 1) {
          skipped++;
          example = example == null || example.startsWith("out") ? "skipped: " + a + " then " + b
              + (files.get(j).live ? " (live)" : "") : example;
          break;
        }
      }
    }
    stop.set(true);
    rotator.join();
    System.out.println("listing during rotations: " + looks + " looks, " + duplicated + " with a file twice or out of order, "
        + skipped + " with a file missing in the middle; e.g. " + example);
    assertEquals(0, duplicated + skipped, example);
  }

  private static List<String> keys(List<SpoolFile> files) {
    List<String> out = new java.util.ArrayList<>();
    for (SpoolFile f : files) {
      out.add(f.key);
    }
    return out;
  }
}
