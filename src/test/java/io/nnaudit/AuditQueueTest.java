package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/**
 * The lock-free queue on its own: its bound, its order, that nothing is lost or taken twice under contention,
 * and that both of its waits (a BLOCK handler's for space, the writer's for an event) are woken by the other
 * side rather than by their timeouts. The pipeline's tests cover it again behind the logger.
 */
class AuditQueueTest {
  private static final long LONG_WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static AuditEvent event(int producer, int seq) {
    return new AuditEvent(seq, true, "p" + producer, null, "create", "/f", null, false, null, null, null, null,
        null, null);
  }

  @Test
  void holdsExactlyItsCapacityEvenWhenThatIsNotAPowerOfTwo() {
    AuditQueue q = new AuditQueue(3);
    AuditEvent[] e = {event(0, 0), event(0, 1), event(0, 2), event(0, 3), event(0, 4)};
    assertTrue(q.offer(e[0]));
    assertTrue(q.offer(e[1]));
    assertTrue(q.offer(e[2]));
    assertFalse(q.offer(e[3]), "a full queue refuses at once");
    assertEquals(3, q.size());

    List<AuditEvent> out = new ArrayList<>();
    assertEquals(2, q.drainTo(out, 2));
    assertTrue(q.offer(e[3]));
    assertTrue(q.offer(e[4]));
    assertFalse(q.offer(event(0, 5)));
    assertEquals(3, q.drainTo(out, 100));
    assertTrue(q.isEmpty());
    assertEquals(0, q.drainTo(out, 100));
    for (int i = 0; i < e.length; i++) {
      assertSame(e[i], out.get(i), "events leave in the order they entered");
    }
  }

  @Test
  void manyProducersLoseNothingDuplicateNothingAndKeepEachProducersOrder() throws Exception {
    int producers = 8;
    int perProducer = 50_000;
    AuditQueue q = new AuditQueue(37);
    List<Thread> threads = new ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int p = 0; p < producers; p++) {
      int id = p;
      Thread t = new Thread(() -> {
        try {
          for (int i = 0; i < perProducer; i++) {
            AuditEvent e = event(id, i);
            if (!q.offer(e)) {
              assertTrue(q.offerWaiting(e, LONG_WAIT_NANOS), "space within a minute");
            }
          }
        } catch (Throwable x) {
          failure.compareAndSet(null, x);
        }
      });
      threads.add(t);
      t.start();
    }
    int[] next = new int[producers];
    long taken = 0;
    List<AuditEvent> batch = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (taken < (long) producers * perProducer && System.nanoTime() < deadline) {
      if (!q.awaitNotEmpty(TimeUnit.MILLISECONDS.toNanos(50))) {
        continue;
      }
      batch.clear();
      int n = q.drainTo(batch, 16);
      assertTrue(n >= 1 && n <= 16 && n == batch.size(), "a drain after a non-empty wait takes 1..max");
      for (AuditEvent e : batch) {
        int p = Integer.parseInt(e.ugi.substring(1));
        assertEquals(next[p], e.timeMillis, "producer " + p + "'s events in order, none twice, none missing");
        next[p]++;
      }
      taken += n;
    }
    for (Thread t : threads) {
      t.join(TimeUnit.MINUTES.toMillis(1));
    }
    if (failure.get() != null) {
      throw new AssertionError("a producer failed", failure.get());
    }
    assertEquals((long) producers * perProducer, taken);
    for (int p = 0; p < producers; p++) {
      assertEquals(perProducer, next[p]);
    }
    assertTrue(q.isEmpty());
  }

  @Test
  void aBlockedProducerIsWokenByTheDrainNotByItsTimeout() throws Exception {
    AuditQueue q = new AuditQueue(1);
    assertTrue(q.offer(event(0, 0)));
    AuditEvent waiting = event(0, 1);
    CountDownLatch started = new CountDownLatch(1);
    boolean[] result = new boolean[1];
    Thread producer = new Thread(() -> {
      started.countDown();
      try {
        result[0] = q.offerWaiting(waiting, LONG_WAIT_NANOS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    producer.start();
    started.await();
    awaitState(producer, Thread.State.WAITING, Thread.State.TIMED_WAITING);
    assertEquals(1, q.drainTo(new ArrayList<>(), 10));
    producer.join(TimeUnit.SECONDS.toMillis(30)); // far less than its 60 s wait: only the signal ends it
    assertFalse(producer.isAlive(), "the drain's signal woke the waiting producer");
    assertTrue(result[0]);
    List<AuditEvent> out = new ArrayList<>();
    q.drainTo(out, 10);
    assertSame(waiting, out.get(0));
  }

  @Test
  void aTimedOutWaitReportsNoSpaceAndLeavesTheQueueAsItWas() throws Exception {
    AuditQueue q = new AuditQueue(1);
    assertTrue(q.offer(event(0, 0)));
    assertFalse(q.offerWaiting(event(0, 1), TimeUnit.MILLISECONDS.toNanos(20)));
    assertEquals(1, q.size());
  }

  @Test
  void anIdleWriterIsWokenByAnOfferNotByItsTimeout() throws Exception {
    AuditQueue q = new AuditQueue(4);
    boolean[] woke = new boolean[1];
    Thread writer = new Thread(() -> woke[0] = q.awaitNotEmpty(LONG_WAIT_NANOS));
    writer.start();
    awaitState(writer, Thread.State.TIMED_WAITING);
    assertTrue(q.offer(event(0, 0)));
    writer.join(TimeUnit.SECONDS.toMillis(30));
    assertFalse(writer.isAlive(), "the offer unparked the idle writer");
    assertTrue(woke[0]);
  }

  @Test
  void theWritersIdleWaitClearsAnInterruptSoItCannotReachTheFileChannel() {
    AuditQueue q = new AuditQueue(4);
    Thread.currentThread().interrupt();
    assertFalse(q.awaitNotEmpty(TimeUnit.MILLISECONDS.toNanos(1)));
    assertFalse(Thread.currentThread().isInterrupted());
  }

  private static void awaitState(Thread t, Thread.State... states) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      for (Thread.State s : states) {
        if (t.getState() == s) {
          return;
        }
      }
      Thread.sleep(1);
    }
    throw new AssertionError(t + " never reached " + java.util.Arrays.toString(states));
  }
}
