package io.nnaudit;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.sink.SinkContext;
import io.nnaudit.sink.SinkFactory;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * The real file sink with test hooks in front of each write and fsync: an optional delay (a slow disk), an
 * optional gate that holds writes, or fsyncs, until the test opens it (a stalled disk), injected failures (a
 * full or broken disk), and a record of what was written and fsynced.
 *
 * <p>A test creates one, holds it, and hands its {@link #factory()} to the logger
 * ({@code new QueuedAuditLogger(sink.factory())}; {@link LoggerFixture} does that). Every file sink the factory
 * opens, one per pipeline (a re-initialize that replaces the pipeline opens another), passes through this
 * object's gates and adds to its counters. The factory is the same object on every call, so loggers given it
 * with the same settings share a pipeline, as loggers created by class name do.
 *
 * <p>A NameNode started by MiniDFSCluster creates its logger itself, from the class named in
 * {@code dfs.namenode.audit.loggers}, and that logger opens the sink class {@code nnaudit.sink} names: there is
 * no way to hand it an instance. For it, {@link #installIn} names {@link FileSink} there and registers this
 * object under the configuration's audit file, a path the test owns; the sink constructed by name finds its
 * gate by the file it is opened for. That registry is the only static state, and {@link #uninstall} (which
 * {@link LoggerFixture} calls after each test) empties this object's part of it.
 */
public final class GatedFileSink {
  /** The gates of sinks created by class name, by the absolute audit file they were installed for. */
  private static final Map<File, GatedFileSink> INSTALLED = new ConcurrentHashMap<>();

  private volatile long writeDelayMillis;
  /** Added to every fsync, as a slow disk's. */
  private volatile long forceDelayMillis;
  /** Holds every write until {@link #resume}; null when writes pass. */
  private volatile Semaphore writeGate;
  private final AtomicInteger writersWaiting = new AtomicInteger();
  /** Holds every fsync (after the write went through) until {@link #resumeForces}; null when fsyncs pass. */
  private volatile Semaphore forceGate;
  private final AtomicInteger forcersWaiting = new AtomicInteger();
  /** The next this-many writes fail with an IOException, as a full or broken disk would. */
  private final AtomicInteger failNextWrites = new AtomicInteger();
  /** The next this-many fsyncs fail with an IOException. */
  private final AtomicInteger failNextForces = new AtomicInteger();
  private final AtomicInteger forces = new AtomicInteger();
  /** src values of records written (fsynced or not), and of records fsynced. */
  private final Set<String> writtenSrcs = ConcurrentHashMap.newKeySet();
  private final Set<String> forcedSrcs = ConcurrentHashMap.newKeySet();
  /** Records (newline-terminated lines) in each write call, in order. */
  private final List<Integer> recordsPerWrite = new CopyOnWriteArrayList<>();

  private final SinkFactory factory = SinkFactory.of("gated-file", context -> new FileSink(context, this));

  /** Opens file sinks that pass through this gate: the same factory on every call. */
  public SinkFactory factory() {
    return factory;
  }

  /**
   * For a logger created by class name (a MiniDFSCluster NameNode, a child JVM's): sets {@code nnaudit.sink}
   * in {@code conf} to {@link FileSink} and registers this gate for the audit file {@code conf} names, until
   * {@link #uninstall}. Another gate already installed for that file is an error.
   */
  public void installIn(Configuration conf) {
    File file = new File(conf.get(NnauditConfigKeys.FILE_PATH_KEY)).getAbsoluteFile();
    GatedFileSink other = INSTALLED.putIfAbsent(file, this);
    if (other != null && other != this) {
      throw new IllegalStateException("another GatedFileSink is installed for " + file);
    }
    conf.set(NnauditConfigKeys.SINK_KEY, FileSink.class.getName());
  }

  /** Forgets every audit file this gate was installed for. */
  public void uninstall() {
    INSTALLED.values().removeIf(g -> g == this);
  }

  /** Makes every write take this long first: a slow disk. */
  public void delayWrites(long millis) {
    writeDelayMillis = millis;
  }

  /** Makes every fsync take this long first: a slow disk. */
  public void delayForces(long millis) {
    forceDelayMillis = millis;
  }

  /** Makes every later write wait until {@link #resume} is called. */
  public void stall() {
    writeGate = new Semaphore(0);
  }

  public void resume() {
    writeGate = open(writeGate);
  }

  /** Makes every later fsync wait until {@link #resumeForces} is called. */
  public void stallForces() {
    forceGate = new Semaphore(0);
  }

  public void resumeForces() {
    forceGate = open(forceGate);
  }

  /** Opens the write and the fsync gates, so that no writer stays stalled after a test. */
  public void openGates() {
    resume();
    resumeForces();
  }

  /** Lets everyone waiting at {@code gate} through; returns the gate to set instead: none. */
  private static Semaphore open(Semaphore gate) {
    if (gate != null) {
      gate.release(Integer.MAX_VALUE / 2);
    }
    return null;
  }

  /** Writes now waiting at the write gate. */
  public int writersWaiting() {
    return writersWaiting.get();
  }

  /** fsyncs now waiting at the fsync gate. */
  public int forcersWaiting() {
    return forcersWaiting.get();
  }

  /** The next {@code n} writes fail with an IOException (0: none; it replaces what was still to fail). */
  public void failNextWrites(int n) {
    failNextWrites.set(n);
  }

  /** Writes still to fail of those {@link #failNextWrites} asked for. */
  public int writesStillToFail() {
    return failNextWrites.get();
  }

  /** The next {@code n} fsyncs fail with an IOException. */
  public void failNextForces(int n) {
    failNextForces.set(n);
  }

  /** fsyncs that succeeded. */
  public int forces() {
    return forces.get();
  }

  /** src values of every record written, fsynced or not (a live view). */
  public Set<String> writtenSrcs() {
    return Collections.unmodifiableSet(writtenSrcs);
  }

  /** src values of every record written before an fsync that succeeded (a live view). */
  public Set<String> forcedSrcs() {
    return Collections.unmodifiableSet(forcedSrcs);
  }

  /** Records in each write that reached the file, in order (a live view). */
  public List<Integer> recordsPerWrite() {
    return Collections.unmodifiableList(recordsPerWrite);
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

  private static boolean takeOne(AtomicInteger failures) {
    return failures.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
  }

  /**
   * One file sink behind a {@link GatedFileSink}: the factory's, or one created by class name for a gate
   * {@link #installIn installed} for its audit file.
   */
  public static final class FileSink extends RollingFileSink {
    private final GatedFileSink gate;

    /** By class name ({@code nnaudit.sink}): behind the gate installed for the audit file. */
    public FileSink(SinkContext context) {
      this(context, installedFor(context.file()));
    }

    FileSink(SinkContext context, GatedFileSink gate) {
      super(context);
      this.gate = gate;
    }

    private static GatedFileSink installedFor(File file) {
      GatedFileSink g = INSTALLED.get(file);
      if (g == null) {
        throw new IllegalArgumentException("nnaudit: invalid value for " + NnauditConfigKeys.SINK_KEY + ": "
            + FileSink.class.getName() + ". No GatedFileSink is installed for " + file);
      }
      return g;
    }

    @Override
    public void write(ByteBuffer batch) throws IOException {
      pass(gate.writeGate, gate.writersWaiting);
      slowDisk(gate.writeDelayMillis);
      if (takeOne(gate.failNextWrites)) {
        throw new IOException("injected write failure");
      }
      int lines = 0;
      for (int i = batch.position(); i < batch.limit(); i++) {
        if (batch.get(i) == '\n') {
          lines++;
        }
      }
      gate.recordsPerWrite.add(lines);
      String text = StandardCharsets.UTF_8.decode(batch.duplicate()).toString();
      super.write(batch);
      for (String line : text.split("\n")) {
        int at = line.indexOf("\tsrc=");
        if (at >= 0) {
          int end = line.indexOf('\t', at + 5);
          gate.writtenSrcs.add(line.substring(at + 5, end < 0 ? line.length() : end));
        }
      }
    }

    @Override
    public void force() throws IOException {
      pass(gate.forceGate, gate.forcersWaiting);
      slowDisk(gate.forceDelayMillis);
      if (takeOne(gate.failNextForces)) {
        throw new IOException("injected fsync failure");
      }
      Set<String> covered = new HashSet<>(gate.writtenSrcs);
      super.force();
      gate.forcedSrcs.addAll(covered);
      gate.forces.incrementAndGet();
    }
  }
}
