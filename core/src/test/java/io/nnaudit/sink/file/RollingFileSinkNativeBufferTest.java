package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.context;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.sink.SinkFixtures;
import io.nnaudit.sink.SinkFixtures.ManualClock;

/**
 * The file sink writes from one native buffer of its own. Many threads take turns writing one file, as the
 * NameNode's handlers do when they lead writes: the native memory the writes leave behind is that buffer, not a
 * copy kept by each thread that wrote. A chunk larger than the buffer goes out in parts, and a failure in any part
 * takes the whole chunk back out.
 */
class RollingFileSinkNativeBufferTest {
  private static final int THREADS = 24;
  private static final int CHUNK = 256 * 1024;

  @TempDir
  Path dir;

  @Test
  void threadsThatWroteKeepNoNativeCopyEach() throws Exception {
    Path file = dir.resolve("audit.log");
    RollingFileSink sink = new RollingFileSink(context(file, "1g", 1, "none"));
    byte[] chunk = new byte[CHUNK];
    Arrays.fill(chunk, (byte) 'x');
    chunk[CHUNK - 1] = '\n';
    long before = directBytes();
    CountDownLatch done = new CountDownLatch(THREADS);
    CountDownLatch measured = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    Object turn = new Object();
    for (int i = 0; i < THREADS; i++) {
      Thread t = new Thread(() -> {
        try {
          synchronized (turn) { // one writing thread at a time, as the pipeline's write lock makes it
            sink.write(ByteBuffer.wrap(chunk));
          }
        } catch (Throwable e) {
          synchronized (failures) {
            failures.add(e);
          }
        } finally {
          done.countDown();
        }
        try {
          measured.await(); // alive while the native memory is counted: a thread's cached buffers die with it
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "writer-" + i);
      t.start();
      threads.add(t);
    }
    done.await();
    long grown = directBytes() - before;
    measured.countDown();
    for (Thread t : threads) {
      t.join();
    }
    sink.close();
    assertTrue(failures.isEmpty(), "writes failed: " + failures);
    assertEquals((long) THREADS * CHUNK, Files.size(file));
    // The sink's own buffer grows to the largest chunk (256 KiB here); a copy per thread would be 6 MiB.
    assertTrue(grown < 2L * CHUNK,
        "native memory grew by " + grown + " bytes for " + THREADS + " threads writing " + CHUNK + " bytes each");
  }

  /** A chunk larger than the buffer's bound goes out in parts, each whole in the file, in order. */
  @Test
  void aChunkLargerThanTheBufferIsWrittenInParts() throws Exception {
    Path file = dir.resolve("audit.log");
    RollingFileSink sink = new RollingFileSink(context(file, "1g", 1, "none"), new RecordingChannels(),
        new ManualClock());
    byte[] big = records(5 * 1024 * 1024 + 17);
    SinkFixtures.write(sink, "one\n");
    sink.write(ByteBuffer.wrap(big));
    SinkFixtures.write(sink, "two\n");
    sink.close();
    assertArrayEquals(concat("one\n".getBytes(StandardCharsets.US_ASCII), big, "two\n".getBytes(StandardCharsets.US_ASCII)),
        Files.readAllBytes(file));
  }

  /**
   * A disk that fills in the second part of a chunk: the whole chunk, the first part with it, is taken back out
   * of the file, and the retried chunk follows whole records.
   */
  @Test
  void aFailureInALaterPartTakesTheWholeChunkBack() throws Exception {
    RecordingChannels channels = new RecordingChannels();
    Path file = dir.resolve("audit.log");
    RollingFileSink sink = new RollingFileSink(context(file, "1g", 1, "none"), channels, new ManualClock());
    SinkFixtures.write(sink, "one\n");
    byte[] big = records(5 * 1024 * 1024);
    channels.failWriteAfterWrites = 1;
    channels.failWriteAfter = 1000;
    ByteBuffer chunk = ByteBuffer.wrap(big);
    IOException e = assertThrows(IOException.class, () -> sink.write(chunk));
    assertEquals("injected: no space left on device after 1000 bytes", e.getMessage());
    assertEquals(4, Files.size(file), "the first part and the 1000 bytes of the second are gone");
    sink.write(ByteBuffer.wrap(big)); // the writer's retry of the same chunk
    sink.close();
    assertArrayEquals(concat("one\n".getBytes(StandardCharsets.US_ASCII), big), Files.readAllBytes(file));
  }

  /** Lines of 100 bytes ("0000001 xxx...\n"), {@code bytes} in all, the last line shorter. */
  private static byte[] records(int bytes) {
    byte[] b = new byte[bytes];
    for (int i = 0; i < bytes; i++) {
      b[i] = (byte) (i % 100 == 99 || i == bytes - 1 ? '\n' : 'a' + (i / 100) % 26);
    }
    return b;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      all.write(p, 0, p.length);
    }
    return all.toByteArray();
  }

  /** Bytes in the JVM's direct buffers, which include the JDK's per-thread copies for heap-buffer I/O. */
  private static long directBytes() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    throw new AssertionError("no direct buffer pool");
  }
}
