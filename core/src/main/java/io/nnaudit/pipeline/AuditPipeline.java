package io.nnaudit.pipeline;

import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import javax.management.ObjectName;

import org.apache.hadoop.util.ShutdownHookManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.ack.AckTicket;
import io.nnaudit.config.ConfigSpelling;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.format.HdfsRecordFormatter;
import io.nnaudit.format.JsonRecordFormatter;
import io.nnaudit.format.RecordFormatter;
import io.nnaudit.settings.AckPolicy;
import io.nnaudit.settings.Durability;
import io.nnaudit.settings.NnauditSettings.RecordFormat;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.settings.QueueFullPolicy;
import io.nnaudit.ship.ShipStats;
import io.nnaudit.ship.Shipper;
import io.nnaudit.ship.ShipperContext;
import io.nnaudit.ship.SpoolGuard;
import io.nnaudit.sink.AuditSink;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * One audit destination: a bounded queue, the writer thread that drains it, and the sink it writes to.
 *
 * <p>The walk of one event: {@link io.nnaudit.QueuedAuditLogger#logAuditEvent} captures an immutable {@link AuditEvent}
 * (with an {@link AckTicket} when the operation's acknowledgement waits for its record) and calls
 * {@link #offer}; the {@link AuditWriter} drains the queue in batches, formats them into one buffer and hands
 * it to the {@link BatchCommitter}, which writes it to the {@link AuditSink} with one write call, fsyncs as
 * configured, and completes the batch's tickets (sending the postponed RPC responses). The writer runs on its
 * own thread and, under ack policy write with durability none, BLOCK and a sink that undoes a failed write
 * (the file sink), also on the handler that finds no one writing ({@link #lead}), under {@code writeLock}. Whoever
 * settles an event's fate counts it in {@link AuditMetrics}, read as one snapshot by {@link #stats}.
 *
 * <p>Design note. Handlers call {@link #offer}: a non-blocking {@code ArrayBlockingQueue.offer} first, which
 * is all that happens while the writer keeps up. When the queue is full:
 * <ul>
 * <li>BLOCK: the handler waits for space in timed slices, through interrupts (the flag is restored
 * afterwards), for at most {@code nnaudit.handler.max.wait.ms}. At that bound, or when the writer is gone, the
 * event is {@link Offer#REFUSED}: counted, and the operation's response aborted with an error, never sent as
 * success.</li>
 * <li>DROP: the handler returns at once; the drop is counted exactly, logged at WARN (rate-limited, by the
 * writer, not the handler) and reported in the audit stream by {@link DropTracker}.</li>
 * </ul>
 * A handler that finds the queue full also unparks the writer, ending its linger (see {@link AuditWriter}).
 * Beyond the queue's own lock, a handler takes a lock only to lead a write ({@link #lead}, a
 * {@code tryLock} that never waits) or after the hand-over (below). A leader formats the batch, makes the
 * write(2) and completes the batch's tickets (serializing those responses) while it holds the write lock; the
 * write(2) is the one wait no setting can bound. What happens when the disk fails is the committer's
 * business: under fail-closed the queue backs up and BLOCK handlers wait.
 *
 * <p>Two ways to stop, in this order of events:
 * <ul>
 * <li>At the JVM's exit (SIGTERM), two hooks registered with Hadoop's {@link ShutdownHookManager}, which runs
 * its hooks one after the other, highest priority first. A real NameNode goes on serving RPCs while the hooks
 * run, and the JVM halts when the last has returned, wherever the handlers are. {@link #shutdown} runs before
 * Hadoop's SHUTDOWN_MSG hook: (1) handlers stop queueing and wait for the hand-over; (2) the writer drains
 * everything accepted, writes the last drop report and ends, leaving the sink open; (3) the hook fsyncs
 * (durability other than none), seals and hands the sink over; (4) from then on each handler writes (and under
 * sync fsyncs) its own record and has it sealed, all under {@link #writeLock}, before its operation is
 * acknowledged; it waits for the lock, and retries a refusing disk, for at most
 * {@code nnaudit.handler.max.wait.ms}, after which its operation is answered with an error. If the writer
 * cannot drain within {@code nnaudit.shutdown.timeout.ms}, nothing is handed over and later operations are
 * never acknowledged. {@link #closeAtExit} runs after every other Hadoop hook, SHUTDOWN_MSG's included, so that
 * the JVM halts right after it: (5) it marks the pipeline ended; (6) it waits for the write lock, which no
 * handler holds between its record and its seal, and for the writer thread, should (2) have abandoned it;
 * (7) it fsyncs what is not yet fsynced and closes the sink, which seals whatever is still unsealed (the file
 * sink's CLOSE seal, written even when each record was sealed as it was written), so nothing follows the
 * last seal. A handler that comes after (5) writes nothing: its event is refused, counted, and its operation
 * answered with an error, so every operation acknowledged has its record, and every record its seal. The
 * waits of (6) end at {@code nnaudit.shutdown.timeout.ms}; past it (a handler held in write(2)) the sink stays
 * open and that handler's record may be left unsealed when the JVM halts. SHUTDOWN_MSG's hook shuts log4j
 * down, so the last hook writes its one line to standard error, and the refusals after (5) are counted but
 * not logged.</li>
 * <li>{@link #close}, for a re-initialize that replaces the pipeline and for embedders: (1) refuse new events
 * (the logger follows its slot to the replacement, or refuses the event); (2) wait for handlers already
 * inside {@code offer}; (3) the writer, seeing the pipeline closed, quiet and empty, writes what is left,
 * closes the sink and ends; (4) wait for it, up to the timeout, after which it stops retrying. It removes both
 * hooks, and {@link #closeAtExit} does nothing for a pipeline that never went direct. Called on a pipeline that
 * went direct, it ends the direct writes and closes the sink as (5) to (7) do, within its timeout.</li>
 * </ul>
 * A writer that dies of an error it could not handle switches the pipeline to direct writing in the same way,
 * from (4) on, and at the JVM's exit {@link #closeAtExit} closes its sink as well.
 */
public final class AuditPipeline {
  /*
   * Implementation notes.
   *
   * Who owns what. The final fields are made by the constructor and are thread-safe themselves (each line
   * below says how). sink, writer, writerThread, metricsSource and sealAnchor are written once, by open() under the
   * registry's lock, and read by anyone afterwards (volatile; a handler that offers before open() finds the
   * writer null and leaves its event to the writer thread). The writer's own state (its batch, buffer,
   * committer) belongs to one writing thread at a time: see AuditWriter.
   *
   * Locks. The pipeline's monitor (synchronized (this)) only orders the changes of the lifecycle's flags
   * between close(), shutdown(), closeAtExit(), a dying writer and failUnopened(); nothing waits or takes
   * another lock while holding it. writeLock is the one lock held across I/O: a leader's or a direct writer's
   * write(2) and seal, the hook's last fsync and seal, the last hook's fsync and close. open() runs under the
   * registry's lock, and so does close() when a pipeline is replaced; a handler never takes it.
   *
   * Counting. Each count is made by the thread that settles that part of an event's fate: the handler
   * (accepted, blocked, dropped at the queue, refused, capture failed, refused after the last hook), the
   * writing thread (written, failed, given up under fail-open, tickets aborted, not durable).
   */
  private static final Logger LOG = LoggerFactory.getLogger(AuditPipeline.class);
  /** Runs before Hadoop's SHUTDOWN_MSG hook (priority 0), after the FileSystem cache's (10). */
  static final int SHUTDOWN_HOOK_PRIORITY = 1;
  /**
   * Runs after every other Hadoop hook, SHUTDOWN_MSG's (0) included. Not Integer.MIN_VALUE: Hadoop orders
   * hooks by subtracting priorities, which would overflow and run it first.
   */
  static final int CLOSE_HOOK_PRIORITY = Integer.MIN_VALUE / 2;
  /** What the last hook may take beyond nnaudit.shutdown.timeout.ms: its fsync and the sink's close (a seal). */
  private static final long CLOSE_HOOK_SLACK_MS = 5000;
  private static final long BLOCK_WAIT_SLICE_MS = 10;
  private static final long REFUSAL_LOG_INTERVAL_MS = 10_000;
  /** Why a handler that comes after the last shutdown hook began is refused. */
  private static final String ENDED = "the audit file was closed for good as the NameNode stopped";
  /**
   * What a shipper's stop may take beyond nnaudit.kafka.stop.timeout.ms: a send blocked for the producer's
   * max.block.ms (2 s by default) and the close of its producer.
   */
  private static final long SHIPPER_STOP_SLACK_MS = 5000;
  /** Batches one handler writes in a row before it leaves the rest to the writer thread. */
  static final int LEAD_ROUNDS = 2;

  /** Immutable. */
  private final NnauditSettings settings;
  /** Handlers put (offer), the writing thread takes; the queue's own lock. */
  private final ArrayBlockingQueue<AuditEvent> queue;
  /**
   * Heap held by queued events and the writer's batch in hand; bounded by nnaudit.queue.capacity.bytes.
   * Handlers reserve (CAS), the writing thread gives back once a batch is written.
   */
  private final AtomicLong queuedBytes = new AtomicLong();
  /** Handlers and the writing thread, as its notes say. */
  private final DropTracker drops;
  /** Every count; its notes say which thread writes each. */
  private final AuditMetrics metrics;
  /** Volatile flags; Lifecycle says who sets each. */
  private final Lifecycle life = new Lifecycle();
  /** Immutable: registered by open(), removed by close(). */
  private final Runnable shutdownHook;
  /** Immutable: registered by open(), removed by close(). */
  private final Runnable closeHook;
  /** Any thread that refuses an event, and a handler whose lead failed. */
  private final RateLimitedLog refusals = new RateLimitedLog(LOG, REFUSAL_LOG_INTERVAL_MS);
  /**
   * Guards the writer's formatter, buffer and sink whenever more than one thread may write: held by a handler
   * leading a write ({@link #lead}) and by the writer thread in that mode, by the shutdown hook and a dying
   * writer as they hand the sink over, by a handler writing and sealing its own record after the hand-over,
   * and by the last hook as it closes the sink.
   */
  private final ReentrantLock writeLock = new ReentrantLock();
  /** Written once by open(); read by stats(). */
  private volatile AuditSink sink;
  /** Written once by open(); read by leaders, direct writers and the shutdown hook. */
  private volatile AuditWriter writer;
  /** Written once by open(); handlers unpark it, close() and the hook join it. */
  private volatile Thread writerThread;
  /**
   * Keeps the files a shipper has not finished from rotation; null when the file is not shipped. Thread-safe
   * itself (see its note).
   */
  private final SpoolGuard spoolGuard;
  /**
   * Written once by open() (null when nothing is shipped, or its shipper could not be made); stopped by close()
   * or the shutdown hook after the writer has finished.
   */
  private volatile Shipper shipper;
  /** Written once by open() (null if metrics2 refused it); unregistered by the thread that finishes the writer. */
  private volatile NnauditMetricsSource metricsSource;
  /**
   * The name of the sealed file's anchor bean ({@link SealAnchor}), null when the file is not sealed or it could
   * not be registered. Written once by open(); unregistered with the metrics source.
   */
  private volatile ObjectName sealAnchor;

  private AuditPipeline(NnauditSettings settings) {
    this.settings = settings;
    this.queue = new ArrayBlockingQueue<>(settings.queueCapacity());
    this.metrics = new AuditMetrics(settings.percentileIntervals());
    this.drops = new DropTracker(metrics, settings.dropWarnIntervalMs(), LOG, settings.file().getPath());
    this.shutdownHook = this::shutdown;
    this.closeHook = this::closeAtExit;
    this.spoolGuard = settings.shipperFactory() == null ? null : new SpoolGuard(settings.spoolMaxBackups());
  }

  /**
   * Handlers lead writes only where a write is all a response waits for and a handler may wait: ack policy
   * write, durability none (an fsync stays off handler threads), BLOCK (a DROP handler never waits), and a
   * sink whose failed write leaves its destination as it was ({@link AuditSink#undoesFailedWrites}): a
   * leader's failed chunk is formatted again by the writer thread, which a sink that keeps part of a failed
   * chunk (log4j2) would deliver twice.
   */
  static boolean leadsByHandlers(NnauditSettings settings, AuditSink sink) {
    return settings.ackPolicy() == AckPolicy.WRITE && settings.durability() == Durability.NONE
        && settings.queueFullPolicy() == QueueFullPolicy.BLOCK && sink.undoesFailedWrites();
  }

  /** Opens the sink (failing with a message naming the key) and starts the writer thread. */
  static AuditPipeline start(NnauditSettings settings) {
    AuditPipeline p = prepare(settings);
    p.open(p.openSink(settings));
    return p;
  }

  /**
   * A pipeline that queues events but does not write yet: a replacement is published before the pipeline it
   * replaces closes the file, so that no event finds neither open. The settings checked the sink class.
   */
  static AuditPipeline prepare(NnauditSettings settings) {
    return new AuditPipeline(settings);
  }

  /** Starts writing to {@code sink}: the writer thread, the metrics source and the two shutdown hooks. */
  void open(AuditSink sink) {
    RecordFormatter formatter = settings.recordFormat() == RecordFormat.JSON
        ? new JsonRecordFormatter(settings.formatOptions()) : new HdfsRecordFormatter(settings.formatOptions());
    AuditWriter w = new AuditWriter(life, queue, queuedBytes, leadsByHandlers(settings, sink) ? writeLock : null,
        sink, formatter, drops, settings, metrics);
    Thread t = new Thread(() -> runWriter(w), "nnaudit-writer[" + settings.file().getName() + "]");
    t.setDaemon(true);
    this.sink = sink;
    writer = w;
    writerThread = t;
    Shipper sh = spoolGuard == null ? null : makeShipper();
    shipper = sh;
    try {
      ShutdownHookManager.get().addShutdownHook(shutdownHook, SHUTDOWN_HOOK_PRIORITY,
          settings.shutdownTimeoutMs() + (sh == null ? 0 : settings.shipStopTimeoutMs() + SHIPPER_STOP_SLACK_MS) + 1000,
          TimeUnit.MILLISECONDS);
      ShutdownHookManager.get().addShutdownHook(closeHook, CLOSE_HOOK_PRIORITY,
          settings.shutdownTimeoutMs() + CLOSE_HOOK_SLACK_MS, TimeUnit.MILLISECONDS);
    } catch (IllegalStateException shutdownInProgress) {
      LOG.warn("nnaudit: the JVM is already stopping; {} gets no shutdown hook", settings.file());
    }
    t.start();
    if (sh != null) {
      sh.start();
    }
    metricsSource = NnauditMetricsSource.register(this);
    if (sink instanceof RollingFileSink) {
      sealAnchor = SealAnchor.register((RollingFileSink) sink, settings.file().getPath());
    }
    LOG.info("nnaudit: started audit pipeline ({})", settings);
    String weakened = settings.weakenedSyncGuarantee();
    if (weakened != null) {
      LOG.warn("nnaudit: durability=sync is weakened: {}; such operations are acknowledged without a durable "
          + "record (they are counted as dropped)", weakened);
    }
  }

  /**
   * The shipper, made before the writer starts: it reads its checkpoint and tells the guard which files it
   * needs (until then every file is held). Its settings were checked when the settings were read; if it still
   * cannot be made, the NameNode goes on auditing to the file without shipping, and says so.
   */
  private Shipper makeShipper() {
    try {
      return settings.shipperFactory().create(new ShipperContext(settings.sinkContext().conf(), settings.file(),
          settings.sinkContext().maxBackups(), ConfigSpelling.of(settings.recordFormat()), spoolGuard));
    } catch (RuntimeException | LinkageError e) {
      LOG.error("nnaudit: could not start shipping {}: {}; the records stay in the file, and nothing is shipped "
          + "until the next start", settings.file(), e.toString(), e);
      spoolGuard.release(); // rotation keeps nnaudit.file.max.backups, as without shipping
      return null;
    }
  }

  /** After the writer has finished: ships for at most nnaudit.kafka.stop.timeout.ms more, then stops. */
  private void stopShipper() {
    Shipper sh = shipper;
    if (sh != null) {
      sh.stop(settings.shipStopTimeoutMs());
    }
  }

  /** The shipper's counts and lag now, or null when nothing is shipped. */
  public ShipStats shipStats() {
    Shipper sh = shipper;
    return sh == null ? null : sh.stats();
  }

  private void runWriter(AuditWriter w) {
    boolean normal = false;
    try {
      w.run();
      normal = true;
    } finally {
      try {
        if (!normal) {
          degradeToDirect(w);
        }
      } finally {
        life.writerExited = true; // even if degrading failed: offers then find the pipeline gone
      }
    }
  }

  /**
   * The writer died of something it could not handle: refuse queueing, fail what it held and what it left
   * queued, and let handlers write their own records from now on. Runs on the dying writer thread, which
   * sets the flags before anything that could fail again (logging).
   */
  private void degradeToDirect(AuditWriter w) {
    synchronized (this) {
      life.direct = true;
      life.closed = true;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!life.isQuiescent() && System.nanoTime() - deadline < 0) {
      Thread.yield();
    }
    String why = "the audit writer ended unexpectedly";
    writeLock.lock(); // a leading handler may be writing: wait for it, and hold off the next
    try {
      try {
        w.abortAll(why);
      } catch (Throwable t) {
        // Each step on its own: the queue's tickets are aborted even if the batch in hand could not be.
        refusals.error("could not fail the audit writer's batch in hand", t);
      }
      AuditEvent e;
      while ((e = queue.poll()) != null) {
        try {
          metrics.countWriteFailed(1);
          if (e.ticket != null) {
            metrics.countAborted(1);
            e.ticket.abort(why);
          }
        } catch (Throwable t) {
          refusals.error("could not answer an operation whose record the audit writer left queued", t);
        }
      }
    } finally {
      life.handedOver = true;
      writeLock.unlock();
    }
    LOG.error("nnaudit: the audit writer for {} ended unexpectedly; handlers now write their own records",
        settings.file());
  }

  /**
   * A replacement whose sink could not be opened at all: refuse what it queued (answered with errors) and
   * everything after, rather than queue events nobody will write.
   */
  void failUnopened(String why) {
    synchronized (this) {
      life.closed = true;
    }
    while (!life.isQuiescent()) {
      Thread.yield();
    }
    AuditEvent e;
    while ((e = queue.poll()) != null) {
      refuse(e, why);
      if (e.ticket != null) {
        e.ticket.abort(why);
      }
    }
  }

  /**
   * Opens the sink of {@code settings} (this pipeline's, or the previous ones' when this pipeline's cannot be
   * opened) with their sink factory; throws {@link IllegalArgumentException} naming the key when it cannot be
   * opened. When this pipeline ships that file, its rotation keeps what the shipper has not finished.
   */
  AuditSink openSink(NnauditSettings s) {
    boolean shipped = spoolGuard != null && s.file().equals(settings.file());
    return s.sinkFactory().open(shipped ? s.sinkContext().withSpoolGuard(spoolGuard) : s.sinkContext());
  }

  /** What became of an offered event. */
  public enum Offer {
    /** In the queue; the writer will write it. */
    ACCEPTED,
    /** Written on the calling thread (after the shutdown hook handed the sink over, before the last hook). */
    WRITTEN,
    /** Dropped by the DROP policy; counted. The operation may be acknowledged (DROP is lossy by choice). */
    DROPPED,
    /** Could not be queued or written; counted. The operation must not be acknowledged as audited. */
    REFUSED,
    /** The pipeline was closed before the event entered; not counted: follow the slot, or {@link #refuse}. */
    CLOSED
  }

  /** Hands one event to the writer, by the queue-full policy. Never throws. */
  public Offer offer(AuditEvent e) {
    life.handlersInside.incrementAndGet();
    try {
      if (life.closed || life.writerExited) {
        return Offer.CLOSED;
      }
      if (reserve(e.heapBytes)) {
        if (queue.offer(e)) {
          metrics.countAccepted();
          return Offer.ACCEPTED;
        }
        queuedBytes.addAndGet(-e.heapBytes);
      }
      Thread t = writerThread;
      if (t != null) {
        LockSupport.unpark(t); // the queue is full: end the writer's linger
      }
      if (settings.queueFullPolicy() == QueueFullPolicy.DROP) {
        drops.onDrop(e.timeMillis, "queue full, policy DROP");
        return Offer.DROPPED;
      }
      return offerBlocking(e);
    } finally {
      life.handlersInside.decrementAndGet();
    }
  }

  private Offer offerBlocking(AuditEvent e) {
    metrics.countBlockedWait();
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(settings.handlerMaxWaitMs());
    boolean interrupted = false;
    try {
      while (true) {
        if (reserve(e.heapBytes)) {
          try {
            if (queue.offer(e, BLOCK_WAIT_SLICE_MS, TimeUnit.MILLISECONDS)) {
              metrics.countAccepted();
              return Offer.ACCEPTED;
            }
          } catch (InterruptedException ie) {
            interrupted = true; // keep waiting: BLOCK loses nothing
          }
          queuedBytes.addAndGet(-e.heapBytes);
        } else {
          LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1)); // the writer frees bytes per batch
          if (Thread.interrupted()) {
            interrupted = true;
          }
        }
        if (life.closed || life.writerExited) {
          return Offer.CLOSED; // the caller writes directly, follows the slot, or refuses
        }
        if (System.nanoTime() - deadline >= 0) {
          refuse(e, "the audit queue stayed full for " + settings.handlerMaxWaitMs() + " ms ("
              + NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY + ")");
          return Offer.REFUSED;
        }
      }
    } finally {
      metrics.addBlockedWaitNanos(System.nanoTime() - start);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Group commit led by a handler. After its event was accepted, a handler that finds no one writing takes
   * the write lock and writes everything queued (its own event and others') with one write call, completing
   * the batch's tickets, so that its response does not wait for the writer thread to be scheduled. A handler
   * that finds the lock taken returns at once: the holder checks the queue again after it lets go, so nothing
   * is left behind; after {@link #LEAD_ROUNDS} batches a handler unparks the writer thread for the rest. A
   * leader writes once and never retries: if the sink refuses, the unwritten events (tickets still pending)
   * go to the writer thread, which writes them first under the failure policy, and handlers stop leading
   * until it has written again. The thread's interrupt flag is cleared around each write (an interrupted
   * FileChannel closes itself) and restored. Never throws.
   */
  public void lead() {
    AuditWriter w = writer;
    if (w == null || !w.ledByHandlers()) {
      return; // a replacement not yet open: its writer thread will write what it queued
    }
    boolean interrupted = Thread.interrupted();
    try {
      for (int round = 0; round < LEAD_ROUNDS; round++) {
        if (life.closed || w.leadersPaused()) {
          LockSupport.unpark(writerThread); // the writer thread (or the shutdown hook) takes it
          return;
        }
        if (queue.isEmpty()) {
          return;
        }
        if (!writeLock.tryLock()) {
          return; // the holder checks the queue again after it lets go
        }
        try {
          if (!life.closed) { // else the writer thread or the shutdown hook owns what is left
            w.writeQueued();
          }
        } finally {
          writeLock.unlock();
        }
        interrupted |= Thread.interrupted();
      }
      if (!queue.isEmpty() || w.leadersPaused()) {
        LockSupport.unpark(writerThread);
      }
    } catch (Throwable t) {
      LockSupport.unpark(writerThread);
      refusals.error("a handler could not write the audit queue; the writer thread takes it over", t);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Takes {@code bytes} of the queue's byte budget, or says no. An event larger than the whole budget is let in
   * when nothing else holds any of it, so that it is never refused for its size alone.
   */
  private boolean reserve(long bytes) {
    long after = queuedBytes.addAndGet(bytes);
    if (after <= settings.queueCapacityBytes() || after == bytes) {
      return true;
    }
    queuedBytes.addAndGet(-bytes);
    return false;
  }

  /** Heap held by queued events now (and by the writer's batch in hand). */
  long queuedBytes() {
    return queuedBytes.get();
  }

  /**
   * For an event that found this pipeline closed (and no replacement): after the shutdown hook, writes it on
   * the calling thread once the sink is handed over, until the last hook takes it back; otherwise refuses it.
   * Never throws.
   */
  public Offer afterClose(AuditEvent e) {
    if (!life.direct) {
      refuse(e, "the audit pipeline is closed");
      return Offer.REFUSED;
    }
    boolean interrupted = Thread.interrupted(); // an interrupt does not end the wait; the flag is restored
    try {
      return afterHandOver(e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private Offer afterHandOver(AuditEvent e) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
        Math.min(settings.handlerMaxWaitMs(), settings.shutdownTimeoutMs() + 1000));
    boolean interrupted = false; // interrupts during the wait, restored after the write
    try {
      while (!life.handedOver) {
        if (life.ended) {
          refuse(e, ENDED);
          return Offer.REFUSED;
        }
        if (life.abandoned || System.nanoTime() - deadline >= 0) {
          refuse(e, "the audit writer did not finish before the NameNode stopped");
          return Offer.REFUSED;
        }
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
        interrupted |= Thread.interrupted();
      }
      boolean locked = false;
      while (!locked) {
        try {
          locked = writeLock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
          if (!locked) {
            refuse(e, "another handler held the audit file past " + NnauditConfigKeys.HANDLER_MAX_WAIT_MS_KEY);
            return Offer.REFUSED;
          }
        } catch (InterruptedException ie) {
          interrupted = true; // keep waiting, to the same deadline
        }
      }
      try {
        if (life.ended) { // checked under the lock: the last hook closes the sink under it
          refuse(e, ENDED);
          return Offer.REFUSED;
        }
        if (writer.writeDirect(e, deadline)) {
          metrics.countDirectWrite();
          return Offer.WRITTEN;
        }
      } finally {
        writeLock.unlock();
      }
      return Offer.REFUSED; // the committer counted it and settled its ticket
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Counts an event that will have no record and whose operation must not be acknowledged as audited. */
  void refuse(AuditEvent e, String why) {
    drops.onDrop(e.timeMillis, why);
    metrics.countAborted(1);
    refusals.error("an audit event was refused and its operation is not acknowledged as audited: " + why, null);
  }

  /** The metrics2 source name of this pipeline (as in /jmx), or null when metrics could not be registered. */
  public String metricsSourceName() {
    NnauditMetricsSource s = metricsSource;
    return s == null ? null : s.name();
  }

  /**
   * The name of the bean that shows this pipeline's latest seal live ({@code NnauditSeal...}, as in /jmx), or
   * null when the file is not sealed or the bean could not be registered.
   */
  public String sealAnchorName() {
    ObjectName n = sealAnchor;
    return n == null ? null : n.getKeyProperty("name");
  }

  public void countCaptureFailure() {
    metrics.countCaptureFailure();
  }

  AuditMetrics metrics() {
    return metrics;
  }

  public boolean isOpen() {
    return life.isOpen();
  }

  public NnauditSettings settings() {
    return settings;
  }

  /**
   * Waits until every event accepted before this call has been written (or has failed), up to the timeout.
   * Returns whether it got there.
   */
  public boolean awaitWritten(long timeoutMs) throws InterruptedException {
    long target = metrics.accepted();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (metrics.acceptedSettled() < target) {
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  /**
   * The first of the two JVM shutdown hooks: drains what was accepted, then hands the open sink to the
   * handlers, which write their own records until {@link #closeAtExit} (see the design note). Returns whether
   * the hand-over happened.
   */
  public boolean shutdown() {
    synchronized (this) {
      if (life.closed) {
        return life.handedOver;
      }
      life.direct = true;
      life.closed = true;
    }
    boolean done = finishWriter(settings.shutdownTimeoutMs());
    if (done) {
      writeLock.lock(); // a writer that died meanwhile may have handed over already
      try {
        if (!life.handedOver && !life.ended) { // ended: a close() of an embedder's closed the sink meanwhile
          writer.forceBeforeHandOver();
          life.handedOver = true;
        }
      } finally {
        writeLock.unlock();
      }
      LOG.info("nnaudit: the NameNode is stopping; {} drained, handlers now write their own records until the "
          + "last shutdown hook closes it: {}", settings.file(), stats());
    }
    stopShipper(); // what handlers write from now on is shipped at the next start
    return done;
  }

  /**
   * The last of Hadoop's shutdown hooks, after which the JVM halts: ends the handlers' direct writes and closes
   * the sink, so that nothing is written after its last seal (see the design note, steps 5 to 7). Waits, for at
   * most {@code nnaudit.shutdown.timeout.ms} in all, for a writer thread the first hook abandoned and for the
   * write lock; an interrupt (Hadoop cancels a hook past its timeout) ends the wait. Does nothing for a
   * pipeline that never went direct: {@link #close} or its writer closes that sink. Returns whether it closed
   * the sink without an error.
   */
  public boolean closeAtExit() {
    return endDirectWrites(settings.shutdownTimeoutMs(), true);
  }

  /**
   * For a pipeline gone direct (the shutdown hook ran, or the writer died) and not yet ended: refuses the
   * handlers' direct writes from now on, waits, for at most {@code timeoutMs} in all, for the writer thread to
   * have ended and for the write lock, and closes the sink under it. Returns whether it closed the sink without
   * an error; false at once when the pipeline is not direct or was ended already.
   */
  private boolean endDirectWrites(long timeoutMs, boolean atExit) {
    synchronized (this) {
      if (!life.direct || life.ended) {
        return false;
      }
      life.ended = true; // before the lock: a handler that takes it after us writes nothing
    }
    AuditWriter w = writer;
    Thread t = writerThread;
    if (w == null || t == null) {
      return false;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    String holder = "the audit writer";
    try {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (!t.isAlive()) {
        holder = "a handler writing its own record";
        if (writeLock.tryLock(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
          boolean closed;
          try {
            closed = w.closeAtExit();
          } finally {
            writeLock.unlock();
          }
          String line = "closed " + settings.file() + (atExit ? " as the NameNode stops" : "")
              + (closed ? "" : " (with an error: " + w.lastCloseFailure() + ")")
              + "; later operations are answered with an error: " + stats();
          if (atExit) {
            exitLine(closed ? "INFO" : "ERROR", line);
          } else if (closed) {
            LOG.info("nnaudit: {}", line);
          } else {
            LOG.error("nnaudit: {}", line);
          }
          return closed;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // at exit: Hadoop gave up on this hook, and the JVM halts now
      holder += " (the wait was interrupted)";
    }
    String line = "could not close " + settings.file() + (atExit ? " as the NameNode stops" : "") + ": " + holder
        + " held it past " + timeoutMs + " ms" + (atExit ? " (" + NnauditConfigKeys.SHUTDOWN_TIMEOUT_MS_KEY + ")" : "")
        + "; a record written meanwhile may be left without a seal: " + stats();
    if (atExit) {
      exitLine("ERROR", line);
    } else {
      LOG.error("nnaudit: {}", line);
    }
    return false;
  }

  /**
   * A line of the last hook. Hadoop's SHUTDOWN_MSG hook, which runs before it, shuts log4j down, so the line
   * goes to standard error (a NameNode's .out file) instead of the log.
   */
  private static void exitLine(String level, String text) {
    System.err.println(Instant.now() + " " + level + " nnaudit: " + text);
  }

  /**
   * Stops taking events, drains what was accepted into the sink and closes it; idempotent. A pipeline gone
   * direct (after {@link #shutdown}, or a writer that died) has its direct writes ended and its sink closed, as
   * {@link #closeAtExit} does. Returns true when the writer finished within {@code timeoutMs}.
   */
  public boolean close(long timeoutMs) {
    boolean already;
    synchronized (this) {
      already = life.closed;
      life.closed = true;
    }
    try {
      ShutdownHookManager.get().removeShutdownHook(shutdownHook);
      ShutdownHookManager.get().removeShutdownHook(closeHook);
    } catch (IllegalStateException shutdownInProgress) {
      // The JVM is already running hooks: nothing to remove; the last one does nothing once the sink is closed.
    }
    if (already) {
      boolean done = writerThread == null || joinWriter(timeoutMs);
      endDirectWrites(timeoutMs, false);
      return done;
    }
    boolean done = finishWriter(timeoutMs);
    stopShipper();
    if (done) {
      LOG.info("nnaudit: closed audit pipeline for {}: {}", settings.file(), stats());
    }
    return done;
  }

  /** After closed is set: wakes the writer, waits for it, and abandons it at the timeout. */
  private boolean finishWriter(long timeoutMs) {
    Thread t = writerThread;
    if (t == null) {
      return true;
    }
    LockSupport.unpark(t);
    boolean done = joinWriter(timeoutMs);
    NnauditMetricsSource source = metricsSource;
    if (source != null) {
      source.unregister();
    }
    ObjectName anchor = sealAnchor;
    if (anchor != null) {
      SealAnchor.unregister(anchor);
    }
    if (!done) {
      life.abandoned = true; // a failing sink is no longer retried; the writer fails what is left and ends
      // Wait for it to end, so that a replacement never opens the file while this writer can still touch it.
      joinWriter(Math.max(1000, settings.failureRetryIntervalMs() * 2));
      LOG.error("nnaudit: the audit writer for {} did not finish within {} ms; {} accepted events are not yet "
          + "written and their operations will not be acknowledged: {}", settings.file(), timeoutMs,
          queue.size(), stats());
    }
    return done;
  }

  private boolean joinWriter(long timeoutMs) {
    Thread t = writerThread;
    try {
      t.join(Math.max(1, timeoutMs));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !t.isAlive();
  }

  /** Every count and gauge of this pipeline, read now: what its metrics and its log lines report. */
  public AuditStats stats() {
    AuditStats.Builder b = metrics.snapshot();
    b.queueDepth = queue.size();
    b.queueCapacity = settings.queueCapacity();
    b.queueDepthBytes = queuedBytes.get();
    b.queueCapacityBytes = settings.queueCapacityBytes();
    return b.sinkCounts(sink).build();
  }
}
