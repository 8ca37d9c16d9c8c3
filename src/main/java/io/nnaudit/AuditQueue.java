package io.nnaudit;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The bounded queue between the RPC handlers (many producers) and the writer (the one consumer), with no
 * lock on a handler's way in.
 *
 * <p>Design note. Why not {@code ArrayBlockingQueue}: its one lock is taken by every handler's offer and by
 * the writer's drain. With many handlers on few cores, a handler preempted while it holds the lock makes the
 * others park on it (perf on a NameNode with 16 handlers on one core: futex wake-ups and AQS acquires that
 * the noop logger does not have). Here a handler claims a slot with one CAS on {@code tail} and then stores
 * its event into the slot; nobody ever waits for a lock holder.
 * <ul>
 * <li>Bounded: a handler claims slot {@code t} only while {@code t - head < capacity}, so the queue never
 * holds more than its capacity; {@link #offer} returns false when it is full. It never blocks.</li>
 * <li>Blocks: only {@link #offerWaiting} (the BLOCK policy's slow path), on one condition, for at most the
 * given time. It registers as a waiter before it tries once more, and the writer, after moving {@code head},
 * signals only when a waiter is registered: a full queue is noticed by one side or the other, never by
 * neither, and a handler on the fast path pays nothing for it.</li>
 * <li>The writer's idle wait ({@link #awaitNotEmpty}) publishes the writer thread, checks again, and parks;
 * an offer unparks it only when it is published. So while events flow, an offer wakes nobody.</li>
 * <li>A slot claimed but not yet filled (its handler was preempted between the CAS and the store) is waited
 * for by the writer, which yields until it appears: events leave in the order they claimed slots.</li>
 * <li>Drops nothing: every accepted event is taken by {@link #drainTo} exactly once.</li>
 * </ul>
 * Shutdown is the pipeline's: once no handler can offer, the writer drains until {@link #isEmpty}, which
 * counts claimed slots as well, so an event still being stored is not left behind.
 */
final class AuditQueue {
  private final int capacity;
  private final int mask;
  private final AtomicReferenceArray<AuditEvent> slots;
  /** The next slot a handler claims; handlers advance it by CAS. */
  private final AtomicLong tail = new AtomicLong();
  /** The next slot the writer takes; only the writer writes it, once per drain. */
  private volatile long head;
  /** The writer while it is in its idle wait, else null. */
  private volatile Thread idleWriter;
  private final ReentrantLock fullLock = new ReentrantLock();
  private final Condition notFull = fullLock.newCondition();
  /** Handlers inside {@link #offerWaiting}; changed only under {@link #fullLock}. */
  private volatile int fullWaiters;

  AuditQueue(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity " + capacity);
    }
    this.capacity = capacity;
    int length = Integer.highestOneBit(capacity);
    if (length < capacity) {
      length <<= 1;
    }
    this.mask = length - 1;
    this.slots = new AtomicReferenceArray<>(length);
  }

  /** Handler: adds the event unless the queue is full. Never blocks. */
  boolean offer(AuditEvent e) {
    long t;
    do {
      t = tail.get();
      if (t - head >= capacity) {
        return false;
      }
    } while (!tail.compareAndSet(t, t + 1));
    slots.lazySet((int) t & mask, e);
    Thread idle = idleWriter; // read after the CAS: see awaitNotEmpty
    if (idle != null) {
      LockSupport.unpark(idle);
    }
    return true;
  }

  /**
   * Handler, BLOCK policy: adds the event, waiting up to {@code nanos} for space. Returns false when there
   * was still no space at the end of the wait.
   */
  boolean offerWaiting(AuditEvent e, long nanos) throws InterruptedException {
    fullLock.lock();
    try {
      fullWaiters++; // registered before the retry: the writer's signal cannot fall between the two
      try {
        long left = nanos;
        while (true) {
          if (offer(e)) {
            return true;
          }
          if (left <= 0) {
            return false;
          }
          left = notFull.awaitNanos(left);
        }
      } finally {
        fullWaiters--;
      }
    } finally {
      fullLock.unlock();
    }
  }

  /**
   * Writer: waits up to {@code nanos} until the queue holds something (or the writer is unparked). Returns
   * whether it does. Clears the writer's interrupt flag, which must not reach the sink's file channel.
   */
  boolean awaitNotEmpty(long nanos) {
    if (!isEmpty()) {
      return true;
    }
    idleWriter = Thread.currentThread();
    try {
      if (!isEmpty()) { // published first, checked second: an offer in between sees us and unparks us
        return true;
      }
      LockSupport.parkNanos(this, nanos);
      Thread.interrupted();
      return !isEmpty();
    } finally {
      idleWriter = null;
    }
  }

  /**
   * Writer: moves up to {@code max} events, in order, into {@code to}; returns how many. Waits only for a
   * first slot that is claimed but not yet filled; stops before any later one.
   */
  int drainTo(List<AuditEvent> to, int max) {
    long h = head;
    long t = tail.get();
    int n = 0;
    while (n < max && h < t) {
      int i = (int) h & mask;
      AuditEvent e = slots.get(i);
      if (e == null) {
        if (n > 0) {
          break;
        }
        e = awaitFill(i);
      }
      slots.lazySet(i, null); // ordered before the head write below, so a handler never overwrites an event
      to.add(e);
      h++;
      n++;
    }
    if (n > 0) {
      head = h;
      if (fullWaiters > 0) { // read after the head write: see offerWaiting
        fullLock.lock();
        try {
          notFull.signalAll();
        } finally {
          fullLock.unlock();
        }
      }
    }
    return n;
  }

  private AuditEvent awaitFill(int i) {
    for (int spins = 0;; spins++) {
      AuditEvent e = slots.get(i);
      if (e != null) {
        return e;
      }
      if (spins < 100) {
        Thread.yield();
      } else {
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(10));
      }
    }
  }

  /** True when no slot is claimed: nothing queued and nothing being stored. */
  boolean isEmpty() {
    return tail.get() == head;
  }

  /** Events queued (including any still being stored); a snapshot. */
  int size() {
    long h = head;
    return (int) Math.max(0, Math.min(capacity, tail.get() - h));
  }

  int capacity() {
    return capacity;
  }
}
