package io.nnaudit.pipeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

/**
 * When a handler leaves its write to a later one, and the writer thread's backstop: with the RPC server's
 * backlog and the queue's size given by the test, and a real writer thread parked and woken.
 */
class LeadDeferralTest {
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean callsWaiting = new AtomicBoolean(true);
  private final AtomicBoolean nearlyFull = new AtomicBoolean();
  private volatile Thread writer;
  private final LeadDeferral deferral = new LeadDeferral(queued::get, nearlyFull::get, callsWaiting::get,
      () -> LockSupport.unpark(writer));

  @Test
  void aHandlerDefersOnlyWhileCallsWaitAndFewEventsAreQueued() {
    queued.set(1);
    callsWaiting.set(false);
    assertFalse(deferral.defers(), "no call waits: the handler writes now");
    callsWaiting.set(true);
    assertTrue(deferral.defers(), "a waiting call's handler will write it");
    queued.set(LeadDeferral.MAX_DEFERRED);
    assertFalse(deferral.defers(), "enough queued for one write: the handler writes now");
    queued.set(1);
    nearlyFull.set(true);
    assertFalse(deferral.defers(), "a queue close to full (a small capacity, or its bytes): the handler writes now");
  }

  @Test
  void eventsLeftBehindByABatchLimitAreDueAtOnce() {
    queued.set(3);
    writer = Thread.currentThread();
    assertTrue(deferral.defers());
    deferral.draining();
    deferral.leftBehind(); // the drain stopped at the batch's limit
    assertFalse(deferral.defers(), "what was left may have waited already: the next handler writes it");
    long start = System.nanoTime();
    deferral.awaitDue(() -> false);
    assertTrue(System.nanoTime() - start < LeadDeferral.MAX_DEFER_NANOS, "the writer waited for events left due");
  }

  @Test
  void theWriterDoesNotWaitForDeferredEventsWhileTheQueueIsNearlyFull() {
    queued.set(1);
    writer = Thread.currentThread();
    assertTrue(deferral.defers());
    nearlyFull.set(true);
    long start = System.nanoTime();
    deferral.awaitDue(() -> false);
    assertTrue(System.nanoTime() - start < LeadDeferral.MAX_DEFER_NANOS, "waited while handlers need room");
  }

  @Test
  void aDeferralOlderThanTheBoundMakesTheNextHandlerWrite() throws Exception {
    queued.set(1);
    assertTrue(deferral.defers());
    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(LeadDeferral.MAX_DEFER_NANOS) + 5);
    queued.set(2);
    assertFalse(deferral.defers(), "the oldest deferred event is due: this handler writes it with its own");
    deferral.draining();
    assertTrue(deferral.defers(), "after the drain a new deferral starts its own clock");
  }

  @Test
  void theWriterWaitsForDeferredEventsUntilTheyAreDueAndNoLonger() {
    queued.set(1);
    writer = Thread.currentThread();
    long start = System.nanoTime();
    assertTrue(deferral.defers());
    deferral.awaitDue(() -> false);
    long waited = System.nanoTime() - start;
    assertTrue(waited >= LeadDeferral.MAX_DEFER_NANOS, "returned before the deferral was due: " + waited + " ns");
    assertTrue(waited < TimeUnit.SECONDS.toNanos(10), "the backstop did not end: " + waited + " ns");
  }

  @Test
  void theWriterDoesNotWaitForWhatIsDrainedOrWhenItMustWrite() {
    queued.set(1);
    writer = Thread.currentThread();
    assertTrue(deferral.defers());
    deferral.draining();
    long start = System.nanoTime();
    deferral.awaitDue(() -> false);
    assertTrue(deferral.defers());
    deferral.awaitDue(() -> true); // events handed back by a failed leader, or a closed pipeline
    assertTrue(System.nanoTime() - start < LeadDeferral.MAX_DEFER_NANOS, "waited for events not deferred");
  }

  @Test
  void aDeferralWakesTheWriterFromItsIdleSleep() throws Exception {
    AtomicBoolean woke = new AtomicBoolean();
    Thread t = new Thread(() -> {
      deferral.idle(TimeUnit.SECONDS.toNanos(60), () -> false);
      woke.set(true);
    });
    writer = t;
    t.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!(deferral.writerIdle() && t.getState() == Thread.State.TIMED_WAITING)) {
      assertTrue(System.nanoTime() < deadline, "the writer never went idle");
      Thread.sleep(1);
    }
    queued.set(1);
    assertTrue(deferral.defers());
    t.join(30_000);
    assertTrue(woke.get(), "the writer slept on through a deferral");
  }

  @Test
  void theWriterDoesNotSleepIdleWhenAnEventIsAlreadyQueued() {
    queued.set(1);
    long start = System.nanoTime();
    deferral.idle(TimeUnit.SECONDS.toNanos(60), () -> false);
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30));
    assertFalse(deferral.writerIdle());
  }
}
