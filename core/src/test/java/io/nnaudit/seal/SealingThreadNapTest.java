package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** How long the sealing thread naps once it has hashed everything, by the seal interval in time. */
class SealingThreadNapTest {
  private static long napMs(long intervalMs) {
    return TimeUnit.NANOSECONDS.toMillis(SealingThread.napNanos(TimeUnit.MILLISECONDS.toNanos(intervalMs)));
  }

  @Test
  void theDefaultIntervalNapsTheLongest() {
    assertEquals(100, napMs(10_000));
    assertEquals(100, napMs(86_400_000L));
  }

  @Test
  void aShorterIntervalNapsATenthOfIt() {
    assertEquals(50, napMs(500));
    assertEquals(99, napMs(999));
  }

  @Test
  void aVeryShortIntervalNapsNoLessThan20Ms() {
    assertEquals(20, napMs(200));
    assertEquals(20, napMs(1));
  }
}
