package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.seal.DigestFile;
import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;

/** How the shipper reads a digest as the sink writes it: whole seal lines only, in order, each once. */
class DigestFollowerTest {
  @TempDir
  Path dir;

  private final StopSignal stop = new StopSignal();
  private final DigestFollower follower = new DigestFollower(stop);
  private long nextTo;
  private long number = 1;

  @AfterEach
  void close() {
    follower.close();
  }

  /** The next seal of one file: its range goes on from where the last one ended, {@code bytes} long. */
  private String seal(long bytes) throws Exception {
    SealKey key = SealKey.secret(new SecretKeySpec(new byte[32], "HmacSHA256"));
    Seal s = Seal.unsigned("trail", 1, 1, number++, Seal.Kind.INTERVAL, nextTo, nextTo + bytes, 3, 0, 0,
        new byte[32], 0, 0, Seal.GENESIS).signedWith(key);
    nextTo += bytes;
    return s.line();
  }

  private static void append(Path p, String text) throws Exception {
    Files.write(p, text.getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
  }

  private Path digest() {
    return dir.resolve("audit.log.seals");
  }

  private void follow(long from) throws Exception {
    follower.open(FileChannel.open(digest(), StandardOpenOption.READ), from, null);
  }

  /** The seals taken so far, each as its line. */
  private List<String> drain() throws Exception {
    List<String> out = new ArrayList<>();
    DigestFollower.PendingSeal s;
    while ((s = follower.peek()) != null) {
      out.add(new String(s.line, StandardCharsets.UTF_8));
      follower.remove();
    }
    return out;
  }

  @Test
  void aLineIsTakenOnceWholeAndEachSealOnce() throws Exception {
    String a = seal(100);
    String b = seal(50);
    append(digest(), a + "\n" + b.substring(0, 40));
    follow(0);
    follower.fill();
    assertEquals(List.of(a), drain());
    assertFalse(follower.waiting(Long.MAX_VALUE), "a line being written is looked at, not waited for");
    append(digest(), b.substring(40) + "\n");
    assertTrue(follower.waiting(Long.MAX_VALUE), "new lines wait to be read");
    follower.fill();
    DigestFollower.PendingSeal s = follower.peek();
    assertEquals(150, s.to);
    assertTrue(follower.waiting(150));
    assertFalse(follower.waiting(149), "a seal past the position is not due");
    assertEquals(List.of(b), drain());
    follower.fill();
    assertNull(follower.peek());
  }

  /**
   * An interrupt of the thread from outside closes the digest's channel under the look at its size or the read it
   * lands in: the digest is opened again ({@code Reopen}) and the look or read made again, so the seals go on from
   * where they were, none twice, and the interrupt is cleared and counted. A digest not found again as it was is
   * not gone on in: the interrupt's failure goes to the caller.
   */
  @Test
  void anInterruptedLookOrReadGoesOnInTheDigestOpenedAgain() throws Exception {
    String a = seal(100);
    String b = seal(100);
    String c = seal(100);
    append(digest(), a + "\n");
    int[] reopened = {0};
    follower.open(FileChannel.open(digest(), StandardOpenOption.READ), 0, () -> {
      reopened[0]++;
      return FileChannel.open(digest(), StandardOpenOption.READ);
    });
    try {
      follower.fill();
      assertEquals(List.of(a), drain());
      append(digest(), b + "\n");
      Thread.currentThread().interrupt(); // left set: the look at the digest's size closes the channel
      assertTrue(follower.waiting(Long.MAX_VALUE));
      follower.fill();
      assertEquals(List.of(b), drain(), "the seal after, once, from the digest opened again");
      assertEquals(1, reopened[0]);
      assertFalse(Thread.currentThread().isInterrupted(), "cleared");
      assertEquals(1, stop.strayInterrupts(), "and counted");

      // An interrupt that lands in a read, after some bytes were read: the read is made again, whole.
      append(digest(), c + "\n");
      follower.open(new InterruptedRead(FileChannel.open(digest(), StandardOpenOption.READ)), 300, () -> {
        reopened[0]++;
        return FileChannel.open(digest(), StandardOpenOption.READ);
      });
      follower.fill();
      assertEquals(List.of(c), drain(), "the one seal due, once, whole");
      assertEquals(2, reopened[0]);
      assertFalse(Thread.currentThread().isInterrupted(), "cleared");
      assertEquals(2, stop.strayInterrupts(), "and counted");

      follower.open(FileChannel.open(digest(), StandardOpenOption.READ), 0, () -> null); // not found as it was
      Thread.currentThread().interrupt();
      try {
        follower.fill();
        throw new AssertionError("a digest not found again as it was is no digest to go on in");
      } catch (java.nio.channels.ClosedByInterruptException expected) {
        // the caller's pass opens the files again
      }
    } finally {
      Thread.interrupted();
    }
  }

  /** A digest's channel whose first positional read puts some bytes in, then is closed by an interrupt. */
  private static final class InterruptedRead extends FileChannel {
    private final FileChannel in;
    private boolean armed = true;

    InterruptedRead(FileChannel in) {
      this.in = in;
    }

    @Override
    public int read(java.nio.ByteBuffer dst, long position) throws java.io.IOException {
      if (!armed) {
        return in.read(dst, position);
      }
      armed = false;
      dst.put((byte) 'x'); // a part read before the interrupt: not to be taken
      Thread.currentThread().interrupt();
      close();
      throw new java.nio.channels.ClosedByInterruptException();
    }

    @Override
    public long size() throws java.io.IOException {
      return in.size();
    }

    @Override
    protected void implCloseChannel() throws java.io.IOException {
      in.close();
    }

    @Override
    public int read(java.nio.ByteBuffer dst) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long read(java.nio.ByteBuffer[] dsts, int offset, int length) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int write(java.nio.ByteBuffer src) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long write(java.nio.ByteBuffer[] srcs, int offset, int length) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long position() {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileChannel position(long newPosition) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileChannel truncate(long size) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void force(boolean metaData) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long transferTo(long position, long count, java.nio.channels.WritableByteChannel target) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long transferFrom(java.nio.channels.ReadableByteChannel src, long position, long count) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int write(java.nio.ByteBuffer src, long position) {
      throw new UnsupportedOperationException();
    }

    @Override
    public java.nio.MappedByteBuffer map(MapMode mode, long position, long size) {
      throw new UnsupportedOperationException();
    }

    @Override
    public java.nio.channels.FileLock lock(long position, long size, boolean shared) {
      throw new UnsupportedOperationException();
    }

    @Override
    public java.nio.channels.FileLock tryLock(long position, long size, boolean shared) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void sealsEndingBeforeTheStartArePassedOverAndOneEndingThereIsNot() throws Exception {
    String a = seal(100);
    String b = seal(100);
    String c = seal(100);
    append(digest(), a + "\n" + b + "\n" + c + "\n");
    follow(200);
    follower.fill();
    assertEquals(List.of(b, c), drain());
  }

  @Test
  void linesThatAreNotSealsAreSkipped() throws Exception {
    String a = seal(10);
    String b = seal(10);
    StringBuilder huge = new StringBuilder();
    for (int i = 0; i < 5 * DigestFile.MAX_LINE; i++) {
      huge.append('x');
    }
    String unknownVersion = a.replace(" v=" + io.nnaudit.seal.Seal.VERSION + " ", " v=9 ");
    append(digest(), a + "\nnot a seal\n" + huge + "\n" + unknownVersion + "\n" + b + "\n");
    follow(0);
    follower.fill();
    assertEquals(List.of(a, b), drain());
  }

  @Test
  void aLongDigestIsReadAsItsSealsGo() throws Exception {
    List<String> all = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 3 * DigestFollower.MAX_QUEUED + 7; i++) {
      String s = seal(10);
      all.add(s);
      text.append(s).append('\n');
    }
    append(digest(), text.toString());
    follow(0);
    follower.fill();
    assertEquals(DigestFollower.MAX_QUEUED, follower.held(), "at most this many seals held");
    assertTrue(follower.waiting(0), "more to read");
    assertEquals(all, drain());
    assertFalse(follower.waiting(Long.MAX_VALUE));
  }
}
