package io.nnaudit.kafka;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import io.nnaudit.MkdirsLoad;

/**
 * A steady load that goes on through faults: client threads, each with a {@link FileSystem} of its own (the
 * fail-fast client of {@link MkdirsLoad}), calling {@code mkdirs} on unique paths with a pause after each call,
 * and counting the calls that succeeded and those that failed (an operation answered with an error, a call that
 * timed out) without stopping at a failure.
 */
final class PacedMkdirs implements AutoCloseable {
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong acked = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile boolean stopping;

  PacedMkdirs(URI uri, int clients, long pauseMs) {
    for (int c = 0; c < clients; c++) {
      final int id = c;
      threads.add(new Thread(() -> run(uri, id, pauseMs), "paced-mkdirs-" + id));
    }
    threads.forEach(Thread::start);
  }

  long acked() {
    return acked.get();
  }

  long failed() {
    return failed.get();
  }

  private void run(URI uri, int id, long pauseMs) {
    try (FileSystem fs = FileSystem.newInstance(uri, MkdirsLoad.failFastClientConf())) {
      for (int i = 0; !stopping; i++) {
        try {
          fs.mkdirs(new Path("/paced/c" + id + "/d" + i));
          acked.incrementAndGet();
        } catch (java.io.IOException e) {
          failed.incrementAndGet();
        }
        Thread.sleep(pauseMs); // the pace of the load
      }
    } catch (Exception e) {
      failed.incrementAndGet();
    }
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    for (Thread t : threads) {
      t.join(60_000);
    }
  }
}
