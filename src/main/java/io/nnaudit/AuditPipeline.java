package io.nnaudit;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import io.nnaudit.NnauditSettings.RecordFormat;
import io.nnaudit.format.AuditRecordFormatter;
import io.nnaudit.format.JsonRecordFormatter;
import io.nnaudit.sink.AuditSink;
import org.apache.hadoop.util.ShutdownHookManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One audit destination: a bounded queue, the writer thread that drains it, and the sink it writes to.
 *
 * <p>Design note. Handlers call {@link #offer}: a non-blocking {@code ArrayBlockingQueue.offer} first, which
 * is all that happens while the writer keeps up. When the queue is full:
 * <ul>
 * <li>BLOCK: the handler waits for space in timed waits. It waits as long as the writer is alive and the
 * pipeline is open; an interrupt does not end the wait (the flag is restored afterwards), because giving up
 * would lose the event. Only a closed pipeline or a dead writer ends the wait, and the event is then counted
 * as dropped.</li>
 * <li>DROP: the handler returns at once; the drop is counted exactly, logged at WARN (rate-limited) and
 * reported in the audit stream by {@link DropTracker}.</li>
 * </ul>
 * A handler that finds the queue full also unparks the writer, ending its linger (see {@link AuditWriter}).
 * Under durability=sync the handler unparks the writer after every offer and does not wait: its RPC response
 * is postponed until the fsync (see {@link SyncTicket}). Nothing else on the handler path takes a lock or
 * allocates beyond the event itself. What happens when the disk fails is the writer's business
 * ({@link BatchCommitter}): under fail-closed the queue backs up and BLOCK handlers wait, as above.
 *
 * <p>Shutdown order, in {@link #close}: (1) refuse new events (they are counted as dropped); (2) wait for
 * handlers already inside {@code offer} to finish; (3) the writer, seeing the pipeline closed, quiet and
 * empty, writes what is left, closes the sink and ends; (4) wait for it, up to the timeout. A JVM shutdown
 * hook registered with Hadoop's {@link ShutdownHookManager} runs the same close, bounded by
 * {@code nnaudit.shutdown.timeout.ms}.
 */
public final class AuditPipeline {
  private static final Logger LOG = LoggerFactory.getLogger(AuditPipeline.class);
  /** Runs before Hadoop's SHUTDOWN_MSG hook (priority 0), after the FileSystem cache's (10). */
  static final int SHUTDOWN_HOOK_PRIORITY = 1;
  private static final long BLOCK_WAIT_SLICE_MS = 10;

  private final NnauditSettings settings;
  private final ArrayBlockingQueue<AuditEvent> queue;
  private final DropTracker drops;
  private final AuditWriter writer;
  private final WriterMetrics metrics;
  private final Thread writerThread;
  private final Runnable shutdownHook;
  private final LongAdder accepted = new LongAdder();
  private final LongAdder captureFailed = new LongAdder();
  private final LongAdder blockedWaits = new LongAdder();
  private final LongAdder blockedWaitNanos = new LongAdder();
  private volatile NnauditMetricsSource metricsSource;
  private final AtomicInteger handlersInside = new AtomicInteger();
  private volatile boolean closed;
  /** Closed and out of time: the writer stops retrying a failing sink and ends. */
  private volatile boolean abandoned;

  private AuditPipeline(NnauditSettings settings, AuditSink sink) {
    this.settings = settings;
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.drops = new DropTracker(settings.dropWarnIntervalMs(), LOG, settings.file().getPath());
    this.metrics = new WriterMetrics(settings.percentileIntervals());
    this.writer = new AuditWriter(this, queue, sink, settings.recordFormat() == RecordFormat.JSON
        ? new JsonRecordFormatter(settings) : new AuditRecordFormatter(settings), drops, settings, metrics);
    this.writerThread = new Thread(writer, "nnaudit-writer[" + settings.file().getName() + "]");
    this.writerThread.setDaemon(true);
    this.shutdownHook = () -> close(settings.shutdownTimeoutMs());
  }

  /** Opens the sink (failing with a message naming the key) and starts the writer thread. */
  static AuditPipeline start(NnauditSettings settings) {
    AuditPipeline p = new AuditPipeline(settings, openSink(settings));
    p.writerThread.start();
    p.metricsSource = NnauditMetricsSource.register(p);
    ShutdownHookManager.get().addShutdownHook(p.shutdownHook, SHUTDOWN_HOOK_PRIORITY,
        settings.shutdownTimeoutMs() + 1000, TimeUnit.MILLISECONDS);
    LOG.info("nnaudit: started audit pipeline ({})", settings);
    String weakened = settings.weakenedSyncGuarantee();
    if (weakened != null) {
      LOG.warn("nnaudit: durability=sync is weakened: {}; such operations are acknowledged without a durable "
          + "record (they are counted as dropped)", weakened);
    }
    return p;
  }

  private static AuditSink openSink(NnauditSettings settings) {
    String name = settings.sinkClass();
    String allowed = "file, log4j2, or the name of a class implementing " + AuditSink.class.getName()
        + " with a public constructor taking " + NnauditSettings.class.getName();
    Class<?> cls;
    try {
      cls = Class.forName(name, true, AuditPipeline.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw sinkUnavailable(name, allowed, e);
    }
    return instantiate(cls, settings, name, allowed);
  }

  private static IllegalArgumentException sinkUnavailable(String name, String allowed, Throwable e) {
    if (name.equals("io.nnaudit.sink.Log4j2Sink")) {
      return ConfigCheck.invalid(NnauditConfigKeys.SINK_KEY, "log4j2", "log4j2 only when log4j-api and log4j-core "
          + "are on the NameNode's classpath (copy both jars to share/hadoop/hdfs/lib or add them to "
          + "HADOOP_CLASSPATH); they are missing: " + e, e);
    }
    return ConfigCheck.invalid(NnauditConfigKeys.SINK_KEY, name, allowed, e);
  }

  private static AuditSink instantiate(Class<?> cls, NnauditSettings settings, String name, String allowed) {
    if (!AuditSink.class.isAssignableFrom(cls)) {
      throw ConfigCheck.invalid(NnauditConfigKeys.SINK_KEY, name, allowed);
    }
    try {
      Constructor<?> c = cls.getConstructor(NnauditSettings.class);
      return (AuditSink) c.newInstance(settings);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IllegalArgumentException) {
        throw (IllegalArgumentException) cause; // the sink's own message names its key
      }
      throw ConfigCheck.invalid(NnauditConfigKeys.SINK_KEY, name, allowed + "; its constructor failed: "
          + cause, cause);
    } catch (ReflectiveOperationException | LinkageError e) {
      throw sinkUnavailable(name, allowed, e);
    }
  }

  /** What became of an offered event. */
  enum Offer {
    ACCEPTED,
    /** Dropped by the DROP policy (or a BLOCK wait ended by close); already counted. */
    DROPPED,
    /** The pipeline was closed before the event entered; not counted, the caller decides. */
    CLOSED
  }

  /** Hands one event to the writer, by the overflow policy. Never throws. */
  Offer offer(AuditEvent e) {
    handlersInside.incrementAndGet();
    try {
      if (closed) {
        return Offer.CLOSED;
      }
      if (queue.offer(e)) {
        accepted.increment();
        if (e.ticket != null) {
          LockSupport.unpark(writerThread); // sync: this handler waits for the writer, so wake it now
        }
        return Offer.ACCEPTED;
      }
      LockSupport.unpark(writerThread); // the queue is full: end the writer's linger
      if (settings.overflowPolicy() == OverflowPolicy.DROP) {
        drops.onDrop(e.timeMillis, "queue full, policy DROP");
        return Offer.DROPPED;
      }
      return offerBlocking(e);
    } finally {
      handlersInside.decrementAndGet();
    }
  }

  private Offer offerBlocking(AuditEvent e) {
    blockedWaits.increment();
    long start = System.nanoTime();
    boolean interrupted = false;
    try {
      while (true) {
        try {
          if (queue.offer(e, BLOCK_WAIT_SLICE_MS, TimeUnit.MILLISECONDS)) {
            accepted.increment();
            return Offer.ACCEPTED;
          }
        } catch (InterruptedException ie) {
          interrupted = true; // keep waiting: BLOCK loses nothing
        }
        if (closed || !writerThread.isAlive()) {
          drops.onDrop(e.timeMillis, closed ? "the audit pipeline closed while the handler waited"
              : "the writer thread is not running");
          return Offer.DROPPED;
        }
      }
    } finally {
      blockedWaitNanos.add(System.nanoTime() - start);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  long blockedWaitNanos() {
    return blockedWaitNanos.sum();
  }

  /** The metrics2 source name of this pipeline (as in /jmx), or null when metrics could not be registered. */
  public String metricsSourceName() {
    NnauditMetricsSource s = metricsSource;
    return s == null ? null : s.name();
  }

  /** Counts an event that arrived after close (see {@link Offer#CLOSED}) as dropped. */
  void dropClosed(AuditEvent e) {
    drops.onDrop(e.timeMillis, "the audit pipeline is closed");
  }

  void countCaptureFailure() {
    captureFailed.increment();
  }

  boolean writerAlive() {
    return writerThread.isAlive();
  }

  boolean isAbandoned() {
    return abandoned;
  }

  WriterMetrics writerMetrics() {
    return metrics;
  }

  /** True once closed and no handler is still inside {@link #offer}: nothing more can enter the queue. */
  boolean isQuiescent() {
    return closed && handlersInside.get() == 0;
  }

  boolean isOpen() {
    return !closed;
  }

  NnauditSettings settings() {
    return settings;
  }

  /**
   * Waits until every event accepted before this call has been written (or has failed), up to the timeout.
   * Returns whether it got there.
   */
  public boolean awaitWritten(long timeoutMs) throws InterruptedException {
    long target = accepted.sum();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (metrics.written + metrics.writeFailed + drops.droppedAfterAcceptance() < target) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  /**
   * Stops taking events, drains what was accepted into the sink and closes it; idempotent. Returns true when
   * the writer finished within {@code timeoutMs}.
   */
  public boolean close(long timeoutMs) {
    synchronized (this) {
      if (closed) {
        return joinWriter(timeoutMs);
      }
      closed = true;
    }
    LockSupport.unpark(writerThread);
    try {
      ShutdownHookManager.get().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shutdownInProgress) {
      // We are the hook, or the JVM is already running hooks: nothing to remove.
    }
    boolean done = joinWriter(timeoutMs);
    NnauditMetricsSource source = metricsSource;
    if (source != null) {
      source.unregister();
    }
    if (!done) {
      abandoned = true; // a failing sink is no longer retried; the writer ends
    }
    if (done) {
      LOG.info("nnaudit: closed audit pipeline for {}: {}", settings.file(), stats());
    } else {
      LOG.error("nnaudit: the audit writer for {} did not finish within {} ms; {} accepted events are not yet "
          + "written: {}", settings.file(), timeoutMs, queue.size(), stats());
    }
    return done;
  }

  private boolean joinWriter(long timeoutMs) {
    try {
      writerThread.join(Math.max(1, timeoutMs));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !writerThread.isAlive();
  }

  public AuditStats stats() {
    return new AuditStats(accepted.sum(), drops.total(), metrics.written, captureFailed.sum(),
        metrics.writeFailed, blockedWaits.sum(), queue.size(), settings.queueCapacity(), metrics.batches,
        metrics.sinkErrors, drops.droppedAfterAcceptance());
  }
}
