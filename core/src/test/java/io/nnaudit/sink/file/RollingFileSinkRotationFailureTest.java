package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.context;
import static io.nnaudit.sink.SinkFixtures.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.Closer;
import io.nnaudit.TestFiles;
import io.nnaudit.sink.SinkFixtures.ManualClock;
import io.nnaudit.sink.SinkFixtures;

/**
 * Rotations that fail for real: the live file, or a backup, made append-only or immutable with chattr (a common
 * hardening step) cannot be renamed. No backup may be deleted or shifted, no record lost or written twice, and
 * rotation is tried again a minute later, not before every write.
 */
class RollingFileSinkRotationFailureTest {
  @TempDir
  Path dir;

  @RegisterExtension
  final Closer closer = new Closer();

  private final ManualClock clock = new ManualClock();
  private final List<String> written = new ArrayList<>();
  private Path live;
  private RollingFileSink sink;

  /** Four writes fill the file (1k); 16 leave three full backups and a full live file, nothing deleted yet. */
  private void fillLiveAndThreeBackups() throws IOException {
    live = dir.resolve("audit.log");
    sink = closer.add(SinkFixtures.sink(context(live, "1k", 3, "none"), clock));
    for (int i = 0; i < 16; i++) {
      writeBatch();
    }
    assertEquals(Set.of("audit.log", "audit.log.1", "audit.log.2", "audit.log.3"), names());
  }

  /** Four records of 64 bytes in one write. */
  private void writeBatch() throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      String r = String.format("record %06d %s", written.size(), "x".repeat(49));
      written.add(r);
      b.append(r).append('\n');
    }
    write(sink, b.toString());
  }

  private void chattr(String change, Path p) throws InterruptedException {
    // after the test, before the sink is closed: so that the temp dir can be deleted
    closer.add(() -> SinkFixtures.run("/usr/bin/chattr", "-ai", p.toString()));
    boolean done;
    try {
      done = SinkFixtures.run("/usr/bin/chattr", change, p.toString());
    } catch (IOException noChattr) {
      done = false;
    }
    assumeTrue(done, "chattr " + change + " does not work here (no chattr, a file system without the attribute,"
        + " or no CAP_LINUX_IMMUTABLE); skipped");
  }

  private Set<String> names() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private Map<String, byte[]> backups() throws IOException {
    Map<String, byte[]> m = new LinkedHashMap<>();
    for (int i = 1; i <= 3; i++) {
      m.put("audit.log." + i, Files.readAllBytes(dir.resolve("audit.log." + i)));
    }
    return m;
  }

  private void assertBackupsAre(Map<String, byte[]> expected) throws IOException {
    for (Map.Entry<String, byte[]> e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), Files.readAllBytes(dir.resolve(e.getKey())), e.getKey());
    }
  }

  /** Every record written is in exactly one line of exactly one file in the directory. */
  private void assertEveryRecordOnce() throws IOException {
    List<String> found = new ArrayList<>();
    for (String name : names()) {
      found.addAll(TestFiles.lines(dir.resolve(name).toFile()));
    }
    found.sort(null);
    assertEquals(written, found);
  }

  @Test
  void aLiveFileThatCannotBeRenamedKeepsEveryBackupAndEveryRecord() throws Exception {
    fillLiveAndThreeBackups();
    Map<String, byte[]> before = backups();
    chattr("+a", live);

    for (int i = 0; i < 20; i++) {
      writeBatch(); // each finds the file full
    }
    assertEquals(1, sink.rotationFailures(), "one attempt, then none until the retry interval has passed");
    clock.advance(Rotation.RETRY_INTERVAL_MS - 1);
    writeBatch();
    assertEquals(1, sink.rotationFailures());
    clock.advance(1);
    writeBatch();
    assertEquals(2, sink.rotationFailures());
    assertBackupsAre(before);
    assertEquals(Set.of("audit.log", "audit.log.1", "audit.log.2", "audit.log.3"), names());
    assertEveryRecordOnce();

    SinkFixtures.run("/usr/bin/chattr", "-a", live.toString());
    byte[] grown = Files.readAllBytes(live);
    writeBatch(); // before the retry interval: still appended to the grown file
    assertEquals(2, sink.rotationFailures());
    clock.advance(Rotation.RETRY_INTERVAL_MS);
    int last = written.size();
    writeBatch(); // rotates first

    assertEquals(2, sink.rotationFailures());
    assertEquals(Set.of("audit.log", "audit.log.1", "audit.log.2", "audit.log.3"), names());
    assertEquals(written.subList(last, written.size()), TestFiles.lines(live.toFile()));
    assertEquals(written.subList(48, last), TestFiles.lines(dir.resolve("audit.log.1").toFile()));
    assertArrayEquals(grown, Arrays.copyOf(Files.readAllBytes(dir.resolve("audit.log.1")), grown.length));
    assertArrayEquals(before.get("audit.log.1"), Files.readAllBytes(dir.resolve("audit.log.2")));
    assertArrayEquals(before.get("audit.log.2"), Files.readAllBytes(dir.resolve("audit.log.3")));
    written.subList(0, 16).clear(); // the oldest backup, deleted by the successful rotation as intended
    assertEveryRecordOnce();
  }

  @Test
  void aBackupThatCannotBeRenamedUndoesTheRotationsFirstSteps() throws Exception {
    fillLiveAndThreeBackups();
    Map<String, byte[]> before = backups();
    byte[] liveBefore = Files.readAllBytes(live);
    chattr("+i", dir.resolve("audit.log.2")); // the live file and audit.log.3 move before audit.log.2 fails

    writeBatch();
    assertEquals(1, sink.rotationFailures());
    assertBackupsAre(before);
    assertEquals(Set.of("audit.log", "audit.log.1", "audit.log.2", "audit.log.3"), names());
    byte[] liveAfter = Files.readAllBytes(live);
    assertArrayEquals(liveBefore, Arrays.copyOf(liveAfter, liveBefore.length), "back at its path");
    assertEquals(written.subList(48, written.size()), TestFiles.lines(live.toFile()), "and still written to");
    assertEveryRecordOnce();
  }
}
