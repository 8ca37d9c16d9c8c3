package io.nnaudit.pipeline;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When a handler leaves its write to a later one, and the writer thread's backstop: with the RPC server's
 * backlog and the queue's size given by the test, and a real writer thread running the backstop's loop as the
 * pipeline's writer does (a turn, here a count, each time {@link LeadDeferral#await} returns).
 */
class LeadDeferralTest {
  private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean callsWaiting = new AtomicBoolean(true);
  private final AtomicBoolean nearlyFull = new AtomicBoolean();
  private final AtomicBoolean mustWriteNow = new AtomicBoolean();
  private final LeadDeferral deferral = new LeadDeferral(queued::get, nearlyFull::get, callsWaiting::get);
  private final AtomicInteger turns = new AtomicInteger();
  private volatile boolean stop;
  private Thread writer;

  @AfterEach
  void stopWriter() throws InterruptedException {
    stop = true;
    if (writer != null) {
      writer.join(30_000);
    }
  }

  /** The writer thread's loop: waits in the backstop, then takes a turn (which writes nothing here). */
  private void startWriter() {
    writer = new Thread(() -> {
      while (!stop) {
        deferral.await(IDLE_NANOS, () -> false, mustWriteNow::get);
        turns.incrementAndGet();
      }
    });
    writer.start();
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, what);
      Thread.sleep(1);
    }
  }

  /** Makes handlers want to defer until the writer ticks. */
  private void tickingWriter() throws InterruptedException {
    startWriter();
    queued.set(1);
    await("the writer to start ticking", () -> {
      boolean deferred = deferral.defers();
      if (deferred) {
        deferral.draining(); // as a leader would: this test's deferral is not kept
      }
      return deferral.ticking();
    });
    queued.set(0); // nothing queued: the ticking writer takes no turn
    deferral.draining();
  }

  @Test
  void whileTheWriterDoesNotTickAHandlerLeadsAndTheWishStartsTheTicking() throws Exception {
    queued.set(1);
    assertFalse(deferral.defers(), "no writer watches: the handler writes");
    tickingWriter();
    assertTrue(deferral.defers(), "the writer ticks: a waiting call's handler will write it, or the writer");
  }

  @Test
  void aHandlerDefersOnlyWhileCallsWaitFewEventsAreQueuedAndTheQueueHasRoom() throws Exception {
    tickingWriter();
    deferral.draining();
    queued.set(1);
    callsWaiting.set(false);
    assertFalse(deferral.defers(), "no call waits: the handler writes now");
    callsWaiting.set(true);
    queued.set(LeadDeferral.MAX_DEFERRED);
    assertFalse(deferral.defers(), "enough queued for one write: the handler writes now");
    queued.set(1);
    nearlyFull.set(true);
    assertFalse(deferral.defers(), "a queue close to full (a small capacity, or its bytes): the handler writes now");
  }

  @Test
  void aDeferralOlderThanTheBoundMakesTheNextHandlerWrite() throws Exception {
    tickingWriter();
    deferral.draining();
    queued.set(1);
    assertTrue(deferral.defers());
    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(LeadDeferral.MAX_DEFER_NANOS) + 5);
    assertFalse(deferral.defers(), "the oldest deferred event is due: this handler writes it with its own");
  }

  @Test
  void theWriterTakesATurnForDeferredEventsOnceDueAndNotBefore() throws Exception {
    tickingWriter();
    long start = System.nanoTime();
    assertTrue(deferral.defers());
    int before = turns.get();
    queued.set(1); // the deferring handler's event, counted once its deferral is set
    await("a turn for the deferred event", () -> turns.get() > before);
    long waited = System.nanoTime() - start;
    assertTrue(waited >= LeadDeferral.MAX_DEFER_NANOS, "a turn before the deferral was due: " + waited + " ns");
  }

  @Test
  void theWriterDoesNotWaitForEventsLeftBehindOrWhenItMustWrite() throws Exception {
    tickingWriter();
    queued.set(3);
    assertTrue(deferral.defers());
    deferral.draining();
    deferral.leftBehind(); // the drain stopped at the batch's limit
    assertFalse(deferral.defers(), "what was left may have waited already: the next handler writes it");
    int before = turns.get();
    await("a turn at once for events left due", () -> turns.get() > before + 10);
    deferral.draining();
    assertTrue(deferral.defers());
    mustWriteNow.set(true); // a closed pipeline
    int then = turns.get();
    await("turns while it must write", () -> turns.get() > then + 10);
  }

  @Test
  void theWriterStopsTickingOnceHandlersNoLongerWantToDeferAndDoesNotSpin() throws Exception {
    tickingWriter();
    deferral.draining();
    queued.set(0);
    await("the writer to stop ticking", () -> !deferral.ticking());
    int before = turns.get();
    Thread.sleep(200);
    // Idle sleeps of 5 ms: about 40 turns in 200 ms, never thousands.
    assertTrue(turns.get() - before < 200, "the idle writer spun: " + (turns.get() - before) + " turns");
  }

  @Test
  void aClosedPipelinesWriterWithNothingQueuedDoesNotSpin() throws Exception {
    tickingWriter();
    deferral.draining();
    queued.set(0);
    mustWriteNow.set(true);
    int before = turns.get();
    Thread.sleep(200);
    assertTrue(turns.get() - before < 400, "the closed writer spun: " + (turns.get() - before) + " turns");
  }
}
