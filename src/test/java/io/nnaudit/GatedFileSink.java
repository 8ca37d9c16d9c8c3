package io.nnaudit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import io.nnaudit.sink.RollingFileSink;

/**
 * The real file sink with test hooks in front of each write: an optional delay (a slow disk), an optional gate
 * that holds writes until the test opens it (a stalled disk), and a record of every write's size in records.
 * Configured with {@code nnaudit.sink.class}; its state is static because FSNamesystem creates the logger.
 */
public class GatedFileSink extends RollingFileSink {
  static volatile long delayMillis;
  static volatile Semaphore gate;
  static final AtomicInteger writersWaiting = new AtomicInteger();
  /** The next this-many writes fail with an IOException, as a full or broken disk would. */
  static final AtomicInteger failNextWrites = new AtomicInteger();
  /** Records (newline-terminated lines) in each write call, in order. */
  static final List<Integer> recordsPerWrite = new CopyOnWriteArrayList<>();

  public GatedFileSink(NnauditSettings settings) {
    super(settings);
  }

  static void reset() {
    delayMillis = 0;
    gate = null;
    writersWaiting.set(0);
    failNextWrites.set(0);
    recordsPerWrite.clear();
  }

  /** Makes every later write wait until {@link #resume} is called. */
  static void stall() {
    gate = new Semaphore(0);
  }

  static void resume() {
    Semaphore g = gate;
    gate = null;
    if (g != null) {
      g.release(Integer.MAX_VALUE / 2);
    }
  }

  @Override
  public void write(ByteBuffer batch) throws IOException {
    Semaphore g = gate;
    if (g != null) {
      writersWaiting.incrementAndGet();
      try {
        g.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        writersWaiting.decrementAndGet();
      }
    }
    long d = delayMillis;
    if (d > 0) {
      try {
        Thread.sleep(d);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (failNextWrites.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
      throw new IOException("injected write failure");
    }
    int lines = 0;
    for (int i = batch.position(); i < batch.limit(); i++) {
      if (batch.get(i) == '\n') {
        lines++;
      }
    }
    recordsPerWrite.add(lines);
    super.write(batch);
  }
}
