package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.context;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many threads take turns writing one file, as the NameNode's handlers do when they lead writes: the native
 * memory the writes leave behind is the sink's one buffer, not a copy kept by each thread that wrote.
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
    // The sink's own buffer grows to the largest chunk (at most 2 MiB); a copy per thread would be 6 MiB here.
    assertTrue(grown <= 2 * 1024 * 1024,
        "native memory grew by " + grown + " bytes for " + THREADS + " threads writing " + CHUNK + " bytes each");
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
