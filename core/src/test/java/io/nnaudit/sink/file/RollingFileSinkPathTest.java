package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.Closer;
import io.nnaudit.TestFiles;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.SinkFixtures.ManualClock;
import io.nnaudit.sink.SinkFixtures;

/**
 * Only a regular file of the process's user is written to: a symlink, a FIFO, a directory or a file of another
 * user at the path fails start-up with a message naming what was found, and is not followed when it appears
 * at run time in place of the file, which the sink then keeps writing.
 */
class RollingFileSinkPathTest {
  /** Opening a FIFO blocks until a reader comes; a sink that tried would never return. */
  private static final Duration NO_HANG = Duration.ofSeconds(10);
  private static final int OTHER_UID = 12345;

  @TempDir
  Path dir;

  @RegisterExtension
  final Closer closer = new Closer();

  private final ManualClock clock = new ManualClock();
  private Path live;
  private Path moved;
  /** Read while nothing is at the path: the settings themselves refuse a directory. */
  private SinkContext context;
  private RollingFileSink sink;

  @BeforeEach
  void paths() {
    live = dir.resolve("audit.log");
    moved = dir.resolve("moved.log");
    context = SinkFixtures.context(live, "1m", 2, "none");
  }

  private RollingFileSink newSink() {
    return closer.add(SinkFixtures.sink(context, clock));
  }

  private void assertRefusedAtStartUp(String found) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> newSink());
    String prefix = "nnaudit: invalid value for " + NnauditConfigKeys.FILE_PATH_KEY + ": '" + live + "'. Allowed: ";
    assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
    assertTrue(e.getMessage().contains(found), e.getMessage());
  }

  private void mkfifo(Path p) throws Exception {
    boolean made;
    try {
      made = SinkFixtures.run("mkfifo", p.toString());
    } catch (IOException noMkfifo) {
      made = false;
    }
    assumeTrue(made, "mkfifo does not work here; skipped");
  }

  private void giveToAnotherUser(Path p) {
    try {
      Files.setAttribute(p, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException | RuntimeException e) {
      assumeTrue(false, "cannot give a file to uid " + OTHER_UID + " (not root?): " + e);
    }
  }

  private static String content(Path p) throws IOException {
    return new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
  }

  @Test
  void aSymlinkIsRefusedAtStartUp() throws Exception {
    Path target = Files.write(dir.resolve("elsewhere.log"), "kept\n".getBytes(StandardCharsets.UTF_8));
    Files.createSymbolicLink(live, target);
    assertRefusedAtStartUp("is a symlink");
    assertEquals("kept\n", content(target));
    assertTrue(Files.isSymbolicLink(live));
  }

  @Test
  void aDanglingSymlinkIsRefusedAtStartUpAndItsTargetNotCreated() throws Exception {
    Path target = dir.resolve("elsewhere.log");
    Files.createSymbolicLink(live, target);
    assertRefusedAtStartUp("is a symlink");
    assertFalse(Files.exists(target));
  }

  @Test
  void aFifoIsRefusedAtStartUpWithoutBeingOpened() throws Exception {
    mkfifo(live);
    assertTimeoutPreemptively(NO_HANG, () -> assertRefusedAtStartUp("is a FIFO"));
  }

  @Test
  void aDirectoryIsRefusedAtStartUp() throws Exception {
    Files.createDirectory(live);
    assertRefusedAtStartUp("is a directory");
  }

  @Test
  void aFileOfAnotherUserIsRefusedAtStartUp() throws Exception {
    Files.write(live, "theirs\n".getBytes(StandardCharsets.UTF_8));
    giveToAnotherUser(live);
    assertRefusedAtStartUp("is owned by " + OTHER_UID);
    assertEquals("theirs\n", content(live));
  }

  @Test
  void aSymlinkPutInPlaceOfTheMovedFileIsNotFollowed() throws Exception {
    sink = newSink();
    write(sink, "before\n");
    Files.move(live, moved);
    Path target = Files.createFile(dir.resolve("elsewhere.log"));
    Files.createSymbolicLink(live, target);
    clock.advance(1000);
    write(sink, "after\n");
    assertEquals(1, sink.refusedReopens());
    clock.advance(999);
    write(sink, "more\n");
    assertEquals(1, sink.refusedReopens(), "looked at once a second");
    clock.advance(1);
    write(sink, "again\n");
    assertEquals(2, sink.refusedReopens());
    assertEquals(List.of("before", "after", "more", "again"), TestFiles.lines(moved.toFile()));
    assertEquals("", content(target));

    Files.delete(live);
    clock.advance(1000);
    write(sink, "new file\n");
    assertEquals(2, sink.refusedReopens());
    assertEquals(List.of("new file"), TestFiles.lines(live.toFile()));
    assertEquals(List.of("before", "after", "more", "again"), TestFiles.lines(moved.toFile()));
  }

  @Test
  void aFifoPutInPlaceOfTheMovedFileIsNotOpened() throws Exception {
    sink = newSink();
    write(sink, "before\n");
    Files.move(live, moved);
    mkfifo(live);
    clock.advance(1000);
    assertTimeoutPreemptively(NO_HANG, () -> write(sink, "after\n"));
    assertEquals(1, sink.refusedReopens());
    assertEquals(List.of("before", "after"), TestFiles.lines(moved.toFile()));
  }

  @Test
  void aFileOfAnotherUserPutInPlaceOfTheMovedFileIsNotOpened() throws Exception {
    sink = newSink();
    write(sink, "before\n");
    Files.move(live, moved);
    Files.createFile(live);
    giveToAnotherUser(live);
    clock.advance(1000);
    write(sink, "after\n");
    assertEquals(1, sink.refusedReopens());
    assertEquals(List.of("before", "after"), TestFiles.lines(moved.toFile()));
    assertEquals("", content(live));
  }

  @Test
  void noRotationWhileThePathHoldsARefusedSymlink() throws Exception {
    sink = closer.add(SinkFixtures.sink(SinkFixtures.context(live, "1k", 2, "none"), clock));
    write(sink, "before\n");
    Files.move(live, moved);
    Path target = Files.createFile(dir.resolve("elsewhere.log"));
    Files.createSymbolicLink(live, target);
    String big = "x".repeat(1100);
    write(sink, big + "\n"); // within the second: not yet noticed
    clock.advance(1000);
    write(sink, "after\n"); // over size, but the path is not the file being written
    write(sink, "more\n");
    assertTrue(Files.isSymbolicLink(live), "the link was not rotated");
    assertFalse(Files.exists(dir.resolve("audit.log.1"), LinkOption.NOFOLLOW_LINKS));
    assertEquals(List.of("before", big, "after", "more"), TestFiles.lines(moved.toFile()));
    assertEquals("", content(target));
  }
}
