package io.nnaudit;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Waits for a condition that another thread makes true, failing with what was awaited at the time limit. */
public final class Eventually {
  private static final long POLL_MS = 5;

  private Eventually() {
  }

  public static void await(String what, long timeoutMs, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline >= 0) {
        fail("not true after " + timeoutMs + " ms: " + what);
      }
      Thread.sleep(POLL_MS);
    }
  }
}
