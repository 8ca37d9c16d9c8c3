package io.nnaudit.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;

import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * nnaudit's own file sink, whose first write is held until {@link #release}: the writer stops with its first
 * batch, the benchmark fills the queue behind it, and on release the writer drains a full queue. One at a time
 * (static state), which is all {@link DrainCapacity} needs.
 */
public final class HeldFileSink extends RollingFileSink {
  private static volatile CountDownLatch gate = new CountDownLatch(1);
  private static volatile HeldFileSink current;

  public HeldFileSink(SinkContext context) {
    super(context);
    current = this;
  }

  static void hold() {
    gate = new CountDownLatch(1);
  }

  static void release() {
    gate.countDown();
  }

  /** fsync of the file the pipeline writes, from the benchmark thread once the writer has finished. */
  static void forceCurrent() throws IOException {
    current.force();
  }

  @Override
  public void write(ByteBuffer chunk) throws IOException {
    try {
      gate.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while held", e);
    }
    super.write(chunk);
  }
}
