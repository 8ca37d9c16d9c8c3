package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.sink.file.ForwardingFileChannel;
import io.nnaudit.trail.TrailNames;

/**
 * The digest's lines under interrupts of the thread writing them, on a channel that writes a line and then throws,
 * as FileChannel does when an interrupt lands after the write(2): the line that reached the digest though its write
 * threw is cut back and the line before it left whole, so that each line is there once; an opening cut short by an
 * interrupt takes nothing; only the failed line is ever cut, never what something else wrote after it, and at close
 * too.
 */
class DigestWriterTest {
  @TempDir
  Path dir;

  /** A writer of {@code audit}'s digest, whose channel's next write throws after writing once {@code armed[0]}. */
  private static DigestWriter writer(Path audit, boolean[] armed) {
    Path digestPath = TrailNames.digest(audit);
    DigestWriter digest = new DigestWriter(true);
    digest.moveTo(audit, () -> new WrittenThenInterrupted(FileChannel.open(digestPath, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, StandardOpenOption.APPEND), armed));
    return digest;
  }

  /** Appends {@code line} through a write that reaches the file and then throws, as an interrupt makes it. */
  private static void appendInterrupted(DigestWriter digest, boolean[] armed, String line) {
    armed[0] = true;
    try {
      assertThrows(ClosedByInterruptException.class, () -> digest.append(line));
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void aLineWrittenThoughItsWriteThrewIsCutBackAndTheOneBeforeKept() throws Exception {
    Path audit = dir.resolve("audit.log");
    Path digestPath = TrailNames.digest(audit);
    boolean[] armed = {false};
    DigestWriter digest = writer(audit, armed);
    digest.append("first");
    digest.force();
    appendInterrupted(digest, armed, "second, written though it threw");
    assertEquals(Arrays.asList("first", "second, written though it threw"), lines(digestPath), "in the file");
    digest.append("second");
    digest.force();
    assertEquals(Arrays.asList("first", "second"), lines(digestPath));
    digest.close();
  }

  /**
   * After a failed line, bytes beyond it are someone else's: the next write refuses to cut them (it would cut
   * seals it did not write), and a close cuts the failed line only when nothing follows it.
   */
  @Test
  void onlyTheFailedLineIsCutBackNeverWhatFollowsIt() throws Exception {
    Path audit = dir.resolve("audit.log");
    Path digestPath = TrailNames.digest(audit);
    boolean[] armed = {false};
    DigestWriter digest = writer(audit, armed);
    digest.append("first");
    appendInterrupted(digest, armed, "failed");
    Files.write(digestPath, "someone else's\n".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
    IOException refused = assertThrows(IOException.class, () -> digest.append("second"));
    assertTrue(refused.getMessage().contains("written by something else"), refused.getMessage());
    assertEquals(Arrays.asList("first", "failed", "someone else's"), lines(digestPath));
    digest.close();
    assertEquals(Arrays.asList("first", "failed", "someone else's"), lines(digestPath), "kept at close");

    Path audit2 = dir.resolve("other.log");
    DigestWriter closing = writer(audit2, armed);
    closing.append("first");
    appendInterrupted(closing, armed, "failed");
    closing.close();
    assertEquals(Arrays.asList("first"), lines(TrailNames.digest(audit2)), "the failed line cut at close");
  }

  /**
   * An interrupt in the look at a digest a killed run left (its size, its last line) fails the open, and takes
   * neither the channel nor a size: the next line opens it again and follows what the digest holds.
   */
  @Test
  void anOpenCutShortByAnInterruptTakesNothingAndTheNextLineOpensAgain() throws Exception {
    Path audit = dir.resolve("audit.log");
    Path digestPath = TrailNames.digest(audit);
    Files.write(digestPath, "left by an earlier run\nunfinish".getBytes(StandardCharsets.UTF_8));
    DigestWriter digest = new DigestWriter(true);
    digest.moveTo(audit, () -> FileChannel.open(digestPath, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
    Thread.currentThread().interrupt();
    try {
      assertThrows(ClosedByInterruptException.class, digest::open);
    } finally {
      Thread.interrupted();
    }
    digest.append("this run's first");
    assertEquals(Arrays.asList("left by an earlier run", "this run's first"), lines(digestPath));
    digest.close();
  }

  private static java.util.List<String> lines(Path p) throws IOException {
    return Arrays.asList(new String(Files.readAllBytes(p), StandardCharsets.UTF_8).split("\n"));
  }

  /**
   * A digest's channel whose next write, once {@code armed[0]} is set, writes the whole line, then is closed by an
   * interrupt and throws, as FileChannel does when an interrupt lands after the write(2).
   */
  private static final class WrittenThenInterrupted extends ForwardingFileChannel {
    private final boolean[] armed;

    WrittenThenInterrupted(FileChannel out, boolean[] armed) {
      super(out);
      this.armed = armed;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      if (!armed[0]) {
        return delegate.write(src);
      }
      armed[0] = false;
      while (src.hasRemaining()) {
        delegate.write(src);
      }
      Thread.currentThread().interrupt();
      close();
      throw new ClosedByInterruptException();
    }
  }
}
