package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

/**
 * The shipper's waits and a stop: whenever the stop is asked for, before the wait is chosen, between the choice and
 * the wait, or during it, the shipper is awake long before the stop's deadline, so that it spends the stop's time
 * shipping, not asleep. The bounds are the waits' own lengths (a poll interval of 30 s against a stop of 10 s),
 * not speed targets.
 */
class StopSignalTest {
  private static final long POLL_MS = 30_000;
  private static final long STOP_MS = 10_000;

  /**
   * An interrupt from outside does not turn the pause into a busy loop: it still sleeps, and the flag is cleared
   * (left set, the shipper's reads of the files and writes of the checkpoint would fail). The bound is on CPU, a
   * tenth of the pause.
   */
  @Test
  void anInterruptedPauseSleepsAndClearsTheFlag() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled(),
        "this JVM measures no thread's CPU time");
    Thread.currentThread().interrupt();
    new StopSignal().pause(1); // its warning starts the logging backend, whose start-up is not the pause's CPU
    Thread.interrupted();
    StopSignal stop = new StopSignal();
    Thread.currentThread().interrupt();
    long cpu0 = threads.getCurrentThreadCpuTime();
    long ms = timed(() -> stop.pause(1000));
    long cpuMs = TimeUnit.NANOSECONDS.toMillis(threads.getCurrentThreadCpuTime() - cpu0);
    assertFalse(Thread.interrupted(), "the interrupt is still set after the pause");
    assertTrue(ms >= 950, "the pause lasted " + ms + " ms of 1000");
    assertTrue(cpuMs < 100, "the pause spent " + cpuMs + " ms of CPU in " + ms + " ms");
  }

  /** The order the shipper's thread and the stopping thread can take that used to sleep through the stop. */
  @Test
  void aStopAskedForJustBeforeTheWaitGetsTheShortWait() {
    StopSignal stop = new StopSignal();
    stop.request(STOP_MS); // between the shipper's look at the stop and its wait: no look of its own decides
    LockSupport.unpark(Thread.currentThread()); // what the stopping thread does after asking
    long ms = timed(() -> stop.pause(POLL_MS, 10));
    assertTrue(ms < STOP_MS / 2, "the wait lasted " + ms + " ms of a " + STOP_MS + " ms stop");
  }

  @Test
  void aStopAskedForDuringTheWaitEndsIt() throws Exception {
    StopSignal stop = new StopSignal();
    Thread shipper = Thread.currentThread();
    Thread stopper = new Thread(() -> {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
      stop.request(STOP_MS);
      LockSupport.unpark(shipper);
    });
    stopper.start();
    long ms = timed(() -> stop.pause(POLL_MS, 10));
    stopper.join();
    assertTrue(ms < STOP_MS / 2, "the wait lasted " + ms + " ms after a stop asked for 200 ms into it");
  }

  @Test
  void whileStoppingAWaitEndsAtTheDeadline() {
    StopSignal stop = new StopSignal();
    stop.request(300);
    long ms = timed(() -> stop.pause(POLL_MS, POLL_MS));
    assertTrue(ms < STOP_MS / 2, "the wait lasted " + ms + " ms past a 300 ms stop's deadline");
    assertTrue(stop.timeIsUp(), "it ended at the deadline");
  }

  private static long timed(Runnable r) {
    long t0 = System.nanoTime();
    r.run();
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }
}
