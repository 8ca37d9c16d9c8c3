package io.nnaudit.throttle;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The gate opens the first time, then once per interval; opening it by force starts the interval again. */
class IntervalGateTest {
  @Test
  void opensOncePerInterval() {
    IntervalGate gate = new IntervalGate(1000);
    assertTrue(gate.tryOpen(0), "the first time");
    assertFalse(gate.tryOpen(999));
    assertTrue(gate.tryOpen(1000));
    gate.open(1500);
    assertFalse(gate.tryOpen(2000), "forced at 1500: the interval starts there");
    assertTrue(gate.tryOpen(2500));
  }
}
