package io.nnaudit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import io.nnaudit.sink.RollingFileSink;
import io.nnaudit.sink.SinkContext;

/**
 * The real file sink with test hooks in front of each write: an optional delay (a slow disk), an optional gate
 * that holds writes until the test opens it (a stalled disk), and a record of every write's size in records.
 * Configured with {@code nnaudit.sink}; its state is static because it is created by class name, in
 * MiniDFSCluster's FSNamesystem and in child JVMs. A test that creates its logger itself can give it sinks
 * with state of their own instead, through {@code new QueuedAuditLogger(SinkFactory)} (see GivenSinkTest).
 */
public class GatedFileSink extends RollingFileSink {
  static volatile long delayMillis;
  static volatile Semaphore gate;
  static final AtomicInteger writersWaiting = new AtomicInteger();
  /** Holds every fsync (after the write went through) until {@link #resumeForces}. */
  static volatile Semaphore forceGate;
  static final AtomicInteger forcersWaiting = new AtomicInteger();
  /** The next this-many writes fail with an IOException, as a full or broken disk would. */
  static final AtomicInteger failNextWrites = new AtomicInteger();
  /** The next this-many fsyncs fail with an IOException. */
  static final AtomicInteger failNextForces = new AtomicInteger();
  /** Added to every fsync, as a slow disk's. */
  static volatile long forceDelayMillis;
  static final AtomicInteger forces = new AtomicInteger();
  /** src values of records written but not yet fsynced, and of records fsynced. */
  static final Set<String> writtenSrcs = ConcurrentHashMap.newKeySet();
  static final Set<String> forcedSrcs = ConcurrentHashMap.newKeySet();
  /** Records (newline-terminated lines) in each write call, in order. */
  static final List<Integer> recordsPerWrite = new CopyOnWriteArrayList<>();

  public GatedFileSink(SinkContext context) {
    super(context);
  }

  static void reset() {
    delayMillis = 0;
    gate = null;
    writersWaiting.set(0);
    forceGate = null;
    forcersWaiting.set(0);
    failNextWrites.set(0);
    failNextForces.set(0);
    forceDelayMillis = 0;
    forces.set(0);
    writtenSrcs.clear();
    forcedSrcs.clear();
    recordsPerWrite.clear();
  }

  /** Makes every later write wait until {@link #resume} is called. */
  static void stall() {
    gate = new Semaphore(0);
  }

  static void resume() {
    Semaphore g = gate;
    gate = null;
    if (g != null) {
      g.release(Integer.MAX_VALUE / 2);
    }
  }

  /** Opens the write and the fsync gates, so that no writer stays stalled after a test. */
  static void openGates() {
    resume();
    resumeForces();
  }

  /** Makes every later fsync wait until {@link #resumeForces} is called. */
  static void stallForces() {
    forceGate = new Semaphore(0);
  }

  static void resumeForces() {
    Semaphore g = forceGate;
    forceGate = null;
    if (g != null) {
      g.release(Integer.MAX_VALUE / 2);
    }
  }

  /** Waits at {@code g} (if a gate is set), counted in {@code waiting} meanwhile. */
  private static void pass(Semaphore g, AtomicInteger waiting) {
    if (g == null) {
      return;
    }
    waiting.incrementAndGet();
    try {
      g.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      waiting.decrementAndGet();
    }
  }

  /** A slow disk, as the test asked: a pace for the fault, not a wait for a result. */
  private static void slowDisk(long millis) {
    if (millis > 0) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void write(ByteBuffer batch) throws IOException {
    pass(gate, writersWaiting);
    slowDisk(delayMillis);
    if (failNextWrites.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
      throw new IOException("injected write failure");
    }
    int lines = 0;
    for (int i = batch.position(); i < batch.limit(); i++) {
      if (batch.get(i) == '\n') {
        lines++;
      }
    }
    recordsPerWrite.add(lines);
    String text = StandardCharsets.UTF_8.decode(batch.duplicate()).toString();
    super.write(batch);
    for (String line : text.split("\n")) {
      int at = line.indexOf("\tsrc=");
      if (at >= 0) {
        int end = line.indexOf('\t', at + 5);
        writtenSrcs.add(line.substring(at + 5, end < 0 ? line.length() : end));
      }
    }
  }

  @Override
  public void force() throws IOException {
    pass(forceGate, forcersWaiting);
    slowDisk(forceDelayMillis);
    if (failNextForces.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
      throw new IOException("injected fsync failure");
    }
    Set<String> covered = new HashSet<>(writtenSrcs);
    super.force();
    forcedSrcs.addAll(covered);
    forces.incrementAndGet();
  }
}
